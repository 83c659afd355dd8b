"""Report size and report-writing time on a dozen failing real-size pairs (issue 16).

Runs `migcheck compare benchmarks/report_size_cases.py --check forward,backward --mode pynative` into a
fresh report folder (and a fresh plot cache, so every plot is drawn), then prints the folder's size by
kind of file, and the time the report costs: the end-of-run rendering re-done from the run's journal in
a fresh plot cache (what the run itself paid), against the run's wall time.
Run: .venv/bin/python benchmarks/report_size.py [-k EXPR] [--json FILE]      (~10 min on 2 busy cores)
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def sizes(folder: Path) -> Counter:
    """Bytes by kind: summary.json, cell json/html/md, index.html, journal, other."""
    out: Counter = Counter()
    for path in folder.rglob("*"):
        if not path.is_file():
            continue
        rel = path.relative_to(folder)
        kind = ("summary.json" if str(rel) == "summary.json" else "index.html" if str(rel) == "index.html"
                else f"cells/*{path.suffix}" if rel.parts[0] == "cells" else "journal" if "journal" in path.name else "other")
        out[kind] += path.stat().st_size
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-k", default="", help="only these cases (migcheck -k expression)")
    parser.add_argument("--json", default="", help="append one JSON line with the figures")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="migcheck-report-size-"))
    report = work / "report"
    env = {**os.environ, "MIGCHECK_CACHE_DIR": str(work / "cache"), "GLOG_v": "3"}
    cmd = [sys.executable, "-m", "migcheck.cli", "compare", str(ROOT / "benchmarks" / "report_size_cases.py"),
           "--check", "forward,backward", "--mode", "pynative", "--no-torch-cache", "-q", "--report", str(report)]
    if args.k:
        cmd += ["-k", args.k]
    started = time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True)
    run_s = time.perf_counter() - started
    print(done.stdout[-1500:], done.stderr[-1500:])

    os.environ["MIGCHECK_CACHE_DIR"] = str(work / "cache-rerender")  # cold plot cache: every plot drawn again
    from migcheck.report import write_report_from_journal
    from migcheck.report.jsonfile import read_summary

    verdicts = read_summary(report / "summary.json")
    started = time.perf_counter()
    write_report_from_journal(report)
    write_s = time.perf_counter() - started
    by_kind = sizes(report)
    total = sum(by_kind.values())
    failing = sum(1 for v in verdicts for t in v.tensors if not t.ok)
    print(f"{len(verdicts)} verdicts ({sum(v.status in ('xfail', 'fail') for v in verdicts)} failing), {failing} failing tensors")
    for kind, size in sorted(by_kind.items(), key=lambda kv: -kv[1]):
        print(f"  {kind:16s} {size / 1e6:8.2f} MB")
    print(f"report total {total / 1e6:.2f} MB; run {run_s:.1f} s; report rendering {write_s:.2f} s"
          f" = {100 * write_s / run_s:.1f}% of the run")
    if args.json:
        with open(args.json, "a") as f:
            f.write(json.dumps({"verdicts": len(verdicts), "failing_tensors": failing, "total_mb": total / 1e6,
                                "by_kind_mb": {k: v / 1e6 for k, v in by_kind.items()}, "run_s": run_s,
                                "write_s": write_s}) + "\n")


if __name__ == "__main__":
    main()
