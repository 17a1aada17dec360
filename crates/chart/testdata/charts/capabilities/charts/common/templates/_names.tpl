{{- define "common.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- define "common.apiVersion.pdb" -}}
{{- if .Capabilities.APIVersions.Has "policy/v1" -}}policy/v1{{- else -}}policy/v1beta1{{- end -}}
{{- end -}}
