{{/*
Names. Kubernetes names are DNS labels: at most 63 characters, no trailing
dash.
*/}}
{{- define "informerd.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
"<release>-<chart>", or the release name alone when it already contains the
chart name, so "informerd" installs as "informerd", not
"informerd-informerd".
*/}}
{{- define "informerd.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The name of RBAC objects, which carries the release namespace: the
ClusterRole is cluster-scoped, and Roles sit in watched namespaces, where
releases of the same name from other namespaces may put theirs.
*/}}
{{- define "informerd.clusterName" -}}
{{- printf "%s-%s" .Release.Namespace (include "informerd.fullname" .) }}
{{- end }}

{{- define "informerd.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The standard labels (https://kubernetes.io/docs/concepts/overview/
working-with-objects/common-labels/) on every object, without
app.kubernetes.io/component, which each object adds.
*/}}
{{- define "informerd.commonLabels" -}}
helm.sh/chart: {{ include "informerd.chart" . }}
app.kubernetes.io/name: {{ include "informerd.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: informerd
{{- end }}

{{/*
Labels of the server and of the objects that serve it.
*/}}
{{- define "informerd.labels" -}}
{{ include "informerd.commonLabels" . }}
app.kubernetes.io/component: server
{{- end }}

{{/*
The labels that pick this release's informerd pods; they never change
between upgrades (a Deployment's selector is immutable).
*/}}
{{- define "informerd.selectorLabels" -}}
app.kubernetes.io/name: {{ include "informerd.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: server
{{- end }}

{{/*
The label a pod carries to pass the NetworkPolicy as a client.
*/}}
{{- define "informerd.clientLabel" -}}
{{ include "informerd.fullname" . | trunc 56 | trimSuffix "-" }}-client: "true"
{{- end }}

{{- define "informerd.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "informerd.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name: required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "informerd.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/*
The gRPC address clients use inside the cluster.
*/}}
{{- define "informerd.grpcTarget" -}}
{{- printf "%s.%s.svc:%d" (include "informerd.fullname" .) .Release.Namespace (int .Values.service.grpcPort) }}
{{- end }}

{{/*
The resources informerd serves, as a YAML list: config.resources with the
namespace filled in from a single watchNamespaces entry. Fails when a
resource lies outside watchNamespaces, since the Roles would not let
informerd read it and it would never become ready.
*/}}
{{- define "informerd.resources" -}}
{{- $watch := .Values.watchNamespaces }}
{{- $served := list }}
{{- range $i, $resource := .Values.config.resources }}
{{- $entry := deepCopy $resource }}
{{- if $watch }}
{{- $namespace := $entry.namespace | default "" }}
{{- if and (not $namespace) (eq (len $watch) 1) }}
{{- $namespace = first $watch }}
{{- $_ := set $entry "namespace" $namespace }}
{{- end }}
{{- if not $namespace }}
{{- fail (printf "config.resources[%d] (%s): needs a namespace, one of watchNamespaces %v" $i $resource.resource $watch) }}
{{- end }}
{{- if not (has $namespace $watch) }}
{{- fail (printf "config.resources[%d] (%s): namespace %q is not in watchNamespaces %v" $i $resource.resource $namespace $watch) }}
{{- end }}
{{- end }}
{{- $served = append $served $entry }}
{{- end }}
{{- range $namespace := $watch }}
{{- $used := false }}
{{- range $served }}
{{- if eq .namespace $namespace }}
{{- $used = true }}
{{- end }}
{{- end }}
{{- if not $used }}
{{- fail (printf "watchNamespaces: %q serves no resource in config.resources" $namespace) }}
{{- end }}
{{- end }}
{{- toYaml $served }}
{{- end }}

{{/*
The read grants the release's ServiceAccount needs on the served
resources, as a JSON list of verbs; empty when it needs none. A root reads
them from the API server (get, list, watch). A leaf reads only its root,
but a root with auth.mode kubernetes authorizes the leaf's ListResources
(list) and Watches (watch) with SubjectAccessReviews of the leaf's
ServiceAccount, so the leaf needs those two; without a token toward the
root it is anonymous there and needs none.
*/}}
{{- define "informerd.readVerbs" -}}
{{- if not .Values.upstream.address }}
{{- toJson (list "get" "list" "watch") }}
{{- else if .Values.upstream.token.enabled }}
{{- toJson (list "list" "watch") }}
{{- else }}
{{- toJson list }}
{{- end }}
{{- end }}

{{/*
RBAC rules granting .verbs on each resource of the YAML list in
.resources, once per group and resource.
*/}}
{{- define "informerd.readRules" -}}
{{- $seen := dict }}
{{- $verbs := .verbs }}
{{- range .resources }}
{{- $group := .group | default "" }}
{{- $key := printf "%s/%s" $group .resource }}
{{- if not (hasKey $seen $key) }}
{{- $_ := set $seen $key true }}
- apiGroups: [{{ $group | quote }}]
  resources: [{{ .resource | quote }}]
  verbs: [{{ range $i, $verb := $verbs }}{{ if $i }}, {{ end }}{{ $verb | quote }}{{ end }}]
{{- end }}
{{- end }}
{{- end }}

{{/*
Where a leaf's pod mounts what it needs toward its root.
*/}}
{{- define "informerd.upstreamTokenDir" -}}
/var/run/secrets/informerd-upstream
{{- end }}
{{- define "informerd.upstreamCaDir" -}}
/etc/informerd/upstream-ca
{{- end }}
{{- define "informerd.upstreamClientDir" -}}
/etc/informerd/upstream-client
{{- end }}

{{/*
A leaf's upstream* config keys (server/config/config.h) as YAML, empty for
a root. Refuses plaintext toward the root unless upstream.allowInsecure
accepts it, as informerd itself refuses a non-loopback grpc:// upstream.
*/}}
{{- define "informerd.upstreamConfig" -}}
{{- with .Values.upstream }}
{{- if .address }}
{{- if and .tls.caSecretName .tls.caConfigMapName }}
{{- fail "upstream.tls: caSecretName and caConfigMapName are alternatives; set one" }}
{{- end }}
{{- $config := dict }}
{{- if .tls.enabled }}
{{- $_ := set $config "upstream" (printf "grpcs://%s" .address) }}
{{- if or .tls.caSecretName .tls.caConfigMapName }}
{{- $_ := set $config "upstreamCaFile" (printf "%s/%s" (include "informerd.upstreamCaDir" $) .tls.caKey) }}
{{- end }}
{{- if .tls.clientCertSecretName }}
{{- $_ := set $config "upstreamCertFile" (printf "%s/tls.crt" (include "informerd.upstreamClientDir" $)) }}
{{- $_ := set $config "upstreamKeyFile" (printf "%s/tls.key" (include "informerd.upstreamClientDir" $)) }}
{{- end }}
{{- else }}
{{- if not .allowInsecure }}
{{- fail "upstream.tls.enabled=false: the leaf's token and every object would cross the network in clear text, or to whoever poses as the root. Keep upstream.tls.enabled=true, or set upstream.allowInsecure=true to accept that" }}
{{- end }}
{{- if or .tls.caSecretName .tls.caConfigMapName .tls.clientCertSecretName }}
{{- fail "upstream.tls: a CA or client certificate needs upstream.tls.enabled" }}
{{- end }}
{{- $_ := set $config "upstream" (printf "grpc://%s" .address) }}
{{- end }}
{{- if .token.enabled }}
{{- $_ := set $config "upstreamTokenFile" (printf "%s/token" (include "informerd.upstreamTokenDir" $)) }}
{{- end }}
{{- toYaml $config }}
{{- end }}
{{- end }}
{{- end }}

{{/*
informerd's --config file (format: server/config/config.h).
*/}}
{{- define "informerd.configFile" -}}
{{- with .Values.config.history }}
{{- if and .minEvents .maxEvents (gt (int .minEvents) (int .maxEvents)) }}
{{- fail "config.history.minEvents: must not exceed config.history.maxEvents" }}
{{- end }}
{{- end }}
{{- $config := omit .Values.config "resources" "limits" }}
{{- $_ := set $config "resources" (include "informerd.resources" . | fromYamlArray) }}
{{- with include "informerd.limits" . | fromYaml }}
{{- $_ := set $config "limits" . }}
{{- end }}
{{- with include "informerd.upstreamConfig" . }}
{{- $config = merge $config (fromYaml .) }}
{{- end }}
{{- toYaml $config }}
{{- end }}

{{/*
config.limits, with the initial-events budget fitted to the pod's memory
limit (values.yaml, config.limits).
*/}}
{{- define "informerd.limits" -}}
{{- $limits := deepCopy (.Values.config.limits | default dict) }}
{{- $memory := (.Values.resources.limits | default dict).memory }}
{{- if $memory }}
{{- $bytes := include "informerd.quantityBytes" (dict "value" $memory "path" "resources.limits.memory") | int64 }}
{{- if hasKey $limits "maxInitialBytes" }}
{{- if ge (int64 $limits.maxInitialBytes) $bytes }}
{{- fail (printf "config.limits.maxInitialBytes: %v is not below resources.limits.memory (%v = %d bytes): streams holding initial events alone could exceed the pod's memory" $limits.maxInitialBytes $memory $bytes) }}
{{- end }}
{{- else }}
{{- $_ := set $limits "maxInitialBytes" (div $bytes 4) }}
{{- end }}
{{- $quarter := div (int64 $limits.maxInitialBytes) 4 }}
{{- if and (not (hasKey $limits "maxInitialBytesPerIdentity")) (lt $quarter 268435456) }}
{{- $_ := set $limits "maxInitialBytesPerIdentity" $quarter }}
{{- end }}
{{- end }}
{{- if $limits }}
{{- toYaml $limits }}
{{- end }}
{{- end }}

{{/*
A Kubernetes quantity as bytes: dict "value" QUANTITY "path" VALUES_PATH.
Binary (Ki..Ei) and decimal (k..E) suffixes; fails naming the path for
anything else.
*/}}
{{- define "informerd.quantityBytes" -}}
{{- $text := toString .value }}
{{- $number := regexFind "^[0-9]+(\\.[0-9]+)?" $text }}
{{- $suffix := trimPrefix $number $text }}
{{- $units := dict "" 1 "Ki" 1024 "Mi" 1048576 "Gi" 1073741824 "Ti" 1099511627776 "Pi" 1125899906842624 "Ei" 1152921504606846976 "k" 1000 "M" 1000000 "G" 1000000000 "T" 1000000000000 "P" 1000000000000000 "E" 1000000000000000000 }}
{{- if or (not $number) (not (hasKey $units $suffix)) }}
{{- fail (printf "%s: %q is not a memory quantity (e.g. 1Gi, 512Mi, 1G)" .path $text) }}
{{- end }}
{{- if contains "." $number }}
{{- mulf (float64 $number) (get $units $suffix) | int64 }}
{{- else }}
{{- mul (int64 $number) (get $units $suffix) }}
{{- end }}
{{- end }}

{{/*
Whether an upgrade keeps the generated server certificate ("true") or signs
a new one (tls-secret.yaml): kept while its Secret records an end
(informerd.io/not-after) more than tls.generated.renewBeforeDays away, or
records none (made before the annotation existed).
*/}}
{{- define "informerd.tlsKept" -}}
{{- $existing := lookup "v1" "Secret" .Release.Namespace (include "informerd.tlsSecretName" .) }}
{{- $keep := false }}
{{- if and $existing $existing.data (hasKey $existing.data "tls.crt") (hasKey $existing.data "tls.key") (hasKey $existing.data "ca.crt") }}
{{- $recorded := (($existing.metadata).annotations | default dict) | dig "informerd.io/not-after" "" }}
{{- if or (not $recorded) (gt (sub (int64 $recorded) (now | unixEpoch | int64)) (mul (int64 .Values.tls.generated.renewBeforeDays) 86400)) }}
{{- $keep = true }}
{{- end }}
{{- end }}
{{- $keep }}
{{- end }}

{{/*
The generated server certificate's end as Unix time (informerd.io/not-after):
the one recorded when kept, else validityDays from today, at midnight UTC so
that every template of one render computes the same value. The pods carry
it (checksum/tls), so a renewal rolls them and the proxy, which reads the
certificate only when it starts, serves the new one.
*/}}
{{- define "informerd.tlsNotAfter" -}}
{{- if and .Values.tls.enabled (not .Values.tls.secretName) (not .Values.tls.certManager.enabled) }}
{{- $existing := lookup "v1" "Secret" .Release.Namespace (include "informerd.tlsSecretName" .) }}
{{- if eq (include "informerd.tlsKept" .) "true" }}
{{- (($existing.metadata).annotations | default dict) | dig "informerd.io/not-after" "" }}
{{- else }}
{{- $today := mul (div (now | unixEpoch | int64) 86400) 86400 }}
{{- add $today (mul (int64 .Values.tls.generated.validityDays) 86400) }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The Secret with the gRPC port's certificate: tls.secretName, else the
chart's own "<fullname>-tls" (generated, or issued by cert-manager).
*/}}
{{- define "informerd.tlsSecretName" -}}
{{- .Values.tls.secretName | default (printf "%s-tls" (include "informerd.fullname" .)) }}
{{- end }}

{{/*
The DNS names the server certificate covers, as a YAML list: the Service's
and the headless Service's names, in every form a client in the cluster
may use, and tls.extraDnsNames.
*/}}
{{- define "informerd.tlsDnsNames" -}}
{{- $names := list }}
{{- range $service := list (include "informerd.fullname" .) (printf "%s-headless" (include "informerd.fullname" .)) }}
{{- $names = concat $names (list $service (printf "%s.%s" $service $.Release.Namespace) (printf "%s.%s.svc" $service $.Release.Namespace) (printf "%s.%s.svc.cluster.local" $service $.Release.Namespace)) }}
{{- end }}
{{- toYaml (concat $names .Values.tls.extraDnsNames) }}
{{- end }}

{{/*
The flags that say how callers are authenticated and how the gRPC port is
protected. Refuses the combinations that would expose the cluster unless
the value that accepts the risk is set: the server binary refuses them on
a non-loopback address too, so the chart fails early with the same reason.
*/}}
{{- define "informerd.securityArgs" -}}
- --auth-mode={{ .Values.auth.mode }}
{{- if eq .Values.auth.mode "none" }}
{{- if not .Values.auth.allowUnauthenticated }}
{{- fail "auth.mode=none: every client that can reach the Service would read every served object (with the default resources, every ConfigMap and Pod spec in the cluster). Keep auth.mode=kubernetes, or set auth.allowUnauthenticated=true to accept that" }}
{{- end }}
- --allow-unauthenticated
{{- else if not .Values.tls.enabled }}
{{- if not .Values.auth.allowPlaintextTokens }}
{{- fail "tls.enabled=false with auth.mode=kubernetes: clients' bearer tokens would cross the network in clear text. Keep tls.enabled=true, or set auth.allowPlaintextTokens=true (e.g. when a service mesh encrypts pod traffic)" }}
{{- end }}
- --allow-plaintext-tokens
{{- end }}
{{- /* Without token reviews (auth.mode none) no audience is checked. */}}
{{- if eq .Values.auth.mode "kubernetes" }}
{{- with include "informerd.tokenAudiences" . }}
- --token-audiences={{ . }}
{{- end }}
{{- end }}
{{- if .Values.tls.enabled }}
- --tls-cert-file=/etc/informerd/tls/tls.crt
- --tls-key-file=/etc/informerd/tls/tls.key
{{- if .Values.tls.http }}
{{- if .Values.tls.clientCA.secretName }}
{{- fail "tls.http: cannot be combined with tls.clientCA (kubelet probes carry no client certificate)" }}
{{- end }}
- --http-tls
{{- end }}
{{- else if .Values.tls.http }}
{{- fail "tls.http: needs tls.enabled" }}
{{- end }}
{{- if .Values.tls.clientCA.secretName }}
- --client-ca-file=/etc/informerd/client-ca/{{ .Values.tls.clientCA.key }}
{{- end }}
{{- if and .Values.upstream.address (not .Values.upstream.tls.enabled) }}
- --allow-insecure-upstream
{{- end }}
{{- end }}

{{/*
The number of pods the release keeps at least: the HPA's minimum when it
scales the Deployment, else replicaCount.
*/}}
{{- define "informerd.minReplicas" -}}
{{- if .Values.autoscaling.enabled }}
{{- int .Values.autoscaling.minReplicas }}
{{- else }}
{{- int .Values.replicaCount }}
{{- end }}
{{- end }}

{{/*
HAProxy's configuration for the proxy container (proxy.enabled): the guard
in front of informerd's gRPC (docs/DECISIONS.md, "HTTP/2 floods meet
HAProxy first"). It forwards a request only once it is whole (a stream
reset before its request message never reaches informerd), and bounds each
client address's connections and request rate, so that resets of forwarded
requests reach informerd at most that fast per address. TLS ends here,
with the chart's certificate (tls.key is found beside tls.crt); informerd
is reached on loopback, with TLS again when tls.enabled (it keeps its
certificate and flags), and told the client's address in
x-forwarded-for.
*/}}
{{- define "informerd.proxyConfig" -}}
global
  maxconn {{ int .Values.proxy.maxConnections }}
  hard-stop-after {{ int .Values.proxy.drainAfterReloadSeconds }}s
  ssl-load-extra-del-ext
  log stderr format raw local0 warning
  tune.h2.fe.glitches-threshold {{ int .Values.proxy.glitchesPerConnection }}
  tune.h2.fe.max-total-streams {{ int .Values.proxy.streamsPerConnection }}

defaults
  mode http
  log global
  option http-buffer-request
  timeout connect 5s
  timeout http-request 10s
  timeout client {{ int .Values.proxy.idleTimeoutSeconds }}s
  timeout server {{ int .Values.proxy.idleTimeoutSeconds }}s

frontend grpc
  {{- if .Values.tls.enabled }}
  bind :{{ .Values.ports.grpc }} ssl crt /etc/informerd/tls/tls.crt alpn h2
  {{- else }}
  bind :{{ .Values.ports.grpc }} proto h2
  {{- end }}
  stick-table type ipv6 size 100k expire 60s store conn_cur,conn_rate(1s),http_req_rate(1s),glitch_rate(10s)
  tcp-request connection track-sc0 src
  tcp-request connection reject if { sc_conn_cur(0) gt {{ int .Values.proxy.perAddress.maxConnections }} }
  tcp-request connection reject if { sc_conn_rate(0) gt {{ int .Values.proxy.perAddress.connectionsPerSecond }} }
  tcp-request connection reject if { sc_glitch_rate(0) gt {{ int .Values.proxy.perAddress.glitchesPer10Seconds }} }
  http-request deny deny_status 429 if { sc_http_req_rate(0) gt {{ int .Values.proxy.perAddress.requestsPerSecond }} }
  http-request set-header x-forwarded-for %[src]
  default_backend informerd

backend informerd
  {{- if .Values.tls.enabled }}
  server informerd 127.0.0.1:{{ .Values.proxy.backendPort }} ssl verify none alpn h2
  {{- else }}
  server informerd 127.0.0.1:{{ .Values.proxy.backendPort }} proto h2
  {{- end }}
{{- end }}

{{- /*
auth.tokenAudiences rendered (each is a template), comma-separated; empty
when the list is.
*/}}
{{- define "informerd.tokenAudiences" -}}
{{- $root := . }}
{{- $out := list }}
{{- range .Values.auth.tokenAudiences }}
{{- $out = append $out (tpl . $root) }}
{{- end }}
{{- join "," $out }}
{{- end }}

{{- /*
The audience a root installed with this chart's defaults accepts, from
upstream.address: its Service DNS name NAME.NAMESPACE.svc. A bare NAME is
a Service in this release's namespace; NAME.NAMESPACE and
NAME.NAMESPACE.svc.cluster.local name the same Service; any other host
(not a Service) is taken as it is.
*/}}
{{- define "informerd.upstreamAudience" -}}
{{- $host := regexReplaceAll ":[0-9]+$" .Values.upstream.address "" }}
{{- $host = trimSuffix "." $host }}
{{- $host = trimSuffix ".cluster.local" $host }}
{{- $labels := splitList "." $host }}
{{- if eq (len $labels) 1 }}
{{- printf "%s.%s.svc" $host .Release.Namespace }}
{{- else if eq (len $labels) 2 }}
{{- printf "%s.svc" $host }}
{{- else }}
{{- $host }}
{{- end }}
{{- end }}
