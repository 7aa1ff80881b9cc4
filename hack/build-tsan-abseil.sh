#!/usr/bin/env bash
# Builds the installed libabsl-dev's own Debian source with ThreadSanitizer,
# once per machine, as shared libraries with the distribution's sonames.
#
# Why: TSan learns about locking from annotations that Abseil compiles in
# only when it is itself built with TSan. Against Debian's build every
# absl::Mutex, ours and gRPC's, looks like no lock at all and TSan reports a
# race on everything one guards. Tests built with --config=tsan run with
# LD_LIBRARY_PATH set to the directory this prints, so the dynamic loader
# picks these libraries for the tests and for libgrpc alike.
#
# Usage: hack/build-tsan-abseil.sh     prints the library directory
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

mkdir -p "$INFORMERD_CACHE"
log="$INFORMERD_CACHE/build-tsan-abseil.log"

version="$(dpkg-query -W -f='${Version}' libabsl-dev 2>/dev/null)" ||
  informerd::die "libabsl-dev is not installed"
prefix="$INFORMERD_CACHE/abseil-tsan-$version"
if [[ -f "$prefix/built" ]]; then
  echo "$prefix/lib"
  exit 0
fi

informerd::log "building Abseil $version with ThreadSanitizer (about 2 minutes" \
  "on 2 cores; log: $log)"
informerd::ensure_deb_src "$log"
work="$(mktemp -d "$INFORMERD_CACHE/abseil-tsan-work.XXXXXX")"
trap 'rm -rf "$work"' EXIT
(
  cd "$work"
  # dpkg-source applies Debian's patches, among them the options.h that
  # fixes absl::string_view and friends to Abseil's own types: the built
  # libraries must match the installed headers exactly.
  apt-get source "abseil=$version" ||
    { apt-get update && apt-get source "abseil=$version"; }
  src="$(find . -mindepth 1 -maxdepth 1 -type d -name 'abseil-*' | head -n1)"
  cmake -S "$src" -B build -DCMAKE_CXX_STANDARD=17 -DBUILD_SHARED_LIBS=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS=-fsanitize=thread \
    -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread \
    -DCMAKE_INSTALL_PREFIX="$work/install" -DCMAKE_INSTALL_LIBDIR=lib
  cmake --build build -j"$(nproc)"
  cmake --install build
) >>"$log" 2>&1 || informerd::die "build failed; see $log"

rm -rf "$prefix"
mkdir -p "$prefix"
mv "$work/install/lib" "$prefix/lib"
touch "$prefix/built"
echo "$prefix/lib"
