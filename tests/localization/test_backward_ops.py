"""Backward-only differences of ops inside construct are located at op level (each paired op run backward
alone on torch's recorded inputs and output gradient), with both gradients at the differing elements; a
fix only where the re-run shows it; the correct twin of every known-bad port passes."""
import numpy as np
import pytest

from migcheck import PairedCase, given
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")
ops = ms.ops

# Values sit exactly on the kinks: the bounds +-0.5, 0 and 6.
X = np.array([[0.5, -0.5, 0.1, 0.9], [0.0, 0.5, -0.7, 6.0]], np.float32)


def _torch(fn):
    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 3)

        def forward(self, x):
            return self.fc(fn(x))

    return Net


def _ms(fn):
    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 3)

        def construct(self, x):
            return self.fc(fn(x))

    return Net


def _run(torch_fn, ms_fn, mode="pynative"):
    case = PairedCase(name="op", torch=_torch(torch_fn), mindspore=_ms(ms_fn), inputs={"x": given(X)},
                      checks=("backward",))
    return run_item(Item(case, "backward", mode, "cpu"))


def _hardtanh_by_masks(x):  # torch's hardtanh gradient: 1 strictly inside the bounds, 0 on them
    inside = ops.cast((x > -0.5) & (x < 0.5), x.dtype)
    return x * inside + 0.5 * ops.cast(x >= 0.5, x.dtype) - 0.5 * ops.cast(x <= -0.5, x.dtype)


def _relu6_by_masks(x):
    return x * ops.cast((x > 0) & (x < 6), x.dtype) + 6.0 * ops.cast(x >= 6, x.dtype)


def _clip_by_value(x):  # a def, not a lambda: GRAPH mode parses it
    return ops.clip_by_value(x, -0.5, 0.5)


def _clamp(x):
    return ops.clamp(x, -0.5, 0.5)


PAIRS = {  # name: (torch op, known-bad port, correct twin)
    "clip_by_value": (lambda x: torch.clamp(x, -0.5, 0.5), _clip_by_value, _clamp),
    "hardtanh": (lambda x: torch.nn.functional.hardtanh(x, -0.5, 0.5), lambda x: ops.hardtanh(x, -0.5, 0.5),
                 _hardtanh_by_masks),
    "relu6": (torch.nn.functional.relu6, ops.relu6, _relu6_by_masks),
    "leaky_relu": (lambda x: torch.nn.functional.leaky_relu(x, 0.1), lambda x: ops.leaky_relu(x, 0.1),
                   lambda x: ops.where(x > 0, x, 0.1 * x)),
    "clamp_min_as_relu": (lambda x: x.clamp(min=0.0), ops.relu, lambda x: ops.clamp(x, min=0.0)),
}


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_the_correct_twin_passes(name):
    torch_fn, _, twin = PAIRS[name]
    v = _run(torch_fn, twin)
    assert v.status == "pass" and v.localization is None


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_clip_by_value_at_its_bounds_is_located_and_the_same_named_op_is_the_rerun_fix(mode):
    v = _run(*PAIRS["clip_by_value"][:2], mode=mode)
    (d,) = v.localization.defects
    assert (d.rule, d.torch_name, d.ms_name, d.confidence, d.confirmed) == ("op-backward", "", "", "high", True)
    assert "ops.clip_by_value(x, -0.5, 0.5)" in d.cause and "torch.clamp(-0.5, 0.5)" in d.cause
    assert "at input 0.5 (2 elements): torch passes gradient times 1, MindSpore 0.5" in d.cause
    assert "at input -0.5 (1 element)" in d.cause and "x at its bounds -0.5, 0.5" in d.cause
    assert d.fix.startswith("ops.clamp(x, -0.5, 0.5) instead of ops.clip_by_value(x, -0.5, 0.5)")
    assert "single-op re-runs" in d.evidence and d.search_s > 0 and "backward of ops.clip_by_value(x, -0.5, 0.5)" in d.search_tried
    assert "ops.clamp(x, -0.5, 0.5) in place of ops.clip_by_value" in d.search_tried
    assert v.localization.summary.startswith("first divergence in backward: an op inside torch '<root>'")
    (f,) = [f for f in v.localization.findings if f.rule == "op-backward"]
    assert f.confidence == "high" and f.fix_checked


def _clip_by_tensor_bounds(x):  # bounds held as one-element tensors, as ports keep them on the cell
    return ops.clip_by_value(x, ms.Tensor(-0.5, ms.float32), ms.Tensor(0.5, ms.float32))


def _clamp_by_tensor_bounds(x):
    return ops.clamp(x, ms.Tensor(-0.5, ms.float32), ms.Tensor(0.5, ms.float32))


def test_bounds_the_port_passes_as_tensors_pair_with_torchs_numbers_and_are_shown_by_value():
    v = _run(PAIRS["clip_by_value"][0], _clip_by_tensor_bounds)
    (d,) = v.localization.defects
    assert (d.rule, d.confidence, d.confirmed) == ("op-backward", "high", True)
    assert "ops.clip_by_value gradient differs from torch's torch.clamp where x at its bounds -0.5, 0.5" in d.cause
    assert d.fix.startswith("ops.clamp(x, Tensor(-0.5), Tensor(0.5)) instead of"
                            " ops.clip_by_value(x, Tensor(-0.5), Tensor(0.5))")


def test_the_tensor_bounds_clamp_twin_passes():
    v = _run(PAIRS["clip_by_value"][0], _clamp_by_tensor_bounds)
    assert v.status == "pass" and v.localization is None


@pytest.mark.parametrize("name, at, torch_factor, ms_factor", [
    ("hardtanh", "at input 0.5 (2 elements)", "0", "0.5"),
    ("relu6", "at input 6 (1 element)", "0", "1"),
    ("clamp_min_as_relu", "at input 0 (1 element)", "1", "0"),
])
def test_a_kink_whose_gradient_differs_is_located_with_no_unchecked_fix(name, at, torch_factor, ms_factor):
    torch_fn, bad, _ = PAIRS[name]
    v = _run(torch_fn, bad)
    assert v.status == "fail"
    d = v.localization.defects[0]
    assert d.rule == "op-backward" and d.confirmed
    assert f"{at}: torch passes gradient times {torch_factor}, MindSpore {ms_factor}" in d.cause
    assert d.fix == ""  # no MindSpore call re-ran to torch's gradient: nothing printed as a fix
    assert not any(f.fix_checked for f in v.localization.findings if f.rule == "op-backward")


def test_a_kink_is_fixed_by_a_function_of_torchs_ops_family_taking_its_number_as_a_tensor():
    v = _run(*PAIRS["leaky_relu"][:2])
    d = v.localization.defects[0]
    assert (d.rule, d.confirmed) == ("op-backward", True)
    assert "at input 0 (1 element): torch passes gradient times 0.1, MindSpore 0.55" in d.cause
    assert d.fix.startswith("ops.prelu(x, Tensor([0.1])) instead of ops.leaky_relu(x, 0.1) (re-run:")
    assert "ops.prelu(x, Tensor([0.1])) in place of ops.leaky_relu" in d.search_tried


def _prelu(x):
    return ops.prelu(x, ms.Tensor([0.1], ms.float32))


def test_the_prelu_twin_passes():
    v = _run(PAIRS["leaky_relu"][0], _prelu)
    assert v.status == "pass" and v.localization is None


class _Gate(torch.nn.Module):
    def forward(self, x):
        return torch.clamp(x, -0.5, 0.5) * 2.0


class _GateMs(ms.nn.Cell):
    def __init__(self, clip):
        super().__init__()
        self.clip = clip

    def construct(self, x):
        return self.clip(x) * 2.0


def test_an_op_inside_a_sub_cell_of_the_port_is_located_in_that_sub_cell():
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.gate, self.fc = _Gate(), torch.nn.Linear(4, 3)

        def forward(self, x):
            return self.fc(self.gate(x))

    def port(clip):
        class M(ms.nn.Cell):
            def __init__(self):
                super().__init__()
                self.gate, self.fc = _GateMs(clip), ms.nn.Dense(4, 3)

            def construct(self, x):
                return self.fc(self.gate(x))
        return M

    bad = run_item(Item(PairedCase(name="gate", torch=T, mindspore=port(lambda x: ops.clip_by_value(x, -0.5, 0.5)),
                                   inputs={"x": given(X)}, checks=("backward",)), "backward", "pynative", "cpu"))
    d = bad.localization.defects[0]
    assert (d.rule, d.torch_name, d.ms_name) == ("op-backward", "gate", "gate")
    assert d.fix.startswith("ops.clamp(")
    twin = run_item(Item(PairedCase(name="gate", torch=T, mindspore=port(lambda x: ops.clamp(x, -0.5, 0.5)),
                                    inputs={"x": given(X)}, checks=("backward",)), "backward", "pynative", "cpu"))
    assert twin.status == "pass"


def _atan2_pair(ms_fn):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 2)

        def forward(self, y, x):
            return self.fc(torch.atan2(y, x))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 2)

        def construct(self, y, x):
            return self.fc(ms_fn(y, x))

    y = np.array([[0.0, 1.0, -0.5, 0.3]], np.float32)
    x = np.array([[0.0, 0.5, 0.5, -0.2]], np.float32)  # (0, 0): the origin
    case = PairedCase(name="atan2", torch=T, mindspore=M, inputs={"y": given(y), "x": given(x)}, checks=("backward",))
    return run_item(Item(case, "backward", "pynative", "cpu"))


def _atan2_guarded(y, x):  # torch's gradient at the origin is 0: the origin's output is a constant
    origin = (x == 0) & (y == 0)
    return ops.where(origin, ops.zeros_like(x), ops.atan2(y, ops.where(origin, ops.ones_like(x), x)))


def test_atan2_at_the_origin_is_located_with_nan_beside_torchs_zero():
    v = _atan2_pair(ops.atan2)
    d = v.localization.defects[0]
    assert d.rule == "op-backward" and "ops.atan2(x, x)" in d.cause and "torch.atan2()" in d.cause  # a closure-bound function
    assert "at input 0 (1 element): torch passes gradient times 0, MindSpore nan" in d.cause and d.fix == ""


def test_the_guarded_atan2_twin_passes():
    assert _atan2_pair(_atan2_guarded).status == "pass"


def test_the_op_is_placed_after_the_sub_module_whose_output_it_reads():
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.shift, self.fc = torch.nn.Identity(), torch.nn.Linear(4, 3)

        def forward(self, x):
            return self.fc(torch.clamp(self.shift(x), -0.5, 0.5))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.shift, self.fc = ms.nn.Identity(), ms.nn.Dense(4, 3)

        def construct(self, x):
            return self.fc(_clip_by_value(self.shift(x)))

    case = PairedCase(name="after", torch=T, mindspore=M, inputs={"x": given(X)}, checks=("backward",))
    d = run_item(Item(case, "backward", "pynative", "cpu")).localization.defects[0]
    assert d.cause.startswith("the op after 'shift' output in '<root>': MindSpore's ops.clip_by_value gradient")


def _torch_amax_of_ties(x):  # max(x, 0) as a reduction: X's 0.0 is a tie of the two
    return torch.amax(torch.stack([x, torch.zeros_like(x)], -1), dim=-1)


def _ms_max_of_ties(x):  # ops.max with an axis returns (values, indices); its gradient goes to one of the ties
    return ops.max(ops.stack([x, ops.zeros_like(x)], -1), axis=-1)[0]


def _ms_amax_of_ties(x):  # ops.amax splits the gradient between ties, as torch.amax does
    return ops.amax(ops.stack([x, ops.zeros_like(x)], -1), axis=-1)


def test_a_multi_result_op_is_paired_by_its_first_result_and_its_tie_gradient_located():
    v = _run(_torch_amax_of_ties, _ms_max_of_ties)
    assert v.status == "fail"
    (d,) = v.localization.defects
    assert "MindSpore's ops.max gradient differs from torch's torch.amax" in d.cause, d.cause
    assert d.confirmed and d.fix.startswith("ops.amax(x, axis=-1) instead of ops.max(x, axis=-1)"), d.fix


def test_the_amax_twin_passes():
    v = _run(_torch_amax_of_ties, _ms_amax_of_ties)
    assert v.status == "pass", v.message


def _torch_max_values_of_ties(x):  # torch.max with a dim: its gradient goes to one of the ties
    return torch.max(torch.stack([x, torch.zeros_like(x)], -1), dim=-1).values


def _ms_reduce_max_of_ties(x):  # ReduceMax drops the axis and splits the gradient between ties
    return ops.ReduceMax()(ops.stack([x, ops.zeros_like(x)], -1), -1)


def test_ties_of_a_reduction_that_drops_its_axis_are_named_and_the_multi_result_function_is_the_fix():
    v = _run(_torch_max_values_of_ties, _ms_reduce_max_of_ties)
    (d,) = v.localization.defects
    assert "differs from torch's torch.max where x at ties of the primitive ReduceMax result" in d.cause, d.cause
    assert d.confirmed and d.fix.startswith("ops.max(x, -1)[0] instead of primitive ReduceMax(x, -1)"), d.fix


def test_the_max_values_twin_passes():
    assert _run(_torch_max_values_of_ties, _ms_max_of_ties).status == "pass"


VAR = np.array([[0.4, 3e-7, 0.2], [5e-8, 0.7, 1.1]], np.float32)  # two variances below the loss's eps=1e-6


def _gaussian_nll_pair(ms_loss):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 3)

        def forward(self, x, var):
            return torch.nn.functional.gaussian_nll_loss(self.fc(x), torch.zeros_like(var), var)

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 3)

        def construct(self, x, var):
            return ms_loss(self.fc(x), ops.zeros_like(var), var)

    case = PairedCase(name="gnll", torch=T, mindspore=M, inputs={"x": given(X), "var": given(VAR)},
                      checks=("backward",))
    return run_item(Item(case, "backward", "pynative", "cpu"))


def _gaussian_nll_as_torch(mean, target, var):  # torch clamps var's value only: its gradient passes through
    var = var + ops.stop_gradient(ops.maximum(var, 1e-6) - var)
    return (0.5 * (ops.log(var) + ops.square(mean - target) / var)).mean()


def test_a_gradient_that_differs_only_below_the_ops_eps_is_said_to_by_the_argument_names():
    v = _gaussian_nll_pair(ops.gaussian_nll_loss)
    assert v.status == "fail"
    d = [d for d in v.localization.defects if d.rule == "op-backward"][0]
    # measured: the differing elements of `var` are exactly those below eps, named as torch's signature names them
    assert "where var < eps=1e-06 (every differing element below it, every agreeing one at or above it)" in d.cause
    assert "at input 3e-07 (1 element)" in d.cause and d.fix == ""


def test_the_gaussian_nll_twin_that_passes_var_gradient_through_passes():
    assert _gaussian_nll_pair(_gaussian_nll_as_torch).status == "pass"


def test_kink_names_ties_of_a_reduction_and_ignores_axis_arguments():
    from migcheck.localization.backward_ops import kink

    x = np.array([[1.0, -1.0, 0.5], [0.2, 0.9, -0.3]], np.float32)
    out = np.abs(x).max(axis=-1, keepdims=True)  # an inf-norm: row 0's 1 and -1 tie
    wrong = np.array([[True, True, False], [False, False, False]])
    said = kink(x, wrong, (-1.0,), ("dim",), "", out, "norm")
    assert said.startswith("x at ties of the norm result: every differing element equals, in its magnitude"), said
    assert kink(x, wrong, (-1.0,), ("dim",)) == ""  # dim=-1 is an axis, no point on the values
    assert kink(x, wrong, (-1.0,), ("min",)) == ""  # -1 is a bound, but 1 sits elsewhere: no single point
    single = np.array([[False, True, False], [False, False, False]])
    assert kink(x, single, (-1.0,), ("min",)) == "x == -1 (its min argument)"


def test_ties_of_a_reduction_over_all_elements_are_named_too():
    from migcheck.localization.backward_ops import kink

    x = np.array([[0.5, 0.2], [0.5, 0.9]], np.float32)
    wrong = np.array([[True, False], [True, False]])
    said = kink(x, wrong, (), (), "", np.array(0.5, np.float32), "median")
    assert said.startswith("x at ties of the median result: every differing element equals, in its value"), said


def test_a_point_of_the_function_itself_is_read_off_the_inputs_where_only_its_elements_differ():
    from migcheck.localization.backward_ops import kink

    x = np.array([-3.0, -1.2, 0.7, 2.5, -3.0], np.float32)
    wrong = np.array([True, False, False, False, True])
    assert kink(x, wrong, [], own_points=True).startswith("x == -3 (every differing element has this input value")
    assert kink(x, wrong, []) == ""  # only for an elementwise function with nothing inside to search
    # an agreeing element at the same value: no point explains the elements
    assert kink(np.array([-3.0, -3.0, 0.7], np.float32), np.array([True, False, False]), [], own_points=True) == ""
    # a random-looking value that differs alone is not taken for a point
    assert kink(np.array([-0.5, 0.3137, 0.7], np.float32), np.array([False, True, False]), [], own_points=True) == ""
