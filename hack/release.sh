#!/usr/bin/env bash
# Builds the release artifacts of the version in VERSION (the repository's
# one version number), after checking that every part carries it
# (hack/release/versions.py names any file that differs, and both versions):
#
#   DIR/helm/informerd-V.tgz, index.yaml   the chart (helm package), as a
#                                          chart repository
#   DIR/go/<module>/@v/list, vV.info, .mod, .zip
#                                          client/go as a GOPROXY file
#                                          registry (GOPROXY=file://DIR/go)
#   DIR/maven/io/informerd/...             informerd-client and
#                                          informerd-kubernetes-client: jar,
#                                          sources, javadoc and pom, and their
#                                          parent pom, a file:// Maven
#                                          repository
#   DIR/python/informerd-V.tar.gz, informerd-V-py3-none-any.whl
#                                          sdist and wheel, for
#                                          pip --find-links DIR/python
#   DIR/SHA256SUMS
#
# Usage: hack/release.sh [--out DIR] [--check]
#   --out DIR  where the artifacts go (default: dist/ at the repository
#              root); emptied first
#   --check    only check the versions
#
# Tools: helm from hack/install-helm.sh, Go (informerd::newest_go) with
# golang.org/x/mod pinned by hack/release/gomodzip/go.sum, Maven through
# client/java/mvnw (~/.m2), python -m build (pinned below) with the build
# requirements pinned in client/python/pyproject.toml, in a virtualenv under
# $INFORMERD_CACHE. Logs in $INFORMERD_CACHE/release.
# tests/release/run.sh installs every artifact into an empty project.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly build_version=1.6.1
out="$INFORMERD_ROOT/dist"
check_only=false
while (($#)); do
  case "$1" in
    --out)
      (($# >= 2)) || informerd::die "--out needs a DIR"
      out="$(realpath -m "$2")"
      shift 2
      ;;
    --check) check_only=true; shift ;;
    *) informerd::die "unknown argument $1; usage: hack/release.sh [--out DIR] [--check]" ;;
  esac
done

version="$(python3 "$INFORMERD_ROOT/hack/release/versions.py" "$INFORMERD_ROOT")" ||
  informerd::die "the parts do not carry VERSION's version (above); change them to it"
informerd::log "version $version: chart, Go module, Maven artifacts and Python package agree"
$check_only && exit 0

logs="$INFORMERD_CACHE/release"
mkdir -p "$logs"
rm -rf "$out"
mkdir -p "$out"/{helm,go,maven,python}

# Runs a step with its output in logs/NAME.log; on failure shows its end.
step() {
  local name="$1"
  shift
  local start=$SECONDS
  if ! "$@" >"$logs/$name.log" 2>&1; then
    tail -n 30 "$logs/$name.log" >&2
    informerd::die "$name failed; see $logs/$name.log"
  fi
  informerd::log "$name: $((SECONDS - start))s (log: $logs/$name.log)"
}

helm_chart() {
  local helm_dir
  helm_dir="$("$INFORMERD_ROOT/hack/install-helm.sh")"
  "$helm_dir/helm" package "$INFORMERD_ROOT/charts/informerd" --destination "$out/helm" &&
    "$helm_dir/helm" repo index "$out/helm"
}

go_module() {
  local go
  go="$(informerd::newest_go)" || return 1
  (cd "$INFORMERD_ROOT/hack/release/gomodzip" &&
    GOTOOLCHAIN=local GOFLAGS=-mod=readonly "$go" run . \
      -dir "$INFORMERD_ROOT/client/go" -version "v$version" -out "$out/go")
}

maven_artifacts() {
  # The examples module is not published. Nothing goes into ~/.m2: a
  # release is read from its repository only.
  "$INFORMERD_ROOT/client/java/mvnw" -B -f "$INFORMERD_ROOT/client/java/pom.xml" \
    -DskipTests -Dmaven.install.skip=true -Prelease \
    -pl informerd-client,informerd-kubernetes-client -am deploy \
    -DaltDeploymentRepository="release::file://$out/maven"
}

python_package() {
  # The build requirements of pyproject.toml, pinned there, in one virtualenv
  # kept between runs: build needs no isolated environment per run.
  local venv="$INFORMERD_CACHE/release-venv" status=0 requirements
  requirements="$(python3 -c 'import sys, tomllib
print("\n".join(tomllib.load(open(sys.argv[1], "rb"))["build-system"]["requires"]))' \
    "$INFORMERD_ROOT/client/python/pyproject.toml")" || return 1
  requirements="build==$build_version"$'\n'"$requirements"
  if [[ "$(cat "$venv/.informerd-release" 2>/dev/null)" != "$requirements" ]]; then
    rm -rf "$venv"
    python3 -m venv "$venv" &&
      xargs "$venv/bin/python" -m pip install --quiet <<<"$requirements" &&
      echo "$requirements" >"$venv/.informerd-release" || return 1
  fi
  # setuptools writes build/ and the egg-info into the source tree.
  rm -rf "$INFORMERD_ROOT/client/python/build" "$INFORMERD_ROOT"/client/python/*.egg-info
  "$venv/bin/python" -m build --no-isolation --outdir "$out/python" \
    "$INFORMERD_ROOT/client/python" || status=$?
  rm -rf "$INFORMERD_ROOT/client/python/build" "$INFORMERD_ROOT"/client/python/*.egg-info
  return "$status"
}

step helm helm_chart
step go go_module
step maven maven_artifacts
step python python_package

# Every part is named with the version it was built as.
expected=(
  "helm/informerd-$version.tgz"
  "go/github.com/informerd/informerd/client/go/@v/v$version.zip"
  "go/github.com/informerd/informerd/client/go/@v/v$version.mod"
  "go/github.com/informerd/informerd/client/go/@v/v$version.info"
  "maven/io/informerd/informerd-parent/$version/informerd-parent-$version.pom"
  "python/informerd-$version.tar.gz"
  "python/informerd-$version-py3-none-any.whl"
)
for artifact in informerd-client informerd-kubernetes-client; do
  for suffix in .pom .jar -sources.jar -javadoc.jar; do
    expected+=("maven/io/informerd/$artifact/$version/$artifact-$version$suffix")
  done
done
for file in "${expected[@]}"; do
  [[ -f "$out/$file" ]] || informerd::die "the release lacks $file (version $version); see $logs"
done
(cd "$out" && find . -type f ! -name SHA256SUMS | sort | xargs sha256sum >SHA256SUMS)
informerd::log "release $version in $out"
