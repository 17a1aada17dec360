{{- /*
Names and labels shared by the chart's objects. Object names are DNS labels: at most
63 characters, no trailing dash.
*/}}

{{- define "<CHARTNAME>.dnsLabel" -}}
{{- . | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- /* The chart's name, or nameOverride. */}}
{{- define "<CHARTNAME>.name" -}}
{{- include "<CHARTNAME>.dnsLabel" (.Values.nameOverride | default .Chart.Name) }}
{{- end }}

{{- /* The release's name for its objects: fullnameOverride, else the release name
followed by the chart's name unless the release name already holds it. */}}
{{- define "<CHARTNAME>.fullname" -}}
{{- $name := include "<CHARTNAME>.name" . }}
{{- $full := printf "%s-%s" .Release.Name $name }}
{{- if contains $name .Release.Name }}
{{- $full = .Release.Name }}
{{- end }}
{{- include "<CHARTNAME>.dnsLabel" (.Values.fullnameOverride | default $full) }}
{{- end }}

{{- /* The labels a Service and a Deployment select pods by. */}}
{{- define "<CHARTNAME>.selectorLabels" -}}
app.kubernetes.io/name: {{ include "<CHARTNAME>.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- /* Every object's labels. */}}
{{- define "<CHARTNAME>.labels" -}}
helm.sh/chart: {{ include "<CHARTNAME>.dnsLabel" (printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_") }}
{{ include "<CHARTNAME>.selectorLabels" . }}
{{- with .Chart.AppVersion }}
app.kubernetes.io/version: {{ . | quote }}
{{- end }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- /* The ServiceAccount the pods run as. */}}
{{- define "<CHARTNAME>.serviceAccountName" -}}
{{- $fallback := ternary (include "<CHARTNAME>.fullname" .) "default" .Values.serviceAccount.create }}
{{- .Values.serviceAccount.name | default $fallback }}
{{- end }}
