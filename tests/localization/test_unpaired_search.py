"""Searches that measure what a layer or call is, not what it is named: a torch module with no MindSpore cell
of its own (localization/unpaired_search.py), computed by an op in the parent's construct (found by the op search
there, with the module's calls counted as the parent's) or by a cell no weight or name ties to it (paired by
equal inputs, then the layer search); a parameterless layer ported as another class (localization/class_sweep.py);
an alternative class with its own settings changed; a positional value moved to torch's keyword. Each bad port
has a correct twin that passes."""
import pytest

from migcheck import PairedCase, uniform
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")


class _TorchUp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.up = torch.nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
        self.conv = torch.nn.Conv2d(2, 2, 1)

    def forward(self, x):
        return self.conv(self.up(x))


def _ms_up(align):
    class Up(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = ms.nn.Conv2d(2, 2, 1, has_bias=True)

        def construct(self, x):
            size = (2 * x.shape[2], 2 * x.shape[3])
            if align:
                return self.conv(ms.ops.interpolate(x, size=size, mode="bilinear", align_corners=True))
            return self.conv(ms.ops.interpolate(x, size=size, mode="bilinear"))
    return Up


def _run(torch_net, ms_net, inputs):
    case = PairedCase(name="unpaired", torch=torch_net, mindspore=ms_net, inputs=inputs, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


X = {"x": uniform(1, 2, 3, 3)}


def test_a_torch_layer_the_port_computes_with_an_op_gets_that_ops_argument_fixed():
    v = _run(_TorchUp, _ms_up(False), X)
    assert v.status == "fail"
    (d,) = v.localization.defects
    assert (d.torch_name, d.ms_name, d.confidence, d.confirmed) == ("up", "", "high", True)
    assert "has no MindSpore sub-cell" in d.evidence and "align_corners=True" in d.fix, d


def test_the_op_called_with_torchs_setting_passes():
    assert _run(_TorchUp, _ms_up(True), X).status == "pass"


class _TorchGate(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)
        self.scale_activation = torch.nn.Hardsigmoid()

    def forward(self, x):
        return x * self.scale_activation(self.fc(x))


def _ms_gate(gate):
    class Gate(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 4)
            self.gate = gate()

        def construct(self, x):
            return x * self.gate(self.fc(x))
    return Gate


G = {"x": uniform(3, 4, low=-4.0, high=4.0)}


def test_a_renamed_parameterless_cell_is_paired_by_its_inputs_and_its_class_replaced():
    v = _run(_TorchGate, _ms_gate(ms.nn.Sigmoid), G)
    (d,) = v.localization.defects
    assert (d.torch_name, d.ms_name, d.confidence) == ("scale_activation", "gate", "high")
    assert "by equal inputs alone" in d.evidence and "HSigmoid" in d.fix, d


def test_the_renamed_cell_of_torchs_class_passes():
    assert _run(_TorchGate, _ms_gate(ms.nn.HSigmoid), G).status == "pass"


class _Swish(torch.nn.Module):  # written out by hand, as EfficientDet's
    def forward(self, x):
        return x * torch.sigmoid(x)


class _TorchAct(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)
        self.act = _Swish()

    def forward(self, x):
        return self.act(self.fc(x))


def _ms_act(act):
    class Act(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 4)
            self.act = act()

        def construct(self, x):
            return self.act(self.fc(x))
    return Act


def test_a_hand_written_activation_ported_as_another_class_is_matched_by_running_the_library():
    v = _run(_TorchAct, _ms_act(ms.nn.HSwish), G)
    (d,) = v.localization.defects
    assert (d.torch_name, d.confidence) == ("act", "high")
    assert d.fix == "use mindspore.nn.SiLU() in place of HSwish" and "parameterless mindspore.nn layers" in d.cause


def test_the_activation_ported_as_the_class_that_computes_it_passes():
    assert _run(_TorchAct, _ms_act(ms.nn.SiLU), G).status == "pass"


class _TorchGelu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)
        self.act = torch.nn.GELU()

    def forward(self, x):
        return self.act(self.fc(x))


def test_an_alternative_class_is_tried_with_its_own_settings_changed():
    # MindSpore's GELU defaults to the tanh approximation: the class alone does not agree, approximate=False does
    v = _run(_TorchGelu, _ms_act(ms.nn.FastGelu), G)
    (d,) = v.localization.defects
    assert d.confidence == "high" and d.fix == "use mindspore.nn.GELU(approximate=False) in place of FastGelu", d


def test_the_exact_gelu_passes():
    assert _run(_TorchGelu, _ms_act(lambda: ms.nn.GELU(approximate=False)), G).status == "pass"


class _TorchFlat(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x):
        return torch.flatten(self.fc(x), 1)


def _ms_flat(keyword):
    class Flat(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 4)

        def construct(self, x):
            if keyword:
                return ms.ops.flatten(self.fc(x), start_dim=1)
            return ms.ops.flatten(self.fc(x), 1)  # MindSpore's second parameter is `order`
    return Flat


F3 = {"x": uniform(2, 3, 4)}


def test_a_positional_value_torch_binds_to_another_parameter_is_moved_to_that_keyword():
    v = _run(_TorchFlat, _ms_flat(False), F3)
    (d,) = v.localization.defects
    assert d.confidence == "high" and "passed as start_dim=1 (torch's argument 1 is start_dim" in d.cause, d
    assert "start_dim=1" in d.fix, d.fix


def test_the_flatten_given_start_dim_by_keyword_passes():
    assert _run(_TorchFlat, _ms_flat(True), F3).status == "pass"


class _TorchRrelu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)
        self.act = torch.nn.RReLU(0.1, 0.3)  # in eval: a leaky slope of (0.1 + 0.3) / 2

    def forward(self, x):
        return self.act(self.fc(x))


def test_a_swept_class_is_printed_with_its_defaults_written_out():
    v = _run(_TorchRrelu, _ms_act(lambda: ms.nn.RReLU(0.1, 0.3)), G)
    (d,) = v.localization.defects
    assert d.confidence == "high" and d.fix == "use mindspore.nn.LeakyReLU(alpha=0.2) in place of RReLU", d.fix


def test_the_leaky_relu_of_torchs_eval_slope_passes():
    assert _run(_TorchRrelu, _ms_act(lambda: ms.nn.LeakyReLU(0.2)), G).status == "pass"


class _TorchCausal(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.pad = torch.nn.ZeroPad2d((2, 0, 1, 1))  # (left, right, top, bottom)
        self.conv = torch.nn.Conv2d(2, 2, 2)

    def forward(self, x):
        return self.conv(self.pad(x))


def _ms_causal(padding):
    class Causal(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = ms.nn.Conv2d(2, 2, 2, pad_mode="pad", padding=padding, has_bias=True)  # (top, bottom, left, right)

        def construct(self, x):
            return self.conv(x)
    return Causal


C = {"x": uniform(1, 2, 4, 5)}


def test_a_layer_that_folds_an_unpaired_torch_module_in_is_searched_against_the_two_together():
    v = _run(_TorchCausal, _ms_causal((2, 0, 1, 1)), C)
    (d,) = v.localization.defects
    assert (d.torch_name, d.ms_name, d.confidence) == ("conv", "conv", "high")
    assert "folds torch's ZeroPad2d 'pad' in" in d.cause and "padding=(1, 1, 2, 0)" in d.fix, d


def test_the_conv_given_the_pads_in_its_own_order_passes():
    assert _run(_TorchCausal, _ms_causal((1, 1, 2, 0)), C).status == "pass"
