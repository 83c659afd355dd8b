"""Parallel scaling of the bundled cases under pytest-xdist: `pytest cases -n 2` against `-n 0`.

    .venv/bin/python benchmarks/bench_parallel.py                      # bare -n 2 and --dist load, 3 repetitions
    .venv/bin/python benchmarks/bench_parallel.py --variants load,loadfile,worksteal --reps 3
    .venv/bin/python benchmarks/bench_parallel.py --variants load,load:MIGCHECK_XDIST_THREADS=0

Each repetition runs the serial baseline and every variant once, in a rotating order, as fresh
`python -m pytest cases -q` processes (the cases only, not migcheck's own tests). Reported: the
median wall time of each, and the speed-up serial / parallel (target >= 1.7 on 2 cores).
Variants: an xdist --dist mode (load, loadfile, loadscope, loadgroup, worksteal), or `default` for a
bare `-n` (which migcheck's plugin turns into worksteal), optionally with an
environment variable for that run only: `load:MIGCHECK_XDIST_THREADS=0`. --workers sets -n.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import PYTHON, ROOT, emit, load_note, median  # noqa: E402


def run_pytest(extra, env_extra):
    """(wall seconds, CPU seconds of the run and its workers: user + system)."""
    import resource

    cmd = [PYTHON, "-m", "pytest", "cases", "-q", "-p", "no:cacheprovider"] + extra
    env = {**os.environ, "GLOG_v": "3", **env_extra}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=str(ROOT), env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-2000:]}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--variants", default="default,load",
                        help="comma-separated xdist --dist modes; default = a bare -n (default: default,load)")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="environment for every run (e.g. MIGCHECK_XDIST_THREADS=0 turns the per-worker thread cap off)")
    parser.add_argument("--mode", default=None, help="--migcheck-mode for every run (default: pynative,graph)")
    parser.add_argument("--json", metavar="FILE", help="append the result as one JSON line to FILE")
    args = parser.parse_args()
    env_extra = dict(e.split("=", 1) for e in args.env)
    common = ["--migcheck-mode", args.mode] if args.mode else []
    runs = {"serial (-n 0)": (common + ["-n", "0"], {})}
    for variant in args.variants.split(","):
        dist, _, env = variant.partition(":")  # e.g. load:MIGCHECK_XDIST_THREADS=0
        dist_args = [] if dist == "default" else ["--dist", dist]  # default: what a bare -n gets
        name = f"-n {args.workers} {' '.join(dist_args) or '(no --dist)'}" + (f" {env}" if env else "")
        runs[name] = (common + ["-n", str(args.workers)] + dist_args, dict([env.split("=", 1)]) if env else {})
    print(f"pytest cases: {', '.join(runs)}; {args.reps} repetition(s); env {env_extra or '-'}; {load_note()}", flush=True)
    times = {name: [] for name in runs}
    cpu = {name: [] for name in runs}
    names = list(runs)
    for rep in range(args.reps):
        order = names[rep % len(names):] + names[:rep % len(names)]
        for name in order:
            extra, env = runs[name]
            wall, used = run_pytest(extra, {**env_extra, **env})
            times[name].append(wall)
            cpu[name].append(used)
            print(f"  rep {rep + 1}: {name}: {wall:.1f} s wall, {used:.1f} s CPU ({load_note()})", flush=True)
    serial = median(times["serial (-n 0)"])
    serial_cpu = median(cpu["serial (-n 0)"])
    result = {"bench": "parallel", "reps": args.reps, "workers": args.workers, "env": env_extra,
              "serial_s": serial, "serial_cpu_s": serial_cpu, "load": load_note(), "variants": {}}
    print(f"serial (-n 0): {serial:.1f} s wall, {serial_cpu:.1f} s CPU")
    for name in names[1:]:
        t, c = median(times[name]), median(cpu[name])
        result["variants"][name] = {"seconds": t, "speedup": serial / t, "cpu_s": c}
        # CPU time shows what other jobs on the same cores cannot: work wasted by oversubscription.
        print(f"{name}: {t:.1f} s wall, speed-up {serial / t:.2f}x (target >= 1.7); {c:.1f} s CPU"
              f" ({c / serial_cpu:.2f}x the serial run's)")
    emit(result, args.json)


if __name__ == "__main__":
    main()
