"""A parameter trainable on one side only is said as a defect of its layer, its fix printed only after the item,
re-run with the port's flag set as torch's, agreed; the port's flag is set back afterwards. The twin that freezes
the same parameter passes."""
import pytest

from migcheck import PairedCase, uniform
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")


def _torch():
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(3, 4)
            self.out = torch.nn.Linear(4, 2)
            self.fc.bias.requires_grad_(False)

        def forward(self, x):
            return self.out(torch.tanh(self.fc(x)))

    return T()


def _ms(frozen):
    def make():
        class M(ms.nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = ms.nn.Dense(3, 4)
                self.out = ms.nn.Dense(4, 2)
                if frozen:
                    self.fc.bias.requires_grad = False

            def construct(self, x):
                return self.out(ms.ops.tanh(self.fc(x)))

        return M()
    return make


def _run(frozen, check="backward"):
    case = PairedCase(name="frozen", torch=_torch, mindspore=_ms(frozen), inputs={"x": uniform(4, 3)},
                      checks=(check,))
    return run_item(Item(case, check, "pynative", "cpu"))


def test_a_flag_dropped_in_the_port_is_the_layers_defect_with_a_rerun_fix():
    v = _run(False)
    assert v.status == "fail" and v.kind == "structure"
    (d,) = v.localization.defects
    assert (d.rule, d.torch_name, d.ms_name, d.confidence, d.confirmed) == ("trainable-flag", "fc", "fc", "high", True)
    assert "MindSpore's parameter 'fc.bias' has requires_grad=True where torch's 'fc.bias' has requires_grad=False" \
        in d.cause
    assert d.fix.startswith("mindspore.Parameter(..., name='bias', requires_grad=False) for 'fc.bias'")
    (f,) = v.localization.findings
    assert f.fix_checked and f.confidence == "high"


def test_the_twin_that_freezes_the_bias_passes():
    assert _run(True).status == "pass"


def test_set_requires_grad_returns_the_previous_flag_and_refuses_unknown_names():
    from migcheck.runners.mindspore_side import MindSporeCell

    cell = MindSporeCell(_ms(False), "pynative", None)
    assert cell.set_requires_grad("fc.bias", False) is True
    assert cell.set_requires_grad("fc.bias", True) is False
    with pytest.raises(KeyError):
        cell.set_requires_grad("fc.nothing", True)


def _scaled(dtype):
    def make():
        class M(ms.nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = ms.nn.Dense(3, 4)
                init = ms.ops.full((4,), 0.5) if dtype is None else ms.ops.full((4,), 0.5, dtype=dtype)
                self.gamma = ms.Parameter(init, name="gamma")  # without dtype=: int64, its values truncated

            def construct(self, x):
                return self.fc(x) * self.gamma

        return M()
    return make


def _gamma_torch():
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(3, 4)
            self.gamma = torch.nn.Parameter(torch.full((4,), 0.5))

        def forward(self, x):
            return self.fc(x) * self.gamma

    return T()


def _run_gamma(dtype):
    case = PairedCase(name="gamma", torch=_gamma_torch, mindspore=_scaled(dtype), inputs={"x": uniform(4, 3)},
                      checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_a_parameter_held_as_integers_is_said_with_a_rerun_fix():
    v = _run_gamma(None)
    assert v.status == "fail"
    d = v.localization.defects[0]
    assert (d.rule, d.confidence, d.confirmed) == ("parameter-dtype", "high", True)
    assert "MindSpore's parameter 'gamma' is int64 where torch's 'gamma' is float32: torch's values loaded into" \
           " it are truncated to integers" in d.cause
    assert d.fix.startswith("build 'gamma' as float32")


def test_the_float32_parameter_twin_passes():
    assert _run_gamma(ms.float32).status == "pass"
