"""A public MindSpore function the port bound to a name of its own (a module global, a closure's variable, a
cell attribute) is traced like one called as ops.<name>, and every binding is put back afterwards."""
import numpy as np
import pytest

pytestmark = pytest.mark.needs_mindspore
ms = pytest.importorskip("mindspore")
from mindspore.ops import relu6 as bound_relu6  # noqa: E402  a module global bound to the function itself

from migcheck.runners.mindspore_backward_ops import RecordedOps  # noqa: E402
from migcheck.runners.mindspore_ops import trace  # noqa: E402
from migcheck.runners.mindspore_module import to_numpy  # noqa: E402


def _net():
    softsign = ms.ops.softsign  # a closure's variable

    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.act = ms.ops.tanh  # a cell attribute

        def construct(self, x):
            return self.act(softsign(bound_relu6(x)))

    return Net()


X = np.array([[-1.0, 0.5, 7.0]], np.float32)


def test_functions_bound_to_the_ports_own_names_are_traced_and_put_back():
    net = _net()
    records, out = trace(net, [X], to_numpy)
    names = [r.name for r in records]
    assert names == ["relu6", "softsign", "tanh"], names  # the op-level trace names ops.<name> by <name>
    np.testing.assert_allclose(out, np.tanh(np.clip(X, 0, 6) / (1 + np.clip(X, 0, 6))), rtol=1e-6)
    assert bound_relu6 is ms.ops.relu6 and net.act is ms.ops.tanh
    assert net.construct.__func__.__closure__[0].cell_contents is ms.ops.softsign


def test_the_backward_recorder_sees_them_too():
    net = _net()
    tape = RecordedOps()
    tape.run(net, net, [ms.Tensor(X)], False)
    assert [r.name for r in tape.records] == ["ops.relu6", "ops.softsign", "ops.tanh"]
    assert globals()["bound_relu6"] is ms.ops.relu6
