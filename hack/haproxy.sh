#!/usr/bin/env bash
# HAProxy 3.0 from Debian 13 (trixie) for the chart's proxy, on Debian 12.
#
# Debian 12's HAProxy 2.6 cannot end a connection for its HTTP/2 "glitches"
# (streams reset as soon as opened, among others); 3.0 counts them per
# connection and per client address (docs/DECISIONS.md, "HTTP/2 floods meet
# HAProxy 3.0's glitch limits"). bookworm-backports has no haproxy, so this
# takes trixie's package and the libraries it links, as apt resolves them
# from trixie, trixie-updates and trixie-security (signatures checked
# against Debian 12's debian-archive-keyring, which holds trixie's keys),
# unpacks them into DEST and points the binary's ELF interpreter and
# library path (DT_RPATH, which also serves its libraries' own
# dependencies) at DEST's copies. Nothing is installed: Debian 12's packages
# and libraries stay as they are.
#
# The deploy/Dockerfile's haproxy stage runs it for the image (DEST
# /opt/haproxy); tests/flood and bench/floods.sh run it for the host
# (default DEST, cached until trixie's haproxy changes version).
#
# Usage: hack/haproxy.sh [DEST]   prints the path of DEST's haproxy binary
# Needs: apt-get, dpkg-deb, patchelf (hack/deps.txt), root for apt's lists.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly default_dest="$INFORMERD_CACHE/haproxy-trixie"
dest="${1:-$default_dest}"
# haproxy and what `ldd` shows it loads from trixie: its direct
# dependencies and theirs. adduser, lsb-base and init-system-helpers (its
# other Depends) are for the service's install scripts, not the binary.
readonly packages=(haproxy libc6 libcrypt1 libjemalloc2 liblua5.4-0
  libopentracing-c-wrapper0t64 libopentracing1 libpcre2-8-0 libssl3t64
  libstdc++6 libgcc-s1 libzstd1 zlib1g)
readonly binary="$dest/usr/sbin/haproxy"

for tool in apt-get dpkg-deb patchelf; do
  command -v "$tool" >/dev/null || informerd::die "$tool is missing (hack/deps.txt: apt-get install patchelf)"
done

apt_dir="$INFORMERD_CACHE/apt-trixie"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$apt_dir/debs"
cat >"$apt_dir/sources.list" <<'SOURCES'
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie-updates main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://security.debian.org/debian-security trixie-security main
SOURCES
: >"$apt_dir/status"
apt_options=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o "Dir::Etc::SourceParts=/nonexistent"
  -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::State::status=$apt_dir/status"
  -o "Dir::Cache::Archives=$apt_dir/archives" -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache="
  -o "APT::Architecture=amd64" -o "APT::Architectures=amd64" -o "Debug::NoLocking=true")

log="$apt_dir/apt.log"
apt-get "${apt_options[@]}" update >"$log" 2>&1 ||
  informerd::die "apt-get update of Debian trixie's lists failed; see $log"
# The newest of each package across the three suites (a security update
# supersedes the point release's version), from one apt-cache call: each
# call reads every list again.
declare -A candidate=()
while read -r package version; do
  candidate[$package]="$version"
done < <(apt-cache "${apt_options[@]}" policy "${packages[@]}" |
  awk '/^[^ ]+:$/ {package = substr($1, 1, length($1) - 1)} $1 == "Candidate:" {print package, $2}')
versions=()
for package in "${packages[@]}"; do
  version="${candidate[$package]:-}"
  [[ -n "$version" && "$version" != "(none)" ]] ||
    informerd::die "Debian trixie has no candidate for $package (apt-cache policy $package)"
  versions+=("$package=$version")
done
[[ "${versions[0]}" == haproxy=3.0.* ]] ||
  informerd::die "trixie's haproxy is ${versions[0]#haproxy=}, not 3.0: the chart's proxy configuration is written for 3.0"

stamp="$(printf '%s\n' "${versions[@]}")"
if [[ -x "$binary" && "$(cat "$dest/.versions" 2>/dev/null)" == "$stamp" ]]; then
  echo "$binary"
  exit 0
fi

(cd "$apt_dir/debs" && rm -f ./*.deb &&
  apt-get "${apt_options[@]}" download "${versions[@]}") >>"$log" 2>&1 ||
  informerd::die "downloading trixie's haproxy and its libraries failed; see $log"
rm -rf "$dest.tmp"
mkdir -p "$dest.tmp"
for deb in "$apt_dir"/debs/*.deb; do
  dpkg-deb -x "$deb" "$dest.tmp"
done
libs="$dest/usr/lib/x86_64-linux-gnu"
patchelf --set-interpreter "$libs/ld-linux-x86-64.so.2" --force-rpath --set-rpath "$libs" \
  "$dest.tmp/usr/sbin/haproxy"
rm -rf "$dest"
mv "$dest.tmp" "$dest"
printf '%s\n' "$stamp" >"$dest/.versions"
# Read whole before matching: `haproxy -v | grep -q` under pipefail fails
# when grep exits at the first line and haproxy's next write meets SIGPIPE.
version_text="$("$binary" -v 2>&1)" || informerd::die "$binary does not run: $version_text"
grep -q '^HAProxy version 3\.0\.' <<<"$version_text" ||
  informerd::die "$binary is not HAProxy 3.0: $(head -n 3 <<<"$version_text")"
echo "$binary"
