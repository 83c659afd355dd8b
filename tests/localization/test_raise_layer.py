"""A library layer that raises on torch's recorded input (localization/raise_layer.py): other mindspore.nn classes
in its place and its inputs with the class axis moved are re-run on that input; a change that runs and agrees is
the confirmed cause and its fix. Each bad port has a correct twin that passes."""
import numpy as np
import pytest

from migcheck import PairedCase, given, uniform
from migcheck.localization.raise_layer import axis_moves
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")


def test_axis_moves_are_tried_on_inputs_of_three_or_more_axes():
    assert axis_moves([np.zeros((2, 3, 4)), np.zeros((2, 4)), 3]) == [(0, 1, -1), (0, -1, 1)]


def _run(torch_loss, ms_loss, inputs, labels_dtype=None):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 4)
            self.loss = torch_loss()

        def forward(self, x, y):
            return self.loss(self.fc(x).transpose(1, -1), y)

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 4)
            self.loss = ms_loss()

        def construct(self, x, y):
            y = y.astype(labels_dtype) if labels_dtype is not None else y
            return self.loss(self.fc(x).swapaxes(1, -1), y)

    case = PairedCase(name="loss", torch=T, mindspore=M, inputs=inputs, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


SEQ = {"x": uniform(2, 3, 4), "y": given(np.array([[0, 3, 1], [2, 2, 0]], np.int64))}  # (N, T) labels, classes at 1


class _ClassesLast(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.ce = ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

    def construct(self, logits, labels):
        return self.ce(logits.moveaxis(1, -1), labels)


def test_a_loss_that_wants_the_classes_last_gets_its_input_axis_moved():
    v = _run(torch.nn.CrossEntropyLoss, lambda: ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
             SEQ, ms.int32)
    assert v.status == "error"
    (d,) = v.localization.defects
    assert (d.ms_name, d.confidence, d.confirmed) == ("loss", "high", True)
    assert "takes input 0 with torch's axis 1 last" in d.cause and "ops.moveaxis(x, 1, -1)" in d.fix


def test_the_loss_handed_the_classes_last_passes():
    assert _run(torch.nn.CrossEntropyLoss, _ClassesLast, SEQ, ms.int32).status == "pass"


PAIR = {"x": uniform(2, 4, 4), "y": uniform(2, 4, 4)}


def test_a_layer_refusing_torchs_value_is_replaced_by_the_class_that_value_makes_it():
    v = _run(lambda: torch.nn.SmoothL1Loss(beta=0.0), lambda: ms.nn.SmoothL1Loss(beta=0.0, reduction="mean"), PAIR)
    assert v.status == "error"
    (d,) = v.localization.defects
    assert d.confirmed and "nn.L1Loss(reduction='mean') in its place agrees with torch" in d.cause, d.cause
    assert d.fix == "use mindspore.nn.L1Loss(reduction='mean') in place of SmoothL1Loss"


def test_the_l1_loss_twin_passes():
    assert _run(lambda: torch.nn.SmoothL1Loss(beta=0.0), lambda: ms.nn.L1Loss(), PAIR).status == "pass"


def _ln_run(ms_layer):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 12)
            self.norm = torch.nn.LayerNorm((3, 4))

        def forward(self, x):
            return self.norm(self.fc(x).view(-1, 3, 4))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 12)
            self.norm = ms_layer()

        def construct(self, x):
            return self.norm(self.fc(x).view(-1, 3, 4))

    case = PairedCase(name="ln", torch=T, mindspore=M, inputs={"x": uniform(2, 4)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_a_layer_that_raises_is_fixed_with_its_axes_and_then_torchs_values():
    # nn.LayerNorm((3, 4)) normalizes from the last axis by default: it raises; once its axes start where the
    # shape does it runs, and MindSpore's default epsilon=1e-07 is the second difference only then visible
    v = _ln_run(lambda: ms.nn.LayerNorm((3, 4)))
    assert v.status == "error"
    (d,) = v.localization.defects
    assert d.confirmed and "begin_norm_axis=1, begin_params_axis=1" in d.fix and "epsilon=1e-05" in d.fix, d.fix


def test_the_layernorm_from_the_shapes_first_axis_passes():
    assert _ln_run(lambda: ms.nn.LayerNorm((3, 4), begin_norm_axis=1, begin_params_axis=1,
                                           epsilon=1e-5)).status == "pass"


FLAT = {"x": uniform(6, 4), "y": given(np.array([0, 3, 1, 2, 2, 0], np.int64))}  # (N,) int64 labels


def test_a_loss_refusing_torchs_int64_labels_gets_them_as_int32_after_a_re_run():
    v = _run(torch.nn.CrossEntropyLoss, ms.nn.CrossEntropyLoss, FLAT)  # MindSpore's takes int32 labels only
    assert v.status == "error"
    (d,) = v.localization.defects
    assert (d.ms_name, d.confidence, d.confirmed) == ("loss", "high", True)
    assert "refuses its" in d.cause and "as int64" in d.cause and "as int32" in d.cause, d.cause
    assert "x.astype(mindspore.int32)" in d.fix


def test_the_loss_handed_int32_labels_passes():
    assert _run(torch.nn.CrossEntropyLoss, ms.nn.CrossEntropyLoss, FLAT, ms.int32).status == "pass"


def test_dtype_casts_are_the_dtypes_mindspores_kernels_take():
    from migcheck.localization.raise_layer import dtype_casts

    arrays = [np.zeros(2, np.int64), np.zeros(2, np.float32), np.zeros(2, bool), 3]
    assert dtype_casts(arrays) == [(0, "int32"), (2, "int32"), (2, "float32")]


def _gru(pass_hidden: bool):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.cell = torch.nn.GRUCell(4, 3)

        def forward(self, x):
            return self.cell(x)

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.cell = ms.nn.GRUCell(4, 3)

        def construct(self, x):
            return self.cell(x, ms.ops.zeros((x.shape[0], 3), ms.float32)) if pass_hidden else self.cell(x)

    case = PairedCase(name="gru", torch=T, mindspore=M, inputs={"x": uniform(2, 4)}, checks=("forward",),
                      weight_map={"cell.weight_ih": "cell.weight_ih", "cell.weight_hh": "cell.weight_hh",
                                  "cell.bias_ih": "cell.bias_ih", "cell.bias_hh": "cell.bias_hh"})
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_a_recurrent_cell_missing_the_state_torch_defaults_to_zeros_gets_zeros_after_a_re_run():
    v = _gru(pass_hidden=False)  # MindSpore's GRUCell requires hx
    assert v.status == "error"
    (d,) = v.localization.defects
    assert d.confirmed and d.confidence == "high"
    assert "requires its 'hx' argument, which torch's GRUCell defaults to zeros" in d.cause, d.cause
    assert d.fix.startswith("pass 'cell' hx=ops.zeros((2, 3), mindspore.float32)")


def test_the_cell_handed_a_zero_state_passes():
    assert _gru(pass_hidden=True).status == "pass"
