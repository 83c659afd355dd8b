"""What localization costs on a ResNet-50 and a ViT-B-sized encoder, each with one planted defect.

Prints, per network: bare torch and MindSpore PYNATIVE forwards, then localization's parts: the two
capture forwards (hooks on every sub-cell), dataflow pairing (numpy), the isolated pass (each paired
leaf on torch's inputs), confirmation (counterfactual re-runs of the defect layers), and the whole
locate() call; the ratio is locate() over one bare forward per side. Single runs (the machine is shared).
Run: .venv/bin/python benchmarks/localization_cost.py
"""
import dataclasses
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import mindspore.nn as mnn  # noqa: E402

from migcheck import PairedCase, uniform  # noqa: E402
from migcheck.localization.capture import _isolated_pass, _tol, locate  # noqa: E402
from migcheck.localization.dataflow import pair_calls  # noqa: E402
from migcheck.localization.locate import module_pairs  # noqa: E402
from migcheck.options import RunOptions  # noqa: E402
from migcheck.mapping.transfer import map_weights, to_mindspore  # noqa: E402
from migcheck.running.pipeline import Item, _tolerance_for  # noqa: E402
from migcheck.running.reference import torch_reference  # noqa: E402
from migcheck.runners.mindspore_context import configure  # noqa: E402
from migcheck.runners.mindspore_side import MindSporeCell  # noqa: E402
from migcheck.runners.torch_side import TorchModule  # noqa: E402

from nets import VIT_DEPTH as DEPTH, VIT_DIM as DIM, ms_resnet50, ms_vit_b, torch_resnet50, torch_vit_b  # noqa: E402


def vit_ms_bad():
    def gelu_tanh_block7(blocks, nn):  # planted defect: block 7's GELU left at the tanh approximation
        blocks[7].mlp = nn.SequentialCell([nn.Dense(DIM, 16), nn.GELU(approximate=True), nn.Dense(16, DIM)])
    return ms_vit_b(gelu_tanh_block7)


def resnet_ms_bad():
    net = ms_resnet50()
    net.maxpool = mnn.MaxPool2d(3, 2, pad_mode="same")  # planted defect: the README's showcase
    return net


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def measure(label, case):
    configure("pynative", "cpu")
    ref = torch_reference(case, "forward")
    module = TorchModule(case.torch)
    module.load(ref.weights)
    cell = MindSporeCell(case.mindspore, "pynative")
    mapping = map_weights(ref.params, cell.params())
    cell.load(to_mindspore(ref.weights, mapping))
    x, d = ref.inputs, ref.input_dtypes
    module.forward(x, d), cell.forward(x, d)  # warm-up
    _, bare_t = timed(lambda: module.forward(x, d))
    _, bare_m = timed(lambda: cell.forward(x, d))
    t_calls, cap_t = timed(lambda: module.capture(x, d))
    m_calls, cap_m = timed(lambda: cell.capture(x, d))
    item = Item(case, "forward", "pynative", "cpu")
    tolerance_for = _tolerance_for(item, RunOptions(), "forward")
    hints = module_pairs([(r.torch_name, r.ms_name) for r in mapping.pairs], [c.name for c in t_calls],
                         [c.name for c in m_calls])
    flow, pairing = timed(lambda: pair_calls(t_calls, m_calls, hints, _tol(tolerance_for), x))
    _, isolated = timed(lambda: _isolated_pass(cell, t_calls, m_calls, flow))
    loc, total = timed(lambda: locate(case, "forward", ref, cell, mapping, (), tolerance_for))
    confirm = max(0.0, total - cap_t - cap_m - pairing - isolated)
    bare = bare_t + bare_m
    print(f"{label}: {len(t_calls)} torch / {len(m_calls)} MindSpore sub-cell calls, {len(flow.pairs)} paired")
    print(f"  bare forward: torch {bare_t:.2f} s, MindSpore {bare_m:.2f} s")
    print(f"  capture: torch {cap_t:.2f} s, MindSpore {cap_m:.2f} s; pairing {pairing:.2f} s; isolated pass"
          f" {isolated:.2f} s; confirmation and the rest {confirm:.2f} s")
    print(f"  locate() {total:.2f} s = {total / bare:.2f}x one bare forward per side")
    print(f"  defects: {[(dd.torch_name, dd.rule, dd.confirmed, dd.fix) for dd in loc.defects]}")


def main():
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 128
    resnet = dataclasses.replace(PairedCase(torch=torch_resnet50, mindspore=resnet_ms_bad,
                                            inputs={"x": uniform(1, 3, size, size)}, checks=("forward",)),
                                 name="resnet50_bench", file="<bench>")
    measure(f"ResNet-50, input 1x3x{size}x{size}", resnet)
    vit = dataclasses.replace(PairedCase(torch=torch_vit_b, mindspore=vit_ms_bad, inputs={"x": uniform(1, 3, 32, 32)},
                                         checks=("forward",)), name="vitb_bench", file="<bench>")
    measure(f"ViT-B-sized (dim {DIM}, {DEPTH} blocks, 64 tokens)", vit)


if __name__ == "__main__":
    main()
