//! The templates the chart has beside install.yaml's objects: `_helpers.tpl` (the chart's
//! name, full name and labels, for what the chart adds), and the network policies that
//! admit metrics scrapers and the API server's webhook calls to the manager, off by default
//! (`networkPolicy.enable`), written when install.yaml has no NetworkPolicy of its own.
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
