"""The op-level search on real ports: the port's construct traced through MindSpore's public call points, the
first op whose inputs agree with torch's values and whose output does not, and a change to that call re-run
through the construct. Each known-bad port has its correct twin, which passes with no finding."""
import pytest

from migcheck import PairedCase, mask, uniform
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]


def _case(forward, construct, inputs):
    """fc -> a functional tail written as forward (torch) and construct (MindSpore)."""
    def pt():
        import torch

        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(4, 4)

            def forward(self, x, *rest):
                return forward(self.fc(x), *rest)

        return Net()

    def port():
        import mindspore.nn as mnn

        class Net(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = mnn.Dense(4, 4)

            def construct(self, x, *rest):
                return construct(self.fc(x), *rest)

        return Net()

    return PairedCase(name="net", torch=pt, mindspore=port, inputs=inputs, checks=("forward",))


def _run(case):
    v = run_item(Item(case, "forward", "pynative", "cpu"))
    return v, (v.localization.defects if v.localization else ())


def _cumsum(axis):
    import mindspore.ops as ops
    import torch

    return _case(lambda h: torch.cumsum(h, dim=1), lambda h: ops.cumsum(h, axis=axis), {"x": uniform(2, 3, 4)})


def test_a_functional_ops_axis_takes_torchs_dim():
    v, (d,) = _run(_cumsum(-1))
    assert v.status == "fail" and d.confirmed and d.confidence == "high" and d.rule == "op-argument-search"
    assert "op 'cumsum' inside '<root>': inputs agree with torch's, output does not" in d.cause
    assert d.fix == "cumsum(..., axis=-1) -> cumsum(..., axis=1)" and d.search_tried


def test_cumsum_twin_passes():
    v, defects = _run(_cumsum(1))
    assert v.status == "pass" and not defects


def _sum_normalized(keep_dims):
    import mindspore.ops as ops

    reduce = ops.ReduceSum(keep_dims=keep_dims)
    return _case(lambda h: h / h.sum(dim=-1, keepdim=True), lambda h: h / reduce(h, -1), {"x": uniform(4, 4, low=1, high=2)})


def test_a_primitives_constructor_argument_takes_torchs_value():
    v, (d,) = _run(_sum_normalized(False))
    assert v.status == "fail" and d.confirmed
    assert d.fix == "ops.ReduceSum(keep_dims=False) -> ops.ReduceSum(keep_dims=True)"


def test_reduce_sum_twin_passes():
    v, defects = _run(_sum_normalized(True))
    assert v.status == "pass" and not defects


def _min_values(take):
    import mindspore.ops as ops
    import torch

    argmin = ops.ArgMinWithValue(axis=-1)
    return _case(lambda h: torch.min(h, dim=-1)[0], lambda h: argmin(h)[take].astype(h.dtype), {"x": uniform(3, 4)})


def test_a_multi_result_op_unpacked_in_the_wrong_order_is_swapped_to_agreement():
    v, (d,) = _run(_min_values(0))  # ArgMinWithValue returns (index, value)
    assert v.status == "fail" and d.confirmed and "'ArgMinWithValue' results in the other order" in d.cause


def test_argmin_twin_passes():
    v, defects = _run(_min_values(1))
    assert v.status == "pass" and not defects


def _masked(invert):
    import mindspore.ops as ops

    def construct(h, keep):
        return ops.masked_fill(h, ops.logical_not(keep) if invert else keep, 0.0)

    return _case(lambda h, keep: h.masked_fill(keep, 0.0), construct,
                 {"x": uniform(3, 4), "keep": mask(3, 4, p=0.5)})


def test_an_extra_op_is_confirmed_by_dropping_it():
    v, (d,) = _run(_masked(True))
    assert v.status == "fail" and d.confirmed and d.fix == "remove the 'logical_not' call in construct"


def test_mask_twin_passes():
    v, defects = _run(_masked(False))
    assert v.status == "pass" and not defects


def test_tracing_puts_every_call_point_back():
    import mindspore as ms
    import numpy as np

    from migcheck.runners.mindspore_ops import trace
    from migcheck.runners.mindspore_side import to_numpy

    before = (ms.ops.softmax, ms.Tensor.__dict__.get("__add__"), ms.nn.Cell.__call__, ms.ops.ReduceSum.__call__)
    cell = _sum_normalized(False).mindspore()
    records, out = trace(cell, [np.ones((4, 4), np.float32)], to_numpy)
    assert [r.name for r in records] == ["cell:fc", "ReduceSum", "Tensor.__truediv__"] and out.shape == (4, 4)
    assert records[0].index == -1  # the child's call is a marker; its own ops are not recorded
    assert (ms.ops.softmax, ms.Tensor.__dict__.get("__add__"), ms.nn.Cell.__call__, ms.ops.ReduceSum.__call__) == before


def _parent_mask(diagonal):
    """The parent builds a mask its child consumes: the child agrees on torch's inputs, the parent's op does not."""
    def pt():
        import torch

        class Child(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.o = torch.nn.Linear(4, 4)

            def forward(self, h, mask):
                return self.o(h.masked_fill(mask, 0.0))

        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc, self.child = torch.nn.Linear(4, 4), Child()

            def forward(self, x):
                return self.child(self.fc(x), torch.tril(torch.ones(4, 4, dtype=torch.bool), diagonal=-1))

        return Net()

    def port():
        import mindspore as ms
        import mindspore.nn as mnn
        import mindspore.ops as ops

        class Child(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.o = mnn.Dense(4, 4)

            def construct(self, h, mask):
                return self.o(ops.masked_fill(h, mask, 0.0))

        class Net(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.fc, self.child = mnn.Dense(4, 4), Child()

            def construct(self, x):
                return self.child(self.fc(x), ops.tril(ops.ones((4, 4), ms.float32), diagonal=diagonal).astype(ms.bool_))

        return Net()

    return PairedCase(name="net", torch=pt, mindspore=port, inputs={"x": uniform(4, 4)}, checks=("forward",))


def test_a_mask_built_by_the_parent_is_found_in_the_parents_construct():
    v, defects = _run(_parent_mask(0))
    (d,) = defects
    assert v.status == "fail" and d.confirmed and "op 'tril' inside '<root>'" in d.cause
    assert d.fix == "tril(..., diagonal=0) -> tril(..., diagonal=-1)"


def test_parent_mask_twin_passes():
    v, defects = _run(_parent_mask(-1))
    assert v.status == "pass" and not defects


def _gather(api):
    import mindspore.ops as ops
    import numpy as np
    import torch

    from migcheck.specs import given

    index = given(np.array([[0, 3, 1, 2], [2, 2, 0, 1], [3, 0, 0, 0]], np.int64))
    port = {"gather": lambda h, i: ops.gather(h, i, 1), "gather_elements": lambda h, i: ops.gather_elements(h, 1, i)}
    return _case(lambda h, i: torch.gather(h, 1, i), port[api], {"x": uniform(3, 4), "i": index})


def test_another_mindspore_function_called_as_torch_calls_its_op():
    v, (d,) = _run(_gather("gather"))  # ops.gather is an index_select: torch.gather is another function
    assert v.status == "fail" and d.confirmed and "called as torch calls gather" in d.cause
    assert d.fix.startswith("use ops.gather_") and d.fix.endswith("in place of gather")


def test_gather_elements_twin_passes():
    v, defects = _run(_gather("gather_elements"))
    assert v.status == "pass" and not defects


def _two_blocks(a_scale, b_scale):
    """Two containers, each scaling its child's output in its own forward; the port may scale both wrongly."""
    def pt():
        import torch

        class Block(torch.nn.Module):
            def __init__(self, scale):
                super().__init__()
                self.fc, self.scale = torch.nn.Linear(4, 4), scale

            def forward(self, x):
                return self.fc(x) * self.scale

        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.a, self.b = Block(0.5), Block(0.25)

            def forward(self, x):
                return self.b(self.a(x))

        return Net()

    def port():
        import mindspore.nn as mnn

        class Block(mnn.Cell):
            def __init__(self, scale):
                super().__init__()
                self.fc, self.scale = mnn.Dense(4, 4), scale

            def construct(self, x):
                return self.fc(x) * self.scale

        class Net(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.a, self.b = Block(a_scale), Block(b_scale)

            def construct(self, x):
                return self.b(self.a(x))

        return Net()

    return PairedCase(name="net", torch=pt, mindspore=port, inputs={"x": uniform(3, 4)}, checks=("forward",))


def test_a_second_containers_own_op_is_an_independent_defect():
    v, defects = _run(_two_blocks(2.0, 0.5))
    assert v.status == "fail" and [d.torch_name for d in defects] == ["a", "b"]
    assert all(d.confirmed and d.confidence == "high" for d in defects)
    assert defects[0].fix == "scale=0.5"  # the first: a setting both blocks keep (found by the existing method)
    assert defects[1].fix == "Tensor.__mul__(..., argument 1=0.5) -> Tensor.__mul__(..., argument 1=0.25)"
    assert "the op sits between 'b.fc' output and '<output>' input" in defects[1].cause


def test_two_blocks_twin_passes():
    v, defects = _run(_two_blocks(0.5, 0.25))
    assert v.status == "pass" and not defects


def _centered(keep):
    return _case(lambda h: h * h.mean(-1, keepdim=True),
                 (lambda h: h * h.mean(-1, keep_dims=True)) if keep else (lambda h: h * h.mean(-1)), {"x": uniform(4, 4)})


def test_an_argument_the_port_left_at_its_default_is_a_candidate_too():
    v, (d,) = _run(_centered(False))  # keep_dims not passed: its default False is what the call used
    assert v.status == "fail" and d.confirmed
    assert d.fix == "Tensor.mean(..., keep_dims=False) -> Tensor.mean(..., keep_dims=True)"


def test_centered_twin_passes():
    v, defects = _run(_centered(True))
    assert v.status == "pass" and not defects


def _torch_max_values(h):  # torch's max with a dim returns (values, indices): [0] takes the values
    return h.view(-1, 2, 2).max(dim=2, keepdim=True)[0].expand(-1, -1, 2).reshape(-1, 4)


def _ms_max_values(index_kept):
    def construct(h):  # MindSpore's Tensor.max with an axis returns the values alone
        values = h.view(-1, 2, 2).max(axis=2, keepdims=True)
        return ops_broadcast(values[0] if index_kept else values)
    return construct


def ops_broadcast(values):
    import mindspore.ops as ops

    return ops.broadcast_to(values, (-1, -1, 2)).reshape(-1, 4) if values.ndim == 3 else \
        ops.broadcast_to(values, (3, 2, 2)).reshape(-1, 4)


def test_an_op_the_port_added_is_dropped_to_agreement():
    v, defects = _run(_case(_torch_max_values, _ms_max_values(True), {"x": uniform(3, 4)}))
    (d,) = defects
    assert v.status == "fail" and d.confirmed and d.confidence == "high"
    assert "'Tensor.__getitem__(0)' on the result of Tensor.max(" in d.cause, d.cause
    assert d.fix == "remove the 'Tensor.__getitem__(0)' call in construct", d.fix


def test_max_values_twin_passes():
    v, defects = _run(_case(_torch_max_values, _ms_max_values(False), {"x": uniform(3, 4)}))
    assert v.status == "pass" and not defects, v.message


def _cosine(ms_fn):
    import torch

    return _case(lambda h, y: torch.nn.functional.cosine_similarity(h * 1e-5, y, dim=-1), ms_fn,
                 {"x": uniform(3, 4), "y": uniform(3, 4, low=-2e-5, high=2e-5)})


def _cosine_eps_on_the_product(h, y):  # MindSpore clamps the product of the two norms at eps
    import mindspore.ops as ops

    return ops.cosine_similarity(h * 1e-5, y, dim=-1)


def _cosine_eps_on_each_norm(h, y):  # torch clamps each norm at eps
    import mindspore.ops as ops

    a = h * 1e-5
    na = ops.clamp(ops.norm(a, dim=-1), min=1e-8)
    ny = ops.clamp(ops.norm(y, dim=-1), min=1e-8)
    return ops.sum(a * y, dim=-1) / (na * ny)


def test_an_eps_applied_to_a_squared_quantity_is_found_as_its_square():
    v, defects = _run(_cosine(_cosine_eps_on_the_product))
    (d,) = [d for d in defects if d.confirmed]
    assert d.confidence == "high" and "op 'cosine_similarity'" in d.cause
    assert "eps=1e-16 (the square of the eps=1e-08 both calls give" in d.cause
    assert d.fix == "cosine_similarity(..., eps=1e-08) -> cosine_similarity(..., eps=1e-16)", d.fix


def test_cosine_clamping_each_norm_twin_passes():
    v, defects = _run(_cosine(_cosine_eps_on_each_norm))
    assert v.status == "pass" and not defects
