#!/usr/bin/env python3
"""Per-call overhead of the Python binding, side by side with torch (when importable).

Each case runs on tiny tensors, so what is measured is the binding (argument parsing, wrapping,
dispatch) plus the smallest kernel. Both libraries run in this one process, alternating rounds
(this machine is noisy: only ratios from one run mean anything), best round of each kept.

  PYTHONPATH=build/release/python OMP_NUM_THREADS=1 /usr/bin/python3 bench/python_overhead.py
"""
import argparse
import timeit

import tensorplay as tp

try:
    import torch
except ImportError:
    torch = None
try:
    import numpy as np
except ImportError:
    np = None

CASES = [
    ("a.add(b)", "a.add(b)"),
    ("a + b", "a + b"),
    ("a[0]", "a[0]"),
    ("a.clone()", "a.clone()"),
    ("empty(2, 3)", "lib.empty(2, 3)"),
    ("x.exp().sum().backward()", "x.exp().sum().backward()"),
]


def setup(lib):
    a = lib.ones(2)
    return {"lib": lib, "a": a, "b": a.clone(), "x": lib.ones(2, requires_grad=True)}


def best_ns(stmt, env, number, rounds):
    return min(timeit.repeat(stmt, globals=env, number=number, repeat=rounds)) / number * 1e9


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--number", type=int, default=20000, help="calls per round")
    ap.add_argument("--rounds", type=int, default=7, help="alternating rounds per library")
    args = ap.parse_args()
    libs = [tp] + ([torch] if torch is not None else [])
    envs = {lib.__name__: setup(lib) for lib in libs}
    results = {}
    for name, stmt in CASES:
        number = args.number // 10 if "backward" in stmt else args.number
        best = {lib.__name__: float("inf") for lib in libs}
        for _ in range(args.rounds):  # alternate libraries round by round
            for lib in libs:
                t = best_ns(stmt, envs[lib.__name__], number, 1)
                best[lib.__name__] = min(best[lib.__name__], t)
        results[name] = best
    print("| call (2-element tensors) | tensorplay | torch %s | torch / tensorplay |"
          % (torch.__version__ if torch else "(absent)"))
    print("|---|---|---|---|")
    for name, _ in CASES:
        ours = results[name]["tensorplay"]
        theirs = results[name].get("torch")
        fmt = (lambda ns: "%.0f ns" % ns if ns < 10000 else "%.1f us" % (ns / 1000))
        print("| `%s` | %s | %s | %s |" % (name, fmt(ours), fmt(theirs) if theirs else "-",
                                          "%.2fx" % (theirs / ours) if theirs else "-"))
    if np is not None:
        a = np.ones(2)
        print("\nNumPy %s `a + b` on 2 elements: %.0f ns" % (
            np.__version__, best_ns("a + a", {"a": a}, args.number, args.rounds)))


if __name__ == "__main__":
    main()
