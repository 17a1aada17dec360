//! The chart's values.yaml: written once, then the user's. Later runs only add what the
//! templates now read and the file lacks (a top-level switch, a key of `manager:`), as text
//! appended to it, so the user's values, comments and layout stay as written.
use serde_json::Value;

use super::files::Switches;
use crate::error::{Error, Result};
use crate::scaffold::Tree;
use crate::yaml;

/// One top-level key of values.yaml and its text, comment included.
struct Section {
    key: &'static str,
    text: String,
}

/// Write values.yaml at `path`, or add the keys it lacks.
pub fn stage(tree: &mut Tree, path: &str, name: &str, switches: &Switches) -> Result<()> {
    let sections = sections(switches)?;
    let Some(current) = tree.read(path)? else {
        let mut text = format!(
            "# Values of the {name} chart. The defaults render the objects of dist/install.yaml,\n\
             # in the release's namespace.\n\n\
             # The name the chart's own objects (network policies, ...) are given after the\n\
             # release's: nameOverride replaces the chart's name in it, fullnameOverride all of it.\n\
             # nameOverride: \"\"\n\
             # fullnameOverride: \"\"\n"
        );
        for section in &sections {
            text.push('\n');
            text.push_str(&section.text);
        }
        tree.add(path, text, crate::scaffold::Policy::User);
        return Ok(());
    };
    let merged = merge(&current, path, &sections, switches)?;
    if merged != current {
        tree.edit(path, |_| Ok(merged))?;
    }
    Ok(())
}

/// `current` with the sections and manager keys it lacks appended.
fn merge(current: &str, path: &str, sections: &[Section], switches: &Switches) -> Result<String> {
    let parsed: Value = yaml::from_str(current).map_err(|e| {
        Error::invalid(format!(
            "{path}: not valid YAML ({e}); fix it, or move it away to have it written again"
        ))
    })?;
    let parsed = match parsed {
        Value::Null => Value::Object(serde_json::Map::new()),
        Value::Object(_) => parsed,
        _ => {
            return Err(Error::invalid(format!(
                "{path}: not a mapping of values; fix it, or move it away to have it written again"
            )));
        }
    };
    let mut out = current.to_string();
    if let Some(Value::Object(manager)) = parsed.get("manager") {
        let missing: serde_json::Map<String, Value> = switches
            .manager
            .iter()
            .filter(|(key, _)| !manager.contains_key(*key))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        if !missing.is_empty() {
            out = insert_into_block(&out, "manager:", &indented(&Value::Object(missing))?);
        }
    }
    for section in sections {
        if parsed.get(section.key).is_none() {
            if !out.ends_with('\n') {
                out.push('\n');
            }
            out.push('\n');
            out.push_str(&section.text);
        }
    }
    Ok(out)
}

/// `value` printed as YAML, two spaces in.
fn indented(value: &Value) -> Result<String> {
    let text = yaml::to_string(value)
        .map_err(|e| Error::Internal(format!("cannot print chart values: {e}")))?;
    Ok(text.lines().flat_map(|line| ["  ", line, "\n"]).collect())
}

/// `lines` added at the end of the block of the top-level `key` (after its last indented
/// line: comments that follow it belong to the next key).
fn insert_into_block(text: &str, key: &str, lines: &str) -> String {
    let all: Vec<&str> = text.split_inclusive('\n').collect();
    let Some(start) = all.iter().position(|line| line.trim_end() == key) else {
        return text.to_string();
    };
    let mut end = start + 1;
    for (i, line) in all.iter().enumerate().skip(start + 1) {
        if line.starts_with(' ') || line.starts_with('-') {
            end = i + 1;
        } else if !line.trim().is_empty() && !line.starts_with('#') {
            break;
        }
    }
    let mut out: String = all[..end].concat();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(lines);
    out.push_str(&all[end..].concat());
    out
}

fn sections(s: &Switches) -> Result<Vec<Section>> {
    let mut out = vec![Section {
        key: "manager",
        text: format!(
            "# The manager Deployment: its image, replicas, command-line flags, environment and\n\
             # resources. More than one replica needs --leader-elect in args.\n\
             manager:\n{}",
            indented(&Value::Object(s.manager.clone()))?
        ),
    }];
    let keep = "  # Keep them when the release is uninstalled: deleting a CRD deletes every object\n  # of its kind.\n  keep: true\n";
    let network_policy = if s.network_policy {
        Some((
            true,
            "The network policies that guard the manager's endpoints.",
        ))
    } else if s.network_policy_fallback {
        Some((
            false,
            "Network policies that admit metrics scrapers only from namespaces labelled\n# metrics=enabled, and webhook calls only from namespaces labelled webhook=enabled.\n# Needs a network plugin that enforces NetworkPolicy.",
        ))
    } else {
        None
    };
    let switches = [
        (
            s.crd.then_some((true, "Install the CRDs with the chart.")),
            "crd",
            keep,
        ),
        (
            s.rbac.then_some((
                true,
                "The manager's roles and bindings, and the admin/editor/viewer roles of each API.",
            )),
            "rbac",
            "",
        ),
        (
            s.metrics.then_some((
                true,
                "The Service in front of the manager's metrics endpoint.",
            )),
            "metrics",
            if s.metrics_cert_fallback {
                "  # Serve the metrics with a certificate from cert-manager (needs cert-manager)\n  # instead of a self-signed one.\n  certManager: false\n"
            } else {
                ""
            },
        ),
        (
            s.prometheus.map(|on| {
                (
                    on,
                    "A ServiceMonitor for the metrics (needs the Prometheus operator).",
                )
            }),
            "prometheus",
            "",
        ),
        (
            s.webhook
                .then_some((true, "The webhook configurations and their Service.")),
            "webhook",
            "",
        ),
        (
            s.cert_manager
                .then_some((true, "cert-manager's Issuer and Certificates.")),
            "certManager",
            "",
        ),
        (network_policy, "networkPolicy", ""),
    ];
    for (switch, key, more) in switches {
        if let Some((on, why)) = switch {
            out.push(Section {
                key,
                text: format!("# {why}\n{key}:\n  enable: {on}\n{more}"),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn switches() -> Switches {
        let mut s = Switches {
            crd: true,
            network_policy_fallback: true,
            ..Switches::default()
        };
        s.manager.insert("replicas".into(), json!(1));
        s.manager.insert("args".into(), json!(["--leader-elect"]));
        s
    }

    #[test]
    fn missing_keys_are_added_and_the_users_text_is_kept() {
        let user = "# mine\nmanager:\n  replicas: 3 # three\n\n# crds\ncrd:\n  enable: false\n";
        let merged = merge(
            user,
            "values.yaml",
            &sections(&switches()).unwrap(),
            &switches(),
        )
        .unwrap();
        assert_eq!(
            merged,
            "# mine\nmanager:\n  replicas: 3 # three\n  args:\n  - --leader-elect\n\n# crds\ncrd:\n  enable: false\n\n# Network policies that admit metrics scrapers only from namespaces labelled\n# metrics=enabled, and webhook calls only from namespaces labelled webhook=enabled.\n# Needs a network plugin that enforces NetworkPolicy.\nnetworkPolicy:\n  enable: false\n"
        );
        let again = merge(
            &merged,
            "values.yaml",
            &sections(&switches()).unwrap(),
            &switches(),
        );
        assert_eq!(again.unwrap(), merged);
        let bad = merge("a: [", "dist/chart/values.yaml", &[], &switches()).unwrap_err();
        assert!(
            bad.to_string()
                .starts_with("dist/chart/values.yaml: not valid YAML"),
            "{bad}"
        );
    }
}
