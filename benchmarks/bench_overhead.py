"""Harness overhead on real-size networks: migcheck's check vs the bare script, side by side.

    .venv/bin/python benchmarks/bench_overhead.py --net resnet50 --check forward
    .venv/bin/python benchmarks/bench_overhead.py --net bert --check backward --reps 5

Both are timed in this one process, alternating (bare first on even repetitions, migcheck first on
odd ones) after one warm-up each; the ratio is the median of the per-repetition ratios.

* bare: what a hand-written parity script does: build both networks, draw the weights in numpy,
  load them into torch, copy them into MindSpore by name, run torch and MindSpore (forward, or
  forward + backward() and mindspore.grad of sum(output * cotangent)), fetch the results as numpy.
* migcheck: `run_item` of the case's forward (or backward) check in PYNATIVE mode on CPU, with
  migcheck's reference cache cleared first, so torch runs every time.

Peak RSS (`--rss`, on by default) is measured in two fresh subprocesses, one running the bare
script once and one running migcheck's item once. Targets: time ratio <= 1.10, RSS ratio <= 1.3.
"""
from __future__ import annotations

import argparse
import gc
import json
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import emit, load_note, median, peak_rss_mb, quiet_mindspore, run_child  # noqa: E402

quiet_mindspore()

DEFAULT_SIZE = {"resnet50": 224, "bert": 64}  # image side / sequence length (batch 1); see README.md here


def make_case(net: str, size: int):
    import nets
    from migcheck import PairedCase, integers, uniform

    if net == "resnet50":
        return PairedCase(name="resnet50", torch=nets.torch_resnet50, mindspore=nets.ms_resnet50,
                          inputs={"x": uniform(1, 3, size, size)})
    return PairedCase(name="bert_base", torch=nets.torch_bert_base, mindspore=nets.ms_bert_base,
                      inputs={"input_ids": integers(1, size, high=nets.BERT["vocab"])})


# --------------------------------------------------------------------------------------------- bare
_MS_TO_TORCH_LEAF = {"gamma": "weight", "beta": "bias", "moving_mean": "running_mean",
                     "moving_variance": "running_var", "embedding_table": "weight"}


def _torch_name(ms_name: str) -> str:
    owner, _, leaf = ms_name.rpartition(".")
    return f"{owner}.{_MS_TO_TORCH_LEAF.get(leaf, leaf)}" if owner else _MS_TO_TORCH_LEAF.get(leaf, leaf)


def bare(net: str, size: int, check: str) -> None:
    """The hand-written script: no migcheck code at all."""
    import mindspore as ms
    import numpy as np
    import torch

    import nets

    factories = {"resnet50": (nets.torch_resnet50, nets.ms_resnet50), "bert": (nets.torch_bert_base, nets.ms_bert_base)}
    torch_factory, ms_factory = factories[net]
    rng = np.random.default_rng(0)
    module = torch_factory()
    scales = {f"{owner}.weight" for owner, m in module.named_modules()
              if isinstance(m, (torch.nn.BatchNorm2d, torch.nn.LayerNorm))}
    weights = {}
    for name, value in module.state_dict().items():
        shape = tuple(value.shape)
        if not value.dtype.is_floating_point:
            weights[name] = value.numpy().copy()
        elif name.endswith("running_var") or name in scales:
            # variances and normalisation scales near 1 (scales near 0 drive activations into denormals)
            weights[name] = rng.uniform(0.5, 1.5, shape).astype(np.float32)
        elif len(shape) >= 2:
            bound = 1 / math.sqrt(int(np.prod(shape[1:])))
            weights[name] = rng.uniform(-bound, bound, shape).astype(np.float32)
        else:
            weights[name] = rng.uniform(-0.5, 0.5, shape).astype(np.float32)
    module.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()})
    if net == "resnet50":
        x = rng.uniform(-1, 1, (1, 3, size, size)).astype(np.float32)
    else:
        x = rng.integers(0, nets.BERT["vocab"], (1, size)).astype(np.int64)

    def leaves(out):
        return list(out) if isinstance(out, (tuple, list)) else [out]

    # torch first, then MindSpore: the order migcheck runs them in (MindSpore's thread pool, busy
    # right after building a cell, would otherwise slow the torch pass that follows).
    module.eval()
    tx = torch.from_numpy(x)
    if check == "forward":
        with torch.no_grad():
            pt = [t.numpy().copy() for t in leaves(module(tx))]
    else:  # sum(output * cotangent): gradients of the float input and of every parameter
        floating = tx.is_floating_point()
        if floating:
            tx.requires_grad_(True)
        outs = leaves(module(tx))
        cots = [rng.normal(0.0, 1.0, tuple(o.shape)).astype(np.float32) for o in outs]
        total = sum((o * torch.from_numpy(c)).sum() for o, c in zip(outs, cots))
        total.backward()
        pt = [p.grad.numpy().copy() for p in module.parameters()] + ([tx.grad.numpy().copy()] if floating else [])
    cell = ms_factory()
    for name, p in cell.parameters_and_names():
        p.set_data(ms.Tensor(weights[_torch_name(name)], dtype=p.dtype))
    cell.set_train(False)
    if check == "forward":
        msout = [t.asnumpy() for t in leaves(cell(ms.Tensor(x)))]
        assert all(a.shape == b.shape for a, b in zip(pt, msout))
        return

    class Objective(ms.nn.Cell):
        def __init__(self, net, cots):
            super().__init__(auto_prefix=False)
            self.net = net
            self.cots = cots

        def construct(self, *args):
            out = self.net(*args)
            out = out if isinstance(out, tuple) else (out,)
            total = 0.0
            for o, c in zip(out, self.cots):
                total = total + (o * c).sum()
            return total

    fn = ms.grad(Objective(cell, tuple(ms.Tensor(c) for c in cots)), grad_position=0 if floating else None,
                 weights=cell.trainable_params())
    result = fn(ms.Tensor(x))
    grads = (list(result[1]) + [result[0]]) if floating else list(result)
    ms_grads = [g.asnumpy() for g in grads]
    assert len(ms_grads) == len(pt)


# ----------------------------------------------------------------------------------------- migcheck
_COMPARE = {"s": 0.0}


def _timed_compare(fn):
    def wrapper(*args, **kwargs):
        started = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            _COMPARE["s"] += time.perf_counter() - started
    return wrapper


def with_migcheck(net: str, size: int, check: str):
    from migcheck.running import pipeline as engine

    if not hasattr(engine.compare_trees, "__wrapped_compare__"):  # how much of migcheck's time the comparator takes
        engine.compare_trees = _timed_compare(engine.compare_trees)
        engine.compare_trees.__wrapped_compare__ = True
    engine._REFERENCES.clear()  # the torch side runs every time, as in a fresh process
    item = engine.Item(make_case(net, size), check, "pynative", "cpu")
    verdict = engine.run_item(item, engine.RunOptions(modes=("pynative",)))
    if verdict.status != "pass":
        raise SystemExit(f"migcheck's verdict is {verdict.status}: {verdict.message}")
    return verdict


def timed(fn, *args) -> float:
    gc.collect()
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def child(which: str, net: str, size: int, check: str) -> None:
    """One run in a fresh process; prints its peak RSS (and the RSS right after the imports)."""
    import mindspore  # noqa: F401  (both children pay the same imports)
    import torch  # noqa: F401

    import migcheck.running.pipeline  # noqa: F401

    after_imports = peak_rss_mb()
    start = time.perf_counter()
    (bare if which == "bare" else with_migcheck)(net, size, check)
    print(json.dumps({"which": which, "peak_rss_mb": peak_rss_mb(), "after_imports_mb": after_imports,
                      "seconds": time.perf_counter() - start}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--net", choices=("resnet50", "bert"), default="resnet50")
    parser.add_argument("--check", choices=("forward", "backward"), default="forward")
    parser.add_argument("--size", type=int, default=None, help="image side (resnet50) or sequence length (bert)")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--no-rss", action="store_true", help="skip the two subprocess runs for peak RSS")
    parser.add_argument("--rss-reps", type=int, default=1, help="subprocess pairs for peak RSS (median)")
    parser.add_argument("--json", metavar="FILE", help="append the result as one JSON line to FILE")
    parser.add_argument("--child", choices=("bare", "migcheck"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    size = args.size or DEFAULT_SIZE[args.net]
    if args.child:
        child(args.child, args.net, size, args.check)
        return

    from migcheck.runners.mindspore_context import configure

    configure("pynative", "cpu")  # what run_item does first; the bare script relies on the same device
    print(f"{args.net} {args.check}, size {size}, batch 1, PYNATIVE on CPU; {load_note()}", flush=True)
    bare_s, mig_s, ratios, compare_s = [], [], [], []
    timed(bare, args.net, size, args.check)  # warm-up: kernel caches, thread pools, lazy imports
    timed(with_migcheck, args.net, size, args.check)
    for rep in range(args.reps):
        _COMPARE["s"] = 0.0
        if rep % 2 == 0:
            b = timed(bare, args.net, size, args.check)
            m = timed(with_migcheck, args.net, size, args.check)
        else:
            m = timed(with_migcheck, args.net, size, args.check)
            b = timed(bare, args.net, size, args.check)
        bare_s.append(b)
        mig_s.append(m)
        ratios.append(m / b)
        compare_s.append(_COMPARE["s"])
        print(f"  rep {rep + 1}: bare {b:.2f} s, migcheck {m:.2f} s (comparator {_COMPARE['s']:.2f} s),"
              f" ratio {m / b:.3f}", flush=True)
    result = {"bench": "overhead", "net": args.net, "check": args.check, "size": size, "reps": args.reps,
              "bare_s": median(bare_s), "migcheck_s": median(mig_s), "ratio": median(ratios),
              "ratio_of_minima": min(mig_s) / min(bare_s), "comparator_s": median(compare_s), "load": load_note()}
    print(f"time: bare {result['bare_s']:.2f} s, migcheck {result['migcheck_s']:.2f} s (medians), of which the"
          f" comparator {result['comparator_s']:.2f} s; ratio {result['ratio']:.3f} (median of {args.reps}; target"
          f" <= 1.10), ratio of the fastest runs {result['ratio_of_minima']:.3f}")
    if not args.no_rss:
        script = str(Path(__file__).resolve())
        common = ["--net", args.net, "--check", args.check, "--size", str(size)]
        rss_b, rss_m = [], []
        for _ in range(args.rss_reps):
            rss_b.append(run_child([script, "--child", "bare"] + common)["peak_rss_mb"])
            rss_m.append(run_child([script, "--child", "migcheck"] + common)["peak_rss_mb"])
        result.update(bare_rss_mb=median(rss_b), migcheck_rss_mb=median(rss_m), rss_ratio=median(rss_m) / median(rss_b))
        print(f"peak RSS: bare {result['bare_rss_mb']:.0f} MiB, migcheck {result['migcheck_rss_mb']:.0f} MiB;"
              f" ratio {result['rss_ratio']:.3f} (target <= 1.3)")
    emit(result, args.json)


if __name__ == "__main__":
    main()
