//! The templates the chart has beside install.yaml's objects: `_helpers.tpl` (the chart's
//! name, full name and labels, for what the chart adds); the network policies that admit
//! metrics scrapers and the API server's webhook calls to the manager, off by default
//! (`networkPolicy.enable`), written when install.yaml has no NetworkPolicy of its own; and
//! the metrics server's certificate from cert-manager, off by default
//! (`metrics.certManager`), written when install.yaml does not have it already.
use std::fmt::Write as _;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::yaml;

/// `_helpers.tpl`: named templates prefixed with the chart's name, so that they cannot
/// clash with a parent chart's when this chart is a dependency.
pub fn helpers(chart: &str, selector: &Value) -> Result<String> {
    let selector = yaml::to_string(selector)
        .map_err(|e| Error::Internal(format!("cannot print the manager's selector: {e}")))?;
    Ok(format!(
        r#"{{{{/* The chart's name, or nameOverride. */}}}}
{{{{- define "{chart}.name" -}}}}
{{{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}}}
{{{{- end }}}}

{{{{/* The release's name, followed by the chart's unless it holds it already, or
fullnameOverride: at most 63 characters, as Kubernetes names and labels allow. */}}}}
{{{{- define "{chart}.fullname" -}}}}
{{{{- if .Values.fullnameOverride }}}}
{{{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}}}
{{{{- else }}}}
{{{{- $name := default .Chart.Name .Values.nameOverride }}}}
{{{{- if contains $name .Release.Name }}}}
{{{{- .Release.Name | trunc 63 | trimSuffix "-" }}}}
{{{{- else }}}}
{{{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}}}
{{{{- end }}}}
{{{{- end }}}}
{{{{- end }}}}

{{{{/* The helm.sh/chart label: the chart's name and version. */}}}}
{{{{- define "{chart}.chart" -}}}}
{{{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}}}
{{{{- end }}}}

{{{{/* The labels of the objects the chart adds to install.yaml's. */}}}}
{{{{- define "{chart}.labels" -}}}}
helm.sh/chart: {{{{ include "{chart}.chart" . }}}}
app.kubernetes.io/name: {{{{ include "{chart}.name" . }}}}
app.kubernetes.io/instance: {{{{ .Release.Name }}}}
app.kubernetes.io/managed-by: {{{{ .Release.Service }}}}
{{{{- end }}}}

{{{{/* The manager's pods, as its Deployment selects them. */}}}}
{{{{- define "{chart}.selectorLabels" -}}}}
{}
{{{{- end }}}}
"#,
        selector.trim_end()
    ))
}

/// Who may reach the manager on `port`, as a NetworkPolicy under `condition`.
pub struct Policy<'a> {
    pub file: &'a str,
    pub condition: &'a str,
    pub why: &'a str,
    /// The namespace label that admits callers (`metrics: enabled`).
    pub label: &'a str,
    pub port: i64,
}

/// A NetworkPolicy admitting, to the manager pods' `port`, callers in namespaces labelled
/// `label: enabled`.
pub fn network_policy(chart: &str, policy: &Policy) -> String {
    let Policy {
        file,
        condition,
        why,
        label,
        port,
    } = policy;
    format!(
        r#"{{{{- if {condition} }}}}
# {why}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{{{ include "{chart}.fullname" . }}}}-{file}
  namespace: {{{{ .Release.Namespace }}}}
  labels:
    {{{{- include "{chart}.labels" . | nindent 4 }}}}
spec:
  podSelector:
    matchLabels:
      {{{{- include "{chart}.selectorLabels" . | nindent 6 }}}}
  policyTypes:
  - Ingress
  ingress:
  - from:
    - namespaceSelector:
        matchLabels:
          {label}: enabled
    ports:
    - port: {port}
      protocol: TCP
{{{{- end }}}}
"#
    )
}

/// The port the manager's pods serve behind `service` (its first port's targetPort, or the
/// port itself); `None` when it is named rather than numbered.
pub fn target_port(service: &Value) -> Option<i64> {
    let port = service.pointer("/spec/ports/0")?;
    port.get("targetPort")
        .or_else(|| port.get("port"))
        .and_then(Value::as_i64)
}

/// Where the manager reads the metrics certificate, as kubebuilder mounts it.
const METRICS_CERT_DIR: &str = "/tmp/k8s-metrics-server/metrics-certs";

/// A self-signed Issuer and the metrics server's Certificate for the Service `service`,
/// under `metrics.certManager` (needs cert-manager in the cluster).
pub fn metrics_certificate(chart: &str, service: &str) -> String {
    format!(
        r#"{{{{- if and .Values.metrics.enable .Values.metrics.certManager }}}}
# The metrics server's certificate, kept by cert-manager in a Secret the manager mounts and
# serves (--metrics-cert-path).
apiVersion: cert-manager.io/v1
kind: Issuer
metadata:
  name: {{{{ include "{chart}.fullname" . }}}}-metrics-issuer
  namespace: {{{{ .Release.Namespace }}}}
  labels:
    {{{{- include "{chart}.labels" . | nindent 4 }}}}
spec:
  selfSigned: {{}}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: {{{{ include "{chart}.fullname" . }}}}-metrics-certs
  namespace: {{{{ .Release.Namespace }}}}
  labels:
    {{{{- include "{chart}.labels" . | nindent 4 }}}}
spec:
  dnsNames:
  - {service}.{{{{ .Release.Namespace }}}}.svc
  - {service}.{{{{ .Release.Namespace }}}}.svc.cluster.local
  issuerRef:
    kind: Issuer
    name: {{{{ include "{chart}.fullname" . }}}}-metrics-issuer
  secretName: {{{{ include "{chart}.fullname" . }}}}-metrics-cert
{{{{- end }}}}
"#
    )
}

/// The manager Deployment's template with the metrics certificate's Secret mounted and
/// `--metrics-cert-path` passed under `metrics.certManager`: after the args from values, and
/// first in the container's volumeMounts and the pod's volumes (`[]` when there is none).
pub fn mount_metrics_certificate(chart: &str, template: &str) -> String {
    const WHEN: &str = "{{- if and .Values.metrics.enable .Values.metrics.certManager }}";
    let mut out = String::new();
    for line in template.lines() {
        let indent = line.len() - line.trim_start().len();
        let pad = " ".repeat(indent);
        let trimmed = line.trim_start();
        let (key, items) = match trimmed {
            "volumeMounts:" | "volumeMounts: []" => (
                "volumeMounts",
                format!(
                    "{pad}- mountPath: {METRICS_CERT_DIR}\n{pad}  name: metrics-certs\n{pad}  readOnly: true"
                ),
            ),
            "volumes:" | "volumes: []" => (
                "volumes",
                format!(
                    "{pad}- name: metrics-certs\n{pad}  secret:\n{pad}    secretName: {{{{ include \"{chart}.fullname\" . }}}}-metrics-cert"
                ),
            ),
            _ => {
                out.push_str(line);
                out.push('\n');
                if trimmed.starts_with("{{- toYaml .Values.manager.args ") {
                    let _ = writeln!(
                        out,
                        "{pad}{WHEN}\n{pad}- --metrics-cert-path={METRICS_CERT_DIR}\n{pad}{{{{- end }}}}"
                    );
                }
                continue;
            }
        };
        if trimmed.ends_with("[]") {
            let _ = writeln!(
                out,
                "{pad}{key}:{} \n{items}\n{pad}{{{{- else }}}} []{{{{- end }}}}",
                WHEN.replacen("{{-", "{{", 1)
            );
        } else {
            let _ = writeln!(out, "{line}\n{pad}{WHEN}\n{items}\n{pad}{{{{- end }}}}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The pod of a Deployment template with no volumes, rendered with `values`.
    fn rendered(values: &Value) -> Value {
        let template = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: m\nspec:\n  template:\n    spec:\n      containers:\n      - args:\n        {{- toYaml .Values.manager.args | nindent 8 }}\n        name: manager\n        volumeMounts: []\n      volumes: []\n";
        let dir = tempfile::tempdir().unwrap();
        let chart = dir.path().join("c");
        std::fs::create_dir_all(chart.join("templates")).unwrap();
        std::fs::write(
            chart.join("Chart.yaml"),
            "apiVersion: v2\nname: c\nversion: 0.1.0\n",
        )
        .unwrap();
        std::fs::write(
            chart.join("values.yaml"),
            "manager:\n  args: [--a]\nmetrics:\n  enable: true\n  certManager: false\n",
        )
        .unwrap();
        std::fs::write(
            chart.join("templates/_helpers.tpl"),
            helpers("c", &json!({})).unwrap(),
        )
        .unwrap();
        std::fs::write(
            chart.join("templates/m.yaml"),
            mount_metrics_certificate("c", template),
        )
        .unwrap();
        let chart = rusty_sdk_chart::Chart::load(&chart).unwrap();
        let options = rusty_sdk_chart::RenderOptions {
            release_name: "r".into(),
            namespace: "ns".into(),
            ..rusty_sdk_chart::RenderOptions::default()
        };
        let text = rusty_sdk_chart::render(&chart, values, &options).unwrap();
        let manifests = rusty_sdk_chart::split_manifests(&text).unwrap();
        manifests[0].object["spec"]["template"]["spec"].clone()
    }

    #[test]
    fn the_metrics_certificate_is_mounted_only_when_asked_for() {
        let off = rendered(&json!({}));
        assert_eq!(off["volumes"], json!([]), "{off}");
        assert_eq!(off["containers"][0]["volumeMounts"], json!([]), "{off}");
        assert_eq!(off["containers"][0]["args"], json!(["--a"]), "{off}");
        let on = rendered(&json!({"metrics": {"certManager": true}}));
        assert_eq!(
            on["volumes"],
            json!([{"name": "metrics-certs", "secret": {"secretName": "r-c-metrics-cert"}}]),
            "{on}"
        );
        assert_eq!(
            on["containers"][0]["volumeMounts"][0]["mountPath"], METRICS_CERT_DIR,
            "{on}"
        );
        assert_eq!(
            on["containers"][0]["args"],
            json!(["--a", format!("--metrics-cert-path={METRICS_CERT_DIR}")]),
            "{on}"
        );
    }
}
