#!/usr/bin/env bash
# Builds the container images with Debian's buildah, from Debian packages
# only (no container registry is reachable here), each cached by a hash of
# its inputs, and optionally imports them into a containerd.
#
# Usage: hack/images.sh [--import CONTAINERD_SOCKET] [--list FILE]
#   Builds every image below that is not cached; with --import, imports
#   each into that containerd's k8s.io namespace (the one kubelet uses).
#   Prints one line per image: NAME REFERENCE, and writes the same lines
#   to FILE with --list.
#
# The images:
#   debian        docker.io/library/debian:bookworm and :bookworm-slim, the
#                 base images deploy/Dockerfile names, made by mmdebstrap
#                 (minbase) from Debian's archive
#   informerd     docker.io/library/informerd:APPVERSION (the chart's default
#                 image) from deploy/Dockerfile, as a user builds it; Bazel
#                 inside it uses this machine's disk cache
#                 (~/.cache/informerd/bazel-disk, mounted)
#   go-controller-runtime, java-kubernetes-client, python, cpp
#                 the example controllers of client/go and client/java and
#                 the example informers of client/python and client/cpp
#                 (deploy/examples/), built on this machine and copied
#                 into images on debian:bookworm-slim (the C++ one on
#                 informerd's image, which has the same shared libraries),
#                 tagged informerd.local/example-NAME:HASH
#
# Cache: ~/.cache/informerd/images/NAME-HASH.tar (docker-archive), HASH over
# every input (the build context's files, the Dockerfile, the base image).
# Logs: ~/.cache/informerd/images/NAME.log.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly image_dir="$INFORMERD_CACHE/images"
readonly debian_mirrors=("deb http://deb.debian.org/debian bookworm main"
  "deb http://deb.debian.org/debian bookworm-updates main"
  "deb http://deb.debian.org/debian-security bookworm-security main")

containerd_sock=""
list_file=""
while (($#)); do
  case "$1" in
    --import)
      (($# >= 2)) || informerd::die "--import needs the containerd socket's path"
      containerd_sock="$2"
      shift 2
      ;;
    --list)
      (($# >= 2)) || informerd::die "--list needs a FILE"
      list_file="$2"
      shift 2
      ;;
    *) informerd::die "unknown argument $1; usage: hack/images.sh [--import CONTAINERD_SOCKET] [--list FILE]" ;;
  esac
done

# Prints a hash over the files of a build context: every file of DIR that
# git tracks or would track, less those matching the ignore file's patterns
# (directory prefixes and globs, as deploy/Dockerfile.dockerignore uses; the
# last matching line decides, and a "!" line takes a path back).
# Usage: context_hash DIR IGNORE_FILE
context_hash() {
  local dir="$1" ignore="$2"
  (
    cd "$dir"
    git ls-files -z --cached --others --exclude-standard |
      python3 -c '
import fnmatch, sys
patterns = [l.strip() for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")]
for path in sys.stdin.read().split("\0"):
    if not path:
        continue
    parts = path.split("/")
    prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    ignored = False
    for pattern in patterns:
        keep = pattern.startswith("!")
        if any(fnmatch.fnmatch(p, pattern.lstrip("!")) for p in prefixes):
            ignored = not keep
    if ignored:
        continue
    print(path)
' "$ignore" | sort | while IFS= read -r file; do
      [[ -f "$file" ]] && printf '%s %s\n' "$(sha256sum <"$file" | cut -c1-64)" "$file"
    done
  ) | informerd::digest
}

# The image ID buildah has for REF, or nothing.
image_id() { buildah images --quiet --no-trunc "$1" 2>/dev/null | head -n1; }

# Loads ARCHIVE into buildah's storage unless REF is already there with the
# label informerd.input-hash=HASH. Usage: load_archive REF HASH ARCHIVE
load_archive() {
  local ref="$1" hash="$2" archive="$3"
  [[ "$(buildah inspect --type image --format '{{index .OCIv1.Config.Labels "informerd.input-hash"}}' \
    "$ref" 2>/dev/null)" == "$hash" ]] && return 0
  buildah pull "docker-archive:$archive" >/dev/null
  local loaded
  loaded="$(buildah images --quiet --no-trunc --filter "label=informerd.input-hash=$hash" | head -n1)"
  [[ -n "$loaded" ]] || informerd::die "$archive holds no image labelled informerd.input-hash=$hash"
  buildah tag "$loaded" "$ref"
}

built=()

# Records an image for the output and the import.
# Usage: record NAME REF ARCHIVE
record() { built+=("$1 $2 $3"); }

build_debian() {
  local name=debian ref=docker.io/library/debian:bookworm
  local hash archive log="$image_dir/debian.log"
  hash="$(printf '%s\n' minbase bookworm "${debian_mirrors[@]}" | informerd::digest)"
  archive="$image_dir/debian-${hash:0:16}.tar"
  if [[ ! -s "$archive" ]]; then
    informerd::log "making debian:bookworm with mmdebstrap (about a minute; log: $log)"
    local work container
    work="$(mktemp -d)"
    {
      mmdebstrap --variant=minbase --mode=root --format=tar bookworm "$work/rootfs.tar" \
        "${debian_mirrors[@]}" &&
        container="$(buildah from scratch)" &&
        buildah add "$container" "$work/rootfs.tar" / &&
        buildah config --cmd /bin/bash \
          --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
          --label "informerd.input-hash=$hash" "$container" &&
        buildah commit --rm "$container" "$ref" &&
        buildah push "$ref" "docker-archive:$archive.tmp:$ref"
    } >"$log" 2>&1 || {
      rm -rf "$work"
      informerd::die "making the Debian base image failed; last lines of $log: $(tail -n 5 "$log")"
    }
    rm -rf "$work"
    mv "$archive.tmp" "$archive"
  fi
  load_archive "$ref" "$hash" "$archive"
  buildah tag "$ref" docker.io/library/debian:bookworm-slim
  record "$name" "$ref" "$archive"
}

# Builds DOCKERFILE in CONTEXT as REF unless cached; INPUT_HASH covers the
# context. Further arguments go to buildah bud.
# Usage: build_dockerfile NAME REF CONTEXT DOCKERFILE INPUT_HASH [BUD_ARG...]
build_dockerfile() {
  local name="$1" ref="$2" context="$3" dockerfile="$4" input="$5"
  shift 5
  local hash archive log="$image_dir/$name.log"
  hash="$(printf '%s\n' "$input" "$(informerd::digest "$dockerfile")" \
    "$(image_id docker.io/library/debian:bookworm)" | informerd::digest)"
  archive="$image_dir/$name-${hash:0:16}.tar"
  if [[ ! -s "$archive" ]]; then
    informerd::log "building image $ref from ${dockerfile#"$INFORMERD_ROOT"/} (log: $log)"
    local start=$SECONDS
    buildah bud --pull=never --network=host --layers --isolation=oci \
      --label "informerd.input-hash=$hash" -f "$dockerfile" -t "$ref" "$@" "$context" \
      >"$log" 2>&1 || {
      informerd::log "building $ref failed; last lines of $log:"
      tail -n 30 "$log" >&2
      exit 1
    }
    buildah push "$ref" "docker-archive:$archive.tmp:$ref" >>"$log" 2>&1 ||
      informerd::die "saving $ref failed; see $log"
    mv "$archive.tmp" "$archive"
    informerd::log "built $ref in $((SECONDS - start))s"
  fi
  load_archive "$ref" "$hash" "$archive"
  record "$name" "$ref" "$archive"
}

# Set by build_informerd: the C++ example's image is built on it.
informerd_ref=""

build_informerd() {
  local version
  version="$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$INFORMERD_ROOT/charts/informerd/Chart.yaml")"
  [[ -n "$version" ]] || informerd::die "no appVersion in charts/informerd/Chart.yaml"
  local ignore="$INFORMERD_ROOT/deploy/Dockerfile.dockerignore"
  mkdir -p "$INFORMERD_CACHE/bazel-disk"
  # The build inside the image reaches no HTTPS that this machine trusts
  # (it may trust a TLS-intercepting CA the image does not have), so the
  # downloads it needs by checksum (the Kubernetes .proto schemas,
  # bazel/kube_proto.bzl) come from the repository cache under the mounted
  # directory (.bazelrc), filled here.
  (cd "$INFORMERD_ROOT" && bazel sync --only=kube_proto) >"$image_dir/kube-proto-sync.log" 2>&1 ||
    informerd::die "fetching the Kubernetes .proto schemas failed (log: $image_dir/kube-proto-sync.log)"
  informerd_ref="docker.io/library/informerd:$version"
  build_dockerfile informerd "$informerd_ref" "$INFORMERD_ROOT" \
    "$INFORMERD_ROOT/deploy/Dockerfile" "$(context_hash "$INFORMERD_ROOT" "$ignore")" \
    --ignorefile "$ignore" \
    --volume "$INFORMERD_CACHE/bazel-disk:/root/.cache/informerd/bazel-disk"
}

# The Go example: a static binary built here (Debian's Go is too old for the
# client module), copied into the image.
build_go_example() {
  local name=go-controller-runtime context="$image_dir/context-go-controller-runtime"
  local go
  go="$(informerd::newest_go)"
  rm -rf "$context"
  mkdir -p "$context"
  (cd "$INFORMERD_ROOT/client/go" && GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=readonly \
    "$go" build -trimpath -buildvcs=false -ldflags "-s -w" -o "$context/controller-runtime" \
    ./examples/controller-runtime) >"$image_dir/$name-go.log" 2>&1 ||
    informerd::die "building the Go example failed; see $image_dir/$name-go.log"
  local hash
  hash="$(sha256sum <"$context/controller-runtime" | cut -c1-64)"
  build_dockerfile "$name" "informerd.local/example-$name:${hash:0:12}" "$context" \
    "$INFORMERD_ROOT/deploy/examples/go-controller-runtime.Dockerfile" "$hash"
}

# The Java example: its classes and every jar of its classpath (Maven's
# resolution here), copied into an image with Debian's JRE.
build_java_example() {
  local name=java-kubernetes-client context="$image_dir/context-java-kubernetes-client"
  # shellcheck source=../client/java/lib/build.sh
  (
    source "$INFORMERD_ROOT/client/java/lib/build.sh"
    build_examples >&2
    rm -rf "$context"
    mkdir -p "$context/lib" "$context/classes"
    local entry
    # The file ends without a newline: the last entry counts too.
    tr ':' '\n' <"$examples_classpath_file" | while IFS= read -r entry || [[ -n "$entry" ]]; do
      [[ -n "$entry" ]] || continue
      if [[ -d "$entry" ]]; then
        cp -r "$entry/." "$context/classes/"
      else
        cp "$entry" "$context/lib/"
      fi
    done
  ) >"$image_dir/$name-maven.log" 2>&1 ||
    informerd::die "building the Java example failed; see $image_dir/$name-maven.log"
  local hash
  hash="$(cd "$context" && find . -type f -print0 | sort -z | xargs -0 sha256sum | informerd::digest)"
  build_dockerfile "$name" "informerd.local/example-$name:${hash:0:12}" "$context" \
    "$INFORMERD_ROOT/deploy/examples/java-kubernetes-client.Dockerfile" "$hash"
}

# The Python example: the package and its dependencies as wheels built and
# fetched here (PyPI), installed into a venv of Debian's Python 3.11.
build_python_example() {
  local name=python context="$image_dir/context-python" python
  python="$("$INFORMERD_ROOT/client/python/venv.sh")" ||
    informerd::die "preparing client/python's virtualenv failed"
  rm -rf "$context"
  mkdir -p "$context/wheels" "$context/example"
  (
    cd "$INFORMERD_ROOT/client/python" && rm -rf build ./*.egg-info &&
      "$python" -m pip wheel --quiet --disable-pip-version-check -w "$context/wheels" . &&
      rm -rf build ./*.egg-info
  ) >"$image_dir/$name-pip.log" 2>&1 ||
    informerd::die "building the Python package's wheels failed; see $image_dir/$name-pip.log"
  cp "$INFORMERD_ROOT"/client/python/examples/*.py "$context/example/"
  local hash
  hash="$(cd "$context" && find . -type f -print0 | sort -z | xargs -0 sha256sum | informerd::digest)"
  build_dockerfile "$name" "informerd.local/example-$name:${hash:0:12}" "$context" \
    "$INFORMERD_ROOT/deploy/examples/python.Dockerfile" "$hash"
}

# The C++ example, as Bazel builds it here, on informerd's image (the same
# Debian runtime libraries). REQUIRES: build_informerd ran.
build_cpp_example() {
  local name=cpp context="$image_dir/context-cpp" bin_dir
  bin_dir="$(informerd::bazel_build "$image_dir/$name-bazel.log" "" "" //client/cpp:example)" ||
    informerd::die "building //client/cpp:example failed"
  rm -rf "$context"
  mkdir -p "$context"
  cp "$bin_dir/client/cpp/example" "$context/example"
  local hash
  hash="$(printf '%s\n' "$(sha256sum <"$context/example")" "$(image_id "$informerd_ref")" | informerd::digest)"
  build_dockerfile "$name" "informerd.local/example-$name:${hash:0:12}" "$context" \
    "$INFORMERD_ROOT/deploy/examples/cpp.Dockerfile" "$hash" \
    --build-arg "INFORMERD_IMAGE=$informerd_ref"
}

import_all() {
  local line name ref archive log="$image_dir/import.log"
  for line in "${built[@]}"; do
    read -r name ref archive <<<"$line"
    [[ "$name" == debian ]] && continue
    if [[ "$(ctr --address "$containerd_sock" -n k8s.io images ls -q "name==$ref" 2>/dev/null)" == "$ref" ]] &&
      [[ -f "$archive.imported-$(basename "$containerd_sock")" ]]; then
      continue
    fi
    ctr --address "$containerd_sock" -n k8s.io images import "$archive" >>"$log" 2>&1 ||
      informerd::die "importing $ref into containerd at $containerd_sock failed; see $log"
    touch "$archive.imported-$(basename "$containerd_sock")"
  done
}

mkdir -p "$image_dir"
informerd::ensure_packages "$image_dir/apt.log" buildah mmdebstrap runc
build_debian
build_informerd
build_go_example
build_java_example
build_python_example
build_cpp_example
[[ -z "$containerd_sock" ]] || import_all
for line in "${built[@]}"; do
  read -r name ref archive <<<"$line"
  echo "$name $ref"
done | tee "${list_file:-/dev/null}"
