"""Constructor calls caught while a factory builds: the arguments as written, where reading them back off the
built layer fails (MindSpore's AvgPool1d keeps its padding inside a Pad op), and a fix found through them."""
import numpy as np
import pytest

from migcheck import PairedCase, uniform
from migcheck.planning.items import Item
from migcheck.runners.construction import bound_arguments, built_with_calls, own_signature
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_mindspore]


class Base:
    def __new__(cls, *args, **kwargs):  # as mindspore.nn.Cell: a __new__ of its own that takes the arguments
        return super().__new__(cls)


class Layer(Base):
    def __init__(self, width, scale=2.0, *, name="layer"):
        self.kept = width * scale  # nothing of the arguments is kept under its own name


ORIGINAL = vars(Base)["__new__"]


def test_calls_are_caught_by_name_and_positional_ones_bound():
    built, calls = built_with_calls(lambda: [Layer(3, name="a"), Layer(4, 0.5)], Base)
    assert bound_arguments(built[0], calls) == {"width": 3, "name": "a"}
    assert bound_arguments(built[1], calls) == {"width": 4, "scale": 0.5}
    assert vars(Base)["__new__"] is ORIGINAL  # put back as it was
    assert bound_arguments(Layer(5), calls) is None  # built after the block: not caught


def test_a_class_without_its_own_new_is_refused():
    with pytest.raises(TypeError, match="defines no __new__ of its own"):
        built_with_calls(lambda: Layer(1), Layer)
    assert Layer(2).kept == 4.0  # and Layer still builds


def test_a_wrapped_constructor_shows_its_own_signature():
    def register(fn):
        def deco(self, *args, **kwargs):
            fn(self, *args, **kwargs)
        return deco

    class Wrapped:
        @register
        def __init__(self, params, lr=0.1):
            pass

    assert list(own_signature(Wrapped).parameters) == ["self", "params", "lr"]


def test_a_constructor_taking_only_args_and_kwargs_binds_by_its_documented_arguments():
    class Recurrent(Base):
        """A layer that hands everything on.

        Args:
            input_size (int): Features in.
            nonlinearity (str): ``'tanh'`` or ``'relu'``. Default: ``'tanh'``.
            dropout (float): Between layers, continued
                on a second line. Default ``0.0`` .
            dtype (:class:`mindspore.dtype`): Dtype. Default: ``mstype.float32`` .

        Inputs:
            - **x** (Tensor) - not an argument.
        """

        def __init__(self, *args, **kwargs):
            self.args = (args, kwargs)

    sig = own_signature(Recurrent)
    assert list(sig.parameters) == ["self", "input_size", "nonlinearity", "dropout", "dtype"]
    assert sig.parameters["nonlinearity"].default == "tanh" and sig.parameters["dropout"].default == 0.0
    assert repr(sig.parameters["dtype"].default) == "<documented default>"  # no literal: the class's own stays
    built, calls = built_with_calls(lambda: Recurrent(4, "relu"), Base)
    assert bound_arguments(built, calls) == {"input_size": 4, "nonlinearity": "relu"}


def test_mindspore_rnn_is_rebuilt_with_torchs_nonlinearity():
    import mindspore.nn as mnn
    import torch

    def pt():
        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = torch.nn.RNN(3, 4, nonlinearity="relu", batch_first=True)

            def forward(self, x):
                return self.rnn(x)[0]

        return Net()

    def port(**kw):
        def make():
            class Net(mnn.Cell):
                def __init__(self):
                    super().__init__()
                    self.rnn = mnn.RNN(3, 4, batch_first=True, **kw)

                def construct(self, x):
                    return self.rnn(x)[0]

            return Net()
        return make

    def run(make):
        return run_item(Item(PairedCase(name="rnn", torch=pt, mindspore=make, inputs={"x": uniform(2, 5, 3)}),
                             "forward", "pynative", "cpu"))

    bad = run(port())
    (d,) = bad.localization.defects
    assert d.torch_name == "rnn" and d.confidence == "high" and "nonlinearity='relu'" in d.fix, (d.cause, d.fix)
    assert run(port(nonlinearity="relu")).status == "pass"


def test_mindspore_padding_kept_in_an_operator_is_read_from_the_call():
    import mindspore as ms

    from migcheck.runners.mindspore_args import constructor
    from migcheck.runners.mindspore_side import MindSporeCell

    side = MindSporeCell(lambda: ms.nn.SequentialCell([ms.nn.AvgPool1d(3, 2, pad_mode="pad", padding=1)]), "pynative")
    read_back = {a.name: a.value for a in constructor(side.subcell("0")).arguments}
    caught = {a.name: a.value for a in side.constructor("0").arguments}
    assert read_back["padding"] == 0 and caught["padding"] == 1 and caught["pad_mode"] == "pad"
    x = np.random.RandomState(0).uniform(-1, 1, (2, 3, 7)).astype(np.float32)
    assert side.rerun_rebuilt("0", [x], {"count_include_pad": False}).shape == (2, 3, 4)


def _pool_case(count_include_pad):
    def torch_net():
        import torch

        return torch.nn.Sequential(torch.nn.Conv1d(2, 3, 1), torch.nn.AvgPool1d(3, 2, padding=1, count_include_pad=False))

    def ms_net():
        import mindspore as ms

        return ms.nn.SequentialCell([ms.nn.Conv1d(2, 3, 1, has_bias=True),
                                     ms.nn.AvgPool1d(3, 2, pad_mode="pad", padding=1, count_include_pad=count_include_pad)])

    return PairedCase(name="pool", torch=torch_net, mindspore=ms_net, inputs={"x": uniform(2, 2, 7)}, checks=("forward",))


@pytest.mark.needs_torch
def test_avgpool_count_include_pad_gets_a_checked_fix():
    v = run_item(Item(_pool_case(True), "forward", "pynative", "cpu"))
    assert v.status == "fail", v.message
    (f,) = [f for f in v.localization.findings if f.fix_checked]
    assert "count_include_pad=False" in f.fix and f.confidence == "high"


@pytest.mark.needs_torch
def test_avgpool_without_padding_counted_passes():
    v = run_item(Item(_pool_case(False), "forward", "pynative", "cpu"))
    assert v.status == "pass", v.message
