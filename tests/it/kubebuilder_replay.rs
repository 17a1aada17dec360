//! kubebuilder's own sample projects, made with rusty-sdk: every command of kubebuilder's
//! `test/testdata/generate.sh` (kubernetes-sigs/kubebuilder, master at
//! 5c400728930120dd385712db61cb0a937238ce81), as written there with `rusty-sdk` in place of
//! `$kb`. Each command either works as written, or is refused in one line that names what
//! to run for Rust instead, and the test then runs that. The projects must then build, pass
//! their tests and lint as kubebuilder's pass `make all`.
//!
//! The replays without a build are quick tests; one end-to-end test builds the three
//! projects (project-v4-with-plugins is multigroup's deploy-image, conversion and Grafana
//! commands on a namespaced manager, then its Helm chart).
use std::path::{Path, PathBuf};

use rusty_sdk_test_tools::needs;

use crate::e2e;
use crate::support::{read_tree, rusty, transcript};

/// What rusty-sdk does with one command of the script.
enum Then {
    /// It works as written.
    Works,
    /// It is refused with one line holding `why` and nothing is written; `instead` are the
    /// rusty-sdk commands that do the job for Rust, run next (`{crds}` is the folder of
    /// the external CRDs the tests keep).
    Refused {
        why: &'static str,
        instead: &'static [&'static str],
    },
}

/// One line of generate.sh, or of kubebuilder's book.
enum Step {
    /// `$kb <command>`.
    Kb(&'static str, Then),
    /// A command that asks (the book's `create api`), with the answers the book gives.
    Answered(&'static str, &'static str),
    /// `make <target>`: `all` is the end-to-end build; `build-installer` writes what the
    /// quick replays need of it, dist/install.yaml, with kustomize.
    Make(&'static str),
}

use Step::{Answered, Kb, Make};
use Then::{Refused, Works};

/// `init --plugins=go/v4` is kubebuilder's Go layout: refused, naming rusty-sdk's.
const GO_V4: &str = "rusty-sdk scaffolds Rust; for a Rust operator use --plugins=rust";

/// kubebuilder's external kinds name a Go package; a Rust controller takes the CRD.
const GO_PACKAGE: &str = "names a Go package";

/// The commands shared by project-v4 and project-v4-multigroup for cert-manager's kinds and
/// for built-in kinds' webhooks come in each script below as kubebuilder writes them.
const CERTIFICATE_INSTEAD: &[&str] = &[
    "create api --group cert-manager --version v1 --kind Certificate --controller=true --resource=false --make=false --external-api-crd {crds}/certificates.cert-manager.io.yaml --external-api-domain=io",
];
const ISSUER_INSTEAD: &[&str] = &[
    "create api --group cert-manager --version v1 --kind Issuer --controller=true --resource=false --external-api-crd {crds}/issuers.cert-manager.io.yaml",
    "create webhook --group cert-manager --version v1 --kind Issuer --defaulting --external-api-domain=io",
];

fn project_v4() -> Vec<Step> {
    vec![
        Kb(
            r#"init --plugins="go/v4" --domain testproject.org --license apache2 --owner "The Kubernetes authors""#,
            Refused {
                why: GO_V4,
                instead: &[
                    r#"init --plugins=rust --domain testproject.org --license apache2 --owner "The Kubernetes authors""#,
                ],
            },
        ),
        // Waits on issue 28 item 2 (--controller-name), another helper's.
        Kb(
            "create api --group crew --version v1 --kind Captain --controller=true --resource=true --make=false --controller-name=captain",
            Works,
        ),
        Kb(
            "create api --group crew --version v1 --kind Captain --controller=true --resource=true --make=false --force",
            Works,
        ),
        // Waits on issue 28 item 2 (--controller-name).
        Kb(
            "create api --group crew --version v1 --kind Captain --controller=true --resource=false --make=false --controller-name=captain-backup",
            Works,
        ),
        Kb(
            "create webhook --group crew --version v1 --kind Captain --defaulting --make=false",
            Works,
        ),
        Kb(
            "create webhook --group crew --version v1 --kind Captain --programmatic-validation --make=false",
            Works,
        ),
        Kb(
            "create api --group crew --version v1 --kind FirstMate --controller=true --resource=true --make=false",
            Works,
        ),
        Kb(
            "create api --group crew --version v2 --kind FirstMate --controller=false --resource=true --make=false",
            Works,
        ),
        Kb(
            "create webhook --group crew --version v1 --kind FirstMate --conversion --make=false --spoke v2",
            Works,
        ),
        Kb(
            "create api --group crew --version v1 --kind Sailor --controller=true --resource=true --make=false",
            Works,
        ),
        Kb(
            "create webhook --group crew --version v1 --kind Sailor --defaulting --defaulting-path=/custom-mutate-sailor --make=false",
            Works,
        ),
        Kb(
            "create webhook --group crew --version v1 --kind Sailor --programmatic-validation --validation-path=/custom-validate-sailor --make=false",
            Works,
        ),
        Kb(
            "create api --group crew --version v1 --kind Admiral --plural=admirales --controller=true --resource=true --namespaced=false --make=false",
            Works,
        ),
        Kb(
            "create webhook --group crew --version v1 --kind Admiral --plural=admirales --defaulting --make=false",
            Works,
        ),
        Kb(
            "create webhook --group crew --version v1 --kind Admiral --plural=admirales --programmatic-validation --validation-path=/custom-validate-admiral --make=false",
            Works,
        ),
        Kb(
            r#"create api --group "cert-manager" --version v1 --kind Certificate --controller=true --resource=false --make=false --external-api-path=github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1 --external-api-domain=io --external-api-module=github.com/cert-manager/cert-manager@v1.20.2"#,
            Refused {
                why: GO_PACKAGE,
                instead: CERTIFICATE_INSTEAD,
            },
        ),
        // Waits on issue 28 item 1 (webhooks for external kinds), another helper's.
        Kb(
            r#"create webhook --group "cert-manager" --version v1 --kind Issuer --defaulting --external-api-path=github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1 --external-api-domain=io --external-api-module=github.com/cert-manager/cert-manager@v1.20.2"#,
            Refused {
                why: GO_PACKAGE,
                instead: ISSUER_INSTEAD,
            },
        ),
        // Waits on issue 28 item 1 (webhooks for core kinds).
        Kb(
            "create webhook --group core --version v1 --kind Pod --defaulting",
            Works,
        ),
        Kb(
            "create webhook --group apps --version v1 --kind Deployment --defaulting",
            Works,
        ),
        Kb(
            "create webhook --group apps --version v1 --kind Deployment --programmatic-validation",
            Works,
        ),
        Kb(
            "create api --group crew --version v1 --kind Navigator --controller=true --resource=true --ssa --make=false",
            Works,
        ),
        Make("all"),
        Make("build-installer"),
    ]
}

/// The deploy-image, conversion and Grafana commands of multigroup and with-plugins.
fn optional_plugins() -> Vec<Step> {
    vec![
        Kb(
            r#"create api --group example.com --version v1alpha1 --kind Memcached --image=memcached:1.6.26-alpine3.19 --image-container-command="memcached,--memory-limit=64,-o,modern,-v" --image-container-port="11211" --run-as-user="1001" --plugins="deploy-image/v1-alpha" --make=false"#,
            Works,
        ),
        Kb(
            r#"create api --group example.com --version v1alpha1 --kind Busybox --image=busybox:1.36.1 --plugins="deploy-image/v1-alpha" --make=false"#,
            Works,
        ),
        Kb(
            "create webhook --group example.com --version v1alpha1 --kind Memcached --programmatic-validation --make=false",
            Works,
        ),
        Kb(
            "create api --group example.com --version v1 --kind Wordpress --controller=true --resource=true  --make=false",
            Works,
        ),
        Kb(
            "create api --group example.com --version v2 --kind Wordpress --controller=false --resource=true  --make=false",
            Works,
        ),
        Kb(
            "create webhook --group example.com --version v1 --kind Wordpress --conversion --make=false --spoke v2",
            Works,
        ),
        // Waits on issue 28 item 7 (Grafana dashboards), another helper's.
        Kb("edit --plugins=grafana.kubebuilder.io/v1-alpha", Works),
    ]
}

fn project_v4_multigroup() -> Vec<Step> {
    let mut steps = vec![
        Kb(
            r#"init --plugins="go/v4" --multigroup --domain testproject.org --license apache2 --owner "The Kubernetes authors""#,
            Refused {
                why: GO_V4,
                instead: &[
                    r#"init --plugins=rust --multigroup --domain testproject.org --license apache2 --owner "The Kubernetes authors""#,
                ],
            },
        ),
        // Waits on issue 28 item 2 (--controller-name).
        Kb(
            "create api --group crew --version v1 --kind Captain --controller=true --resource=true --make=false --controller-name=captain",
            Works,
        ),
        Kb(
            "create api --group crew --version v1 --kind Captain --controller=true --resource=false --make=false --controller-name=captain-backup",
            Works,
        ),
        Kb(
            "create webhook --group crew --version v1 --kind Captain --defaulting --make=false",
            Works,
        ),
        Kb(
            "create webhook --group crew --version v1 --kind Captain --programmatic-validation --make=false",
            Works,
        ),
        Kb(
            "create api --group ship --version v1beta1 --kind Frigate --controller=true --resource=true --make=false",
            Works,
        ),
        Kb(
            "create api --group ship --version v1 --kind Destroyer --controller=true --resource=true --namespaced=false --make=false",
            Works,
        ),
        Kb(
            "create webhook --group ship --version v1 --kind Destroyer --defaulting --make=false",
            Works,
        ),
        Kb(
            "create api --group ship --version v2alpha1 --kind Cruiser --controller=true --resource=true --namespaced=false --make=false",
            Works,
        ),
        Kb(
            "create webhook --group ship --version v2alpha1 --kind Cruiser --programmatic-validation --make=false",
            Works,
        ),
        Kb(
            "create api --group sea-creatures --version v1beta1 --kind Kraken --controller=true --resource=true --make=false",
            Works,
        ),
        Kb(
            "create api --group sea-creatures --version v1beta2 --kind Leviathan --controller=true --resource=true --make=false",
            Works,
        ),
        Kb(
            "create api --group foo.policy --version v1 --kind HealthCheckPolicy --controller=true --resource=true --make=false",
            Works,
        ),
        Kb(
            "create api --group apps --version v1 --kind Deployment --controller=true --resource=false --make=false",
            Works,
        ),
        Kb(
            "create api --group foo --version v1 --kind Bar --controller=true --resource=true --make=false",
            Works,
        ),
        Kb(
            "create api --group fiz --version v1 --kind Bar --controller=true --resource=true --make=false",
            Works,
        ),
        Kb(
            r#"create api --group "cert-manager" --version v1 --kind Certificate --controller=true --resource=false --make=false --external-api-path=github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1 --external-api-domain=io --external-api-module=github.com/cert-manager/cert-manager@v1.20.2"#,
            Refused {
                why: GO_PACKAGE,
                instead: CERTIFICATE_INSTEAD,
            },
        ),
        // Waits on issue 28 item 1 (webhooks for external kinds).
        Kb(
            r#"create webhook --group "cert-manager" --version v1 --kind Issuer --defaulting --external-api-path=github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1 --external-api-domain=io --external-api-module=github.com/cert-manager/cert-manager@v1.20.2"#,
            Refused {
                why: GO_PACKAGE,
                instead: ISSUER_INSTEAD,
            },
        ),
        // Waits on issue 28 item 1 (webhooks for core kinds).
        Kb(
            "create webhook --group core --version v1 --kind Pod --programmatic-validation --make=false",
            Works,
        ),
        Kb(
            "create webhook --group apps --version v1 --kind Deployment --defaulting --make=false",
            Works,
        ),
        Kb(
            "create webhook --group apps --version v1 --kind Deployment --programmatic-validation --make=false",
            Works,
        ),
        Kb(
            "create api --group sea-creatures --version v1 --kind Prawn --controller=true --resource=true --ssa --make=false",
            Works,
        ),
    ];
    steps.extend(optional_plugins());
    steps.extend([Make("all"), Make("build-installer")]);
    steps
}

fn project_v4_with_plugins() -> Vec<Step> {
    let mut steps = vec![
        Kb(
            r#"init --plugins="go/v4" --namespaced --domain testproject.org --license apache2 --owner "The Kubernetes authors""#,
            Refused {
                why: GO_V4,
                instead: &[
                    r#"init --plugins=rust --namespaced --domain testproject.org --license apache2 --owner "The Kubernetes authors""#,
                ],
            },
        ),
        Kb("edit --namespaced --force", Works),
    ];
    steps.extend(optional_plugins());
    steps.extend([
        Make("all"),
        Make("build-installer"),
        Kb("edit --plugins=helm.kubebuilder.io/v2-alpha", Works),
        Kb(
            "edit --plugins=autoupdate.kubebuilder.io/v1-alpha",
            Refused {
                why: "run `rusty-sdk alpha update`",
                instead: &[],
            },
        ),
    ]);
    steps
}

/// kubebuilder's book, docs/book/src at the same commit: the getting-started guide, then the
/// `CronJob` tutorial (cronjob-tutorial.md, new-api.md, webhook-implementation.md) and its
/// multi-version sequel (api-changes.md, conversion.md), each `kubebuilder` command in order;
/// the custom-path variants of webhook-implementation.md are [`cronjob_custom_paths`], and
/// the quick start is [`quick_start`].
fn getting_started() -> Vec<Step> {
    vec![
        Kb("init --domain=example.com", Works),
        Answered(
            "create api --group cache --version v1alpha1 --kind Memcached",
            "y\ny\n",
        ),
        Kb(
            r#"edit --plugins="autoupdate/v1-alpha""#,
            Refused {
                why: "run `rusty-sdk alpha update`",
                instead: &[],
            },
        ),
    ]
}

/// quick-start.md at the same commit: its `kubebuilder` commands in order, the `create api`
/// answered as the book answers it.
fn quick_start() -> Vec<Step> {
    vec![
        Kb("init --domain my.domain --repo my.domain/guestbook", Works),
        Answered(
            "create api --group webapp --version v1 --kind Guestbook",
            "y\ny\n",
        ),
        Kb(
            r#"create api --group webapp --version v1alpha1 --kind Busybox --image=busybox:1.36.1 --plugins="deploy-image/v1-alpha""#,
            Works,
        ),
        Kb(
            r#"edit --plugins="autoupdate/v1-alpha""#,
            Refused {
                why: "run `rusty-sdk alpha update`",
                instead: &[],
            },
        ),
    ]
}

fn cronjob_tutorial() -> Vec<Step> {
    vec![
        Kb(
            "init --domain tutorial.kubebuilder.io --repo tutorial.kubebuilder.io/project",
            Works,
        ),
        Answered(
            "create api --group batch --version v1 --kind CronJob",
            "y\ny\n",
        ),
        Kb(
            "create webhook --group batch --version v1 --kind CronJob --defaulting --programmatic-validation",
            Works,
        ),
        // api-changes.md answers yes to the resource and no to a second controller.
        Answered(
            "create api --group batch --version v2 --kind CronJob",
            "y\nn\n",
        ),
        Kb(
            "create webhook --group batch --version v1 --kind CronJob --conversion --spoke v2",
            Works,
        ),
    ]
}

/// webhook-implementation.md's "Custom webhook paths": its first two commands one after the
/// other, and its third (both paths at once, a `\` continuation joined) on its own, each in
/// place of the tutorial's `create webhook`.
fn cronjob_custom_paths() -> [(Vec<Step>, [&'static str; 2]); 2] {
    let api = || {
        vec![
            Kb(
                "init --domain tutorial.kubebuilder.io --repo tutorial.kubebuilder.io/project",
                Works,
            ),
            Answered(
                "create api --group batch --version v1 --kind CronJob",
                "y\ny\n",
            ),
        ]
    };
    let mut one_by_one = api();
    one_by_one.extend([
        Kb(
            "create webhook --group batch --version v1 --kind CronJob --defaulting --defaulting-path=/my-custom-mutate-path",
            Works,
        ),
        Kb(
            "create webhook --group batch --version v1 --kind CronJob --programmatic-validation --validation-path=/my-custom-validate-path",
            Works,
        ),
    ]);
    let mut both = api();
    both.push(Kb(
        "create webhook --group batch --version v1 --kind CronJob --defaulting --programmatic-validation --defaulting-path=/custom-mutate --validation-path=/custom-validate",
        Works,
    ));
    [
        (
            one_by_one,
            ["/my-custom-mutate-path", "/my-custom-validate-path"],
        ),
        (both, ["/custom-mutate", "/custom-validate"]),
    ]
}

/// A command line split as the shell does for these: on spaces, with `"..."` quoting.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            ' ' if !quoted => {
                if any {
                    out.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            _ => {
                word.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(word);
    }
    out
}

fn crds() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/external-crds")
}

/// Run `line` with rusty-sdk in `root`, no answers on stdin.
fn run(root: &Path, line: &str) -> std::process::Output {
    answer(root, line, "")
}

/// Run `line` with rusty-sdk in `root`, with `answers` on stdin.
fn answer(root: &Path, line: &str, answers: &str) -> std::process::Output {
    let line = line.replace("{crds}", &crds().display().to_string());
    rusty(root)
        .args(words(&line))
        .write_stdin(answers)
        .output()
        .unwrap()
}

/// Replay `steps` in `root` (an empty folder named after the project); the steps that did
/// not do what they should, each with its transcript. `make all` is left to the caller.
fn replay(root: &Path, steps: &[Step]) -> Vec<String> {
    let mut wrong = Vec::new();
    for step in steps {
        match step {
            Make("all") => {}
            Make("build-installer") => {
                let install = e2e::kustomize(root, "config/default");
                std::fs::create_dir_all(root.join("dist")).unwrap();
                std::fs::write(root.join("dist/install.yaml"), install).unwrap();
            }
            Make(other) => panic!("no replay for make {other}"),
            Answered(line, answers) => {
                let output = answer(root, line, answers);
                if !output.status.success() {
                    wrong.push(format!(
                        "`{line}` answering {answers:?} should work:\n{}",
                        transcript(&output, root)
                    ));
                }
            }
            Kb(line, Works) => {
                let output = run(root, line);
                if !output.status.success() {
                    wrong.push(format!(
                        "`{line}` should work:\n{}",
                        transcript(&output, root)
                    ));
                }
            }
            Kb(line, Refused { why, instead }) => {
                let before = read_tree(root);
                let output = run(root, line);
                let stderr = String::from_utf8_lossy(&output.stderr);
                let one_line = stderr.trim_end().lines().count() == 1;
                if output.status.success()
                    || !one_line
                    || !stderr.contains(why)
                    || read_tree(root) != before
                {
                    wrong.push(format!(
                        "`{line}` should be refused in one line saying {why:?}, writing nothing:\n{}",
                        transcript(&output, root)
                    ));
                }
                for line in *instead {
                    let output = run(root, line);
                    if !output.status.success() {
                        wrong.push(format!(
                            "`{line}` (instead of a refused command) should work:\n{}",
                            transcript(&output, root)
                        ));
                    }
                }
            }
        }
    }
    wrong
}

fn assert_replayed(wrong: &[String]) {
    assert!(
        wrong.is_empty(),
        "{} command(s) of kubebuilder's generate.sh did not do what they should:\n\n{}",
        wrong.len(),
        wrong.join("\n\n")
    );
}

/// The scripts' and the book's projects, each replayed into a folder named after it:
/// alpha.rs holds `alpha generate` to them. The calling test needs `kubectl`
/// (`make build-installer`).
pub fn replayed_projects() -> Vec<(tempfile::TempDir, PathBuf)> {
    [
        ("project-v4", project_v4()),
        ("project-v4-multigroup", project_v4_multigroup()),
        ("project-v4-with-plugins", project_v4_with_plugins()),
        ("project", getting_started()),
        ("cronjob", cronjob_tutorial()),
    ]
    .into_iter()
    .map(|(name, steps)| {
        let (dir, root) = e2e::project_dir(name);
        assert_replayed(&replay(&root, &steps));
        (dir, root)
    })
    .collect()
}

fn text(root: &Path, path: &str) -> String {
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[needs(kubectl)]
#[test]
fn project_v4_replays_with_custom_webhook_paths_and_plurals() {
    let (_dir, root) = e2e::project_dir("project-v4");
    assert_replayed(&replay(&root, &project_v4()));
    let project = text(&root, "PROJECT");
    for line in [
        "defaultingPath: /custom-mutate-sailor",
        "validationPath: /custom-validate-sailor",
        "validationPath: /custom-validate-admiral",
        "plural: admirales",
    ] {
        assert!(
            project.contains(line),
            "{line} missing from PROJECT:\n{project}"
        );
    }
    let webhooks = text(&root, "config/webhook/manifests.yaml");
    for path in [
        "path: /custom-mutate-sailor",
        "path: /custom-validate-sailor",
        "path: /custom-validate-admiral",
        "path: /mutate-crew-testproject-org-v1-admiral",
    ] {
        assert!(webhooks.contains(path), "{path} missing:\n{webhooks}");
    }
}

#[needs(kubectl)]
#[test]
fn project_v4_multigroup_replays_with_dotted_groups() {
    let (_dir, root) = e2e::project_dir("project-v4-multigroup");
    assert_replayed(&replay(&root, &project_v4_multigroup()));
    assert_dotted_groups(&root);
}

/// `foo.policy` and `example.com` as kubebuilder has them: PROJECT keeps the group as
/// given, the CRD's group is `<group>.<domain>`, files keep the dots, the Rust module
/// joins the parts with `_`.
fn assert_dotted_groups(root: &Path) {
    let project = text(root, "PROJECT");
    for line in ["group: foo.policy", "group: example.com"] {
        assert!(
            project.contains(line),
            "{line} missing from PROJECT:\n{project}"
        );
    }
    let crd = text(
        root,
        "config/crd/bases/foo.policy.testproject.org_healthcheckpolicies.yaml",
    );
    assert!(crd.contains("group: foo.policy.testproject.org"), "{crd}");
    let sample = text(root, "config/samples/foo.policy_v1_healthcheckpolicy.yaml");
    assert!(
        sample.starts_with("apiVersion: foo.policy.testproject.org/v1\n"),
        "{sample}"
    );
    let lib = text(root, "api/src/lib.rs");
    for module in ["pub mod foo_policy;", "pub mod example_com;"] {
        assert!(lib.contains(module), "{module} missing:\n{lib}");
    }
    assert!(
        root.join("api/src/example_com/v1alpha1/memcached.rs")
            .is_file()
    );
}

#[needs(kubectl)]
#[test]
fn project_v4_with_plugins_replays_up_to_its_helm_chart() {
    let (_dir, root) = e2e::project_dir("project-v4-with-plugins");
    assert_replayed(&replay(&root, &project_v4_with_plugins()));
    assert!(root.join("dist/chart/Chart.yaml").is_file());
}

/// The book's commands as a reader types them: `init` without `--plugins` is a Rust
/// project, the y/n questions of `create api` as the book answers them.
#[test]
fn the_getting_started_guide_and_the_cronjob_tutorials_replay() {
    let (_dir, root) = e2e::project_dir("project");
    assert_replayed(&replay(&root, &getting_started()));
    assert!(text(&root, "PROJECT").contains("- rust.rusty-sdk.dev/v1"));
    let (_dir, root) = e2e::project_dir("guestbook");
    assert_replayed(&replay(&root, &quick_start()));
    assert!(root.join("src/controller/busybox.rs").is_file());
    let (_dir, root) = e2e::project_dir("cronjob");
    assert_replayed(&replay(&root, &cronjob_tutorial()));
    let project = text(&root, "PROJECT");
    assert!(project.contains("spoke:\n    - v2"), "{project}");
    for (steps, paths) in cronjob_custom_paths() {
        let (_dir, root) = e2e::project_dir("cronjob");
        assert_replayed(&replay(&root, &steps));
        let manifests = text(&root, "config/webhook/manifests.yaml");
        for path in paths {
            assert!(
                manifests.contains(&format!("path: {path}\n")),
                "{path} missing:\n{manifests}"
            );
        }
    }
}

/// kubebuilder's deploy-image flags `--make` and `--manifests` (run `make generate` and
/// `make manifests` afterwards) are accepted as written and change nothing: `create api`
/// writes the CRD and sample itself, and Rust has no generated code.
#[test]
fn deploy_image_takes_make_and_manifests_as_written() {
    let deploy_image = r#"create api --group example.com --version v1alpha1 --kind Busybox --image=busybox:1.36.1 --plugins="deploy-image/v1-alpha""#;
    let trees: Vec<_> = ["", " --make=false --manifests=false", " --make --manifests"]
        .iter()
        .map(|flags| {
            let (dir, root) = e2e::project_dir("deploy-image");
            for line in [
                "init --domain testproject.org",
                &format!("{deploy_image}{flags}"),
            ] {
                let output = run(&root, line);
                assert!(
                    output.status.success(),
                    "`{line}`:\n{}",
                    transcript(&output, &root)
                );
            }
            (dir, read_tree(&root))
        })
        .collect();
    assert!(
        trees[0]
            .1
            .contains_key("config/crd/bases/example.com.testproject.org_busyboxes.yaml")
    );
    assert!(
        trees[1].1 == trees[0].1,
        "--make=false --manifests=false changed the files"
    );
    assert!(
        trees[2].1 == trees[0].1,
        "--make --manifests changed the files"
    );
}

/// The rest of kubebuilder's `init` and `edit` flags: `--license-file` (a header of one's
/// own, in comments) becomes hack/boilerplate.txt, `edit --license/--owner/--license-file`
/// write it again and nothing else; `--fetch-deps=false` and `--skip-go-version-check`
/// change nothing, `--fetch-deps` is refused naming `cargo fetch`.
#[test]
fn init_and_edit_take_kubebuilders_licence_and_dependency_flags() {
    let header = "// Copyright ACME Corp.\n//\n// SPDX-License-Identifier: MIT\n";
    let (dir, root) = e2e::project_dir("licensed");
    let file = dir.path().join("header.txt");
    std::fs::write(&file, header).unwrap();
    let init = format!(
        "init --domain testproject.org --license-file {}",
        file.display()
    );
    let output = run(&root, &init);
    assert!(output.status.success(), "{}", transcript(&output, &root));
    assert_eq!(text(&root, "hack/boilerplate.txt"), header);
    // The header says MIT; Cargo.toml must not claim Apache-2.0 for it.
    assert!(
        !text(&root, "Cargo.toml")
            .lines()
            .any(|line| line.starts_with("license =") || line.starts_with("license.")),
        "{}",
        text(&root, "Cargo.toml")
    );
    let (apache_dir, apache_root) = e2e::project_dir("licensed");
    let both = format!("{init} --license apache2");
    let output = run(&apache_root, &both);
    assert!(
        output.status.success(),
        "{}",
        transcript(&output, &apache_root)
    );
    assert!(text(&apache_root, "Cargo.toml").contains("\nlicense = \"Apache-2.0\"\n"));
    drop(apache_dir);

    let (_plain_dir, plain) = e2e::project_dir("licensed");
    let output = run(&plain, "init --domain testproject.org");
    assert!(output.status.success(), "{}", transcript(&output, &plain));
    let (_flags_dir, flags) = e2e::project_dir("licensed");
    let output = run(
        &flags,
        "init --domain testproject.org --fetch-deps=false --skip-go-version-check",
    );
    assert!(output.status.success(), "{}", transcript(&output, &flags));
    assert!(
        read_tree(&flags) == read_tree(&plain),
        "the flags changed what init wrote"
    );
    let (_fetch_dir, fetch) = e2e::project_dir("licensed");
    let output = run(&fetch, "init --domain testproject.org --fetch-deps");
    crate::support::assert_refused(&output, &fetch, "run `cargo fetch`", &read_tree(&fetch));
    assert!(read_tree(&fetch).is_empty());

    // edit --license keeps the owner the header names; only the header changes.
    let before = read_tree(&root);
    let output = run(&root, "edit --license apache2");
    assert!(output.status.success(), "{}", transcript(&output, &root));
    let apache = text(&root, "hack/boilerplate.txt");
    assert!(
        apache.starts_with("// Copyright ACME Corp.\n//\n// Licensed under the Apache License"),
        "{apache}"
    );
    let changed: Vec<_> = read_tree(&root)
        .into_iter()
        .filter(|(path, bytes)| before.get(path) != Some(bytes) && path != "PROJECT")
        .map(|(path, _)| path)
        .collect();
    assert_eq!(changed, ["hack/boilerplate.txt"]);
    let output = run(
        &root,
        r#"edit --license none --owner "The Kubernetes authors""#,
    );
    assert!(output.status.success(), "{}", transcript(&output, &root));
    assert_eq!(
        text(&root, "hack/boilerplate.txt"),
        "// Copyright The Kubernetes authors.\n"
    );
    let output = run(&root, &format!("edit --license-file {}", file.display()));
    assert!(output.status.success(), "{}", transcript(&output, &root));
    assert_eq!(text(&root, "hack/boilerplate.txt"), header);

    // A header that is not in comments would break every file it heads.
    std::fs::write(&file, "Copyright ACME Corp.\n").unwrap();
    let before = read_tree(&root);
    let output = run(&root, &format!("edit --license-file {}", file.display()));
    crate::support::assert_refused(
        &output,
        &root,
        "line 1 (\"Copyright ACME Corp.\") is not a Rust comment",
        &before,
    );
}

/// kubebuilder's `--spoke` is a list: `--spoke v2,v3` is two spokes, as `--spoke v2 --spoke
/// v3` is.
#[test]
fn a_comma_separated_spoke_list_is_two_spokes() {
    let trees: Vec<_> = ["--spoke v2,v3", "--spoke v2 --spoke v3"]
        .iter()
        .map(|spokes| {
            let (dir, root) = e2e::project_dir("spokes");
            let mut lines = vec!["init --domain testproject.org".to_string()];
            for version in ["v1", "v2", "v3"] {
                lines.push(format!(
                    "create api --group crew --version {version} --kind FirstMate --controller=false --resource=true"
                ));
            }
            lines.push(format!(
                "create webhook --group crew --version v1 --kind FirstMate --conversion {spokes}"
            ));
            for line in &lines {
                let output = run(&root, line);
                assert!(output.status.success(), "`{line}`:\n{}", transcript(&output, &root));
            }
            (dir, read_tree(&root))
        })
        .collect();
    let project = String::from_utf8_lossy(&trees[0].1["PROJECT"]).into_owned();
    assert!(
        project.contains("spoke:\n    - v2\n    - v3\n"),
        "{project}"
    );
    assert!(
        trees[0].1 == trees[1].1,
        "--spoke v2,v3 differs from --spoke v2 --spoke v3"
    );
}

/// A second group whose Rust module is a dotted group's (`foo-policy` and `foo.policy`
/// are both `foo_policy`) is refused naming the API that has it.
#[test]
fn groups_that_share_a_rust_module_are_refused_naming_the_other() {
    let (_dir, root) = e2e::project_dir("dotted");
    for line in [
        "init --plugins=rust --domain testproject.org",
        "create api --group foo.policy --version v1 --kind HealthCheckPolicy --controller=true --resource=true",
    ] {
        let output = run(&root, line);
        assert!(output.status.success(), "{}", transcript(&output, &root));
    }
    let before = read_tree(&root);
    let output = run(
        &root,
        "create api --group foo-policy --version v1 --kind Bar --controller=true --resource=true",
    );
    crate::support::assert_refused(
        &output,
        &root,
        "group foo-policy would share the Rust module foo_policy with group foo.policy of foo.policy.testproject.org/v1, Kind=HealthCheckPolicy",
        &before,
    );
}

/// The scripts' projects build, pass their tests and lint (`make all` in kubebuilder's
/// script): project-v4, project-v4-multigroup and project-v4-with-plugins, one after the
/// other in the shared target dir. `make build-installer` runs for real on multigroup.
#[needs(e2e, kubectl, make)]
#[test]
fn the_replayed_projects_build_test_and_lint() {
    let mut wrong = Vec::new();
    let (_v4_dir, v4) = e2e::project_dir("project-v4");
    wrong.extend(replay(&v4, &project_v4()));
    e2e::check_project(&v4);
    let (_plugins_dir, with_plugins) = e2e::project_dir("project-v4-with-plugins");
    wrong.extend(replay(&with_plugins, &project_v4_with_plugins()));
    e2e::check_project(&with_plugins);
    let (_mg_dir, multigroup) = e2e::project_dir("project-v4-multigroup");
    wrong.extend(replay(&multigroup, &project_v4_multigroup()));
    e2e::check_project(&multigroup);
    let bin = assert_cmd::cargo::cargo_bin("rusty-sdk");
    e2e::must_with_env(
        &multigroup,
        rusty_sdk_test_tools::path!(make),
        &[
            "build-installer",
            "IMG=example.com/project-v4-multigroup:v0.1.0",
            &format!("RUSTY_SDK={}", bin.display()),
            &format!("KUBECTL={}", e2e::kubectl()),
        ],
        &[],
    );
    let install = text(&multigroup, "dist/install.yaml");
    assert!(
        install.contains("name: healthcheckpolicies.foo.policy.testproject.org"),
        "the dotted group's CRD is missing from dist/install.yaml"
    );
    assert_replayed(&wrong);
}

/// kubebuilder's `edit --multigroup` changes nothing in a Rust project, which always keeps
/// each group in its own module; `--multigroup=false` (its single-group layout) is refused.
#[test]
fn edit_multigroup_changes_nothing_and_its_opposite_is_refused() {
    let (_dir, root) = e2e::project_dir("multigroup-edit");
    let output = run(&root, "init --domain testproject.org");
    assert!(output.status.success(), "{}", transcript(&output, &root));
    let before = read_tree(&root);
    let output = run(&root, "edit --multigroup");
    assert!(output.status.success(), "{}", transcript(&output, &root));
    assert!(read_tree(&root) == before, "edit --multigroup wrote files");
    let output = run(&root, "edit --multigroup=false");
    crate::support::assert_refused(
        &output,
        &root,
        "has none: each group is its own module",
        &before,
    );
}
