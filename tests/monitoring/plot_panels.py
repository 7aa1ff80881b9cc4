"""Draws the main panels of informerd's Grafana dashboard as PNGs from a
Prometheus's data, with gnuplot (as bench/report.sh draws the benchmarks):
each panel's queries over the last --minutes, one line per series, its
legend as Grafana would print it.

Usage: plot_panels.py --prometheus URL --dashboard JSON --out-dir DIR
                      [--minutes N] [--mark LABEL@EPOCH_SECONDS]...

Each --mark draws a dashed vertical line with its label (the faults).

Writes DIR/dashboard-<panel>.png for each panel of MAIN_PANELS.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from typing import Dict, List, Tuple

# Titles of the panels drawn, and the file name of each.
MAIN_PANELS = {
    "Upstream errors per second": "upstream-errors",
    "Upstream events received per second": "events-received",
    "Cache size": "cache-size",
    "Watchers open": "watchers-open",
}
# Grafana's $__rate_interval at a 1 s scrape interval and a 1 s step.
RATE_INTERVAL = "5s"


def query_range(prometheus: str, expr: str, start: float, end: float) -> List[dict]:
    params = urllib.parse.urlencode({"query": expr, "start": start, "end": end, "step": 1})
    with urllib.request.urlopen(prometheus + "/api/v1/query_range?" + params, timeout=30) as r:
        body = json.load(r)
    if body.get("status") != "success":
        raise RuntimeError("query_range %s: %s" % (expr, body))
    return body["data"]["result"]


def legend(template: str, labels: Dict[str, str]) -> str:
    return re.sub(r"\{\{\s*(\w+)\s*\}\}", lambda m: labels.get(m.group(1), ""), template)


def draw(panel: dict, series: List[Tuple[str, List[Tuple[float, float]]]], start: float,
         end: float, marks: List[Tuple[str, float]], path: str, workdir: str) -> None:
    plots = []
    for i, (name, points) in enumerate(series):
        data = os.path.join(workdir, "%s-%d.dat" % (os.path.basename(path), i))
        with open(data, "w") as f:
            for t, v in points:
                f.write("%.1f %s\n" % (t - start, v))
        plots.append("'%s' using 1:2 with steps lw 2 title '%s'"
                     % (data, name.replace("'", "")))
    unit = panel.get("fieldConfig", {}).get("defaults", {}).get("unit", "")
    script = "\n".join([
        "set terminal pngcairo size 900,360 noenhanced font 'sans,10'",
        "set output '%s'" % path,
        "set title '%s'" % panel["title"].replace("'", ""),
        "set xlabel 'seconds into the test run'",
        "set ylabel '%s'" % {"reqps": "per second", "ops": "per second"}.get(unit, ""),
        "set key outside right top",
        "set grid",
        "set yrange [0:*]",
        "set xrange [0:%.0f]" % (end - start),
    ] + [
        "set arrow from %.1f, graph 0 to %.1f, graph 1 nohead dt 2 lc rgb 'gray40'\n"
        "set label '%s' at %.1f, graph %.2f left offset 0.5,0 textcolor rgb 'gray30'"
        % (t - start, t - start, label.replace("'", ""), t - start, 0.96 - 0.07 * (i % 3))
        for i, (label, t) in enumerate(marks)
    ] + [
        "plot " + ", ".join(plots),
    ])
    subprocess.run(["gnuplot"], input=script.encode(), check=True)


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(prog="plot_panels.py")
    parser.add_argument("--prometheus", required=True)
    parser.add_argument("--dashboard", required=True)
    parser.add_argument("--out-dir", required=True)
    parser.add_argument("--minutes", type=float, default=5)
    parser.add_argument("--mark", action="append", default=[])
    args = parser.parse_args(argv)
    marks = [(m.rsplit("@", 1)[0], float(m.rsplit("@", 1)[1])) for m in args.mark]
    with open(args.dashboard) as f:
        panels = {p["title"]: p for p in json.load(f)["panels"]}
    os.makedirs(args.out_dir, exist_ok=True)
    end = time.time()
    start = end - args.minutes * 60
    drawn = {}
    for title, name in MAIN_PANELS.items():
        series = []
        for target in panels[title]["targets"]:
            expr = target["expr"].replace("$__rate_interval", RATE_INTERVAL)
            for result in query_range(args.prometheus, expr, start, end):
                points = [(float(t), float(v)) for t, v in result["values"]]
                series.append((legend(target.get("legendFormat", ""), result["metric"]), points))
        if not series:
            print("%s: no data" % title)
            return 1
        drawn[title] = (name, series)
    # Time 0 is the first sample of any panel: about when the run began.
    first = min(points[0][0] for _, series in drawn.values() for _, points in series)
    with tempfile.TemporaryDirectory() as workdir:
        for title, (name, series) in drawn.items():
            path = os.path.join(args.out_dir, "dashboard-%s.png" % name)
            draw(panels[title], series, first, end, marks, path, workdir)
            print("%s: %d series -> %s" % (title, len(series), path))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
