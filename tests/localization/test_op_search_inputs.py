"""The op-level search's changes that come from what the two results show rather than from a named argument
(op_search.reshaped_inputs), and arguments that no name aligns (arg_candidates._by_kind), each on a bad port and
its correct twin: a reduction over all elements ported with an axis default, an integer reduction torch computes
in float, and a variance whose correction the port's ddof default does not carry."""
import numpy as np
import pytest

from migcheck import PairedCase, uniform
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")
ops = ms.ops


def _run(forward, construct):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 6)
            self.out = torch.nn.Linear(6, 3)

        def forward(self, x):
            return self.out(forward(self.fc(x)))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 6)
            self.out = ms.nn.Dense(6, 3)

        def construct(self, x):
            return self.out(construct(self.fc(x)))

    case = PairedCase(name="net", torch=T, mindspore=M, inputs={"x": uniform(3, 4)}, checks=("forward",))
    v = run_item(Item(case, "forward", "pynative", "cpu"))
    return v, (v.localization.defects if v.localization else ())


def test_a_reduction_over_all_elements_ported_with_the_default_axis_is_fed_a_flattened_input():
    v, (d,) = _run(lambda h: h - torch.amax(h), lambda h: h - ops.amax(h, -1, True))
    assert v.status == "fail" and d.confirmed and d.confidence == "high", d.cause
    # the port's own call first: MindSpore's default axis=None reduces over all elements, as torch's call does
    assert "op 'amax' inside '<root>'" in d.cause and "axis=None (MindSpore's default" in d.cause, d.cause
    assert d.fix == "amax(..., axis=-1) -> amax(..., axis=None)", d.fix


def test_the_reduction_over_all_elements_twin_passes():
    assert _run(lambda h: h - torch.amax(h), lambda h: h - ops.amax(h.reshape(-1), 0))[0].status == "pass"


def test_an_integer_mean_torch_computes_in_float_is_cast_first():
    v, (d,) = _run(lambda h: h * torch.mean((h > 0).int(), dim=1, keepdim=True, dtype=torch.float32),
                   lambda h: h * ops.mean((h > 0).astype(ms.int32), 1, True))
    assert v.status == "fail" and d.confirmed and d.confidence == "high", d.cause
    assert "op 'mean' inside '<root>'" in d.cause and "cast to float32" in d.cause
    assert d.fix.startswith("mean(..., x=x.astype(mindspore.float32), ...): hand mean its x as float32")


def test_the_float_mean_twin_passes():
    assert _run(lambda h: h * torch.mean((h > 0).int(), dim=1, keepdim=True, dtype=torch.float32),
                lambda h: h * ops.mean((h > 0).astype(ms.float32), 1, True))[0].status == "pass"


def _t_var_mean(h):
    var, mean = torch.var_mean(h, dim=1, keepdim=True)
    return (h - mean) / var


def _m_var_mean(**ddof):
    def scaled(h):
        var, mean = ops.var_mean(h, axis=1, keepdims=True, **ddof)
        return (h - mean) / var
    return scaled


def test_a_variance_whose_ddof_default_does_not_carry_torchs_correction_is_found_by_kind():
    v, (d,) = _run(_t_var_mean, _m_var_mean())
    assert v.status == "fail" and d.confirmed and d.confidence == "high", d.cause
    assert "op 'var_mean' inside '<root>'" in d.cause and "ddof=1 (torch's correction" in d.cause
    assert d.fix == "var_mean(..., ddof=0) -> var_mean(..., ddof=1)"


def test_the_unbiased_variance_twin_passes():
    assert _run(_t_var_mean, _m_var_mean(ddof=1))[0].status == "pass"


# A call that raised: the port's own arguments in another form or order, or its input in torch's result dtype.

def test_a_scalar_given_where_the_function_takes_it_last_is_moved():
    idx = ms.Tensor(np.array([0, 2, 1], np.int32))

    def port(h):  # torch's index_add(dim, index, source) order kept: ops.index_add takes the axis last
        return ops.index_add(ops.zeros((3, 6), ms.float32), 0, idx, h)

    v, (d,) = _run(lambda h: torch.zeros(3, 6).index_add(0, torch.tensor([0, 2, 1]), h), port)
    assert v.status == "error" and d.confirmed and d.confidence == "high", d.cause
    assert "with its 0 moved to argument position 3" in d.cause
    assert d.fix.startswith("index_add(Tensor[3, 6] float32, Tensor[3] int32, Tensor[3, 6] float32, 0) in place of"
                            " index_add(Tensor[3, 6] float32, 0, Tensor[3] int32, Tensor[3, 6] float32)")


def test_the_axis_last_twin_passes():
    idx = ms.Tensor(np.array([0, 2, 1], np.int32))
    assert _run(lambda h: torch.zeros(3, 6).index_add(0, torch.tensor([0, 2, 1]), h),
                lambda h: ops.index_add(ops.zeros((3, 6), ms.float32), idx, h, 0))[0].status == "pass"


def test_an_int_where_a_tuple_is_wanted_is_given_as_a_tuple():
    v, (d,) = _run(lambda h: torch.flip(h, [1]) * 2, lambda h: ops.flip(h, 1) * 2)
    assert v.status == "error" and d.confirmed and d.confidence == "high", d.cause
    assert d.fix.startswith("flip(Tensor[3, 6] float32, (1,)) in place of flip(Tensor[3, 6] float32, 1)")


def test_the_tuple_twin_passes():
    assert _run(lambda h: torch.flip(h, [1]) * 2, lambda h: ops.flip(h, (1,)) * 2)[0].status == "pass"


def test_a_bool_input_the_op_refuses_is_cast_to_torchs_result_dtype():
    v, (d,) = _run(lambda h: h * torch.cumsum(h > 0, dim=1), lambda h: h * ops.cumsum(h > 0, 1))
    assert v.status == "error" and d.confirmed and d.confidence == "high", d.cause
    assert "cast to int64 (the port's bool input is refused" in d.cause
    assert d.fix == "cumsum(..., x=x.astype(mindspore.int64), ...): hand cumsum its x as int64 (it refuses a bool input)"


def test_the_cast_count_twin_passes():
    assert _run(lambda h: h * torch.cumsum(h > 0, dim=1),
                lambda h: h * ops.cumsum((h > 0).astype(ms.int64), 1))[0].status == "pass"


def test_a_stride_torch_leaves_unset_is_tried_at_the_ports_kernel_size():
    fwd = lambda h: torch.nn.functional.avg_pool1d(h.view(3, 1, 6), 2).repeat(1, 1, 2).view(3, 6)
    v, (d,) = _run(fwd, lambda h: ops.avg_pool1d(h.view(3, 1, 6), 2)[..., :3].tile((1, 1, 2)).view(3, 6))
    assert v.status == "fail" and d.confirmed and d.confidence == "high", d.cause
    assert "stride=2 (kernel_size's value (torch leaves stride unset, None))" in d.cause
    assert d.fix == "avg_pool1d(..., stride=1) -> avg_pool1d(..., stride=2)"


def test_the_explicit_stride_twin_passes():
    fwd = lambda h: torch.nn.functional.avg_pool1d(h.view(3, 1, 6), 2).repeat(1, 1, 2).view(3, 6)
    assert _run(fwd, lambda h: ops.avg_pool1d(h.view(3, 1, 6), 2, 2)[..., :3].tile((1, 1, 2)).view(3, 6))[0].status == "pass"


def test_a_reshape_that_lost_its_transpose_is_fed_its_input_with_two_axes_swapped():
    v, (d,) = _run(lambda h: h.view(3, 2, 3).transpose(1, 2).reshape(3, 6),
                   lambda h: ops.reshape(h.view(3, 2, 3), (3, 6)))
    assert v.status == "fail" and d.confirmed and d.confidence == "high", d.cause
    assert "op 'reshape' inside '<root>'" in d.cause and "its input transposed first (axes 1 and 2 swapped)" in d.cause
    assert d.fix.startswith("reshape(x.swapaxes(1, 2), ...) in place of reshape(x, ...)")


def test_the_transposed_reshape_twin_passes():
    assert _run(lambda h: h.view(3, 2, 3).transpose(1, 2).reshape(3, 6),
                lambda h: ops.reshape(h.view(3, 2, 3).swapaxes(1, 2), (3, 6)))[0].status == "pass"


def test_a_reshape_to_another_grouping_is_given_torchs_result_shape():
    fwd = lambda h: h.view(3, 2, 3).transpose(1, 2).reshape(3, 6)
    v, (d,) = _run(fwd, lambda h: ops.reshape(h, (3, 3, 2)).transpose(0, 2, 1).reshape(3, 6))
    assert v.status == "fail" and d.confirmed and d.confidence == "high", d.cause
    assert "shape=(3, 2, 3) (torch's result shape)" in d.cause
    assert d.fix == "reshape(..., shape=(3, 3, 2)) -> reshape(..., shape=(3, 2, 3))"


def test_the_grouping_twin_passes():
    fwd = lambda h: h.view(3, 2, 3).transpose(1, 2).reshape(3, 6)
    assert _run(fwd, lambda h: ops.reshape(h, (3, 2, 3)).transpose(0, 2, 1).reshape(3, 6))[0].status == "pass"


def _scaled(std):
    return lambda h: h / (std(h[:, :3]) + 1) * std(h[:, 3:])  # two calls: no one replayed setting explains it


def test_torchs_keywords_said_explicitly_where_the_ports_call_left_them_to_its_own_defaults():
    fwd = _scaled(lambda a: a.std(dim=1, keepdim=True))
    v, (d,) = _run(fwd, _scaled(lambda a: a.std(dim=1, keepdim=True)))  # MindSpore keeps ddof=0 here
    assert v.status == "fail" and d.confirmed and d.confidence == "high", d.cause
    assert "torch's correction=1 said explicitly (by torch's names)" in d.cause
    assert d.fix == "Tensor.std(..., correction=1): pass these arguments explicitly"


def test_the_explicit_correction_twin_passes():
    fwd = _scaled(lambda a: a.std(dim=1, keepdim=True))
    assert _run(fwd, _scaled(lambda a: a.std(dim=1, keepdim=True, correction=1)))[0].status == "pass"


def test_the_ports_own_function_with_other_arguments_is_not_judged_at_edge_values():
    """ops.clamp turns NaN into its bound where torch keeps NaN: a property of the function every port calling it
    shares, so it does not reject the port's own clamp with torch's arguments (min back to its default None,
    max=0.1) as the fix for ops.clamp(x, min=...)."""
    v, (d,) = _run(lambda h: h.clamp(max=0.1), lambda h: ops.clamp(h, min=0.1))
    assert v.status == "fail" and d.confirmed and d.confidence == "high", d.cause
    assert d.fix == "clamp(..., min=0.1, max=None) -> clamp(..., min=None, max=0.1)", d.fix


def test_the_clamp_max_twin_passes():
    assert _run(lambda h: h.clamp(max=0.1), lambda h: ops.clamp(h, max=0.1))[0].status == "pass"
