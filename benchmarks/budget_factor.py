"""Which error-budget factor (and floor) separates correct ports from defective ones? (issue 24)

Measures, per item and per budget-judged tensor, MindSpore's error and torch float32's own error
against the float64 re-run of torch, on
  - the bundled cases (cases/): correct items, and known-bad items that expect a value failure;
  - random ports (benchmarks/budget_ports.py): MLPs and Conv-BN-ReLU stacks with large gradients and a
    transformer block, several sizes and seeds, each run with 1 and with 2 threads (one process each:
    MindSpore's thread count is fixed once a kernel ran), plus their known-bad twins.
Everything runs with a huge factor, so nothing fails and nothing is localized; the verdicts keep both
errors and the floor, and the rule  err_ms <= F * err_pt + K * eps * max|oracle|  is replayed offline.
For each floor K it prints the factor each item needs to pass, the gap between the largest need of
a correct item and the smallest of a defective one, and false-fail / false-pass counts per factor.

  .venv/bin/python benchmarks/budget_factor.py --seeds 6          # ~6 min on 2 busy cores, PYNATIVE only
  .venv/bin/python benchmarks/budget_factor.py --no-bundled --seeds 2
"""
from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List

ROOT = Path(__file__).resolve().parents[1]
EPS32 = 2.0 ** -23
HUGE = 1e9
KS = (2, 4, 8, 16)
FACTORS = (2, 4, 8, 16, 32, 64, 128, 256)


def rows_of(verdicts, corpus: str, threads: int) -> List[Dict]:
    from migcheck.tolerance import BUDGET  # the floor the verdicts record

    rows = []
    for v in verdicts:
        if v.kind is not None and v.kind != "value" or v.expected not in ("pass", "fail:value"):
            continue
        for t in v.tensors:
            if t.oracle_err_ms is None or not (t.tolerance_source or "").startswith("error budget"):
                continue
            rows.append(dict(corpus=corpus, item=v.item, bad=v.expected != "pass", tensor=t.name, n=t.total,
                             threads=threads, err_ms=t.oracle_err_ms, err_pt=t.oracle_err_pt,
                             scale=(t.budget_floor or 0.0) / (BUDGET.floor_eps * EPS32),
                             standard_ok=t.standard_ok))
    return rows


def worker(args: argparse.Namespace) -> None:
    sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]
    import migcheck
    from budget_ports import ports
    from migcheck.runners.mindspore_context import set_threads
    from migcheck.runners.torch_side import set_threads as torch_threads

    set_threads(args.threads)
    torch_threads(args.threads)
    rows = []
    if args.bundled:
        result = migcheck.run(str(ROOT / "cases"), modes=("pynative",), tolerance_mode="budget", budget_factor=HUGE)
        rows += rows_of(result.verdicts, "bundled", args.threads)
    if args.seeds:
        result = migcheck.run(ports(args.seeds), tolerance_mode="budget", budget_factor=HUGE)
        rows += rows_of(result.verdicts, "random", args.threads)
    Path(args.out).write_text(json.dumps(rows))


def need(rows: List[Dict], k: float) -> float:
    """The smallest factor that passes every tensor of an item at floor K."""
    out = 0.0
    for r in rows:
        excess = r["err_ms"] - k * EPS32 * r["scale"]
        if excess > 0:
            out = max(out, excess / r["err_pt"] if r["err_pt"] > 0 else math.inf)
    return out


def pct(values: List[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def report(rows: List[Dict]) -> None:
    items: Dict[tuple, List[Dict]] = {}
    for r in rows:
        items.setdefault((r["corpus"], r["item"], r["threads"], r["bad"]), []).append(r)
    for corpus in ("bundled", "random", "all"):
        chosen = {key: rs for key, rs in items.items() if corpus in ("all", key[0])}
        good = {key: rs for key, rs in chosen.items() if not key[3]}
        bad = {key: rs for key, rs in chosen.items() if key[3]}
        if not chosen:
            continue
        print(f"\n== {corpus}: {len(good)} correct items, {len(bad)} defective items"
              f" ({sum(len(rs) for rs in chosen.values())} budget-judged tensors)")
        ratio = lambda rs: max(r["err_ms"] / r["err_pt"] if r["err_pt"] else math.inf for r in rs)  # noqa: E731
        for label, group in (("correct", good), ("defective", bad)):
            rs = [ratio(v) for v in group.values()]
            if rs:
                print(f"  ratio err_ms/err_pt (max over an item's tensors), {label}: p50 {pct(rs, .5):.3g}"
                      f" p90 {pct(rs, .9):.3g} p99 {pct(rs, .99):.3g} max {max(rs):.3g} min {min(rs):.3g}")
        for k in KS:
            g = {key: need(rs, k) for key, rs in good.items()}
            b = {key: need(rs, k) for key, rs in bad.items()}
            worst_good = max(g.items(), key=lambda kv: kv[1], default=(None, 0.0))
            least_bad = min(b.items(), key=lambda kv: kv[1], default=(None, math.inf))
            print(f"  floor {k} eps: correct items need F <= {worst_good[1]:.3g} ({worst_good[0] and worst_good[0][1]}),"
                  f" defective items caught while F < {least_bad[1]:.3g} ({least_bad[0] and least_bad[0][1]})")
            cells = [f"F={f}: {sum(v > f for v in g.values())} false-fail / {sum(v <= f for v in b.values())} false-pass"
                     for f in FACTORS]
            print("    " + "; ".join(cells))
        grey(good, bad)
        old_fail = sum(not all(r.get("standard_ok") for r in rs) for rs in good.values())
        old_pass = sum(all(r.get("standard_ok") for r in rs) for rs in bad.values())
        print(f"  the old default (rtol/atol alone, before its float64 re-judge of ill-conditioned tensors):"
              f" {old_fail} of {len(good)} correct items fail, {old_pass} of {len(bad)} defective items pass")


def grey(good: Dict[tuple, List[Dict]], bad: Dict[tuple, List[Dict]]) -> None:
    """At the default factor and floor: items beyond the budget, and how many of those are within rtol/atol."""
    from migcheck.tolerance import BUDGET

    def beyond(rs: List[Dict]) -> List[Dict]:
        return [r for r in rs if r["err_ms"] > BUDGET.factor * r["err_pt"] + BUDGET.floor_eps * EPS32 * r["scale"]]

    for label, group in (("correct", good), ("defective", bad)):
        over = {key: beyond(rs) for key, rs in group.items() if beyond(rs)}
        within = [key for key, rs in over.items() if all(r.get("standard_ok") for r in rs)]
        print(f"  at factor {BUDGET.factor:g}, floor {BUDGET.floor_eps:g} eps: {len(over)} of {len(group)} {label} items"
              f" beyond the budget, {len(within)} of them within rtol/atol (the grey zone: a confirmed cause decides)"
              + (f": {', '.join(sorted({k[1] for k in within}))}" if within and label == "correct" else ""))


def write_case_file(path: Path, seeds: int) -> int:
    """The random ports as a case file that both `migcheck compare` and `pytest -n 2` collect."""
    sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]
    from budget_ports import ports

    names = [c.name for c in ports(seeds)]
    lines = ["import dataclasses, sys", f"sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / 'benchmarks')!r}]",
             "from budget_ports import ports", "from migcheck import PairedCase",
             f"_ALL = {{c.name: c for c in ports({seeds})}}",
             "def _fields(name):", "    return {f.name: getattr(_ALL[name], f.name) for f in dataclasses.fields(PairedCase)}"]
    lines += [f"{n} = PairedCase(**_fields({n!r}))" for n in names]
    path.write_text("\n".join(lines) + "\n")
    return len(names)


def sweep(seeds: int) -> None:
    """The random ports under `migcheck compare` (MindSpore's default threads) and `pytest -n 2` (one thread a worker)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GLOG_v": "3"}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cases_seeds.py"
        n = write_case_file(path, seeds)
        for cmd in ([str(ROOT / ".venv/bin/migcheck"), "compare", str(path), "--no-report", "-q"],
                    [sys.executable, "-m", "pytest", "-n", "2", "-q", "-p", "no:cacheprovider", str(path)]):
            proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp, env=env)
            last = [line for line in proc.stdout.splitlines() if line.strip()][-1]
            print(f"{n} cases x forward, backward: {' '.join(Path(c).name for c in cmd[:3])} ...: {last}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=6)
    parser.add_argument("--no-bundled", dest="bundled", action="store_false")
    parser.add_argument("--threads", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--rows", help="read the rows a previous run saved (--save) instead of measuring")
    parser.add_argument("--save", help="save the measured rows as JSON")
    parser.add_argument("--sweep", action="store_true", help="run the random ports under `migcheck compare` and"
                        " `pytest -n 2` instead, and print both summary lines")
    args = parser.parse_args()
    if args.sweep:
        sweep(args.seeds)
        return
    if args.threads:
        worker(args)
        return
    if args.rows:
        rows = json.loads(Path(args.rows).read_text())
    else:
        rows = []
        with tempfile.TemporaryDirectory() as tmp:
            for threads in (1, 2):
                out = Path(tmp) / f"rows{threads}.json"
                cmd = [sys.executable, __file__, "--threads", str(threads), "--out", str(out), "--seeds", str(args.seeds)]
                if not args.bundled or threads == 2:  # the bundled cases once (1 thread); random ports at both
                    cmd.append("--no-bundled")
                env = {**os.environ, "PYTHONPATH": str(ROOT), "GLOG_v": "3"}
                subprocess.run(cmd, check=True, env=env, cwd=ROOT, stdout=subprocess.DEVNULL)
                rows += json.loads(out.read_text())
    if args.save:
        Path(args.save).write_text(json.dumps(rows))
    report(rows)


if __name__ == "__main__":
    main()
