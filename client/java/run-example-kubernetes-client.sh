#!/usr/bin/env bash
# Runs the example ConfigMap controller built on the official Kubernetes Java
# client (client-java's ControllerBuilder and Reconciler) whose informer is
# served by informerd through informerd-kubernetes-client; the e2e harness
# drives it as "java-kubernetes-client" (see hack/example.sh). Builds when a
# source changed (lib/build.sh), then execs the JVM so SIGTERM reaches it.
#
# Usage: client/java/run-example-kubernetes-client.sh --server ADDR --resource configmaps
#                                   [-n NS] [-l SELECTOR] [--token-file F] [--ca-file F]
# Environment: KUBECONFIG, the apiserver client's credentials.
set -euo pipefail
source "$(dirname "$0")/lib/build.sh"
build_examples
exec java -cp "$(cat "$examples_classpath_file")" \
  io.informerd.client.examples.KubernetesClientController "$@"
