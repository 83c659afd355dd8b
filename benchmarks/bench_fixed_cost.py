"""migcheck's fixed cost per cell: its own time per case x check x mode, beyond the frameworks' work.

    .venv/bin/python benchmarks/bench_fixed_cost.py                    # bundled cases, both modes
    .venv/bin/python benchmarks/bench_fixed_cost.py --mode pynative -k conv
    .venv/bin/python benchmarks/bench_fixed_cost.py --cprofile         # also attribute time by module

Every item of the bundled cases runs through `engine.run_item`, as `migcheck compare` runs it. The
frameworks' work is timed with time.perf_counter around every call into the runners (building,
loading, running, gradients, optimizer steps, state reads: all of migcheck.runners' TorchModule and
MindSporeCell methods, and MindSpore's configure), outermost call only. migcheck's own time is the
item's wall time minus that: discovery of the reference, seeding, weight mapping, comparison,
verdicts, localization's own logic. GRAPH compile time (Verdict.compile_s) is inside the frameworks'
time and reported on its own. Target: median and p90 of migcheck's own time <= 50 ms.

--cprofile runs the same items under cProfile and splits the total self-time by where the code
lives (migcheck, torch, mindspore, numpy, other): a second, independent view (cProfile itself slows
Python-heavy code, so its migcheck share is an upper bound).
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import ROOT, emit, load_note, median, percentile, quiet_mindspore  # noqa: E402

quiet_mindspore()

_STATE = {"depth": 0, "framework": 0.0}


def _timed(fn):
    def wrapper(*args, **kwargs):
        if _STATE["depth"]:
            return fn(*args, **kwargs)
        _STATE["depth"] += 1
        started = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            _STATE["framework"] += time.perf_counter() - started
            _STATE["depth"] -= 1
    wrapper.__wrapped__ = fn
    return wrapper


def instrument() -> None:
    """Wrap every public method of the two runners (and MindSpore's configure) with the timer."""
    from migcheck.runners import mindspore_context, mindspore_side, torch_side

    for cls in (torch_side.TorchModule, mindspore_side.MindSporeCell):
        for name, value in list(vars(cls).items()):
            if callable(value) and (not name.startswith("_") or name == "__init__"):
                setattr(cls, name, _timed(value))
    mindspore_context.configure = _timed(mindspore_context.configure)
    import migcheck.running.pipeline  # noqa: F401  (the engine imports configure inside functions: patched above)


def items_for(args):
    from migcheck.planning.discovery import discover
    from migcheck.planning.keyword import keyword_matcher
    from migcheck.options import RunOptions
    from migcheck.planning.items import plan

    collection = discover([str(ROOT / "cases")])
    options = RunOptions(modes=tuple(args.mode.split(",")))
    items = plan(collection.cases, options)
    if args.k:
        match = keyword_matcher(args.k)
        items = [i for i in items if match(" ".join((i.id,) + i.case.tags))]
    return items, options


def by_location(stats) -> dict:
    """cProfile self-time split by where the code lives."""
    out = defaultdict(float)
    for (filename, _, _), (_, _, tottime, _, _) in stats.stats.items():
        f = filename.replace("\\", "/")
        where = ("migcheck" if "/migcheck/" in f else "torch" if "/torch/" in f else
                 "mindspore" if "/mindspore/" in f else "numpy" if "/numpy/" in f else
                 "frameworks (C)" if filename == "~" else "other")
        out[where] += tottime
    return dict(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mode", default="pynative,graph")
    parser.add_argument("-k", default=None, help="only items whose id or tags match")
    parser.add_argument("--cprofile", action="store_true")
    parser.add_argument("--json", metavar="FILE", help="append the result as one JSON line to FILE")
    args = parser.parse_args()
    instrument()
    from migcheck.running.pipeline import run_item

    items, options = items_for(args)
    print(f"{len(items)} item(s) of the bundled cases, modes {args.mode}; {load_note()}", flush=True)
    rows = []
    for item in items:
        _STATE["framework"] = 0.0
        started = time.perf_counter()
        verdict = run_item(item, options)
        wall = time.perf_counter() - started
        if verdict.status == "skip" and wall < 0.005:
            continue  # skipped before any work (mode or backend not applicable)
        own = max(0.0, wall - _STATE["framework"])
        rows.append({"item": item.id, "check": item.check, "mode": item.mode, "status": verdict.status,
                     "wall_s": wall, "framework_s": _STATE["framework"], "own_s": own,
                     "compile_s": getattr(verdict, "compile_s", 0.0)})
    own = [r["own_s"] for r in rows]
    result = {"bench": "fixed_cost", "items": len(rows), "modes": args.mode, "load": load_note(),
              "own_median_ms": 1e3 * median(own), "own_p90_ms": 1e3 * percentile(own, 90),
              "own_max_ms": 1e3 * max(own), "wall_median_ms": 1e3 * median([r["wall_s"] for r in rows]),
              "by_check": {}, "compile": {}}
    for key in sorted({(r["check"], r["mode"]) for r in rows}):
        sel = [r["own_s"] for r in rows if (r["check"], r["mode"]) == key]
        result["by_check"]["-".join(key)] = {"n": len(sel), "median_ms": 1e3 * median(sel), "p90_ms": 1e3 * percentile(sel, 90)}
    graph = [r["compile_s"] for r in rows if r["mode"] == "graph"]
    if graph:
        result["compile"] = {"n": len(graph), "median_ms": 1e3 * median(graph), "p90_ms": 1e3 * percentile(graph, 90),
                             "total_s": sum(graph)}
    worst = sorted(rows, key=lambda r: -r["own_s"])[:5]
    print(f"migcheck's own time per item: median {result['own_median_ms']:.1f} ms, p90 {result['own_p90_ms']:.1f} ms,"
          f" max {result['own_max_ms']:.1f} ms (target: median and p90 <= 50 ms); item wall median"
          f" {result['wall_median_ms']:.0f} ms")
    for name, v in result["by_check"].items():
        print(f"  {name:18s} n={v['n']:3d}  median {v['median_ms']:6.1f} ms  p90 {v['p90_ms']:6.1f} ms")
    if graph:
        c = result["compile"]
        print(f"GRAPH compile (excluded above): median {c['median_ms']:.0f} ms, p90 {c['p90_ms']:.0f} ms per item,"
              f" {c['total_s']:.1f} s in all ({c['n']} items)")
    print("largest own times: " + "; ".join(f"{r['item']} {1e3 * r['own_s']:.0f} ms ({r['status']})" for r in worst))
    if args.cprofile:
        import cProfile
        import pstats

        from migcheck.running import pipeline as engine

        engine._REFERENCES.clear()
        profiler = cProfile.Profile()
        profiler.enable()
        for item in items:
            run_item(item, options)
        profiler.disable()
        split = by_location(pstats.Stats(profiler))
        total = sum(split.values())
        result["cprofile_share"] = {k: v / total for k, v in split.items()}
        print("cProfile self-time by location: " + ", ".join(f"{k} {100 * v / total:.1f}%" for k, v in
                                                            sorted(split.items(), key=lambda kv: -kv[1])))
    emit(result, args.json)


if __name__ == "__main__":
    main()
