"""Why each pytest-xdist worker caps its framework threads: two workers on the cores, each with defaults.

    .venv/bin/python benchmarks/bench_threads.py [--reps 3] [--procs 2]

Starts --procs processes at once (as `pytest -n 2` starts workers), each running the same small
torch and MindSpore convolution workload, once with the frameworks' default threads (torch: one per
core; MindSpore's CPU kernels: 25) and once with cores / processes threads each (what migcheck's
pytest plugin sets in every xdist worker; MIGCHECK_XDIST_THREADS=0 turns that off). Reported: the
median wall time of the slowest process per round, per setting, and their ratio.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import PYTHON, emit, load_note, median  # noqa: E402

WORK = r'''
import os, sys, time
os.environ["GLOG_v"] = "3"
import numpy as np, mindspore as ms, torch
n = int(sys.argv[1])
if n:
    from migcheck.runners.mindspore_context import set_threads
    from migcheck.runners.torch_side import set_threads as set_torch_threads
    set_threads(n); set_torch_threads(n)
ms.set_device("CPU"); ms.set_context(mode=ms.PYNATIVE_MODE)
conv = ms.nn.Conv2d(64, 64, 3, pad_mode="pad", padding=1); x = ms.Tensor(np.random.rand(1, 64, 28, 28).astype(np.float32))
tconv = torch.nn.Conv2d(64, 64, 3, padding=1); tx = torch.rand(1, 64, 28, 28)
conv(x).asnumpy()
start = time.perf_counter()
for _ in range(5):
    conv(x).asnumpy()
ms_s = time.perf_counter() - start
start = time.perf_counter()
with torch.no_grad():
    for _ in range(40):
        tconv(tx)
print(ms_s, time.perf_counter() - start)
'''


def round_(threads: int, procs: int):
    """(slowest process's MindSpore seconds, torch seconds) with all procs running at once."""
    env = {**os.environ, "GLOG_v": "3"}
    children = [subprocess.Popen([PYTHON, "-c", WORK, str(threads)], stdout=subprocess.PIPE, text=True, env=env)
                for _ in range(procs)]
    results = [tuple(float(v) for v in c.communicate()[0].split()[-2:]) for c in children]
    return max(r[0] for r in results), max(r[1] for r in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--procs", type=int, default=2)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    capped = max(1, cores // args.procs)
    print(f"{args.procs} processes at once on {cores} core(s); default threads vs {capped} each; {load_note()}", flush=True)
    rows = {"default": [], "capped": []}
    for rep in range(args.reps):
        for name, threads in (("default", 0), ("capped", capped)) if rep % 2 == 0 else (("capped", capped), ("default", 0)):
            rows[name].append(round_(threads, args.procs))
            print(f"  rep {rep + 1} {name}: MindSpore {rows[name][-1][0]:.2f} s, torch {rows[name][-1][1]:.2f} s", flush=True)
    med = {k: (median([r[0] for r in v]), median([r[1] for r in v])) for k, v in rows.items()}
    result = {"bench": "threads", "procs": args.procs, "cores": cores, "capped_threads": capped, "load": load_note(),
              "mindspore_s": {k: v[0] for k, v in med.items()}, "torch_s": {k: v[1] for k, v in med.items()}}
    print(f"MindSpore: default {med['default'][0]:.2f} s, capped {med['capped'][0]:.2f} s"
          f" ({med['default'][0] / med['capped'][0]:.2f}x); torch: default {med['default'][1]:.2f} s,"
          f" capped {med['capped'][1]:.2f} s ({med['default'][1] / med['capped'][1]:.1f}x)")
    emit(result, args.json)


if __name__ == "__main__":
    main()
