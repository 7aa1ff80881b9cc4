#!/usr/bin/env bash
# Calls the local kube-apiserver as the admin identity, for scripts and tests
# that need a few API calls but no kubectl.
#
# Usage: hack/kube-curl.sh METHOD PATH [BODY_FILE|-]
#   e.g. hack/kube-curl.sh POST /api/v1/namespaces body.json
#        echo '{"data":{"k":"v"}}' |
#          hack/kube-curl.sh PATCH /api/v1/namespaces/demo/configmaps/c1 -
# Prints the response body and fails (exit 22) on an HTTP status >= 400.
# PATCH bodies are sent as JSON merge patches, everything else as JSON;
# INFORMERD_CONTENT_TYPE overrides that.
#
# The control plane comes from INFORMERD_APISERVER_URL, INFORMERD_CA_FILE and
# INFORMERD_ADMIN_TOKEN_FILE when set, else from `hack/control-plane.sh env`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

(($# == 2 || $# == 3)) || {
  sed -n '5,11s/^# \{0,1\}//p' "$0" >&2
  exit 2
}
method="$1"
path="$2"
body="${3:-}"

if [[ -z "${INFORMERD_APISERVER_URL:-}" || -z "${INFORMERD_CA_FILE:-}" ||
  -z "${INFORMERD_ADMIN_TOKEN_FILE:-}" ]]; then
  eval "$("$INFORMERD_ROOT/hack/control-plane.sh" env)"
fi

content_type=application/json
[[ "$method" == PATCH ]] && content_type=application/merge-patch+json
content_type="${INFORMERD_CONTENT_TYPE:-$content_type}"

args=(-sS --fail-with-body -X "$method"
  --cacert "$INFORMERD_CA_FILE"
  -H "Authorization: Bearer $(<"$INFORMERD_ADMIN_TOKEN_FILE")"
  -H "Accept: application/json")
[[ -n "$body" ]] && args+=(-H "Content-Type: $content_type" --data-binary "@$body")

curl "${args[@]}" "$INFORMERD_APISERVER_URL$path"
