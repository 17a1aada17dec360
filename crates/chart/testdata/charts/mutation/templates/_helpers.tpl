{{- define "mutation.enable" -}}
{{- $_ := set . "featureOn" true -}}
{{- end -}}

{{- define "mutation.password" -}}
{{- if not .Values.global.password -}}
{{- $_ := set .Values.global "password" "s3cret" -}}
{{- end -}}
{{- end -}}
