#!/usr/bin/env python3
"""Loading checkpoints: tensorplay against torch 1.13 on the same files, in one run.

    PYTHONPATH=<build>/python /usr/bin/python3 bench/serialize_bench.py [--gib 1] [--mib 256]

Two files are written to a scratch folder (RAM-backed when /dev/shm has room, so the figures
measure the loaders, not the disk):
  - a safetensors file of --gib GiB (16 float32 tensors) and the same tensors as a torch.save
    file: tensorplay's load_file / safe_open (mapped, zero copy) against torch.load (which reads
    every byte: torch 1.13 has neither safetensors nor mmap loading);
  - a torch.save file of --mib MiB (a state dict of 64 float32 tensors): tp.load (copying, and
    with mmap=True) against torch.load; and tp.load of the --gib GiB torch.save file.
Each measurement runs in a fresh interpreter (so RSS is the loader's own): the wall time to the
first tensor, the time to load everything, and the resident memory growth after loading but
before touching the data (VmRSS from /proc/self/status). Medians of --repeat runs, interleaved.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

CHILD = r"""
import json, sys, time
def rss():
    for line in open('/proc/self/status'):
        if line.startswith('VmRSS:'):
            return int(line.split()[1]) * 1024
kind, path = sys.argv[1], sys.argv[2]
if kind.startswith('tp'):
    import tensorplay as lib
    import tensorplay.safetensors as st
else:
    import torch as lib
base = rss()
t0 = time.perf_counter()
if kind == 'tp-safetensors-first':
    with st.safe_open(path) as f:
        first = f.get_tensor(sorted(f.keys())[0])
        t1 = time.perf_counter()
    out = {'first': first}
elif kind == 'tp-safetensors':
    out = st.load_file(path)
    t1 = time.perf_counter()
elif kind in ('tp-torch-zip', 'torch-torch-zip'):
    out = lib.load(path)
    t1 = time.perf_counter()
elif kind == 'tp-torch-zip-mmap':
    out = lib.load(path, mmap=True)
    t1 = time.perf_counter()
else:
    raise SystemExit('unknown case ' + kind)
grown = rss() - base
nbytes = sum(v.numel() * v.element_size() for v in out.values())
print(json.dumps({'seconds': t1 - t0, 'rss_growth': grown, 'bytes': nbytes}))
"""


def make_files(folder, gib, mib):
    import torch
    g = torch.Generator().manual_seed(0)
    big = {"layer{:02d}.weight".format(i): torch.rand(int(gib * 2**28) // 16, generator=g)
           for i in range(16)}
    paths = {}
    import tensorplay as tp
    import tensorplay.safetensors as st
    paths["safetensors"] = os.path.join(folder, "big.safetensors")
    st.save_file({k: tp.from_numpy(v.numpy()) for k, v in big.items()}, paths["safetensors"])
    paths["big.pt"] = os.path.join(folder, "big.pt")
    torch.save(big, paths["big.pt"])
    del big
    small = {"block{:02d}.weight".format(i): torch.rand(int(mib * 2**18) // 64, generator=g)
             for i in range(64)}
    paths["small.pt"] = os.path.join(folder, "small.pt")
    torch.save(small, paths["small.pt"])
    return paths


def measure(kind, path):
    out = subprocess.run([sys.executable, "-c", CHILD, kind, path], check=True,
                         capture_output=True, text=True, env=os.environ)
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gib", type=float, default=1.0)
    ap.add_argument("--mib", type=float, default=256.0)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    shm = "/dev/shm" if os.path.isdir("/dev/shm") and \
        os.statvfs("/dev/shm").f_bavail * os.statvfs("/dev/shm").f_frsize > 4 * 2**30 else None
    with tempfile.TemporaryDirectory(dir=shm) as folder:
        paths = make_files(folder, args.gib, args.mib)
        cases = [
            ("safetensors {:g} GiB, first tensor".format(args.gib), "tp-safetensors-first",
             paths["safetensors"], None),
            ("safetensors {:g} GiB, all tensors".format(args.gib), "tp-safetensors",
             paths["safetensors"], ("torch-torch-zip", paths["big.pt"])),
            ("torch.save {:g} MiB".format(args.mib), "tp-torch-zip", paths["small.pt"],
             ("torch-torch-zip", paths["small.pt"])),
            ("torch.save {:g} MiB, mmap=True".format(args.mib), "tp-torch-zip-mmap",
             paths["small.pt"], ("torch-torch-zip", paths["small.pt"])),
            ("torch.save {:g} GiB".format(args.gib), "tp-torch-zip", paths["big.pt"],
             ("torch-torch-zip", paths["big.pt"])),
        ]
        results = {}
        for _ in range(args.repeat):  # interleaved rounds
            for name, kind, path, ref in cases:
                results.setdefault((name, "tp"), []).append(measure(kind, path))
                if ref:
                    results.setdefault((name, "torch"), []).append(measure(*ref))
        print("| case | tensorplay s | RSS growth | torch.load s | RSS growth | speed-up |")
        print("|---|---|---|---|---|---|")
        for name, _, _, ref in cases:
            tp_runs = results[(name, "tp")]
            t_tp = statistics.median(r["seconds"] for r in tp_runs)
            m_tp = statistics.median(r["rss_growth"] for r in tp_runs) / 2**20
            if ref:
                th = results[(name, "torch")]
                t_th = statistics.median(r["seconds"] for r in th)
                m_th = statistics.median(r["rss_growth"] for r in th) / 2**20
                print("| {} | {:.4f} | {:.0f} MiB | {:.4f} | {:.0f} MiB | {:.1f}x |".format(
                    name, t_tp, m_tp, t_th, m_th, t_th / t_tp))
            else:
                print("| {} | {:.4f} | {:.0f} MiB | - | - | - |".format(name, t_tp, m_tp))


if __name__ == "__main__":
    main()
