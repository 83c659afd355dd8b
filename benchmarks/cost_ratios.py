"""The figures of issue 26 (cost), as ratios, in one run.

- localization: `migcheck compare benchmarks/cost_cases.py --check forward --mode pynative` on a failing
  ResNet-50 port (max-pool pad_mode='same', localized) against its fixed twin, each a whole process;
  median of --reps interleaved pairs (target: failing <= 1.5x fixed);
- report: the report of 4 failing ResNet-50 pairs, forward + backward PYNATIVE (benchmarks/report_size_cases.py
  -k resnet50), in MB against the 1.2 MB target; with --dozen also all 12 pairs against 10 MB;
- warm: the bundled cases (`migcheck compare cases`) from an empty cache folder, then again (plain warm
  re-run: torch and plot caches), then again with --changed, nothing changed (target: --changed <= 0.5x first).

Small inputs (64x64 by default, --size) on purpose: the machine is shared, and what is measured is a ratio.
Run: .venv/bin/python benchmarks/cost_ratios.py [--parts localization,report,warm] [--reps 3] [--mode pynative]
     [--dozen] [--json FILE]
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import ROOT, emit, load_note, median  # noqa: E402
from report_size import sizes  # noqa: E402

PYTHON = sys.executable


CPU_S: list = []  # CPU seconds (user + system) of each timed_run, in order: less moved by other jobs than wall time


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_run(args, env, expect=(0, 1)) -> float:
    """Wall seconds of `python -m migcheck.cli ARGS` in a fresh process (its CPU seconds appended to CPU_S)."""
    started, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run([PYTHON, "-m", "migcheck.cli", *args], cwd=ROOT, env=env, capture_output=True, text=True)
    took = time.perf_counter() - started
    CPU_S.append(_children_cpu() - cpu)
    if done.returncode not in expect:
        raise RuntimeError(f"migcheck {' '.join(args)} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return took


def base_env(work: Path, size: int) -> dict:
    return {**os.environ, "GLOG_v": "3", "MIGCHECK_CACHE_DIR": str(work / "cache"), "MIGCHECK_BENCH_SIZE": str(size),
            "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}


def localization(work: Path, reps: int, size: int) -> dict:
    env = base_env(work, size)
    cases = str(ROOT / "benchmarks" / "cost_cases.py")
    times = {"fixed": [], "failing": []}
    cpu = {"fixed": [], "failing": []}
    for rep in range(reps):
        order = ("fixed", "failing") if rep % 2 == 0 else ("failing", "fixed")
        for which in order:
            k = "resnet50_fixed" if which == "fixed" else "resnet50_maxpool_same"
            times[which].append(timed_run(["compare", cases, "-k", k, "--check", "forward", "--mode", "pynative",
                                           "--no-torch-cache", "--no-report", "-q"], env))
            cpu[which].append(CPU_S[-1])
    fixed, failing = median(times["fixed"]), median(times["failing"])
    cpu_fixed, cpu_failing = median(cpu["fixed"]), median(cpu["failing"])
    print(f"localization: ResNet-50 1x3x{size}x{size} forward PYNATIVE, whole process, median of {reps}:"
          f" failing {failing:.1f} s / fixed {fixed:.1f} s = {failing / fixed:.2f}x (target <= 1.5x);"
          f" CPU time failing {cpu_failing:.1f} s / fixed {cpu_fixed:.1f} s = {cpu_failing / cpu_fixed:.2f}x")
    return {"fixed_s": times["fixed"], "failing_s": times["failing"], "ratio": failing / fixed,
            "fixed_cpu_s": cpu["fixed"], "failing_cpu_s": cpu["failing"], "cpu_ratio": cpu_failing / cpu_fixed}


def report(work: Path, k: str, target_mb: float, label: str) -> dict:
    env = base_env(work, 64)
    folder = work / f"report-{label}"
    args = ["compare", str(ROOT / "benchmarks" / "report_size_cases.py"), "--check", "forward,backward", "--mode",
            "pynative", "--no-torch-cache", "-q", "--report", str(folder)] + (["-k", k] if k else [])
    run_s = timed_run(args, env)
    by_kind = sizes(folder)
    total = sum(by_kind.values()) / 1e6
    parts = ", ".join(f"{kind} {size / 1e6:.2f}" for kind, size in sorted(by_kind.items(), key=lambda kv: -kv[1]))
    print(f"report, {label}: {total:.2f} MB = {total / target_mb:.2f}x the {target_mb} MB target ({parts}); run {run_s:.0f} s")
    return {"mb": total, "ratio_to_target": total / target_mb, "by_kind_mb": {a: b / 1e6 for a, b in by_kind.items()},
            "run_s": run_s}


def warm(work: Path, modes: str) -> dict:
    env = base_env(work, 64)
    shutil.rmtree(work / "cache", ignore_errors=True)
    args = ["compare", "cases", "--mode", modes, "-q", "--report", str(work / "report-warm")]
    first = timed_run(args, env)
    plain = timed_run(args, env)
    changed = timed_run(args + ["--changed"], env)
    print(f"warm path: bundled cases, --mode {modes}: first {first:.1f} s; plain warm re-run {plain:.1f} s"
          f" = {plain / first:.2f}x; --changed, nothing changed {changed:.1f} s = {changed / first:.2f}x (target <= 0.5x)")
    return {"first_s": first, "plain_s": plain, "changed_s": changed, "plain_ratio": plain / first,
            "changed_ratio": changed / first}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--parts", default="localization,report,warm")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--size", type=int, default=64, help="input height and width of the localization pair")
    parser.add_argument("--mode", default="pynative,graph", help="modes of the warm-path runs")
    parser.add_argument("--dozen", action="store_true", help="also the report of all 12 failing pairs (~5 min)")
    parser.add_argument("--json", default="")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    work = Path(tempfile.mkdtemp(prefix="migcheck-cost-"))
    print(load_note())
    out: dict = {"load_before": load_note()}
    if "localization" in parts:
        out["localization"] = localization(work, args.reps, args.size)
    if "report" in parts:
        out["report_4"] = report(work, "resnet50", 1.2, "4 failing ResNet-50 pairs")
        if args.dozen:
            out["report_12"] = report(work, "", 10.0, "12 failing ResNet-50/BERT-base/ViT-B pairs")
    if "warm" in parts:
        out["warm"] = warm(work, args.mode)
    out["load_after"] = load_note()
    print(load_note())
    emit(out, args.json)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
