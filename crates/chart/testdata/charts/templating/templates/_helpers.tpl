{{- define "templating.name" -}}
{{ tpl .Values.nameTemplate . | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "templating.labels" -}}
app.kubernetes.io/name: {{ include "templating.name" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}

{{- define "templating.server" -}}
- name: {{ .name }}
  port: {{ .port }}
{{- end }}
