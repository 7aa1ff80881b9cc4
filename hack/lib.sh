# Shared functions for the scripts in hack/. Sourcing it defines functions
# and two paths, INFORMERD_ROOT and INFORMERD_CACHE, and installs one ERR
# trap (below), so that no script that sources it can die without saying why.

INFORMERD_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Without HOME (as under Bazel's test runner) ~ still names the user's home.
INFORMERD_CACHE="${INFORMERD_CACHE:-${HOME:-$(echo ~)}/.cache/informerd}"

# Under `set -e` a failing command ends a script silently; this names the
# command, its status and where it ran. It fires only where `set -e` would
# exit (never inside `if` or `||`), and says something only while `set -e`
# is on (scripts without it look at statuses themselves); errtrace carries
# it into functions and subshells.
informerd::on_error() {
  local status="$1" line="$2" source="$3" command="$4"
  [[ $- == *e* ]] || return 0
  informerd::log "error: \"$command\" failed with status $status at ${source##*/}:$line"
}
set -o errtrace
trap 'informerd::on_error "$?" "$LINENO" "${BASH_SOURCE[0]:-$0}" "$BASH_COMMAND"' ERR

# Prints a message on stderr, prefixed with the calling script's name, so
# that messages stay apart from output meant for eval or for pipes.
informerd::log() {
  echo "[$(basename "$0")] $*" >&2
}

informerd::die() {
  informerd::log "error: $*"
  exit 1
}

# Runs a command as root: directly when already root, else through sudo.
informerd::as_root() {
  if [[ "$(id -u)" == 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null; then
    sudo "$@"
  else
    informerd::die "need root (or sudo) to run: $*"
  fi
}

# Installs those of the Debian packages PKG... that are not yet installed,
# logging apt's output to LOG; does nothing, quickly, when all are present.
# Usage: informerd::ensure_packages LOG PKG...
informerd::ensure_packages() {
  local log="$1"
  shift
  local -a wanted=("$@") missing=()
  local installed
  # dpkg-query prints only known packages, and exits 1 when any is unknown
  # (as on a fresh machine): that status says nothing the output does not.
  # "install ok installed" excludes removed packages whose configuration
  # files are still around.
  installed="$({ dpkg-query -W -f='${Package} ${Status}\n' "${wanted[@]}" 2>/dev/null || true; } |
    awk '$NF == "installed" && $(NF-1) == "ok" {print $1}')"
  local pkg
  for pkg in "${wanted[@]}"; do
    grep -qxF "$pkg" <<<"$installed" || missing+=("$pkg")
  done
  ((${#missing[@]} == 0)) && return 0

  mkdir -p "$(dirname "$log")"
  informerd::log "installing ${#missing[@]} Debian packages (${missing[*]});" \
    "this takes a few minutes the first time; log: $log"
  {
    informerd::as_root apt-get update &&
      informerd::as_root env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y --no-install-recommends "${missing[@]}"
  } >>"$log" 2>&1 || informerd::die "package installation failed; see $log"
}

# Installs the Debian packages listed in hack/deps.txt that are not yet
# installed.
informerd::ensure_deps() {
  local -a wanted
  mapfile -t wanted < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' \
    "$INFORMERD_ROOT/hack/deps.txt")
  informerd::ensure_packages "$INFORMERD_CACHE/ensure-deps.log" "${wanted[@]}"
}

# Adds Debian's source archive to apt's sources when none is configured:
# the kube-apiserver and the TSan-built Abseil come from Debian source
# packages. Usage: informerd::ensure_deb_src LOG
informerd::ensure_deb_src() {
  if ! grep -rqs '^Types: deb-src' /etc/apt/sources.list.d/ &&
    ! grep -qs '^deb-src' /etc/apt/sources.list; then
    informerd::as_root tee /etc/apt/sources.list.d/informerd-src.sources >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    informerd::as_root apt-get update >>"$1" 2>&1
  fi
}

# Prints BASE keyed by this workspace, for a Bazel --output_base outside
# it. One output base per workspace: its runfiles are symlinks into the
# workspace that built them, and Bazel keeps them while the action is
# cached, so a base shared by two clones served the other's files, and none
# at all once that clone was deleted. Compiled objects still come from the
# shared disk cache. Usage: informerd::workspace_output_base BASE
informerd::workspace_output_base() {
  printf '%s-%s\n' "$1" "$(printf '%s' "$INFORMERD_ROOT" | sha256sum | cut -c1-12)"
}

# Builds TARGETs and prints the bazel-bin directory of that build (the
# bazel-bin link follows whichever build ran last, whatever its options);
# on failure shows the end of LOG on stderr and returns 1. OUTPUT_BASE (empty:
# the workspace's own) and CONFIG (empty: none) choose the build; a build in
# another output base leaves the workspace's bazel-* links alone.
# Usage: informerd::bazel_build LOG OUTPUT_BASE CONFIG TARGET...
informerd::bazel_build() {
  local log="$1" base="$2" config="$3"
  shift 3
  local -a startup=() options=()
  if [[ -n "$base" ]]; then
    startup=(--output_base="$(informerd::workspace_output_base "$base")")
    options+=(--symlink_prefix=/)
  fi
  if [[ -n "$config" ]]; then options+=(--config="$config"); fi
  mkdir -p "$(dirname "$log")"
  if (cd "$INFORMERD_ROOT" && bazel "${startup[@]}" build "${options[@]}" "$@" >"$log" 2>&1 &&
    bazel "${startup[@]}" info "${options[@]}" bazel-bin 2>>"$log"); then
    return 0
  fi
  echo "building $* failed; last lines of $log:" >&2
  tail -n 30 "$log" >&2
  return 1
}

# The Kubernetes minor version the control plane runs: INFORMERD_KUBE_VERSION,
# default 1.37 (today's); 1.20 is the oldest supported. Anything else is an
# error that names the variable and the choices.
informerd::kube_version() {
  local version="${INFORMERD_KUBE_VERSION:-1.37}"
  case "$version" in
    1.37 | 1.20) echo "$version" ;;
    *)
      informerd::log "error: INFORMERD_KUBE_VERSION=$version is not supported;" \
        "choose 1.37 (default) or 1.20"
      return 1
      ;;
  esac
}

# Prints the path of the kube-apiserver binary of informerd::kube_version,
# building it the first time.
informerd::apiserver_binary() {
  case "$(informerd::kube_version)" in
    1.20) "$INFORMERD_ROOT/hack/build-apiserver-1.20.sh" ;;
    *) "$INFORMERD_ROOT/hack/build-upstream.sh" kube-apiserver ;;
  esac
}

# Prints the path of the etcd binary that goes with informerd::kube_version:
# Debian's etcd 3.4 for 1.20, etcd 3.6 built from Go modules otherwise.
informerd::etcd_binary() {
  case "$(informerd::kube_version)" in
    1.20)
      [[ -x /usr/bin/etcd ]] || {
        informerd::log "error: /usr/bin/etcd missing; install etcd-server (hack/deps.txt)"
        return 1
      }
      echo /usr/bin/etcd
      ;;
    *) "$INFORMERD_ROOT/hack/build-upstream.sh" etcd ;;
  esac
}

# The wrapper modules say `go 1.26.0`; an older Go would try to download a
# newer toolchain, which this network does not allow. Debian's Go 1.19 is
# installed too (for 1.20), so the newest Go on the machine is looked for.
informerd::newest_go() {
  local candidate
  for candidate in "${INFORMERD_GO:-}" /usr/local/go/bin/go "$(command -v go || true)"; do
    [[ -n "$candidate" && -x "$candidate" ]] || continue
    if GOTOOLCHAIN=local "$candidate" version 2>/dev/null |
      grep -qE 'go1\.(2[6-9]|[3-9][0-9])'; then
      echo "$candidate"
      return 0
    fi
  done
  informerd::log "error: building from Go modules needs Go 1.26 or newer (found:" \
    "$(command -v go >/dev/null && go version || echo none));" \
    "install it or point INFORMERD_GO at its go binary"
  return 1
}

# Polls a command until it succeeds or the deadline passes.
# Usage: informerd::wait_until SECONDS COMMAND...
# Returns 1 on timeout.
informerd::wait_until() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.5
  done
}

# Prints a TCP port on 127.0.0.1 that nothing listens on now, for a
# process about to be started (the kernel picks it, so parallel suites do
# not collide on a fixed one).
informerd::free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Prints the sha256 (64 hex digits) of the concatenated FILEs, or of
# standard input when no FILE is given: the key of a cached build or install.
# Usage: informerd::digest [FILE...]
informerd::digest() {
  cat "$@" | sha256sum | cut -c1-64
}

# Prints the sum of the samples of metric NAME (whose label text contains
# LABELS, if given) on the /metrics of the informerd at 127.0.0.1:HTTP_PORT.
# Usage: informerd::metric_sum HTTP_PORT NAME [LABELS]
informerd::metric_sum() {
  curl -fs "http://127.0.0.1:$1/metrics" | awk -v m="$2" -v l="${3:-}" '
    index($0, m) == 1 && substr($0, length(m) + 1, 1) ~ /[{ ]/ && index($0, l) > 0 {n += $NF}
    END{printf "%d", n}'
}

# True when PID is alive and runs the executable at PATH. Guards against
# signalling an unrelated process that reused a stale pid.
informerd::pid_runs() {
  local pid="$1" path="$2"
  [[ -n "$pid" && -d "/proc/$pid" ]] || return 1
  [[ "$(readlink -f "/proc/$pid/exe" 2>/dev/null)" == "$(readlink -f "$path")" ]]
}

# Sends SIGTERM to PID, waits up to SECONDS for it to exit, then SIGKILLs it.
# Usage: informerd::stop_pid PID SECONDS
informerd::stop_pid() {
  local pid="$1" grace="$2"
  kill -TERM "$pid" 2>/dev/null || return 0
  if ! informerd::wait_until "$grace" informerd::pid_gone "$pid"; then
    informerd::log "pid $pid ignored SIGTERM for ${grace}s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    informerd::wait_until 10 informerd::pid_gone "$pid"
  fi
}

# A zombie still has /proc/PID, so it is checked by state, not by existence.
informerd::pid_gone() {
  [[ ! -e "/proc/$1" ]] || [[ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" == Z ]]
}

# JUnit XML for suites written in shell (one <testsuite>).
# informerd::junit_case CLASS NAME SECONDS [FAILURE_MESSAGE [DETAIL]]
#   prints one <testcase>: passed without FAILURE_MESSAGE, else failed with
#   it and DETAIL (e.g. a log tail).
# informerd::junit_write PATH SUITE TESTS FAILURES CASES
#   writes the suite, the cases being the concatenated junit_case outputs.
informerd::xml_escape() {
  sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g' <<<"$1"
}

informerd::junit_case() {
  local class="$1" name="$2" seconds="$3"
  if (($# < 4)); then
    printf '  <testcase classname="%s" name="%s" time="%s"/>\n' "$class" "$name" "$seconds"
    return
  fi
  printf '  <testcase classname="%s" name="%s" time="%s"><failure message="%s">%s</failure></testcase>\n' \
    "$class" "$name" "$seconds" "$(informerd::xml_escape "$4")" "$(informerd::xml_escape "${5:-}")"
}

informerd::junit_write() {
  local path="$1" suite="$2" tests="$3" failures="$4" cases="$5"
  mkdir -p "$(dirname "$path")"
  printf '<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="%s" tests="%d" failures="%d">\n%s</testsuite>\n' \
    "$suite" "$tests" "$failures" "$cases" >"$path"
}

# --- components: processes started in the background with pid files ---------
# The caller sets pid_dir and log_dir: each component NAME has NAME.pid and
# NAME.exe (its binary) in pid_dir and appends to log_dir/NAME.log.

# Usage: informerd::component_pid NAME; prints the pid if NAME runs, else fails.
informerd::component_pid() {
  local name="$1" pid
  [[ -f "$pid_dir/$name.pid" ]] || return 1
  pid="$(<"$pid_dir/$name.pid")"
  informerd::pid_runs "$pid" "$(<"$pid_dir/$name.exe")" || return 1
  echo "$pid"
}

# Usage: informerd::start_component NAME BINARY ARGS...
# setsid keeps the process out of the caller's process group, so a Ctrl-C
# in the terminal reaches the caller, which then stops it in order. The
# background job of a non-interactive shell is no group leader, so setsid
# execs in place and $! is the component's own pid.
informerd::start_component() {
  local name="$1" binary="$2"
  shift 2
  mkdir -p "$pid_dir" "$log_dir"
  setsid "$binary" "$@" </dev/null >>"$log_dir/$name.log" 2>&1 &
  local pid="$!"
  echo "$pid" >"$pid_dir/$name.pid"
  echo "$binary" >"$pid_dir/$name.exe"
  # Until the exec chain (bash, setsid, binary) completes, the pid does not
  # yet run the binary and would look dead.
  informerd::wait_until 10 informerd::exec_finished "$pid" "$binary" || true
}

# Usage: informerd::exec_finished PID BINARY; true once PID runs BINARY or has exited.
informerd::exec_finished() {
  informerd::pid_runs "$1" "$2" || informerd::pid_gone "$1"
}

# Usage: informerd::stop_component NAME
informerd::stop_component() {
  local name="$1" pid
  if pid="$(informerd::component_pid "$name")"; then
    informerd::log "stopping $name (pid $pid)"
    informerd::stop_pid "$pid" 30
  fi
  rm -f "$pid_dir/$name.pid" "$pid_dir/$name.exe"
}
