"""A raising call's string argument in the other letter case (op_refused._other_case): MindSpore's kernel takes
'CONSTANT' where the port wrote torch's 'constant'; re-run to agreement. The port writing it so passes."""
import numpy as np
import pytest

from migcheck import PairedCase, uniform
from migcheck.localization.op_align import OpDivergence
from migcheck.localization.op_refused import refused_forms
from migcheck.planning.items import Item
from migcheck.records.ops import OpRecord
from migcheck.running.pipeline import run_item


def test_a_raising_calls_string_argument_is_tried_in_the_other_case():
    r = OpRecord(0, "stft", positional=("<tensor>", 8), names=("input", "n_fft"), keywords=(("pad_mode", "constant"),),
                 inputs=(np.zeros((2, 16), np.float32),), raised=True)
    changes = [c.arguments for c, _ in refused_forms(OpDivergence(r, None, ()))]
    assert (("pad_mode", "CONSTANT"),) in changes
    assert refused_forms(OpDivergence(OpRecord(0, "stft", keywords=(("pad_mode", "constant"),)), None, ())) == []


torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")


def _run(pad_mode: str):
    class T(torch.nn.Module):
        def forward(self, x):
            spec = torch.stft(x, 8, hop_length=4, window=torch.ones(8), center=True, pad_mode="constant",
                              return_complex=True)
            return spec.real

    class M(ms.nn.Cell):
        def construct(self, x):
            spec = ms.ops.stft(x, 8, 4, window=ms.ops.ones(8, ms.float32), center=True, pad_mode=pad_mode,
                               return_complex=True)
            return ms.ops.real(spec)

    case = PairedCase(name="stft_case", torch=T, mindspore=M, inputs={"x": uniform(2, 24)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_torchs_lowercase_pad_mode_is_fixed_by_the_kernels_own_case():
    v = _run("constant")
    assert v.status == "error"
    (finding,) = v.localization.findings
    assert finding.confirmed and "pad_mode='CONSTANT'" in finding.fix


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_the_uppercase_pad_mode_passes():
    assert _run("CONSTANT").status == "pass"
