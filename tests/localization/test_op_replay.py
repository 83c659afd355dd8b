"""Replaying torch's own calls with one setting changed (op_replay.py, runners/torch_replay.py)."""
import math

import numpy as np
import pytest

from migcheck.localization.op_replay import SETTINGS, TENSOR, OpSite, agree, current, find_setting

X = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)


def test_current_setting_reads_keyword_then_position_then_torch_default():
    softmax = SETTINGS["softmax"][0]
    assert current(OpSite(1, "softmax", ("<tensor>",), (("dim", -1),), 3, ""), softmax) == -1
    assert current(OpSite(1, "softmax", ("<tensor>", 1), (), 3, ""), softmax) == 1
    assert current(OpSite(1, "softmax", ("<tensor>",), (), 3, ""), softmax) is None  # torch's implicit dim


def test_integer_outputs_compare_exactly_and_shapes_always():
    assert agree(np.array([1, 2]), np.array([1, 2]), 0.0, 0.0)
    assert not agree(np.array([1, 2]), np.array([1, 3]), 0.1, 10.0)
    assert not agree(np.zeros((2, 1), np.float32), np.zeros((1, 2), np.float32), 1.0, 1.0)


def _attention_module():
    import torch
    import torch.nn as tnn

    from migcheck.runners.torch_side import TorchModule

    class Attention(tnn.Module):
        def __init__(self):
            super().__init__()
            self.q, self.k, self.v = tnn.Linear(4, 4), tnn.Linear(4, 4), tnn.Linear(4, 4)

        def forward(self, x):
            scores = self.q(x) @ self.k(x).transpose(-1, -2) / math.sqrt(4)
            return torch.softmax(scores, dim=-1) @ self.v(x)

    torch.manual_seed(0)
    module = TorchModule(Attention)
    calls, _ = module.capture_with_ops([X], ["float32"])
    return module, calls


def _softmax(a, axis):
    e = np.exp(a - a.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.needs_torch
def test_the_one_changed_setting_that_reproduces_the_other_value_is_named():
    from migcheck.runners.torch_replay import Replayer

    module, calls = _attention_module()
    root = calls[-1]
    by = {c.name: c.output for c in calls}
    scores = by["q"] @ np.swapaxes(by["k"], -1, -2) / 2.0
    bad = _softmax(scores, -2) @ by["v"]  # a port normalizing over the queries
    match = find_setting(Replayer(module), "", root.start, root.end, root.output, bad, 1.3e-6, 1e-5)
    assert (match.site.name, match.keyword, match.torch_value, match.ms_value) == ("softmax", "dim", -1, -2)
    assert match.rule == "op-softmax" and "dim=-1" in match.fix
    # the correct twin: MindSpore's value is torch's, so no change is needed and none is named
    assert find_setting(Replayer(module), "", root.start, root.end, root.output, root.output, 1.3e-6, 1e-5) is None
    # a value no single setting explains (a scale) is not blamed on any call
    assert find_setting(Replayer(module), "", root.start, root.end, root.output, 1.5 * root.output, 1.3e-6, 1e-5) is None


@pytest.mark.needs_torch
def test_replay_holds_children_outputs_fixed_and_leaves_them_unchanged():
    from migcheck.runners.torch_replay import Replayer

    module, calls = _attention_module()
    root, before = calls[-1], {c.name: c.output.copy() for c in calls}
    replayed = Replayer(module).replay_ops("", root.start, root.end, None)
    assert agree(replayed[max(replayed)], root.output, 1.3e-6, 1e-5)
    assert all(np.array_equal(c.output, before[c.name]) for c in calls)


@pytest.mark.needs_mindspore
def test_a_replay_the_ports_own_call_contradicts_is_not_its_cause():
    """torch's cat replayed with another dim reproduces MindSpore's value, yet the port's own cat passes torch's
    dim (a later reshape maps one onto the other): the replay is a coincidence, not the port's mistake. Where
    the port's call passes another axis, the replay stands."""
    import numpy as np

    ms = pytest.importorskip("mindspore")
    from migcheck.localization.op_replay import port_passes_torchs_value
    from migcheck.localization.op_replay import ReplayMatch
    from migcheck.runners.mindspore_side import MindSporeCell

    def net(axis):
        class Cat(ms.nn.Cell):
            def construct(self, x):
                return ms.ops.cat([x, x * 2], axis)
        return Cat

    match = ReplayMatch(OpSite(3, "cat", ("<tensor>", 1), (), 4, "torch.cat(1)"), "dim", 1, -2)
    x = [np.ones((2, 3, 4, 4), np.float32)]
    assert port_passes_torchs_value(MindSporeCell(net(1), "pynative"), "", x, match)
    assert port_passes_torchs_value(MindSporeCell(net(-3), "pynative"), "", x, match)  # the same axis of rank 4
    assert not port_passes_torchs_value(MindSporeCell(net(2), "pynative"), "", x, match)


def test_settings_are_read_off_the_call_away_from_its_defaults_and_booleans_flipped():
    from migcheck.localization.op_replay import own_settings

    site = OpSite(3, "interpolate", (TENSOR,), (("size", (4, 4)), ("mode", "bilinear"), ("antialias", True),
                                                ("align_corners", False)), 4, "F.interpolate(...)",
                  ("input", "size"), (("mode", "nearest"), ("antialias", False), ("align_corners", None)))
    found = {s.keyword: s.alternatives(4) for s in own_settings(site)}
    assert found == {"mode": ["nearest"], "antialias": [False], "align_corners": [None, True]}


def _self_loops(added: bool):
    """A graph convolution whose port leaves out torch's `adj + torch.eye(n)` (its twin adds it)."""
    import mindspore as ms
    import torch

    from migcheck import PairedCase, uniform
    from migcheck.planning.items import Item
    from migcheck.running.pipeline import run_item

    class Conv(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(3, 4)

        def forward(self, x, adj):
            a = adj + torch.eye(adj.shape[0])
            return (a / a.sum(1, keepdim=True)) @ self.lin(x)

    class ConvMs(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.lin = ms.nn.Dense(3, 4)

        def construct(self, x, adj):
            a = adj + ms.ops.eye(adj.shape[0], adj.shape[0], ms.float32) if added else adj
            return ms.ops.matmul(a / a.sum(1, keepdims=True), self.lin(x))

    case = PairedCase(name="gcn", torch=Conv, mindspore=ConvMs, checks=("forward",),
                      inputs={"x": uniform(5, 3), "adj": uniform(5, 5, low=0.1, high=1.0)})
    return run_item(Item(case, "forward", "pynative", "cpu"))


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_call_of_torchs_the_port_leaves_out_is_named_with_what_its_arguments_are():
    v = _self_loops(False)
    assert v.status == "fail"
    (d,) = [d for d in v.localization.defects if d.rule == "op-add-dropped"]
    assert d.cause.startswith("the port leaves out torch's adj + torch.eye(5) (Tensor.add()): replaying torch's own"
                              " calls in '<root>'")
    assert "with only that call left out (its argument #1 passed on) reproduces MindSpore's value" in d.cause
    assert d.confirmed and d.fix == ""  # confirmed on torch's side; no port change was re-run
    twin = _self_loops(True)
    assert twin.status == "pass" and twin.localization is None
