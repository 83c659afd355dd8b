"""Shared helpers of the benchmark scripts: medians, percentiles, load, subprocess peak RSS.

The benchmarks are scripts, not tests (pytest never collects this folder: see README.md here).
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
PYTHON = sys.executable


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, int(-(-q * len(ordered) // 100)))
    return ordered[min(rank, len(ordered)) - 1]


def load_note() -> str:
    """The machine's load while measuring: other jobs on the same cores inflate every figure."""
    try:
        one, five, _ = os.getloadavg()
    except OSError:
        return "load average unknown"
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} CPU(s)"


def peak_rss_mb() -> float:
    """This process's peak resident set size in MiB.

    Linux: VmHWM from /proc/self/status. Not ru_maxrss: a child inherits its parent's high-water
    mark through fork and keeps it across exec, so a child of a big benchmark process would report
    the parent's peak.
    """
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kib / 1024 if sys.platform != "darwin" else kib / 2**20


def run_child(args: List[str], env: Dict[str, str] = None) -> dict:
    """Run `python <args>` in a fresh process; it prints one JSON line last. Returns that dict."""
    full_env = {**os.environ, "GLOG_v": "3", **(env or {})}
    proc = subprocess.run([PYTHON] + args, capture_output=True, text=True, cwd=str(ROOT), env=full_env)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"child {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}")
    return json.loads(lines[-1])


def emit(result: dict, json_path: Optional[str]) -> None:
    """Print a run's figures as one JSON line (run_child reads it) and append it to --json FILE, if given."""
    line = json.dumps(result)
    print(line)
    if json_path:
        with open(json_path, "a") as fh:
            fh.write(line + "\n")


def quiet_mindspore() -> None:
    os.environ.setdefault("GLOG_v", "3")
