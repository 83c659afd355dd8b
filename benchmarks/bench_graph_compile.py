"""GRAPH mode: what MindSpore 2.10 compiles again, and what it reuses. The evidence behind Verdict.compile_s.

    .venv/bin/python benchmarks/bench_graph_compile.py [--reps 5]

On one small network (Dense-ReLU-Dense-LayerNorm-Dense), each repetition times:
  * the first call of a cell in GRAPH mode (compile + run) against its second call (run): the bare baseline;
  * the first call of a second instance of the same class: compiled again, or reused?
  * Cell.compile(*args) (public) followed by the first call: does the call compile again?
  * the same instance in train mode after eval mode, and a new mindspore.grad function of the same cell.
migcheck builds a new cell for every item (case x check x mode), and its four checks run four
different graphs (eval forward, gradient, train forward, optimizer step), so nothing can be
reused across a case's checks; it compiles with Cell.compile first and reports the time apart.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import emit, load_note, median, quiet_mindspore  # noqa: E402

quiet_mindspore()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--json", metavar="FILE", help="append the result as one JSON line to FILE")
    args = parser.parse_args()
    import mindspore as ms
    import numpy as np

    ms.set_device("CPU")
    ms.set_context(mode=ms.GRAPH_MODE)

    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.seq = ms.nn.SequentialCell([ms.nn.Dense(16, 32), ms.nn.ReLU(), ms.nn.Dense(32, 32),
                                             ms.nn.LayerNorm((32,)), ms.nn.Dense(32, 8)])

        def construct(self, x):
            return self.seq(x)

    x = ms.Tensor(np.ones((4, 16), np.float32))

    def t(fn, *a):
        started = time.perf_counter()
        out = fn(*a)
        (out[0] if isinstance(out, tuple) else out).asnumpy() if out is not None else None
        return time.perf_counter() - started

    rows = {k: [] for k in ("first call", "second call", "new instance, first call", "Cell.compile",
                            "first call after Cell.compile", "same instance, train mode", "new grad fn, same cell",
                            "grad fn, second call")}
    for _ in range(args.reps):
        a = Net()
        a.set_train(False)
        rows["first call"].append(t(a, x))
        rows["second call"].append(t(a, x))
        b = Net()
        b.set_train(False)
        rows["new instance, first call"].append(t(b, x))
        c = Net()
        c.set_train(False)
        rows["Cell.compile"].append(t(c.compile, x))
        rows["first call after Cell.compile"].append(t(c, x))
        a.set_train(True)
        rows["same instance, train mode"].append(t(a, x))
        a.set_train(False)
        g = ms.grad(a, grad_position=0, weights=a.trainable_params())
        rows["new grad fn, same cell"].append(t(lambda: g(x)[0]))
        rows["grad fn, second call"].append(t(lambda: g(x)[0]))
    result = {"bench": "graph_compile", "reps": args.reps, "load": load_note(),
              "median_ms": {k: 1e3 * median(v) for k, v in rows.items()}}
    print(f"GRAPH mode on CPU, medians of {args.reps}; {load_note()}")
    for k, v in result["median_ms"].items():
        print(f"  {k:32s} {v:8.1f} ms")
    m = result["median_ms"]
    print(f"a new instance of the same class compiles again: {m['new instance, first call']:.0f} ms against"
          f" {m['second call']:.1f} ms for a second call of a compiled one; Cell.compile then call:"
          f" {m['Cell.compile']:.0f} + {m['first call after Cell.compile']:.1f} ms (the call reuses the graph)")
    emit(result, args.json)


if __name__ == "__main__":
    main()
