#!/usr/bin/env python3
"""The CUDA backend beside the machine's PyTorch (issue 15, point 10): runs the tensorplay
benchmark binary (bench/cuda/cuda_bench.cpp, JSON lines), measures the same cases with torch on
the same GPU, and prints one table with the ratio (> 1: tensorplay is better) and add's share of
the copy bandwidth. Exits 77 when either side has no CUDA device.

    bench/cuda/compare_torch.py build/cuda-gpu/tests/cuda/tensorplay_cuda_bench
"""
import json
import subprocess
import sys
import time


def torch_figures():
    import torch
    if not torch.cuda.is_available():
        return None
    torch.backends.cuda.matmul.allow_tf32 = False

    def per_call(f, reps, rounds=5):
        f()
        torch.cuda.synchronize()
        best = float("inf")
        for _ in range(rounds):
            start = time.perf_counter()
            for _ in range(reps):
                f()
            torch.cuda.synchronize()
            best = min(best, (time.perf_counter() - start) / reps)
        return best

    n = 1 << 24
    a, b, c = (torch.rand(n, device="cuda"), torch.rand(n, device="cuda"),
               torch.empty(n, device="cuda"))
    x, y = torch.ones(1, device="cuda"), torch.empty(1, device="cuda")
    m1, m2 = torch.rand(4096, 4096, device="cuda"), torch.rand(4096, 4096, device="cuda")
    return {
        "copy_gbs": 2 * 4 * n / per_call(lambda: c.copy_(a), 20) / 1e9,
        "add_gbs": 3 * 4 * n / per_call(lambda: torch.add(a, b, out=c), 20) / 1e9,
        # From Python: includes the interpreter's per-call cost, which C++ callers do not pay.
        "launch_us": per_call(lambda: torch.add(x, x, out=y), 10000) * 1e6,
        "alloc_ns": per_call(lambda: torch.empty(1 << 18, device="cuda"), 10000) * 1e9,
        "mm_tflops": 2 * 4096 ** 3 / per_call(lambda: torch.mm(m1, m2), 5) / 1e12,
    }


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    run = subprocess.run([sys.argv[1]], capture_output=True, text=True)
    if run.returncode == 77:
        print(run.stdout.strip())
        return 77
    run.check_returncode()
    ours = {}
    for line in run.stdout.splitlines():
        row = json.loads(line)
        ours[row["case"]] = (row["value"], row["unit"])
    theirs = torch_figures()
    if theirs is None:
        print("torch sees no CUDA device: skipped")
        return 77
    higher_is_better = {"copy_gbs", "add_gbs", "mm_tflops"}
    print("| case | tensorplay | torch | ratio (>1: tensorplay better) |")
    print("|---|---|---|---|")
    for case, (value, unit) in ours.items():
        other = theirs[case]
        ratio = value / other if case in higher_is_better else other / value
        print(f"| {case} | {value:.4g} {unit} | {other:.4g} {unit} | {ratio:.2f}x |")
    print(f"add at {ours['add_gbs'][0] / ours['copy_gbs'][0]:.0%} of tensorplay's copy bandwidth, "
          f"torch's at {theirs['add_gbs'] / theirs['copy_gbs']:.0%} of torch's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
