{{- define "robustream.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "robustream.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end -}}

{{- define "robustream.secretName" -}}
{{- if .Values.secret.existingSecret -}}{{ .Values.secret.existingSecret }}{{- else -}}{{ include "robustream.fullname" . }}{{- end -}}
{{- end -}}

{{/* Environment shared by every robustream container. */}}
{{- define "robustream.env" -}}
- name: ROBUSTREAM_CONFIG
  value: /etc/robustream/robustream.yaml
- name: ROBUSTREAM_CLICKHOUSE_URL
  valueFrom: {secretKeyRef: {name: {{ include "robustream.secretName" . }}, key: clickhouse-url}}
- name: ROBUSTREAM_API_TOKEN
  valueFrom: {secretKeyRef: {name: {{ include "robustream.secretName" . }}, key: api-token}}
{{- end -}}
