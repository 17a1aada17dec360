{{- define "child.fullname" -}}
{{ .Release.Name }}-{{ .Chart.Name }}
{{- end }}
