//! The `// +rusty:storageversion` marker, kubebuilder's `+kubebuilder:storageversion`: on
//! the type of one version of a kind in the api crate, it makes crdgen store that version.
//! The hub of `create webhook --conversion` is the version stored, as kubebuilder has it, so
//! the command puts the marker on the hub's type, and refuses a hub when the marker is on
//! another version of the kind.
use super::WebhookSettings;
use super::conversion::api_dir;
use crate::error::{Error, Result};
use crate::project::Project;
use crate::scaffold::Tree;

pub const MARKER: &str = "// +rusty:storageversion";

/// The marker on the hub's type, unless it is there; an error if another version has it.
pub fn stage(tree: &mut Tree, settings: &WebhookSettings, project: &Project) -> Result<()> {
    let spec = &settings.spec;
    let hub = spec.version.as_str();
    let file = |module: &str| format!("{}/{}.rs", api_dir(module), spec.kind.module());
    for resource in &project.resources {
        let Some(module) = &resource.path else {
            continue;
        };
        if resource.group != spec.group.as_str() || resource.kind != spec.kind.as_str() {
            continue;
        }
        let path = file(module);
        let marked = tree.read(&path)?.is_some_and(|text| has_marker(&text));
        if marked && resource.version != hub {
            return Err(Error::invalid(format!(
                "--version {hub} would be the hub, the version stored, but {path} marks {} of {} `{MARKER}`; pass --version {}, or move the marker to the type of {hub}",
                resource.version, spec.kind, resource.version
            )));
        }
    }
    let path = file(&settings.module_path);
    let Some(text) = tree.read(&path)? else {
        return Ok(());
    };
    if let Some(marked) = with_marker(&text) {
        tree.edit(&path, |_| Ok(marked))?;
    }
    Ok(())
}

fn has_marker(text: &str) -> bool {
    text.lines().any(|line| line.trim() == MARKER)
}

/// `text` with the marker above the doc comment and attributes of its
/// `#[derive(CustomResource ...)]` type, in the file's line ending; `None` when it has the
/// marker or no such type.
fn with_marker(text: &str) -> Option<String> {
    if has_marker(text) {
        return None;
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let derive = lines.iter().position(|line| {
        let line = line.trim_start();
        line.starts_with("#[derive(") && line.contains("CustomResource")
    })?;
    let top = lines[..derive]
        .iter()
        .rposition(|line| {
            let line = line.trim_start();
            !(line.starts_with("///") || line.starts_with("#["))
        })
        .map_or(0, |index| index + 1);
    let newline = if lines[derive].ends_with("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let mut out = String::with_capacity(text.len() + MARKER.len() + 2);
    lines[..top].iter().for_each(|line| out.push_str(line));
    out.push_str(MARKER);
    out.push_str(newline);
    lines[top..].iter().for_each(|line| out.push_str(line));
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_marker_goes_above_the_docs_of_the_custom_resource() {
        let text = "use kube::CustomResource;\r\n\r\n/// What it asks for.\r\n#[derive(CustomResource, Clone)]\r\n#[kube(version = \"v1\")]\r\npub struct WidgetSpec {}\r\n";
        let marked = with_marker(text).unwrap();
        assert_eq!(
            marked,
            "use kube::CustomResource;\r\n\r\n// +rusty:storageversion\r\n/// What it asks for.\r\n#[derive(CustomResource, Clone)]\r\n#[kube(version = \"v1\")]\r\npub struct WidgetSpec {}\r\n"
        );
        assert_eq!(with_marker(&marked), None);
        assert_eq!(with_marker("pub struct Plain;\n"), None);
    }
}
