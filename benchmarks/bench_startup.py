"""Start-up: `migcheck --help`, `migcheck list` (cold and warm discovery cache), `migcheck report`.

    .venv/bin/python benchmarks/bench_startup.py [--reps 7]

Each command runs as a fresh process, as a user runs it; the bare baseline is the interpreter
starting and exiting (`python -c pass`), measured in the same loop. Reported: medians, and each
command's ratio to the bare start. Also checked: which heavy modules each command imports
(`--help` must not import numpy; `report` must never import torch or MindSpore).
Targets: --help and a warm list <= 0.3 s.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import PYTHON, ROOT, emit, load_note, median  # noqa: E402

PROBE = ("import sys, runpy; sys.argv = ['migcheck'] + sys.argv[1:]\n"
         "try:\n    runpy.run_module('migcheck.cli', run_name='__main__')\nexcept SystemExit:\n    pass\n"
         "print('MODULES', ' '.join(m for m in ('numpy', 'torch', 'mindspore', 'matplotlib') if m in sys.modules),"
         " file=sys.stderr)")


def timed(cmd, env) -> float:
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=str(ROOT), env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return elapsed


def imported(argv, env) -> str:
    proc = subprocess.run([PYTHON, "-c", PROBE, *argv], cwd=str(ROOT), env=env, capture_output=True, text=True)
    line = [x for x in proc.stderr.splitlines() if x.startswith("MODULES")]
    return line[-1][len("MODULES"):].strip() if line else "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--cold-reps", type=int, default=3, help="cold `list` runs (each imports every case file)")
    parser.add_argument("--json", metavar="FILE", help="append the result as one JSON line to FILE")
    args = parser.parse_args()
    migcheck = str(Path(PYTHON).with_name("migcheck"))
    scratch = Path(tempfile.mkdtemp(prefix="migcheck-bench-startup-"))
    env = {**os.environ, "GLOG_v": "3", "MIGCHECK_CACHE_DIR": str(scratch / "cache")}
    report = scratch / "report"
    # A real report to re-render: the activation cases, PYNATIVE (this run imports the frameworks; report must not).
    subprocess.run([migcheck, "compare", "cases/activation.py", "--mode", "pynative", "--report", str(report)],
                   cwd=str(ROOT), env=env, capture_output=True, check=False)
    commands = {
        "bare python (-c pass)": [PYTHON, "-c", "pass"],
        "migcheck --help": [migcheck, "--help"],
        "migcheck list (warm cache)": [migcheck, "list"],
        "migcheck report DIR": [migcheck, "report", str(report)],
    }
    print(f"start-up, {args.reps} repetition(s) each; {load_note()}", flush=True)
    cold = []
    for _ in range(args.cold_reps):
        shutil.rmtree(scratch / "cache", ignore_errors=True)
        cold.append(timed([migcheck, "list"], env))  # also leaves a warm cache behind
    times = {name: [] for name in commands}
    for _ in range(args.reps):
        for name, cmd in commands.items():
            times[name].append(timed(cmd, env))
    bare = median(times["bare python (-c pass)"])
    result = {"bench": "startup", "reps": args.reps, "load": load_note(), "bare_s": bare,
              "list_cold_s": median(cold), "commands": {}}
    modules = {"migcheck --help": imported(["--help"], env), "migcheck list (warm cache)": imported(["list"], env),
               "migcheck report DIR": imported(["report", str(report)], env)}
    for name in commands:
        t = median(times[name])
        result["commands"][name] = {"seconds": t, "ratio_to_bare": t / bare, "imports": modules.get(name, "")}
        extra = f"; imports: {modules[name] or 'none of numpy/torch/mindspore/matplotlib'}" if name in modules else ""
        print(f"{name:28s} {t * 1e3:7.0f} ms  ({t / bare:4.1f}x bare){extra}")
    print(f"{'migcheck list (cold cache)':28s} {median(cold) * 1e3:7.0f} ms  (median of {len(cold)}; imports every case file)")
    ok = result["commands"]["migcheck --help"]["seconds"] <= 0.3 and result["commands"]["migcheck list (warm cache)"]["seconds"] <= 0.3
    print(f"targets (--help and warm list <= 0.3 s): {'met' if ok else 'NOT met'};"
          f" report imports torch/mindspore: {'yes' if {'torch', 'mindspore'} & set(modules['migcheck report DIR'].split()) else 'no'}")
    emit(result, args.json)
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
