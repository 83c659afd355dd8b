"""An error blamed downstream is traced to the call that went wrong (localization/raise_search.py): the first op
whose inputs agree with torch's values and which raised, or returned results of another shape or dtype than
torch's paired op, is changed one way at a time and the construct re-run on torch's recorded inputs; a change
after which it runs and agrees is the confirmed cause and its fix. Each bad port has a correct twin that passes."""
import numpy as np
import pytest

from migcheck import PairedCase, given
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")
ops = ms.ops

X = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
I = np.array([[3, 0, 1], [2, 2, 0]], dtype=np.int64)


def _pair(torch_body, ms_body, name, width, extra=()):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(4, 4)
            self.fc2 = torch.nn.Linear(width, 3)

        def forward(self, x, *more):
            return self.fc2(torch_body(self.fc1(x), *more))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = ms.nn.Dense(4, 4)
            self.fc2 = ms.nn.Dense(width, 3)

        def construct(self, x, *more):
            return self.fc2(ms_body(self.fc1(x), *more))

    inputs = {"x": given(X), **{f"i{k}": given(v) for k, v in enumerate(extra)}}
    case = PairedCase(name=name, torch=T, mindspore=M, inputs=inputs, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def _defect(v):
    assert v.status == "error"
    (d,) = v.localization.defects
    return d


def test_gather_ported_as_index_select_is_replaced_by_the_element_gather():
    v = _pair(lambda h, i: torch.gather(h, 1, i).reshape(2, -1), lambda h, i: ops.gather(h, i, 1).reshape(2, -1),
              "gather", 3, (I,))
    d = _defect(v)
    assert d.confirmed and d.confidence == "high"
    assert "op 'gather' inside '<root>': returned Tensor[2, 2, 3] float32 where torch's 'gather' returned" in d.cause
    assert "the op sits between 'fc1' output and 'fc2' input" in d.cause
    assert d.fix == "use ops.gather_elements(input, dim=1, index=index) in place of gather"
    assert d.search_tried and d.search_s >= 0


def test_the_element_gather_twin_passes():
    assert _pair(lambda h, i: torch.gather(h, 1, i).reshape(2, -1),
                 lambda h, i: ops.gather_elements(h, 1, i).reshape(2, -1), "gather_ok", 3, (I,)).status == "pass"


def _t_max(h):
    return h.view(-1, 2, 2).max(-1)[0].reshape(2, 2)


def test_argmax_with_value_taken_as_if_values_came_first_gets_its_results_swapped():
    v = _pair(_t_max, lambda h: ops.ArgMaxWithValue(axis=-1)(ops.reshape(h, (-1, 2, 2)))[0], "amax", 2)
    d = _defect(v)
    assert d.confirmed
    assert "op 'ArgMaxWithValue' inside '<root>': returned Tensor[2, 2] int" in d.cause
    assert "where torch's 'max' returned Tensor[2, 2] float32, Tensor[2, 2] int64" in d.cause
    assert d.fix.startswith("take 'ArgMaxWithValue''s results in the other order")


def test_the_argmax_with_value_twin_passes():
    assert _pair(_t_max, lambda h: ops.ArgMaxWithValue(axis=-1)(ops.reshape(h, (-1, 2, 2)))[1], "amax_ok",
                 2).status == "pass"


def test_a_concat_that_raises_itself_gets_torchs_axis():
    v = _pair(lambda h: torch.cat([h[:, 2:], h[:, :1]], dim=1), lambda h: ops.concat((h[:, 2:], h[:, :1]), axis=0),
              "cat", 3)
    d = _defect(v)
    assert d.confirmed
    assert "op 'concat' inside '<root>': raised where torch's 'cat' returned Tensor[2, 3] float32" in d.cause
    assert d.fix == "concat(..., axis=0) -> concat(..., axis=1)"


def test_an_arange_of_another_length_gets_the_end_that_makes_torchs_length_after_a_re_run():
    # 13 values in torch (the length computed in double), 12 in MindSpore 2.10: an end one step further makes 13
    v = _pair(lambda h: h.sum(1, keepdim=True) * torch.arange(1.0, 2.2, 0.1),
              lambda h: h.sum(1, keepdims=True) * ops.arange(1.0, 2.2, 0.1), "arange", 13)
    d = _defect(v)
    assert d.confirmed and d.confidence == "high"
    assert "op 'arange' inside '<root>': returned Tensor[12] float32 where torch's 'arange' returned Tensor[13]" \
        " float32" in d.cause, d.cause
    assert d.fix == "arange(..., end=2.2) -> arange(..., end=2.3)"


def test_the_arange_twin_passes():
    assert _pair(lambda h: h.sum(1, keepdim=True) * torch.arange(1.0, 2.2, 0.1),
                 lambda h: h.sum(1, keepdims=True) * (ops.arange(0, 13).astype(ms.float32) * 0.1 + 1.0), "arange_ok",
                 13).status == "pass"


def _t_pool(h):
    return torch.nn.functional.adaptive_avg_pool1d(h.reshape(2, 1, 4), 3).reshape(2, 3)


def test_a_1d_pool_refusing_a_length_its_output_does_not_divide_is_computed_by_the_2d_pool_over_a_unit_axis():
    v = _pair(_t_pool, lambda h: ops.adaptive_avg_pool1d(h.reshape(2, 1, 4), 3).reshape(2, 3), "pool1d", 3)
    d = _defect(v)
    assert d.confirmed and d.confidence == "high"
    assert d.fix == ("use ops.adaptive_avg_pool2d(input.expand_dims(-2), output_size=(1, 3)).squeeze(-2) in place of"
                     " adaptive_avg_pool1d")


def test_the_2d_pool_over_a_unit_axis_twin_passes():
    assert _pair(_t_pool, lambda h: ops.adaptive_avg_pool2d(h.reshape(2, 1, 1, 4), (1, 3)).reshape(2, 3),
                 "pool1d_ok", 3).status == "pass"


def _renamed(ms_flatten):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = torch.nn.Conv2d(2, 3, 1)

        def forward(self, x):
            return torch.flatten(self.proj(x), 2).sum(-1)

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.patch = ms.nn.Conv2d(2, 3, 1, has_bias=True)

        def construct(self, x):
            return ms_flatten(self.patch(x)).sum(-1)

    case = PairedCase(name="renamed", torch=T, mindspore=M, inputs={"x": given(np.ones((2, 2, 3, 3), np.float32))},
                      checks=("forward",), weight_map={"proj.weight": "patch.weight", "proj.bias": "patch.bias"})
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_the_raising_op_is_placed_after_the_child_in_torchs_name_when_the_weight_map_renames_it():
    d = _defect(_renamed(lambda h: ops.flatten(h, 2)))  # 2 binds to `order`, not start_dim
    assert d.confirmed and "the op sits between 'proj' output and '<output>' input" in d.cause


def test_the_keyword_start_dim_twin_passes():
    assert _renamed(lambda h: ops.flatten(h, start_dim=2)).status == "pass"


def _t_up(h):
    return torch.nn.functional.interpolate(h.reshape(2, 1, 2, 2), scale_factor=2, mode="bilinear").reshape(2, 16)[:, :3]


def test_a_refused_scale_factor_is_replaced_by_the_output_size_torch_returned():
    v = _pair(_t_up, lambda h: ops.interpolate(h.reshape(2, 1, 2, 2), scale_factor=2.0, mode="bilinear"
                                               ).reshape(2, 16)[:, :3], "up", 3)
    d = _defect(v)
    assert d.confirmed and "size=(4, 4) (the input's (2, 2) times 2" in d.cause
    assert d.fix.endswith("-> interpolate(..., size=(4, 4), scale_factor=None)")


def test_the_interpolate_given_a_size_twin_passes():
    assert _pair(_t_up, lambda h: ops.interpolate(h.reshape(2, 1, 2, 2), size=(4, 4), mode="bilinear"
                                                  ).reshape(2, 16)[:, :3], "up_ok", 3).status == "pass"


def _bartlett_scaled(h):  # a window built in construct from a plain length: no tensor goes in
    return h * torch.bartlett_window(4, periodic=False)


def _ms_bartlett_int(h):
    return h * ops.bartlett_window(4, periodic=False)


def _ms_bartlett_tensor(h):
    return h * ops.bartlett_window(ms.Tensor(4), periodic=False)


def test_a_number_the_function_refuses_is_handed_over_as_a_tensor():
    v = _pair(_bartlett_scaled, _ms_bartlett_int, "window", 4)
    assert v.status == "error"
    (d,) = v.localization.defects
    assert d.confirmed and "op 'bartlett_window'" in d.cause and "window_length 4 given as a Tensor" in d.cause
    assert d.fix == "bartlett_window(mindspore.Tensor(4)) in place of bartlett_window(4)", d.fix


def test_the_window_given_a_tensor_length_twin_passes():
    assert _pair(_bartlett_scaled, _ms_bartlett_tensor, "window", 4).status == "pass"


def _t_logspace(h):
    return h * torch.logspace(0.0, -2.0, 4, base=10.0)


def _ms_logspace(base):
    def body(h):
        return h * ops.logspace(ms.Tensor(0.0, ms.float32), ms.Tensor(-2.0, ms.float32), 4, base=base)
    return body


def test_a_number_the_function_takes_as_another_type_is_handed_over_so():
    v = _pair(_t_logspace, _ms_logspace(10.0), "logspace", 4)
    d = _defect(v)  # MindSpore's LogSpace wants an int base: "got type 'float'"
    assert d.confirmed and "op 'logspace'" in d.cause and "its base 10.0 given as the int 10" in d.cause
    assert d.fix == "logspace(..., base=10.0) -> logspace(..., base=10)", d.fix
    assert "base=10.0" in v.localization.summary  # the raising call shows the float as a float


def test_the_int_base_logspace_twin_passes():
    assert _pair(_t_logspace, _ms_logspace(10), "logspace", 4).status == "pass"


def _t_last(h):
    return torch.narrow(h, 1, -2, 2).repeat(1, 2)


def _ms_last(start):
    def body(h):
        return ops.narrow(h, 1, start, 2).tile((1, 2))
    return body


def test_a_negative_start_the_function_refuses_is_counted_from_the_front_of_its_axis():
    v = _pair(_t_last, _ms_last(-2), "narrow", 4)
    d = _defect(v)  # MindSpore 2.10's narrow refuses a negative start
    assert d.confirmed and "its start -2 counted from the front of axis 1 (size 4): 2" in d.cause, d.cause
    assert d.fix == "narrow(..., start=-2) -> narrow(..., start=2)", d.fix


def test_the_narrow_from_the_front_twin_passes():
    assert _pair(_t_last, _ms_last(2), "narrow", 4).status == "pass"
