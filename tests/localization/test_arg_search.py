"""The argument search on real layers: a diverging layer's own constructor arguments changed one candidate at a
time and re-run on torch's recorded input; a candidate that agrees is the confirmed cause and its fix. Each
known-bad port has its correct twin, which must pass with no finding."""
import pytest

from migcheck import PairedCase, integers, uniform
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]


def _case(pt, port, shape, weight_map=None, inputs=None):
    return PairedCase(name="net", torch=pt, mindspore=port, inputs=inputs or {"x": uniform(*shape)},
                      checks=("forward",), weight_map=weight_map or {"conv.weight": "conv.weight", "conv.bias": "conv.bias"})


def _run(case):
    v = run_item(Item(case, "forward", "pynative", "cpu"))
    return v, (v.localization.defects if v.localization else ())


def _then_conv(torch_layer, ms_layer, dims=2):
    """layer -> 1x1 conv, on both sides (the layer under test is the child 'layer')."""
    def pt():
        import torch

        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.layer = torch_layer()
                self.conv = (torch.nn.Conv1d if dims == 1 else torch.nn.Conv2d)(2, 3, 1)

            def forward(self, x):
                return self.conv(self.layer(x))

        return Net()

    def port():
        import mindspore.nn as mnn

        class Net(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.layer = ms_layer()
                self.conv = (mnn.Conv1d if dims == 1 else mnn.Conv2d)(2, 3, 1, has_bias=True)

            def construct(self, x):
                return self.conv(self.layer(x))

        return Net()

    return pt, port


def _reflect_pad(mode):
    import mindspore.nn as mnn
    import torch

    return _then_conv(lambda: torch.nn.ReflectionPad1d(2), lambda: mnn.Pad(((0, 0), (0, 0), (2, 2)), mode=mode), dims=1)


def test_an_enumeration_member_from_the_docstring_is_the_confirmed_cause():
    v, defects = _run(_case(*_reflect_pad("SYMMETRIC"), (1, 2, 5)))
    (d,) = defects
    assert v.status == "fail" and d.torch_name == "layer" and d.confirmed and d.confidence == "high"
    assert "mode='REFLECT'" in d.cause and d.fix == "nn.Pad(..., mode='SYMMETRIC') -> nn.Pad(..., mode='REFLECT')"
    assert d.search_tried and d.search_s > 0 and any("REFLECT" in t for t in d.search_tried)
    # and beyond the case's input (beyond.py): fresh values, a longer sequence, another batch size
    assert "confirmed beyond the case's input: it agrees on fresh values of the same shapes; an input of shape" \
           " (1, 2, 7) (last axis longer); an input of shape (2, 2, 5) (another batch size)" in d.cause


def test_reflect_pad_twin_passes():
    v, defects = _run(_case(*_reflect_pad("REFLECT"), (1, 2, 5)))
    assert v.status == "pass" and not defects


def _constant_pad(ms_pads):
    import mindspore.nn as mnn
    import torch

    return _then_conv(lambda: torch.nn.ConstantPad2d((2, 0, 0, 1), 0.0), lambda: mnn.Pad(ms_pads))


def test_pads_read_in_the_wrong_order_are_reordered_to_agreement():
    # torch's (left, right, top, bottom) read as (top, bottom, left, right): the output shape differs
    v, defects = _run(_case(*_constant_pad(((0, 0), (0, 0), (2, 0), (0, 1))), (1, 2, 3, 4)))
    (d,) = defects
    assert v.status == "fail" and d.confirmed and "reordered" in d.cause
    assert d.fix.endswith("nn.Pad(..., paddings=((0, 0), (0, 0), (0, 1), (2, 0)))")


def test_constant_pad_twin_passes():
    v, defects = _run(_case(*_constant_pad(((0, 0), (0, 0), (0, 1), (2, 0))), (1, 2, 3, 4)))
    assert v.status == "pass" and not defects


def _nearest(align_corners, naive_switch=False):
    import mindspore.nn as mnn
    import mindspore.ops as ops
    import torch

    class Resize(mnn.Cell):  # the port's own cell: its argument is found on the operator it holds
        def __init__(self, size, align_corners):
            super().__init__()
            self.op = ops.ResizeNearestNeighbor(size, align_corners=align_corners)

        def construct(self, x):
            return self.op(x)

    return _then_conv(lambda: torch.nn.Upsample(size=(6, 6), mode="nearest"), lambda: Resize((6, 6), align_corners))


def test_a_boolean_of_the_ports_own_cell_held_on_its_operator_is_flipped():
    v, defects = _run(_case(*_nearest(True), (1, 2, 4, 4)))
    (d,) = defects
    assert v.status == "fail" and d.confirmed and d.fix == "Resize(..., align_corners=True) -> Resize(..., align_corners=False)"


def test_nearest_twin_passes():
    v, defects = _run(_case(*_nearest(False), (1, 2, 4, 4)))
    assert v.status == "pass" and not defects


def _hardswish(keras_style):
    import mindspore.nn as mnn
    import mindspore.ops as ops
    import torch

    class KerasHardSwish(mnn.Cell):  # x * clip(0.2 x + 0.5, 0, 1): another slope than torch's x/6
        def construct(self, x):
            return x * ops.clamp(0.2 * x + 0.5, 0.0, 1.0)

    return _then_conv(torch.nn.Hardswish, KerasHardSwish if keras_style else mnn.HSwish)


def test_the_ports_own_class_replaced_by_a_mindspore_class_that_agrees():
    v, defects = _run(_case(*_hardswish(True), (1, 2, 3, 3)))
    (d,) = defects
    assert v.status == "fail" and d.confirmed and d.fix == "use mindspore.nn.HSwish() in place of KerasHardSwish"


def test_hswish_twin_passes():
    v, defects = _run(_case(*_hardswish(False), (1, 2, 3, 3)))
    assert v.status == "pass" and not defects


def _embedding(carry):
    def pt():
        import torch

        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = torch.nn.Embedding(8, 3, max_norm=0.1)

            def forward(self, ids):
                return self.emb(ids) * 2.0

        return Net()

    def port():
        import mindspore.nn as mnn
        import mindspore.ops as ops

        class MaxNorm(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.inner = mnn.Embedding(8, 3)

            def construct(self, ids):
                x = self.inner(ids)
                n = ops.norm(x, dim=-1, keepdim=True)
                return x * ops.minimum(ops.ones_like(n), 0.1 / (n + 1e-7))

        class Net(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.emb = MaxNorm() if carry else mnn.Embedding(8, 3)

            def construct(self, ids):
                return self.emb(ids) * 2.0

        return Net()

    table = "emb.inner.embedding_table" if carry else "emb.embedding_table"
    return PairedCase(name="net", torch=pt, mindspore=port, inputs={"ids": integers(2, 4, high=8)},
                      checks=("forward",), weight_map={"emb.weight": table})


def test_a_torch_setting_the_port_does_not_carry_is_confirmed_from_torchs_side_without_a_fix():
    v, defects = _run(_embedding(False))
    (d,) = defects
    assert v.status == "fail" and d.confirmed and "max_norm=0.1" in d.cause and "does not carry" in d.cause
    assert d.fix == ""  # no MindSpore class re-ran to agreement: nothing is printed as a fix
    (f,) = v.localization.findings
    assert not f.fix_checked and f.fix.startswith("none shown")


def test_embedding_twin_passes():
    v, defects = _run(_embedding(True))
    assert v.status == "pass" and not defects


def test_the_search_cost_survives_the_json_round_trip_and_is_shown_in_the_report(tmp_path):
    from migcheck.report import write_report
    from migcheck.serialize import verdict_from_json, verdict_to_json

    v, (d,) = _run(_case(*_reflect_pad("SYMMETRIC"), (1, 2, 5)))
    back = verdict_from_json(verdict_to_json(v, lean=True)).localization.defects[0]
    assert back.search_tried == d.search_tried and back.search_s == d.search_s
    write_report(tmp_path, [v])
    md = (tmp_path / "cells" / "net.md").read_text()
    html = (tmp_path / "cells" / "net.html").read_text()
    said = f"Argument search on `layer`: {len(d.search_tried)} candidates in {d.search_s:.2f} s"
    assert said in md and f"{len(d.search_tried)} candidates in" in html


def _avg_pool(pool):
    import torch

    return _then_conv(lambda: torch.nn.AvgPool2d(3, 1, padding=1), pool)


def test_a_pad_mode_confirmed_with_torchs_padding_alongside_it():
    import mindspore.nn as mnn

    v, defects = _run(_case(*_avg_pool(lambda: mnn.AvgPool2d(3, 1, pad_mode="same")), (1, 2, 4, 4)))
    (d,) = defects
    assert v.status == "fail" and d.torch_name == "layer" and d.confirmed and d.confidence == "high"
    assert d.fix.endswith("nn.AvgPool2d(..., pad_mode='pad', padding=1)"), d.fix
    assert "ceil_mode" not in d.fix  # the flip against torch's own ceil_mode=False is not reached first


def test_avg_pool_pad_twin_passes():
    import mindspore.nn as mnn

    v, defects = _run(_case(*_avg_pool(lambda: mnn.AvgPool2d(3, 1, pad_mode="pad", padding=1)), (1, 2, 4, 4)))
    assert v.status == "pass" and not defects, v.message


def _conv_bias(has_bias):
    import mindspore.nn as mnn
    import torch

    pt, port = _then_conv(lambda: torch.nn.Conv1d(2, 2, 1), lambda: mnn.Conv1d(2, 2, 1, has_bias=has_bias), dims=1)
    return PairedCase(name="net", torch=pt, mindspore=port, inputs={"x": uniform(1, 2, 5)}, checks=("forward",))


def test_a_bias_the_port_switched_off_is_re_run_with_torchs_bias():
    # MindSpore's Conv1d has has_bias=False by default: the candidate grows a bias, filled with torch's
    v, defects = _run(_conv_bias(False))
    (d,) = defects
    assert v.status == "fail" and d.torch_name == "layer" and d.confirmed and d.confidence == "high"
    assert d.fix.endswith("nn.Conv1d(..., has_bias=True)"), d.fix


def test_conv_bias_twin_passes():
    v, defects = _run(_conv_bias(True))
    assert v.status == "pass" and not defects, v.message


def _prelu(channels):
    import mindspore.nn as mnn
    import torch

    pt, port = _then_conv(lambda: torch.nn.PReLU(2, init=0.1), lambda: mnn.PReLU(channels, w=0.1))
    return PairedCase(name="net", torch=pt, mindspore=port, inputs={"x": uniform(1, 2, 3, 3, low=-1, high=1)},
                      checks=("forward",), weight_map={"layer.weight": "layer.w", "conv.weight": "conv.weight",
                                                       "conv.bias": "conv.bias"})


def test_a_parameter_the_candidate_reshapes_takes_torchs_of_that_shape():
    # one slope where torch keeps one per channel: the rebuilt PReLU(channel=2) gets torch's two slopes
    v, defects = _run(_prelu(1))
    assert v.status == "fail"
    (d,) = [d for d in defects if d.torch_name == "layer"]
    assert d.confirmed and d.confidence == "high" and d.fix.endswith("nn.PReLU(..., channel=2)"), (d.cause, d.fix)


def test_prelu_per_channel_twin_passes():
    v, defects = _run(_prelu(2))
    assert v.status == "pass" and not defects, v.message


def _batch_norm(ms_kwargs):
    import mindspore.nn as mnn
    import torch

    return _then_conv(lambda: torch.nn.BatchNorm2d(2), lambda: mnn.BatchNorm2d(2, **ms_kwargs))


def test_a_flag_the_table_says_is_held_the_other_way_round_gets_torchs_meaning():
    # track_running_stats=True (torch's default) reads as MindSpore's use_batch_statistics=None (by the mode); the
    # port's True uses batch statistics in eval and writes its moving mean: each re-run starts from the loaded state
    v, defects = _run(_case(*_batch_norm({"use_batch_statistics": True}), (3, 2, 4, 4)))
    (d,) = defects
    assert d.confidence == "high" and d.fix.endswith("use_batch_statistics=None)"), d.fix
    assert "MindSpore's default, as torch's track_running_stats" in d.cause


def test_the_batch_norm_by_the_mode_passes():
    assert _run(_case(*_batch_norm({}), (3, 2, 4, 4)))[0].status == "pass"


def _log_softmax_3d(ms_axis):
    import mindspore.nn as mnn
    import torch

    def pt():
        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(4, 4)
                self.logp = torch.nn.LogSoftmax()  # no dim: on a 3-D input torch picks dim=0

            def forward(self, x):
                return self.logp(self.fc(x))
        return Net()

    def port():
        class Net(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = mnn.Dense(4, 4)
                self.logp = mnn.LogSoftmax(axis=ms_axis)

            def construct(self, x):
                return self.logp(self.fc(x))
        return Net()
    return PairedCase(name="logp", torch=pt, mindspore=port, inputs={"x": uniform(3, 4, 4)}, checks=("forward",))


def test_an_axis_torch_leaves_none_is_measured_on_torchs_layer_and_becomes_the_fix():
    v, defects = _run(_log_softmax_3d(-1))
    (d,) = defects
    assert d.confidence == "high" and d.fix == "nn.LogSoftmax(..., axis=-1) -> nn.LogSoftmax(..., axis=0)", d.fix
    assert "torch dim=0 (torch's dim=None, measured)" in d.search_tried


def test_the_log_softmax_over_torchs_implicit_axis_passes():
    assert _run(_log_softmax_3d(0))[0].status == "pass"
