#!/usr/bin/env bash
# Checks what hack/test.sh promises every test: the variables of
# `hack/control-plane.sh env`, and identities that behave as documented.
# Missing variables fail the test; they never skip it.
set -euo pipefail

required=(KUBECONFIG INFORMERD_APISERVER_URL INFORMERD_KUBE_VERSION INFORMERD_CP_DIR INFORMERD_CA_FILE
  INFORMERD_ADMIN_TOKEN_FILE INFORMERD_ALICE_TOKEN_FILE INFORMERD_BOB_TOKEN_FILE
  INFORMERD_CAROL_TOKEN_FILE INFORMERD_ALICE_KUBECONFIG INFORMERD_CERTUSER_KUBECONFIG
  INFORMERD_CERTUSER_CERT_FILE INFORMERD_CERTUSER_KEY_FILE)
for name in "${required[@]}"; do
  [[ -n "${!name:-}" ]] || { echo "FAIL: $name is not set; run through hack/test.sh"; exit 1; }
done

failures=0
# Usage: expect_status WANT PATH CURL_ARGS...
expect_status() {
  local want="$1" path="$2" got
  shift 2
  got="$(curl -sS -o /dev/null -w '%{http_code}' --cacert "$INFORMERD_CA_FILE" "$@" \
    "$INFORMERD_APISERVER_URL$path")" || true
  if [[ "$got" != "$want" ]]; then
    echo "FAIL: GET $path with ${*:1:2}: status $got, want $want"
    failures=$((failures + 1))
  fi
}
bearer() { echo "Authorization: Bearer $(<"$1")"; }

expect_status 200 /api/v1/namespaces/default/configmaps -H "$(bearer "$INFORMERD_ADMIN_TOKEN_FILE")"
expect_status 403 /api/v1/namespaces/default/configmaps -H "$(bearer "$INFORMERD_ALICE_TOKEN_FILE")"
expect_status 401 /api/v1/namespaces/default/configmaps -H "Authorization: Bearer not-a-token"
# A client certificate authenticates: certuser is known (403), not anonymous
# and rejected as unauthenticated.
expect_status 403 /api/v1/namespaces/default/configmaps \
  --cert "$INFORMERD_CERTUSER_CERT_FILE" --key "$INFORMERD_CERTUSER_KEY_FILE"

# The apiserver is the version the run says it tests against.
version="$(curl -sS --cacert "$INFORMERD_CA_FILE" -H "$(bearer "$INFORMERD_ADMIN_TOKEN_FILE")" \
  "$INFORMERD_APISERVER_URL/version" | python3 -c 'import json, sys; print(json.load(sys.stdin)["gitVersion"])')" || true
if [[ "$version" != "v$INFORMERD_KUBE_VERSION."* ]]; then
  echo "FAIL: /version says '$version', want v$INFORMERD_KUBE_VERSION.x"
  failures=$((failures + 1))
fi

grep -q "server: $INFORMERD_APISERVER_URL" "$KUBECONFIG" || {
  echo "FAIL: $KUBECONFIG does not point at $INFORMERD_APISERVER_URL"
  failures=$((failures + 1))
}

((failures == 0))
