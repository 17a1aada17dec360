//! The integration test of a Rust controller, as kubebuilder scaffolds one next to each
//! controller: `src/integration/<module>.rs`, run against a real API server by
//! `make test-integration`. With it come the suite module the tests share
//! (`src/integration/mod.rs`), its `#[cfg(test)] mod integration;` in src/main.rs and the
//! dev-dependency on the runtime's `envtest` and `test-support` features (the controller's
//! unit tests run against the latter's scripted API server), each added once.
use super::ControllerName;
use super::context::{IntegrationContext, RustApiContext};
use crate::error::Result;
use crate::model::ApiSpec;
use crate::scaffold::type_names::TypeNames;
use crate::scaffold::{EditOutcome, Policy, Tree, toml};
use crate::templates::{self, Renderer};

const TEMPLATES: &str = "api/integration";
const SUITE: &str = "src/integration/mod.rs";
const MAIN: &str = "src/main.rs";
const MANIFEST: &str = "Cargo.toml";
/// The runtime crate and the feature that starts a control plane in tests.
const RUNTIME: &str = "rusty-sdk-runtime";
const ENVTEST: &str = "envtest";
/// The runtime's feature with the scripted API server of controllers' unit tests.
pub const TEST_SUPPORT: &str = "test-support";

/// Stage the test of `controller`, of `spec` (a deploy-image one when `image`).
pub fn stage(
    tree: &mut Tree,
    renderer: &mut Renderer,
    api: &RustApiContext,
    spec: &ApiSpec,
    controller: &ControllerName,
    image: bool,
) -> Result<()> {
    let module = controller.module.as_str();
    let template = if image {
        "image_controller.rs.tera"
    } else {
        "controller.rs.tera"
    };
    let path = format!("{TEMPLATES}/{template}");
    let context = templates::context(&IntegrationContext {
        api,
        names: TypeNames::for_template(templates::text(&path)?, &spec.group, &spec.kind),
        condition: &controller.condition(),
        controller_module: module,
    })?;
    let text = renderer.render(&path, &context)?;
    tree.add(&format!("src/integration/{module}.rs"), text, Policy::User);

    if !tree.exists(SUITE) {
        let suite = renderer.render(&format!("{TEMPLATES}/mod.rs.tera"), &context)?;
        tree.add(SUITE, suite, Policy::User);
    }
    tree.insert_at_marker(SUITE, "integration-tests", &format!("mod {module};"))?;
    declare_suite(tree)?;
    for feature in [ENVTEST, TEST_SUPPORT] {
        ensure_runtime_dev_feature(tree, feature)?;
    }
    Ok(())
}

/// Make the project's tests build the runtime with `feature`, once.
pub fn ensure_runtime_dev_feature(tree: &mut Tree, feature: &str) -> Result<()> {
    let manifest = tree.read(MANIFEST)?.unwrap_or_default();
    let version = crate::versions::RUNTIME_VERSION;
    let (outcome, updated) =
        toml::ensure_dev_dependency_feature(MANIFEST, &manifest, RUNTIME, version, feature)?;
    if outcome == EditOutcome::Applied {
        tree.edit(MANIFEST, |_| Ok(updated))?;
    }
    Ok(())
}

/// The lines that make src/integration a module of the manager's tests.
const DECLARATION: [&str; 3] = [
    "// Integration tests of the controllers on a real API server: `make test-integration`.",
    "#[cfg(test)]",
    "mod integration;",
];

/// Declare the suite in src/main.rs, once: above its unit tests (clippy wants no item after
/// them), else at its end; with the file's line endings (CRLF stays CRLF).
fn declare_suite(tree: &mut Tree) -> Result<()> {
    let main = tree.read(MAIN)?.unwrap_or_default();
    if main.lines().any(|line| line.trim() == "mod integration;") {
        return Ok(());
    }
    let newline = if main.contains("\r\n") { "\r\n" } else { "\n" };
    let declaration = DECLARATION.map(|line| format!("{line}{newline}")).concat();
    let tests = format!("#[cfg(test)]{newline}mod tests {{");
    tree.edit(MAIN, |main| {
        Ok(match main.find(&tests) {
            Some(at) if at == 0 || main[..at].ends_with('\n') => {
                format!("{}{declaration}{newline}{}", &main[..at], &main[at..])
            }
            _ if main.is_empty() || main.ends_with('\n') => format!("{main}{newline}{declaration}"),
            _ => format!("{main}{newline}{newline}{declaration}"),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declared(main: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        let mut tree = Tree::new(dir.path());
        tree.add(MAIN, main, Policy::User);
        declare_suite(&mut tree).unwrap();
        let once = tree.read(MAIN).unwrap().unwrap();
        declare_suite(&mut tree).unwrap();
        assert_eq!(
            tree.read(MAIN).unwrap().unwrap(),
            once,
            "a second run changed it"
        );
        once
    }

    #[test]
    fn the_suite_is_declared_once_above_the_unit_tests_or_at_the_end() {
        let lines = DECLARATION.join("\n");
        let main = "fn main() {}\n\n#[cfg(test)]\nmod tests {\n}\n";
        assert_eq!(
            declared(main),
            format!("fn main() {{}}\n\n{lines}\n\n#[cfg(test)]\nmod tests {{\n}}\n")
        );
        assert_eq!(
            declared("fn main() {}\n"),
            format!("fn main() {{}}\n\n{lines}\n")
        );
        let crlf = "fn main() {}\r\n\r\n#[cfg(test)]\r\nmod tests {\r\n}\r\n";
        let lines = DECLARATION.join("\r\n");
        assert_eq!(
            declared(crlf),
            format!("fn main() {{}}\r\n\r\n{lines}\r\n\r\n#[cfg(test)]\r\nmod tests {{\r\n}}\r\n")
        );
        let mine = "fn main() {}\n\n#[cfg(test)]\nmod integration;\n";
        assert_eq!(declared(mine), mine);
    }
}
