"""Peak memory and time of comparing two large float32 tensors (migcheck.judging.compare.compare_arrays).

    .venv/bin/python benchmarks/compare_memory.py                       # 100M elements, this migcheck
    .venv/bin/python benchmarks/compare_memory.py --elements 20000000
    .venv/bin/python benchmarks/compare_memory.py --compare-module /tmp/compare_before.py  # another version
                                                   # (e.g. `git show REV:migcheck/compare.py > /tmp/compare_before.py`)

Each scenario runs in its own child process, so that ru_maxrss (the peak resident set size) is that
scenario's own. "inputs" is the peak after the two arrays exist (what any comparison must hold);
"compare" is the extra peak the comparison added on top. Scenarios: a passing pair (float32 noise
within tolerance), and a failing pair (every 1000th element off, plus NaNs) whose error sample
(histogram, 64x64 map, per-channel maxima) is computed too. Not part of the test suite: 100M elements
take about 1 GB for the inputs alone.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

CHILD = r'''
import importlib.util, json, resource, sys, time
import numpy as np
n, scenario, module = int(sys.argv[1]), sys.argv[2], sys.argv[3]
if module:
    spec = importlib.util.spec_from_file_location("compare_under_test", module)
    compare = importlib.util.module_from_spec(spec)
    sys.modules["compare_under_test"] = compare
    spec.loader.exec_module(compare)
else:
    from migcheck.judging import compare
from migcheck.tolerance import Tolerance

shape = (n // 1000, 10, 100)  # 3-D, so the error sample's map and per-channel maxima are exercised
pt = np.random.default_rng(0).standard_normal(shape, dtype=np.float32)
ms = pt.copy()
ms *= np.float32(1 + 1e-7)  # float32 noise, within tolerance
if scenario == "fail":
    flat = ms.reshape(-1)
    flat[::1000] += np.float32(0.5)
    flat[::100003] = np.nan
inputs_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
result = compare.compare_arrays("out", pt, ms, Tolerance(rtol=1.3e-6, atol=1e-5))
seconds = time.perf_counter() - t0
peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"inputs_mb": inputs_kb / 1024, "peak_mb": peak_kb / 1024, "compare_extra_mb": (peak_kb - inputs_kb) / 1024,
                  "seconds": seconds, "kind": result.kind, "mismatched": result.mismatched,
                  "max_abs_err": result.max_abs_err}))
'''


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=100_000_000)
    parser.add_argument("--compare-module", default="", help="path of another compare.py to measure instead")
    parser.add_argument("--scenario", choices=("pass", "fail", "both"), default="both")
    args = parser.parse_args()
    scenarios = ("pass", "fail") if args.scenario == "both" else (args.scenario,)
    print(f"compare_arrays on 2 x {args.elements:,} float32 ({2 * args.elements * 4 / 2**20:.0f} MiB of inputs),"
          f" {'migcheck.judging.compare' if not args.compare_module else args.compare_module}")
    for scenario in scenarios:
        t0 = time.perf_counter()
        run = subprocess.run([sys.executable, "-c", CHILD, str(args.elements), scenario, args.compare_module],
                             capture_output=True, text=True)
        if run.returncode != 0:
            print(f"{scenario}: failed ({run.returncode}): {run.stderr.strip().splitlines()[-1:]}")
            continue
        r = json.loads(run.stdout.strip().splitlines()[-1])
        print(f"{scenario:5s} peak RSS {r['peak_mb']:8.0f} MiB = inputs {r['inputs_mb']:6.0f} + compare"
              f" {r['compare_extra_mb']:6.0f} MiB; {r['seconds']:.1f} s; kind={r['kind']} mismatched={r['mismatched']}"
              f" (child wall {time.perf_counter() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
