"""What the float64 reference of the default judge costs on real-sized nets (issue 24).

For ResNet-50 (1x3xSxS) and BERT-base (1xT tokens) from nets.py, per check (forward, backward):
  - torch's float32 reference (weights drawn, inputs drawn, one pass), then the float64 re-run
    (migcheck.running.reference.torch_oracle: the same module widened, the same inputs and cotangents);
  - a whole PYNATIVE item through migcheck.run() under the default judge and under --tolerance-mode
    standard (which computes no oracle unless something fails), fresh processes each, no torch cache.
Prints seconds and the oracle's share.  .venv/bin/python benchmarks/oracle_cost.py [--size 64] [--tokens 32]
"""
from __future__ import annotations

import argparse
import json
import sys
import time

from common import ROOT, median, quiet_mindspore, run_child


def _case(net: str, size: int, tokens: int):
    import nets
    from migcheck import PairedCase, integers, normal

    if net == "resnet50":
        return PairedCase(name="resnet50", torch=nets.torch_resnet50, mindspore=nets.ms_resnet50,
                          inputs={"x": normal(1, 3, size, size)}, modes=("pynative",))
    return PairedCase(name="bert", torch=nets.torch_bert_base, mindspore=nets.ms_bert_base,
                      inputs={"input_ids": integers(1, tokens, high=nets.BERT["vocab"])}, modes=("pynative",))


def child(args: argparse.Namespace) -> None:
    case = _case(args.net, args.size, args.tokens)
    if args.what == "torch":
        from migcheck.running.reference import torch_oracle, torch_reference

        start = time.perf_counter()
        torch_reference(case, args.check)
        mid = time.perf_counter()
        torch_oracle(case, args.check)
        end = time.perf_counter()
        print(json.dumps({"float32": mid - start, "float64": end - mid}))
        return
    quiet_mindspore()
    import migcheck

    start = time.perf_counter()
    result = migcheck.run([case], checks=(args.check,), modes=("pynative",),
                          tolerance_mode=None if args.what == "default" else "standard")
    (verdict,) = [v for v in result.verdicts if v.check == args.check and v.mode == "pynative"]
    print(json.dumps({"item": time.perf_counter() - start, "status": str(verdict.status), "judged_by": verdict.judged_by}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=64)
    parser.add_argument("--tokens", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--nets", default="resnet50,bert")
    parser.add_argument("--child", nargs=3, metavar=("NET", "CHECK", "WHAT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        args.net, args.check, args.what = args.child
        child(args)
        return
    for net in args.nets.split(","):
        for check in ("forward", "backward"):
            base = [__file__, "--size", str(args.size), "--tokens", str(args.tokens), "--child", net, check]
            torch_runs = [run_child(base + ["torch"]) for _ in range(args.repeat)]
            items = {what: [run_child(base + [what]) for _ in range(args.repeat)] for what in ("default", "standard")}
            f32, f64 = median([r["float32"] for r in torch_runs]), median([r["float64"] for r in torch_runs])
            default, standard = median([r["item"] for r in items["default"]]), median([r["item"] for r in items["standard"]])
            shape = f"1x3x{args.size}x{args.size}" if net == "resnet50" else f"1x{args.tokens} tokens"
            print(f"{net} ({shape}) {check}: torch float32 reference {f32:.2f} s, float64 re-run {f64:.2f} s"
                  f" ({f64 / f32:.2f}x); whole item {default:.2f} s under the default judge vs {standard:.2f} s"
                  f" under --tolerance-mode standard (+{100 * (default - standard) / standard:.0f}%);"
                  f" {items['default'][0]['status']}, judged by {items['default'][0]['judged_by'][:40]}...")
            sys.stdout.flush()


if __name__ == "__main__":
    sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]
    main()
