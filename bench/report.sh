#!/usr/bin/env bash
# Draws the benchmark plots docs/BENCHMARKS.md shows from the benchmarks'
# outputs: each script's standard output, saved under RESULTS_DIR as
#   fanout.out       bench/fanout.sh      (rows, rate search)
#   fanout-search-informerd.out  informerd's rate search repeated (rows
#                    "informerd (sweep N)" of bench/fanout_benchmark)
#   read.out         bench/read.sh
#   token_flood.out  bench/token_flood.sh
#   coldsync.out, coldsync-large.out
#                    bench/coldsync.sh at two object counts (10k, and more)
#   adoption.out     bench/adoption.sh (its medians tables)
# A missing file skips its plots. Writes PNGs to OUT_DIR:
#   fanout-search.png  p99 against deliveries/s as the rate rises, informerd,
#                      the gRPC probe (alone and under informerd's writes)
#                      and direct apiserver watches
#   fanout-watchers.png deliveries/s and p99 against watcher count at the
#                      fixed rate, informerd, probe and apiserver
#   apiserver-cpu.png  kube-apiserver CPU against consumer count, through
#                      informerd and watching directly
#   read-p99.png       p99 of Get and Lists, informerd and the apiserver
#   token-flood.png    a cached caller's p99 against the flood's rate
#   coldsync-time.png  time to synced, informerd, client-go (protobuf) and
#                      client-go reading JSON, per resource and count (medians)
#   coldsync-memory.png steady RSS per object, the same caches
#   adoption-ratios.png informerd/direct per controller configuration (time
#                      to synced, CPU to synced, CPU per update, max RSS)
#                      and the ten controllers' total CPU, with the targets
# Needs gnuplot (Debian's gnuplot-nox, installed on first use).
#
# Usage: bench/report.sh [RESULTS_DIR (bench/results)] [OUT_DIR (docs/img)]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../hack/lib.sh"
cd "$INFORMERD_ROOT"

results="${1:-bench/results}"
out="${2:-docs/img}"
(($# <= 2)) || informerd::die "usage: bench/report.sh [RESULTS_DIR] [OUT_DIR]"
[[ -d "$results" ]] || informerd::die "no results directory $results (save each benchmark's output there; see the header)"
if ! command -v gnuplot >/dev/null; then
  informerd::log "installing gnuplot-nox (Debian) for the plots"
  { informerd::as_root apt-get update &&
    informerd::as_root env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y --no-install-recommends gnuplot-nox; } >/dev/null ||
    informerd::die "could not install gnuplot-nox"
fi
mkdir -p "$out"
data="$(mktemp -d)"
trap 'rm -rf "$data"' EXIT

# rows FILE: the data rows of FILE's markdown tables, cells trimmed and
# separated by tabs (header and rule rows left out).
rows() {
  awk -F'|' '/^\|/ && !/^\|---/ && !/^\| (target|operation|phase|watchers|idle streams) \|/ {
    line = ""
    for (i = 2; i < NF; i++) { c = $i; gsub(/^ +| +$/, "", c); line = line (i > 2 ? "\t" : "") c }
    print line }' "$1"
}

# plot NAME GNUPLOT...: renders the commands to OUT_DIR/NAME.png.
plot() {
  local name="$1"
  shift
  gnuplot -e "set terminal pngcairo size 900,540 noenhanced font 'sans,10';
    set output '$out/$name.png'; set key top left; set grid; $*"
  echo "$out/$name.png"
}

if [[ -f "$results/fanout.out" ]]; then
  # The search section: rows after the "search:" line, per target.
  awk '/^search:/{s = 1} s' "$results/fanout.out" >"$data/search.md"
  rows "$data/search.md" | awk -F'\t' -v d="$data" '
    $1 ~ /^(informerd|probe|probe\+writes|apiserver)$/ {
      f = d "/search-" $1 ".tsv"; gsub(/\+/, "_", f); print $4, $8 > f }'
  # Repeated sweeps of informerd's search, when saved apart (rows labelled
  # "informerd (sweep N)"): a series each.
  if [[ -f "$results/fanout-search-informerd.out" ]]; then
    rows "$results/fanout-search-informerd.out" | awk -F'\t' -v d="$data" '
      $1 ~ /^informerd \(sweep [0-9]+\)$/ {
        n = $1; gsub(/[^0-9]/, "", n); print $4, $8 > (d "/search-informerd_sweep" n ".tsv") }'
  fi
  series=""
  for target in informerd informerd_sweep1 informerd_sweep2 informerd_sweep3 probe probe_writes apiserver; do
    [[ -f "$data/search-$target.tsv" ]] || continue
    label="$target"
    [[ "$target" == informerd_sweep* ]] && label="informerd, sweep ${target#informerd_sweep}"
    [[ "$target" == probe_writes ]] && label="probe with informerd's writes"
    [[ "$target" == apiserver ]] && label="apiserver, direct (100 watchers)"
    [[ "$target" == apiserver ]] || label="$label (1000 watchers)"
    series+="${series:+, }'$data/search-$target.tsv' using 1:2 with linespoints lw 2 title \"$label\""
  done
  plot fanout-search "set title 'Fan-out rate search: p99 as the offered rate rises (10 KB events)';
    set xlabel 'deliveries/s'; set ylabel 'p99 delivery latency, ms'; set logscale y;
    set arrow from graph 0, first 100 to graph 1, first 100 nohead dt 2;
    set label 'p99 target 100 ms' at graph 0.02, first 120; plot $series"

  # The fixed-rate rows: everything before the search.
  awk '/^search:/{exit} 1' "$results/fanout.out" >"$data/rows.md"
  rows "$data/rows.md" | awk -F'\t' -v d="$data" '
    $1 ~ /^(informerd|probe|apiserver)$/ { print $2, $4, $8, $11 > (d "/rows-" $1 ".tsv") }'
  series=""
  for target in informerd probe apiserver; do
    [[ -f "$data/rows-$target.tsv" ]] || continue
    series+="${series:+, }'$data/rows-$target.tsv' using 1:3 with linespoints lw 2 title '$target p99'"
  done
  plot fanout-watchers "set title 'Fan-out at a fixed write rate: p99 against watchers';
    set xlabel 'watchers'; set ylabel 'p99 delivery latency, ms'; set logscale x;
    set y2label 'deliveries/s'; set y2tics; set ytics nomirror;
    plot $series, '$data/rows-informerd.tsv' using 1:2 axes x1y2 with points pt 7 ps 1.5 title 'deliveries/s (all targets deliver every event)'"
  cpu_series="'$data/rows-informerd.tsv' using 1:4 with linespoints lw 2 title 'through informerd'"
  [[ -f "$data/rows-apiserver.tsv" ]] &&
    cpu_series+=", '$data/rows-apiserver.tsv' using 1:4 with points pt 7 ps 2 title 'watching the apiserver directly'"
  plot apiserver-cpu "set title 'kube-apiserver CPU over one fan-out row, against consumers';
    set xlabel 'consumers (watch streams)'; set ylabel 'apiserver CPU, s'; set logscale x;
    set yrange [0:*]; plot $cpu_series"
fi

if [[ -f "$results/read.out" ]]; then
  # Closed-loop rows of informerd and the apiserver's watch cache, at each
  # client count: operation, target, clients, p99.
  rows "$results/read.out" | awk -F'\t' '
    $4 == "max" && ($2 == "informerd" || $2 == "apiserver (watch cache, RV=0)") {
      t = ($2 == "informerd") ? "informerd" : "apiserver"
      print $1 "@" $3, t, $7 }' >"$data/read.tsv"
  awk '$2 == "informerd"' "$data/read.tsv" >"$data/read-informerd.tsv"
  awk '$2 == "apiserver"' "$data/read.tsv" >"$data/read-apiserver.tsv"
  # One x slot per operation/clients pair, informerd's order.
  awk 'NR == FNR {slot[$1] = ++n; next} ($1 in slot) {print slot[$1], $3, $1}' \
    "$data/read-informerd.tsv" "$data/read-apiserver.tsv" >"$data/read-apiserver-slots.tsv"
  awk '{print NR, $3, $1}' "$data/read-informerd.tsv" >"$data/read-informerd-slots.tsv"
  plot read-p99 "set title 'Read path: p99 of each operation at N clients (operation@N, closed loop)';
    set ylabel 'p99, ms'; set logscale y; set style fill solid 0.6; set boxwidth 0.35;
    set xtics rotate by -30; set xrange [0.4:*];
    plot '$data/read-informerd-slots.tsv' using (\$1 - 0.18):2:xtic(3) with boxes title 'informerd',
         '$data/read-apiserver-slots.tsv' using (\$1 + 0.18):2 with boxes title 'apiserver (watch cache)'"
fi

if [[ -f "$results/token_flood.out" ]]; then
  rows "$results/token_flood.out" | awk -F'\t' '
    $1 == "unflooded" {print 0, $5, $7}
    $1 == "flooded" {print $3, $5, $7}' | sort -n >"$data/flood.tsv"
  plot token-flood "set title 'A cached caller during a flood of made-up tokens (informerd on its own CPU)';
    set xlabel 'made-up tokens sent per second (0: no flood)'; set ylabel 'caller p99, ms';
    set yrange [0:*];
    plot '$data/flood.tsv' using 1:2 with linespoints lw 2 title 'List p99',
         '' using 1:3 with linespoints lw 2 title 'Watch start p99'"
fi

coldsync_outputs=()
for file in "$results/coldsync.out" "$results/coldsync-large.out"; do
  [[ -f "$file" ]] && coldsync_outputs+=("$file")
done
if ((${#coldsync_outputs[@]} > 0)); then
  # Per-round rows of the caches: "resource objects" slot, system, seconds,
  # steady bytes per object; then the median of each over the rounds.
  for file in "${coldsync_outputs[@]}"; do rows "$file"; done | awk -F'\t' '
    $1 ~ /^[0-9]+$/ && ($4 == "informerd" || $4 == "client-go" || $4 == "client-go-json") {
      split($9, per, " "); print $2 "-" $3, $4, $5, per[1] }' |
    sort -k1,1 -k2,2 >"$data/coldsync-rounds.tsv"
  # median COLUMN: one line per slot and system, the column's median.
  median_of() {
    sort -k1,1 -k2,2 -k"$1","$1"n "$data/coldsync-rounds.tsv" | awk -v c="$1" '
      { key = $1 " " $2; if (key != last && last != "") { flush() } last = key; v[++n] = $c }
      END { if (last != "") flush() }
      function flush() { print last, (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2); n = 0 }'
  }
  median_of 3 >"$data/coldsync-time.tsv"
  median_of 4 >"$data/coldsync-memory.tsv"
  # One x slot per resource and count, in the order found; a column per system.
  for metric in time memory; do
    awk '{ if (!($1 in slot)) { slot[$1] = ++n; name[n] = $1 } value[$1, $2] = $3 }
      END { for (i = 1; i <= n; i++) {
        s = name[i]; label = s; sub(/-/, " ", label)
        printf "%d\t%s\t%s\t%s\t%s\n", i, label, value[s, "informerd"], value[s, "client-go"], value[s, "client-go-json"] } }' \
      "$data/coldsync-$metric.tsv" >"$data/coldsync-$metric-slots.tsv"
  done
  slots="$(wc -l <"$data/coldsync-time-slots.tsv")"
  bars="using (\$1 - 0.25):3:xtic(2) with boxes title 'informerd',
    '' using 1:4 with boxes title 'client-go (protobuf, its default for built-in types)',
    '' using (\$1 + 0.25):5 with boxes title 'client-go reading JSON'"
  plot coldsync-time "set title 'Cold sync against kube-apiserver 1.37: time to synced (median), each cache alone on a CPU';
    set key below; set datafile separator '\t'; set ylabel 'seconds'; set logscale y; set style fill solid 0.6; set boxwidth 0.25;
    set xrange [0.4:$slots + 0.6]; plot '$data/coldsync-time-slots.tsv' $bars"
  plot coldsync-memory "set title 'Cold sync against kube-apiserver 1.37: steady RSS per object (median)';
    set key below; set datafile separator '\t'; set ylabel 'bytes per object'; set yrange [0:*]; set style fill solid 0.6; set boxwidth 0.25;
    set xrange [0.4:$slots + 0.6]; plot '$data/coldsync-memory-slots.tsv' $bars"
fi

if [[ -f "$results/adoption.out" ]]; then
  # The medians rows: controller, shape, then ratio cells ending in x; the
  # ten controllers' row: its setup and the total CPU ratio (7th cell).
  rows "$results/adoption.out" | awk -F'\t' '
    function r(c) { sub(/x$/, "", c); return c }
    $1 ~ /^(controller-runtime|client-go)$/ && $4 ~ /x$/ {
      printf "%d\t%s %s\t%s\t%s\t%s\t%s\t-\n", ++n, $1, $2, r($4), r($6), r($8), r($9) }
    $1 ~ / x / && $7 ~ /x$/ {
      printf "%d\t%s, all processes\t-\t-\t-\t-\t%s\n", ++n, $1, r($7) }' >"$data/adoption.tsv"
  if [[ -s "$data/adoption.tsv" ]]; then
    slots="$(wc -l <"$data/adoption.tsv")"
    plot adoption-ratios "set title 'Adoption: informerd / direct, medians (dashed 1.0x; dotted 0.8x, the CPU target, typed)';
      set key below; set datafile separator '\t'; set datafile missing '-'; set ylabel 'informerd / direct';
      set yrange [0:*]; set style fill solid 0.6; set boxwidth 0.15; set xtics rotate by -20;
      set xrange [0.4:$slots + 0.6];
      set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2;
      set arrow from graph 0, first 0.8 to graph 1, first 0.8 nohead dt 3;
      plot '$data/adoption.tsv' using (\$1 - 0.3):3:xtic(2) with boxes title 'time to synced',
        '' using (\$1 - 0.15):4 with boxes title 'controller CPU to synced',
        '' using 1:5 with boxes title 'controller CPU per update',
        '' using (\$1 + 0.15):6 with boxes title 'max RSS',
        '' using (\$1 + 0.3):7 with boxes title 'total CPU, all processes (target 0.5x)'"
  fi
fi
