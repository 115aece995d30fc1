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

{{/* robustream.yaml: the keys the values cover, then extraConfig merged over them. */}}
{{- define "robustream.config" -}}
{{- $v := .Values -}}
{{- $kafka := dict "brokers" $v.kafka.brokers "partitions" $v.kafka.partitions -}}
{{- if $v.kafka.sasl.mechanism -}}
{{- $_ := set $kafka "sasl_mechanism" $v.kafka.sasl.mechanism -}}
{{- $_ := set $kafka "sasl_user" (required "kafka.sasl.user is required with kafka.sasl.mechanism" $v.kafka.sasl.user) -}}
{{- $_ := required "kafka.sasl.passwordSecret.name is required with kafka.sasl.mechanism" $v.kafka.sasl.passwordSecret.name -}}
{{- $_ := set $kafka "sasl_password_env" "KAFKA_SASL_PASSWORD" -}}
{{- end -}}
{{- if $v.kafka.tls.enabled -}}
{{- $_ := set $kafka "tls" true -}}
{{- if $v.kafka.tls.caSecret -}}
{{- $_ := set $kafka "tls_ca_file" (printf "/etc/robustream-kafka-ca/%s" $v.kafka.tls.caKey) -}}
{{- end -}}
{{- end -}}
{{- $c := dict "data_dir" "/data" "http" (printf "0.0.0.0:%v" $v.httpPort) "http_token_env" "ROBUSTREAM_API_TOKEN" "http_metrics_public" true "source" "none" "models" "/etc/robustream/models.yaml" "kafka" $kafka "log" (dict "level" $v.log.level "format" "json") "alerts" (dict "enabled" $v.alerts.enabled) -}}
{{- if $v.alerts.receivers -}}
{{- $_ := set $c.alerts "receivers" $v.alerts.receivers -}}
{{- end -}}
{{- if $v.clickhouse.cluster -}}
{{- $_ := set $c "clickhouse" (dict "cluster" $v.clickhouse.cluster) -}}
{{- end -}}
{{- if $v.stages -}}
{{- $_ := set $c "stages" (deepCopy $v.stages) -}}
{{- end -}}
{{- toYaml (mustMergeOverwrite $c (deepCopy $v.extraConfig)) -}}
{{- end -}}

{{/* models.yaml: the models, the generator and the embedder. */}}
{{- define "robustream.models" -}}
{{- $m := dict "models" .Values.models -}}
{{- if .Values.generator -}}{{- $_ := set $m "generator" .Values.generator -}}{{- end -}}
{{- if .Values.embedder -}}{{- $_ := set $m "embedder" .Values.embedder -}}{{- end -}}
{{- toYaml $m -}}
{{- end -}}

{{/* Fails the rendering when the configuration or models.yaml names an
     environment variable (an *_env key, a ${NAME} reference) that env,
     secretEnv or envFrom does not set: the pod would fail validation. With
     envFrom the names are unknown here, and the engine's own check at start
     (and `robustream run --dry-run`) is the only one. */}}
{{- define "robustream.checkEnv" -}}
{{- if not .Values.envFrom -}}
{{- $set := dict "ROBUSTREAM_API_TOKEN" true "ROBUSTREAM_CLICKHOUSE_URL" true "KAFKA_SASL_PASSWORD" true -}}
{{- range .Values.env }}{{ $_ := set $set .name true }}{{ end -}}
{{- range .Values.secretEnv }}{{ $_ := set $set .name true }}{{ end -}}
{{- $text := printf "%s\n%s" (include "robustream.config" .) (include "robustream.models" .) -}}
{{- range $ref := regexFindAll "[A-Za-z_]*_env: *[A-Za-z_][A-Za-z0-9_]*|\\$\\{[A-Za-z_][A-Za-z0-9_]*\\}" $text -1 -}}
{{- $name := regexReplaceAll "^.*_env: *|^\\$\\{|\\}$" $ref "" -}}
{{- if not (hasKey $set $name) -}}
{{- fail (printf "%s: the environment variable %s is set by none of env, secretEnv or envFrom (add e.g. secretEnv: [{name: %s, secretName: SECRET, key: KEY}])" $ref $name $name) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Environment shared by every robustream container. */}}
{{- define "robustream.env" -}}
{{- include "robustream.checkEnv" . -}}
- name: ROBUSTREAM_CONFIG
  value: /etc/robustream/robustream.yaml
- name: ROBUSTREAM_CLICKHOUSE_URL
  valueFrom: {secretKeyRef: {name: {{ include "robustream.secretName" . }}, key: clickhouse-url}}
- name: ROBUSTREAM_API_TOKEN
  valueFrom: {secretKeyRef: {name: {{ include "robustream.secretName" . }}, key: api-token}}
{{- if .Values.kafka.sasl.mechanism }}
- name: KAFKA_SASL_PASSWORD
  valueFrom: {secretKeyRef: {name: {{ .Values.kafka.sasl.passwordSecret.name }}, key: {{ required "kafka.sasl.passwordSecret.key is required with kafka.sasl.mechanism" .Values.kafka.sasl.passwordSecret.key }}}}
{{- end }}
{{- range .Values.secretEnv }}
- name: {{ .name }}
  valueFrom: {secretKeyRef: {name: {{ required "secretEnv[].secretName is required" .secretName }}, key: {{ required "secretEnv[].key is required" .key }}}}
{{- end }}
{{- with .Values.env }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* envFrom of every robustream container (empty: none). */}}
{{- define "robustream.envFrom" -}}
{{- with .Values.envFrom }}
envFrom:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* Volumes and mounts every robustream container has: the ConfigMap, and
     the Kafka CA when kafka.tls.caSecret is set. */}}
{{- define "robustream.volumeMounts" -}}
- {name: config, mountPath: /etc/robustream, readOnly: true}
{{- if and .Values.kafka.tls.enabled .Values.kafka.tls.caSecret }}
- {name: kafka-ca, mountPath: /etc/robustream-kafka-ca, readOnly: true}
{{- end }}
{{- end -}}

{{- define "robustream.volumes" -}}
- name: config
  configMap: {name: {{ include "robustream.fullname" . }}}
{{- if and .Values.kafka.tls.enabled .Values.kafka.tls.caSecret }}
- name: kafka-ca
  secret: {secretName: {{ .Values.kafka.tls.caSecret }}}
{{- end }}
{{- end -}}

{{/* The checksum of what the ConfigMap carries: a change of configuration
     or models changes the pod template, so the pods roll. */}}
{{- define "robustream.configChecksum" -}}
{{- printf "%s\n---\n%s" (include "robustream.config" .) (include "robustream.models" .) | sha256sum -}}
{{- end -}}
