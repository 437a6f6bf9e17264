#!/usr/bin/env python3
"""Compile-time table: CPU seconds (user + sys) that g++ -O2 spends on small files using
TensorPlay, in header-only mode and in separately compiled mode, beside Eigen's Tensor module and
libtorch's <ATen/ATen.h> doing the same work. Runs are interleaved (every case once per round,
rounds repeated) and the median is reported, so a noisy machine hurts every case alike.

    bench/compile_time.py [--rounds 3] [--cxx g++] [--flags "-O2"]

Needs libeigen3-dev and libtorch-dev for the two reference rows (skipped when missing).
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TP = "#include <tensorplay/tensorplay.hpp>\n"
CASES = {
    "umbrella alone": TP + "int main() { return 0; }\n",
    "empty()": TP + "int main() { return int(tensorplay::empty({2, 3}).numel()) - 6; }\n",
    "a + b": TP + """int main() {
  auto a = tensorplay::ones({4, 4}), b = tensorplay::ones({4, 4});
  return int((a + b).numel()) - 16;
}
""",
    "a + b, requires_grad": TP + """int main() {
  auto a = tensorplay::ones({4, 4}).requires_grad_(), b = tensorplay::ones({4, 4});
  return int((a + b).numel()) - 16;
}
""",
    "one op (ones, sum, item)": TP + """int main() {
  auto t = tensorplay::ones({4, 4});
  return static_cast<int>(t.sum().item<float>()) - 16;
}
""",
    "examples/train_mlp.cpp": None,
}
EIGEN = """#include <unsupported/Eigen/CXX11/Tensor>
int main() {
  Eigen::Tensor<float, 2> t(4, 4);
  t.setConstant(1.0f);
  Eigen::Tensor<float, 0> s = t.sum();
  return static_cast<int>(s()) - 16;
}
"""
ATEN = """#include <ATen/ATen.h>
int main() {
  auto t = at::ones({4, 4});
  return static_cast<int>(t.sum().item<float>()) - 16;
}
"""


def cpu_seconds(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cxx", default="g++")
    ap.add_argument("--flags", default="-O2")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="tp_compile_time_")
    jobs = []  # (label, mode, command)
    base = [args.cxx, *args.flags.split(), "-c", "-o", os.devnull]
    for name, text in CASES.items():
        if text is None:
            path = os.path.join(ROOT, "examples", "train_mlp.cpp")
        else:
            path = os.path.join(tmp, f"case{len(jobs)}.cpp")
            with open(path, "w") as f:
                f.write(text)
        for mode, define in (("header-only", "0"), ("compiled", "1")):
            jobs.append((name, mode, base + ["-std=c++20", f"-I{ROOT}/include",
                                             f"-DTENSORPLAY_SEPARATE_COMPILATION={define}", path]))
    for label, text, extra in (("Eigen Tensor hello world", EIGEN, ["-I/usr/include/eigen3"]),
                               ("<ATen/ATen.h> one op", ATEN,
                                ["-I/usr/include/torch/csrc/api/include"])):
        path = os.path.join(tmp, f"reference{len(jobs)}.cpp")
        with open(path, "w") as f:
            f.write(text)
        cmd = base + ["-std=c++17", *extra, path]
        if subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode:
            print(f"({label}: does not build here, skipped)", file=sys.stderr)
            continue
        jobs.append((label, "", cmd))
    times = {(j[0], j[1]): [] for j in jobs}
    for r in range(args.rounds):
        for label, mode, cmd in jobs:
            times[(label, mode)].append(cpu_seconds(cmd))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    med = {k: statistics.median(v) for k, v in times.items()}
    eigen = med.get(("Eigen Tensor hello world", ""))
    print(f"CPU seconds, {args.cxx} {args.flags}, median of {args.rounds} interleaved rounds"
          + (f"; x = ratio to Eigen's {eigen:.2f} s" if eigen else ""))
    print()
    print("| file | header-only | compiled |")
    print("|---|---|---|")
    rows = []
    for label, mode, _ in jobs:
        if label not in rows:
            rows.append(label)
    for label in rows:
        cells = []
        for mode in (("header-only", "compiled") if (label, "compiled") in med else ("",)):
            t = med[(label, mode)]
            cells.append(f"{t:.2f} s" + (f" ({t / eigen:.1f}x)" if eigen else ""))
        if len(cells) == 1:
            cells.append("")
        print(f"| {label} | {cells[0]} | {cells[1]} |")


if __name__ == "__main__":
    main()
