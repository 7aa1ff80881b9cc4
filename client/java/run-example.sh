#!/usr/bin/env bash
# Runs the uniform informerd example program (see hack/example.sh) with the
# Java client: builds when a source changed (lib/build.sh), then execs the
# JVM directly, so starting costs no Maven run when nothing changed and
# SIGTERM reaches the program.
#
# Usage: client/java/run-example.sh --server ADDR --resource RESOURCE
#                                   [-n NS] [-l SELECTOR] [--token-file F] [--ca-file F]
set -euo pipefail
source "$(dirname "$0")/lib/build.sh"
build_examples
exec java -cp "$(cat "$examples_classpath_file")" \
  io.informerd.client.examples.ExampleInformer "$@"
