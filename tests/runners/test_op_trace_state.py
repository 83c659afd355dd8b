"""The op trace leaves no process state behind: a construct that raises inside a float16 (to_float) cell would
leave PYNATIVE's mixed-precision type set (Cell.__call__ resets it only when construct returns), and every later
cell of the process, other cases' included, would compute in float16."""
import numpy as np
import pytest

pytestmark = [pytest.mark.needs_mindspore]
ms = pytest.importorskip("mindspore")


class Raises(ms.nn.Cell):
    def construct(self, x):
        y = x * 2
        raise ValueError(f"the port's construct fails ({y.shape})")


def test_a_float16_construct_that_raises_under_the_trace_leaves_float32_alone():
    from migcheck.records.ops import UNCHANGED
    from migcheck.runners.mindspore_ops import trace

    cell = Raises()
    cell.to_float(ms.float16)
    records, out = trace(cell, [np.ones((2, 3), np.float32)], lambda t: t.asnumpy(), UNCHANGED)
    assert out is None and [r.name for r in records] == ["Tensor.__mul__"]
    from migcheck.runners.mindspore_context import pynative

    with pynative():
        bn = ms.nn.BatchNorm2d(2)
        bn.set_train(False)
        assert bn(ms.Tensor(np.ones((1, 2, 2, 2), np.float32))).dtype == ms.float32


def test_a_generated_primitives_constructor_arguments_are_read_off_the_instance():
    from migcheck.runners.mindspore_ops import init_args

    assert init_args(ms.ops.LRN(depth_radius=2, alpha=1e-4)) == {
        "depth_radius": 2, "bias": 1.0, "alpha": 1e-4, "beta": 0.5, "norm_region": "ACROSS_CHANNELS"}
