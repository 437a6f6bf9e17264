#!/usr/bin/env python3
"""Side-by-side table of a Google Benchmark JSON run.

Cases are named `<case>@<impl>[/threads:N...]`; every implementation of a case is shown in one
row with its time and its ratio to TensorPlay's (>1 means TensorPlay is faster).

    tensorplay_bench --benchmark_format=json --benchmark_out=run.json ...
    python3 bench/compare.py run.json            # markdown table on stdout
"""
import json
import re
import sys
from collections import OrderedDict


def main(path):
    with open(path) as f:
        run = json.load(f)
    rows = OrderedDict()
    impls = []
    for b in run["benchmarks"]:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        name = b.get("run_name", b["name"])
        m = re.match(r"^([^@]+)@([^/]+)(.*)$", name)
        if not m:
            continue
        case, impl, rest = m.group(1), m.group(2), m.group(3)
        key = case + rest
        scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}[b.get("time_unit", "ns")]
        # CPU time per iteration and thread: with /threads:N it is the per-thread cost, which
        # contention raises and idle cores do not hide (wall time depends on free cores). Cases
        # registered with UseRealTime (intra-op threads: the workers' CPU time is not the
        # caller's) are compared on wall time.
        t = (b["real_time"] if "/real_time" in name else b["cpu_time"]) * scale
        # With repetitions, keep the median (aggregate) over single runs.
        if b.get("run_type") == "aggregate" or impl not in rows.setdefault(key, {}):
            rows.setdefault(key, {})[impl] = t
        if impl not in impls:
            impls.append(impl)
    others = [i for i in impls if i != "tensorplay"]
    head = ["case", "tensorplay"] + others + ["%s / tensorplay" % o for o in others]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for key, vals in sorted(rows.items()):
        cells = [key, fmt(vals.get("tensorplay"))] + [fmt(vals.get(o)) for o in others]
        tp = vals.get("tensorplay")
        cells += ["%.2fx" % (vals[o] / tp) if tp and o in vals else "" for o in others]
        print("| " + " | ".join(cells) + " |")


def fmt(ns):
    if ns is None:
        return ""
    if ns >= 1e6:
        return "%.2f ms" % (ns / 1e6)
    if ns >= 1e3:
        return "%.2f us" % (ns / 1e3)
    return "%.1f ns" % ns


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "run.json")
