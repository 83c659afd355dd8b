"""What localization costs on a ViT-S-like encoder (dim 192, 6 blocks, 64 tokens) with a defect in block 4.

Prints: bare torch forward, bare MindSpore PYNATIVE forward, and the localization re-run split into
its capture forwards (one per side, with hooks) and the isolated pass. Median of several runs.
Run: .venv/bin/python benchmarks/localization_cost.py
"""
import dataclasses
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import mindspore.nn as mnn  # noqa: E402
import torch.nn as tnn  # noqa: E402

from migcheck import PairedCase, uniform  # noqa: E402
from migcheck.localization.capture import _isolated_pass  # noqa: E402
from migcheck.running.mapping import map_weights, to_mindspore  # noqa: E402
from migcheck.running.pipeline import Item, run_item  # noqa: E402
from migcheck.running.reference import torch_reference  # noqa: E402
from migcheck.localization.locate import module_pairs  # noqa: E402
from migcheck.runners.mindspore_side import MindSporeCell, configure  # noqa: E402
from migcheck.runners.torch_side import TorchModule  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cases"))
from localization import BlockMs, BlockPt  # noqa: E402

DIM, DEPTH, REPEATS = 192, 6, 5


class VitPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.patch = tnn.Conv2d(3, DIM, 4, stride=4)
        self.blocks = tnn.Sequential(*[BlockPt(DIM, 1e-3) for _ in range(DEPTH)])
        self.head = tnn.Linear(DIM, 10)

    def forward(self, x):
        return self.head(self.blocks(self.patch(x).flatten(2).transpose(1, 2)).mean(dim=1))


class VitMs(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.patch = mnn.Conv2d(3, DIM, 4, stride=4, pad_mode="valid", has_bias=True)
        blocks = [BlockMs(DIM, 1e-3) for _ in range(DEPTH)]
        blocks[4].norm2 = mnn.LayerNorm((DIM,))  # planted defect
        self.blocks = mnn.SequentialCell(blocks)
        self.head = mnn.Dense(DIM, 10)

    def construct(self, x):
        return self.head(self.blocks(self.patch(x).reshape(x.shape[0], DIM, -1).transpose(0, 2, 1)).mean(axis=1))


def median_s(fn):
    times = []
    for _ in range(REPEATS):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    case = dataclasses.replace(PairedCase(torch=VitPt, mindspore=VitMs, inputs={"x": uniform(2, 3, 32, 32)},
                                          checks=("forward",)), name="vit_s_bench", file="<bench>")
    configure("pynative", "cpu")
    ref = torch_reference(case, "forward")
    module = TorchModule(case.torch)
    module.load(ref.weights)
    cell = MindSporeCell(case.mindspore, "pynative")
    mapping = map_weights(ref.params, cell.params())
    cell.load(to_mindspore(ref.weights, mapping))
    x, d = ref.inputs, ref.input_dtypes

    bare_torch = median_s(lambda: module.forward(x, d))
    bare_ms = median_s(lambda: cell.forward(x, d))
    cap_torch = median_s(lambda: module.capture(x, d))
    cap_ms = median_s(lambda: cell.capture(x, d))
    t_calls, m_calls = module.capture(x, d), cell.capture(x, d)
    pairs = module_pairs([(r.torch_name, r.ms_name) for r in mapping.pairs], [c.name for c in t_calls],
                         [c.name for c in m_calls])
    isolated = median_s(lambda: _isolated_pass(cell, t_calls, pairs))
    verdict = run_item(Item(case, "forward", "pynative", "cpu"))
    print(f"network: ViT-S-like, dim {DIM}, {DEPTH} blocks, 64 tokens, batch 2; {len(t_calls)} sub-cell calls")
    print(f"bare forward: torch {bare_torch * 1e3:.1f} ms, MindSpore PYNATIVE {bare_ms * 1e3:.1f} ms")
    print(f"capture forward (hooks on every sub-cell): torch {cap_torch * 1e3:.1f} ms"
          f" ({cap_torch / bare_torch:.2f}x bare), MindSpore {cap_ms * 1e3:.1f} ms ({cap_ms / bare_ms:.2f}x bare)")
    print(f"isolated pass (each paired leaf on torch's inputs): {isolated * 1e3:.1f} ms ({isolated / bare_ms:.2f}x a MindSpore forward)")
    print(f"verdict: {verdict.status}; {verdict.localization.summary[:160]}")


if __name__ == "__main__":
    main()
