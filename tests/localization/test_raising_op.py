"""When MindSpore raises: the call that raised (not its cell, not the layer after it) is named, beside torch's
corresponding call with both calls' arguments; the correct twins run through and pass."""
import numpy as np
import pytest

from migcheck import PairedCase, given
from migcheck.records.ops import RaisingCall
from migcheck.localization.raising_op import counterpart_call, torch_names
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")
ops = ms.ops

X = np.linspace(-1, 1, 12, dtype=np.float32).reshape(2, 6)
IDX = [5, 4, 3, 2, 1, 0]


def _pair(torch_body, ms_body, name):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(6, 3)

        def forward(self, x):
            return self.fc(torch_body(x))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(6, 3)

        def construct(self, x):
            return self.fc(ms_body(x))

    case = PairedCase(name=name, torch=T, mindspore=M, inputs={"x": given(X)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def _torch_swap(x):
    return torch.cat([x[:, 2:], x[:, :2]], dim=1)


def _ms_swap(axis):
    return lambda x: ops.concat((x[:, 2:], x[:, :2]), axis=axis)


def test_a_concat_on_the_wrong_axis_is_named_beside_torchs_cat():
    v = _pair(_torch_swap, _ms_swap(0), "cat")
    assert v.status == "error"
    text = v.localization.summary
    assert "the raising call: MindSpore ops.concat((Tensor[2, 4] float32, Tensor[2, 2] float32), axis=0) in '<root>'" in text
    assert "torch's corresponding call (by name): torch.cat([Tensor[2, 4] float32, Tensor[2, 2] float32], dim=1)" in text


def test_the_concat_twin_passes():
    assert _pair(_torch_swap, _ms_swap(1), "cat").status == "pass"


def _torch_pick(x):
    return torch.index_select(x, 1, torch.tensor(IDX))


def _ms_pick(axis):
    return lambda x: ops.gather(x, ms.Tensor(IDX, ms.int32), axis)


def test_a_gather_on_the_wrong_axis_is_set_beside_index_select():
    v = _pair(_torch_pick, _ms_pick(0), "gather")
    text = v.localization.summary
    assert "MindSpore ops.gather(Tensor[2, 6] float32, Tensor[6] int32, 0)" in text
    assert "torch.index_select(Tensor[2, 6] float32, 1, Tensor[6] int64)" in text


def test_the_gather_twin_passes():
    assert _pair(_torch_pick, _ms_pick(1), "gather").status == "pass"


class _FoldPt(torch.nn.Module):
    def forward(self, x):
        return x.view(2, 3, 2).sum(-1)


def _fold_ms(groups):
    class Fold(ms.nn.Cell):
        def construct(self, x):
            return x.view(2, groups, 2).sum(-1)

    return Fold


def _fold_pair(groups):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fold, self.fc = _FoldPt(), torch.nn.Linear(3, 2)

        def forward(self, x):
            return self.fc(self.fold(x))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fold, self.fc = _fold_ms(groups)(), ms.nn.Dense(3, 2)

        def construct(self, x):
            return self.fc(self.fold(x))

    case = PairedCase(name="fold", torch=T, mindspore=M, inputs={"x": given(X)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_a_view_with_a_wrong_shape_inside_a_sub_cell_is_named_in_that_sub_cell():
    v = _fold_pair(4)
    loc = v.localization
    assert (loc.first_divergence, loc.first_divergence_ms) == ("fold", "fold")
    assert "MindSpore Tensor.view(Tensor[2, 6] float32, 2, 4, 2) in 'fold'" in loc.summary
    assert "torch's corresponding call (by name): Tensor.view(Tensor[2, 6] float32, 2, 3, 2)" in loc.summary


def test_the_view_twin_passes():
    assert _fold_pair(3).status == "pass"


def test_names_order_candidates_and_position_is_said_when_no_name_matches():
    assert torch_names("ops.concat") == ("cat", "concat") and torch_names("primitive MatMul")[0] == "matmul"
    raised = RaisingCall("", "ops.frobnicate", "ops.frobnicate(Tensor[2] float32)")
    calls = [RaisingCall("", "tensor", "torch.tensor([1, 2])"), RaisingCall("", "relu", "torch.relu(Tensor[2] float32)"),
             RaisingCall("other", "cat", "torch.cat(Tensor[2] float32)")]
    assert counterpart_call(raised, "", 0, calls) == (calls[1], "by position only")  # constructors are not calls on tensors
    assert counterpart_call(raised, "", 3, calls) == (None, "")


def test_a_primitives_settings_are_shown_with_its_call_beside_torchs():
    from pathlib import Path

    from migcheck.planning.discovery import load_file

    cases = Path(__file__).resolve().parents[2] / "cases" / "normalization.py"
    case = next(c for c in load_file(cases).cases if c.name == "layernorm_two_axes_not_ported")
    text = run_item(Item(case, "forward", "pynative", "cpu")).localization.summary
    assert "MindSpore primitive LayerNorm[begin_norm_axis=-1, begin_params_axis=-1" in text
    assert "torch's corresponding call (by name): F.layer_norm(Tensor[2, 3, 4, 5] float32, (4, 5)" in text


class _PrepPt(torch.nn.Module):
    def forward(self, x):
        return x.view(3, 4)


def _prep_ms(shape):
    class Prep(ms.nn.Cell):
        def construct(self, x):
            return x.view(*shape)

    return Prep


def _upstream_pair(shape):
    w = np.linspace(-1, 1, 8, dtype=np.float32).reshape(4, 2)

    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.prep = _PrepPt()

        def forward(self, x):
            return torch.matmul(self.prep(x), torch.from_numpy(w))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.prep = _prep_ms(shape)()

        def construct(self, x):
            return ops.matmul(self.prep(x), ms.Tensor(w))

    case = PairedCase(name="upstream", torch=T, mindspore=M, inputs={"x": given(X)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_a_wrong_shape_made_upstream_is_named_where_it_was_made_not_where_it_raised():
    loc = _upstream_pair((4, 3)).localization
    assert (loc.first_divergence, loc.first_divergence_ms) == ("prep", "prep")
    assert "the shape went wrong upstream, in 'prep': MindSpore Tensor.view(Tensor[2, 6] float32, 4, 3)" in loc.summary
    assert "returned Tensor[4, 3] float32 where torch's Tensor.view(Tensor[2, 6] float32, 3, 4)" in loc.summary
    assert "ops.matmul(Tensor[4, 3] float32, Tensor[4, 2] float32)" in loc.summary


def test_the_upstream_twin_passes():
    assert _upstream_pair((3, 4)).status == "pass"


def test_an_earlier_call_returning_a_tuple_on_one_side_only_is_not_taken_for_the_upstream_change():
    from migcheck.localization.raising_op import upstream_change

    ms_call = RaisingCall("", "Tensor.max", "Tensor.max(Tensor[2, 6] float32, axis=1)", output="Tensor[2] float32")
    torch_call = RaisingCall("", "max", "Tensor.max(Tensor[2, 6] float32, dim=1)",
                             output="(Tensor[2] float32, Tensor[2] int64)")
    assert upstream_change([ms_call], [torch_call], lambda owner: owner) is None
    wrong = RaisingCall("", "Tensor.max", "Tensor.max(Tensor[2, 6] float32, axis=0)", output="Tensor[6] float32")
    right = RaisingCall("", "max", "Tensor.max(Tensor[2, 6] float32, dim=1)", output="Tensor[2] float32")
    assert upstream_change([wrong], [right], lambda owner: owner) == (wrong, right)


class _TorchElu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(6, 3)
        self.act = torch.nn.ELU(alpha=0.5)

    def forward(self, x):
        return self.act(self.fc(x))


class _ManualElu(ms.nn.Cell):
    """ELU with alpha=0.5 written out: MindSpore's Elu kernel takes alpha=1.0 only."""

    def construct(self, x):
        return ops.where(x > 0, x, 0.5 * (ops.exp(x) - 1))


def _elu_port(act):
    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(6, 3)
            self.act = act()

        def construct(self, x):
            return self.act(self.fc(x))

    case = PairedCase(name="elu", torch=_TorchElu, mindspore=M, inputs={"x": given(X)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_an_argument_mindspores_error_refuses_is_worked_around_as_a_scale_only_after_a_re_run():
    """nn.ELU(alpha=0.5) raises; rebuilt with alpha=1.0 and its negative branch times 0.5 it agrees with torch."""
    v = _elu_port(lambda: ms.nn.ELU(alpha=0.5))
    assert v.status == "error"
    (d,) = v.localization.defects
    assert d.torch_name == "act" and d.ms_name == "act"
    assert "refuses alpha=0.5" in d.cause and "where its input is negative multiplied by 0.5" in d.cause
    assert d.confidence == "high" and d.confirmed
    assert d.fix.startswith("y = nn.ELU(alpha=1.0)(x); y = ops.where(x < 0, 0.5 * y, y)")


class _TorchCelu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(6, 3)
        self.act = torch.nn.CELU(alpha=0.5)

    def forward(self, x):
        return self.act(self.fc(x))


def _celu_port(act):
    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(6, 3)
            self.act = act()

        def construct(self, x):
            return self.act(self.fc(x))

    case = PairedCase(name="celu", torch=_TorchCelu, mindspore=M, inputs={"x": given(X)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_a_refused_argument_no_scale_explains_is_fixed_by_the_class_torchs_layer_is():
    """torch's CELU(alpha=0.5) ported as nn.ELU(alpha=0.5), which refuses it: no scale of ELU(1.0) is CELU(0.5),
    but nn.CELU(alpha=0.5) in its place runs on torch's recorded input and agrees (raise_layer.py)."""
    v = _celu_port(lambda: ms.nn.ELU(alpha=0.5))
    assert v.status == "error"
    (d,) = v.localization.defects
    assert "refuses alpha=0.5" in d.cause and "nn.CELU(alpha=0.5) in its place agrees with torch" in d.cause
    assert d.confidence == "high" and d.fix == "use mindspore.nn.CELU(alpha=0.5) in place of ELU"


def test_the_celu_twin_passes():
    assert _celu_port(lambda: ms.nn.CELU(alpha=0.5)).status == "pass"


def test_the_written_out_elu_twin_passes():
    v = _elu_port(_ManualElu)
    assert v.status == "pass" and not (v.localization and v.localization.defects), v.message


def test_refused_argument_needs_the_same_value_on_torchs_side_and_a_message_naming_it():
    from migcheck.localization.raising_op import refused_argument

    ms_call = RaisingCall("act", "primitive Elu", "Elu[alpha=0.5](Tensor[5, 8] float32)", "In Elu, alpha must be 1.0f.")
    assert "refuses alpha=0.5" in refused_argument(ms_call, RaisingCall("act", "elu", "F.elu(Tensor[5, 8] float32, alpha=0.5)"))
    assert refused_argument(ms_call, RaisingCall("act", "elu", "F.elu(Tensor[5, 8] float32, alpha=1.0)")) == ""
    assert refused_argument(ms_call, None) == ""


def _functional_elu(ms_act):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(6, 4)
            self.fc2 = torch.nn.Linear(4, 3)

        def forward(self, x):
            return self.fc2(torch.nn.functional.elu(self.fc1(x), alpha=0.5))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = ms.nn.Dense(6, 4)
            self.fc2 = ms.nn.Dense(4, 3)

        def construct(self, x):
            return self.fc2(ms_act(self.fc1(x)))

    case = PairedCase(name="felu", torch=T, mindspore=M, inputs={"x": given(X)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_a_functional_op_that_raises_is_placed_after_the_sub_cell_whose_output_it_takes():
    v = _functional_elu(lambda h: ops.elu(h, alpha=0.5))
    assert v.status == "error"
    (d,) = v.localization.defects
    assert "in '<root>', taking values computed from 'fc1' output" in d.evidence, d.evidence
    # the op run with alpha=1.0 and its negative branch scaled by 0.5 re-runs to agreement: the workaround
    assert d.confidence == "high" and d.confirmed
    assert d.fix.startswith("y = elu(x, ..., alpha=1.0); y = ops.where(x < 0, 0.5 * y, y)")


def test_the_functional_elu_twin_passes():
    v = _functional_elu(lambda h: ops.where(h > 0, h, 0.5 * (ops.exp(h) - 1)))
    assert v.status == "pass", v.message


def _torch_roll(x):
    return torch.roll(x, 2, dims=1)


def test_an_op_with_no_kernel_here_is_replaced_by_a_function_that_has_one_only_after_a_re_run():
    v = _pair(_torch_roll, lambda x: ops.roll(x, 2, 1), "roll")  # Roll has no CPU kernel in MindSpore 2.10
    assert v.status == "error"
    (finding,) = v.localization.findings
    assert finding.confirmed and finding.confidence == "high" and finding.fix_checked
    assert finding.cause.startswith("the port's ops.roll has no kernel on this device (MindSpore has no Roll kernel on"
                                    " CPU")
    assert "mindspore.numpy.roll(a, shift=2, axis=1)" in finding.fix  # written with ops that have CPU kernels


def test_the_roll_written_with_slices_twin_passes():
    assert _pair(_torch_roll, lambda x: ops.concat((x[:, -2:], x[:, :-2]), axis=1), "roll").status == "pass"


def _triplet(ms_loss):
    class T(torch.nn.Module):
        def forward(self, a, p, n):
            return torch.nn.functional.triplet_margin_loss(a, p, n, margin=0.5)

    class M(ms.nn.Cell):
        def construct(self, a, p, n):
            return ms_loss(a, p, n)

    rng = np.random.default_rng(0)
    arrays = {k: given(rng.standard_normal((5, 4)).astype(np.float32)) for k in "apn"}
    case = PairedCase(name="triplet", torch=T, mindspore=M, inputs=arrays, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_an_op_with_no_kernel_here_and_no_alternative_is_the_confirmed_cause_with_no_fix_printed():
    v = _triplet(lambda a, p, n: ops.triplet_margin_loss(a, p, n, margin=0.5))  # no CPU kernel in 2.10
    assert v.status == "error"
    (finding,) = v.localization.findings
    assert finding.rule == "no-kernel" and finding.confirmed and finding.confidence == "high"
    assert "no TripletMarginLoss kernel on CPU" in finding.cause
    assert finding.cause.startswith("the port's ops.triplet_margin_loss has no kernel on this device")
    assert "it raised when launched alone" in finding.cause
    assert finding.fix == "" and not finding.fix_checked  # no call with a kernel here was re-run in its place


def _written_out_triplet(a, p, n):
    d_ap = ops.sqrt(((a - p + 1e-6) ** 2).sum(-1))
    d_an = ops.sqrt(((a - n + 1e-6) ** 2).sum(-1))
    return ops.relu(d_ap - d_an + 0.5).mean()


def test_the_written_out_triplet_twin_passes():
    assert _triplet(_written_out_triplet).status == "pass"


def test_a_missing_kernel_of_another_op_than_the_raising_call_is_not_said_as_the_cause():
    from migcheck.localization.exceptions import ErrorCause
    from migcheck.localization.raised import RaiseSite, with_missing_kernel

    why = ErrorCause("no-kernel", "Roll", "MindSpore has no Roll kernel on CPU")
    assert with_missing_kernel(RaiseSite("", "Net", raised_op="ops.gather"), why).cause == ""
    assert with_missing_kernel(RaiseSite("", "Net", raised_op="ops.roll"), why).rule == "no-kernel"
    kept = RaiseSite("", "Net", cause="a confirmed setting", raised_op="ops.roll")
    assert with_missing_kernel(kept, why) == kept  # a confirmed cause of its own, with no fix, stands


def _two_branch_max(ms_max):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b, self.head = torch.nn.Linear(6, 4), torch.nn.Linear(6, 4), torch.nn.Linear(4, 2)

        def forward(self, x):
            return self.head(torch.max(self.a(x), self.b(x).reshape(-1, 4)))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.a, self.b, self.head = ms.nn.Dense(6, 4), ms.nn.Dense(6, 4), ms.nn.Dense(4, 2)

        def construct(self, x):
            return self.head(ms_max(self.a(x), self.b(x).reshape(-1, 4)))

    case = PairedCase(name="max2", torch=T, mindspore=M, inputs={"x": given(X)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_a_raising_op_names_every_sub_cell_its_arguments_were_computed_from_through_other_calls():
    v = _two_branch_max(ops.max)  # ops.max takes an axis second: an elementwise max raises
    assert v.status == "error"
    (d,) = v.localization.defects
    assert "taking values computed from 'a' output and 'b' output" in d.evidence, d.evidence  # b through reshape
    assert d.confirmed and "ops.maximum(input, other)" in d.fix


def test_the_elementwise_maximum_twin_passes():
    assert _two_branch_max(ops.maximum).status == "pass"


def test_a_primitive_shown_by_no_name_is_the_raising_cells_kernel_only_where_the_cell_runs_it():
    from migcheck.localization.exceptions import ErrorCause
    from migcheck.localization.raised import RaiseSite, with_missing_kernel

    why = ErrorCause("no-kernel", "InstanceNorm", "MindSpore has no InstanceNorm kernel on CPU")
    site = with_missing_kernel(RaiseSite("norm", "InstanceNorm3d", raised_op="primitive Primitive"), why)
    assert site.rule == "no-kernel" and site.cause.startswith("the port's InstanceNorm3d 'norm' has no kernel")
    other = RaiseSite("fc", "Dense", raised_op="primitive Primitive")
    assert with_missing_kernel(other, why) == other  # a Dense runs no InstanceNorm kernel


def _instance_norm_3d(ms_norm):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.norm = torch.nn.InstanceNorm3d(2)

        def forward(self, x):
            return self.norm(x) * 2.0

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.norm = ms_norm()

        def construct(self, x):
            return self.norm(x) * 2.0

    case = PairedCase(name="in3d", torch=T, mindspore=M, inputs={"x": given(
        np.random.default_rng(2).standard_normal((1, 2, 2, 3, 3)).astype(np.float32))}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


class _WrittenInstanceNorm3d(ms.nn.Cell):
    def construct(self, x):
        mean = x.mean(axis=(2, 3, 4), keep_dims=True)
        var = ((x - mean) ** 2).mean(axis=(2, 3, 4), keep_dims=True)
        return (x - mean) / ops.sqrt(var + 1e-5)


def test_a_norm_cell_whose_kernel_this_device_lacks_is_said_by_the_cell():
    v = _instance_norm_3d(lambda: ms.nn.InstanceNorm3d(2))  # no InstanceNorm kernel on CPU in MindSpore 2.10
    assert v.status != "pass"  # its moving statistics are set by nothing of torch's too: said as structure first
    (finding,) = [f for f in v.localization.findings if f.rule == "no-kernel"]
    assert finding.rule == "no-kernel" and finding.confirmed
    assert finding.cause.startswith("the port's InstanceNorm3d 'norm' has no kernel on this device")


def test_the_instance_norm_written_out_passes():
    assert _instance_norm_3d(_WrittenInstanceNorm3d).status == "pass"
