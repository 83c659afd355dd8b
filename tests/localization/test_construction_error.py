"""A port whose MindSpore factory raises while it builds the network (localization/construction_error.py): the
constructor call that raised is named with its arguments as written, and changed calls generated from the two
calls (a positional value rebound to torch's parameter, torch's values, the nearest value the message accepts)
are constructed and run on torch's recorded input, then the whole network is built with the change and checked.
Each bad port has a correct twin that passes."""
import numpy as np
import pytest

from migcheck import PairedCase, given
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")

X = np.linspace(-1, 1, 2 * 4 * 6 * 6, dtype=np.float32).reshape(2, 4, 6, 6)


def _run(torch_layer, ms_layer, name):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(4, 4, 1)
            self.layer = torch_layer()

        def forward(self, x):
            return self.layer(self.conv(x))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = ms.nn.Conv2d(4, 4, 1, has_bias=True)
            self.layer = ms_layer()

        def construct(self, x):
            return self.layer(self.conv(x))

    case = PairedCase(name=name, torch=T, mindspore=M, inputs={"x": given(X)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def _defect(v):
    assert v.status == "error"
    (d,) = v.localization.defects
    assert d.torch_name == "layer" and d.ms_name == "layer"
    return d


def test_a_drop_probability_passed_positionally_binds_to_keep_prob_and_is_moved_to_p():
    d = _defect(_run(lambda: torch.nn.Dropout(0.0), lambda: ms.nn.Dropout(0.0), "dropout_positional"))
    assert d.confirmed and d.confidence == "high" and d.rule == "constructor-argument"
    assert "passed positionally, 0.0 binds to keep_prob in MindSpore; torch's Dropout takes it as p" in d.cause
    assert d.fix == "nn.Dropout(0.0) -> nn.Dropout(p=0.0)"
    assert d.search_tried and d.search_s >= 0


def test_the_dropout_given_p_by_keyword_passes():
    assert _run(lambda: torch.nn.Dropout(0.0), lambda: ms.nn.Dropout(p=0.0), "dropout_keyword").status == "pass"


def test_a_pool_given_padding_with_pad_mode_same_is_rebuilt_with_pad_mode_pad():
    v = _run(lambda: torch.nn.MaxPool2d(3, 1, padding=1), lambda: ms.nn.MaxPool2d(3, 1, pad_mode="same", padding=1),
             "maxpool_same_padding")
    d = _defect(v)
    assert d.confirmed
    assert "pad_mode='pad'" in d.fix and "padding=1" in d.fix
    assert "the whole network built with it passes the check" in v.localization.summary


def test_the_pool_with_pad_mode_pad_passes():
    assert _run(lambda: torch.nn.MaxPool2d(3, 1, padding=1), lambda: ms.nn.MaxPool2d(3, 1, pad_mode="pad", padding=1),
                "maxpool_pad").status == "pass"


def test_a_layer_with_parameters_gets_torch_s_groups_and_its_weights():
    d = _defect(_run(lambda: torch.nn.Conv2d(4, 6, 3, groups=2),
                     lambda: ms.nn.Conv2d(4, 6, 3, pad_mode="valid", group=4, has_bias=True), "conv_group"))
    assert d.confirmed and "group=2" in d.fix


def test_the_conv_with_torch_s_groups_passes():
    assert _run(lambda: torch.nn.Conv2d(4, 6, 3, groups=2),
                lambda: ms.nn.Conv2d(4, 6, 3, pad_mode="valid", group=2, has_bias=True), "conv_group_ok").status == "pass"


def test_a_call_no_change_repairs_is_named_without_a_fix():
    """Torch's Linear has no activation: no changed call computes it, so the call is named at medium, no fix."""
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = torch.nn.Linear(6, 3)

        def forward(self, x):
            return self.layer(x)

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.layer = ms.nn.Dense(6, 3, activation="no_such_activation")

        def construct(self, x):
            return self.layer(x)

    case = PairedCase(name="dense_bad_activation", torch=T, mindspore=M, inputs={"x": given(X[0, 0])},
                      checks=("forward",))
    d = _defect(run_item(Item(case, "forward", "pynative", "cpu")))
    assert not d.confirmed and d.confidence == "medium" and not d.fix
    assert "activation='no_such_activation'" in d.cause


class _TwoAsymmetric(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.tall = torch.nn.Conv2d(4, 4, (3, 1), padding=(1, 0))
        self.wide = torch.nn.Conv2d(4, 4, (1, 3), padding=(0, 1))

    def forward(self, x):
        return self.wide(self.tall(x))


def _two_asymmetric(tall, wide):
    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.tall = ms.nn.Conv2d(4, 4, (3, 1), pad_mode="pad", padding=tall, has_bias=True)
            self.wide = ms.nn.Conv2d(4, 4, (1, 3), pad_mode="pad", padding=wide, has_bias=True)

        def construct(self, x):
            return self.wide(self.tall(x))

    case = PairedCase(name="pads", torch=_TwoAsymmetric, mindspore=M, inputs={"x": given(X)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_per_axis_pads_are_rewritten_per_side_and_the_next_raising_call_is_searched_too():
    v = _two_asymmetric((1, 0), (0, 1))
    assert v.status == "error"
    tall, wide = v.localization.defects
    assert (tall.ms_name, wide.ms_name) == ("tall", "wide") and tall.confirmed and wide.confirmed
    assert "its padding (1, 0) written as (1, 1, 0, 0) (each axis's value for both its sides)" in tall.cause
    assert tall.fix.endswith("padding=(1, 1, 0, 0), has_bias=True)") and wide.fix.endswith("padding=(0, 0, 1, 1), has_bias=True)")
    # the first change alone leaves the factory raising at the second call; with both, the network passes
    assert "once that call is changed, the factory raises again" in v.localization.summary
    assert v.localization.summary.endswith("the whole network built with it passes the check)")


def test_the_convs_given_one_pad_per_side_pass():
    assert _two_asymmetric((1, 1, 0, 0), (0, 0, 1, 1)).status == "pass"


def test_a_shape_given_as_an_int_is_rewritten_as_a_tuple_of_one():
    # the argument MindSpore's message names is rewritten before any other candidate
    d = _defect(_run(lambda: torch.nn.LayerNorm([6]), lambda: ms.nn.LayerNorm(6, epsilon=1e-05), "ln_int"))
    assert d.confirmed and "normalized_shape=(6,)" in d.fix, d
    assert "(a tuple of one)" in d.search_tried[0]


def test_the_layernorm_given_a_tuple_passes():
    assert _run(lambda: torch.nn.LayerNorm([6]), lambda: ms.nn.LayerNorm((6,), epsilon=1e-05), "ln").status == "pass"


def test_a_keyword_the_layer_does_not_take_is_given_to_its_parameter_of_that_name():
    d = _defect(_run(lambda: torch.nn.Conv2d(4, 4, 1, groups=4),
                     lambda: ms.nn.Conv2d(4, 4, 1, has_bias=True, groups=4), "conv_groups"))
    assert d.confirmed and "group=4" in d.fix and "groups=4 passed as group" in d.cause, d
    assert "groups" not in d.search_tried[0].replace("groups=4 passed", "")  # dropped from every candidate


def test_the_conv_given_group_passes():
    assert _run(lambda: torch.nn.Conv2d(4, 4, 1, groups=4),
                lambda: ms.nn.Conv2d(4, 4, 1, has_bias=True, group=4), "conv_group").status == "pass"


def _run1d(ms_layer):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.dw = torch.nn.Conv1d(4, 4, 3, padding=1, groups=4)

        def forward(self, x):
            return self.dw(x)

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.dw = ms_layer()

        def construct(self, x):
            return self.dw(x)

    case = PairedCase(name="dw1d", torch=T, mindspore=M, inputs={"x": given(X[:, :, 0, :])}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_a_conv1d_weight_with_a_unit_axis_is_rebuilt_from_torchs_weight():
    # MindSpore's Conv1d keeps its weight as (C, C/g, 1, k): torch's (C, C/g, k) is the same values
    v = _run1d(lambda: ms.nn.Conv1d(4, 4, 3, pad_mode="pad", padding=1, has_bias=True, groups=4))
    (d,) = v.localization.defects
    assert d.confirmed and "group=4" in d.fix, d


def test_the_conv1d_given_group_passes():
    assert _run1d(lambda: ms.nn.Conv1d(4, 4, 3, pad_mode="pad", padding=1, has_bias=True, group=4)).status == "pass"


def _lstm(proj: bool):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = torch.nn.LSTM(6, 4, batch_first=True, proj_size=3 if proj else 0)

        def forward(self, x):
            return self.layer(x)[0]

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.layer = ms.nn.LSTM(6, 4, batch_first=True, proj_size=3) if proj else ms.nn.LSTM(6, 4, batch_first=True)

        def construct(self, x):
            return self.layer(x)[0]

    case = PairedCase(name="lstm_proj", torch=T, mindspore=M, inputs={"x": given(X[0, :2])}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_a_keyword_the_mindspore_class_has_no_parameter_for_is_confirmed_by_building_it_without():
    d = _defect(_lstm(True))
    assert d.confirmed and d.confidence == "high" and not d.fix  # what proj_size computes has no setting here
    assert d.cause.startswith("MindSpore's LSTM has no proj_size parameter (its constructor takes no such keyword")


def test_the_lstm_without_a_projection_passes():
    assert _lstm(False).status == "pass"


def _own_cell(axis):
    """The port's own cell raising while it builds an operator primitive it assigns to `self.norm`."""
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(4, 4, 1)
            self.norm = torch.nn.Softmax(dim=1)

        def forward(self, x):
            return self.norm(self.conv(x))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = ms.nn.Conv2d(4, 4, 1, has_bias=True)
            self.norm = ms.ops.Softmax(axis=axis)

        def construct(self, x):
            return self.norm(self.conv(x))

    case = PairedCase(name="own_cell", torch=T, mindspore=M, inputs={"x": given(X)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_a_primitive_that_raises_in_the_ports_own_init_is_placed_at_the_member_it_was_assigned_to():
    v = _own_cell("1")
    assert v.status == "error"
    (d,) = v.localization.defects
    assert (d.torch_name, d.torch_kind, d.ms_name) == ("norm", "Softmax", "norm")
    assert "For 'Softmax', the type of 'axis' should be one of" in d.cause and not d.confirmed


def test_the_primitive_given_an_int_axis_passes():
    assert _own_cell(1).status == "pass"
