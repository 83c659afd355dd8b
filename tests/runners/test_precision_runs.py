"""Mixed precision against real torch and MindSpore: both runners' policies, the engine's verdicts and
tolerances, and the bundled known-bad float16 ports (cases/mixed_precision.py)."""
import dataclasses
import re
from pathlib import Path

import pytest

# Needs both frameworks: skipped, with the reason, where either is not installed.
pytest.importorskip("torch", reason="needs torch, which is not installed here")
pytest.importorskip("mindspore", reason="needs MindSpore, which is not installed here")
pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]

import mindspore as ms
import mindspore.nn as mnn
import numpy as np
import torch
import torch.nn as tnn

from migcheck import PairedCase, Precision, uniform
from migcheck.planning.discovery import load_file
from migcheck.running.pipeline import Item, run_item
from migcheck.golden.fingerprint import case_fingerprint
from migcheck.precision import FLOAT16_BATCHNORM_FLOAT32
from migcheck.runners.mindspore_context import configure
from migcheck.runners.mindspore_side import MindSporeCell, MindSporeSideError
from migcheck.runners.torch_side import TorchModule, TorchSideError

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = {c.name: c for c in load_file(ROOT / "cases" / "mixed_precision.py").cases}


class _Net(tnn.Module):
    """Linear -> BatchNorm -> a forward that upcasts on purpose before squaring."""

    def __init__(self):
        super().__init__()
        self.fc = tnn.Linear(4, 6)
        self.bn = tnn.BatchNorm1d(6)

    def forward(self, x):
        y = self.bn(self.fc(x))
        return y, (y.float() * 1000).pow(2).max()


def _loaded(module_factory, precision):
    module = TorchModule(module_factory)
    module.load(module.state())
    module.set_precision(precision)
    return module


def test_torch_policy_casts_layer_inputs_and_parameters_but_keeps_weights_and_deliberate_casts():
    module = _loaded(_Net, FLOAT16_BATCHNORM_FLOAT32)
    seen = {}

    def record(name):
        def hook(_module, args, out):
            seen[name] = (args[0].dtype, out.dtype)
        return hook

    for name in ("fc", "bn"):
        getattr(module.module, name).register_forward_hook(record(name))
    x = np.random.default_rng(0).uniform(-1, 1, (8, 4)).astype(np.float32)
    y, squares = module.forward([x], ["float32"])
    assert seen == {"fc": (torch.float16, torch.float16), "bn": (torch.float32, torch.float32)}
    assert y.dtype == np.float32  # the root is float16, but its last op read BatchNorm's float32 output
    # (y * 1000)^2 passes 65504: finite only because the explicit cast is kept
    assert np.isfinite(squares) and squares > 65504
    assert all(p.dtype == torch.float32 for p in module.module.parameters())  # float32 master weights


def test_torch_gradients_reach_float32_parameters_through_float16_compute():
    module = _loaded(lambda: tnn.Sequential(tnn.Linear(4, 3)), Precision("float16"))
    from migcheck.running.objective import Objective

    cot = np.ones((2, 3), np.float32)
    x = np.full((2, 4), 1 / 3, np.float32)
    grads = module.gradients([x], ["float32"], Objective(1, (cot,), (), ((),)), None)
    inputs, params = grads.inputs, grads.params
    assert params["0.weight"].dtype == np.float32
    # d(sum(y))/dW = column sums of x, computed from float16(1/3)
    np.testing.assert_array_equal(params["0.weight"], np.full((3, 4), 2 * float(np.float16(1 / 3)), np.float32))


def test_a_keep_pattern_matching_no_layer_is_an_error_on_either_side():
    with pytest.raises(TorchSideError, match=r"\['LayrNorm'\].*Linear"):
        _loaded(lambda: tnn.Linear(2, 2), Precision("float16", keep_float32=("LayrNorm",)))
    configure("pynative", "cpu")
    cell = MindSporeCell(lambda: mnn.Dense(2, 2), "pynative")
    with pytest.raises(MindSporeSideError, match=r"\['LayrNorm'\].*Dense"):
        cell.set_precision(Precision("float16", keep_float32=("LayrNorm",)))


def test_mindspore_policy_is_to_float_with_kept_layers_in_float32():
    configure("pynative", "cpu")

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = mnn.Dense(4, 6)
            self.bn = mnn.BatchNorm1d(6)

        def construct(self, x):
            return self.fc(x), self.bn(self.fc(x))

    cell = MindSporeCell(Net, "pynative")
    cell.set_precision(FLOAT16_BATCHNORM_FLOAT32)
    fc_out, bn_out = cell.forward([np.ones((8, 4), np.float32)], ["float32"])
    assert (fc_out.dtype, bn_out.dtype) == (np.float16, np.float32)
    assert {p.dtype for p in cell.params()} == {"float32"}


def _verdict(case, check="forward", mode="pynative"):
    return run_item(Item(case, check, mode, "cpu"))


def test_mixed_precision_verdicts_say_how_they_ran_and_judge_float32_results_at_float16():
    v = _verdict(BUNDLED["conv_bn_float16"], check="backward")
    assert v.status == "pass", v.message
    assert any("mixed precision: float16, float32 kept for BatchNorm" in n for n in v.notes)
    grads = [t for t in v.tensors if t.name.startswith("grad.")]
    assert grads and all(t.torch_dtype == "float32" for t in grads)
    # The error budget decides (both sides carry float16 rounding, so torch's own error is float16-sized), and
    # the rtol/atol it reports beside it is float16's, x10 for gradients.
    assert all(t.tolerance_source.startswith("error budget") and t.standard_ok for t in grads)
    assert all(t.rtol == pytest.approx(2e-2) and t.atol == pytest.approx(1e-2) for t in grads)


def test_the_same_pair_fails_when_only_the_port_computes_in_float16():
    # apply=False: migcheck leaves precision to the factories; here only MindSpore's sets it.
    case = dataclasses.replace(BUNDLED["mlp_float16"], name="mlp_port_only_float16",
                               precision=Precision("float16", apply=False),
                               mindspore=lambda: BUNDLED["mlp_float16"].mindspore().to_float(ms.float16))
    v = _verdict(case)
    assert (v.status, v.kind) == ("fail", "dtype"), v.message
    assert any("set by the case's own factories" in n for n in v.notes)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_float16_overflow_is_localized_and_diagnosed(mode):
    v = _verdict(BUNDLED["rmsnorm_without_upcast"], mode=mode)
    assert (v.status, v.kind) == ("xfail", "value"), v.message
    assert v.localization.first_divergence == "norm"
    [finding] = [f for f in v.localization.findings if f.rule == "float16-overflow"]
    assert re.search(r"inputs of RMSNormMs reach \d{3}", finding.cause) and "65504" in finding.cause
    assert "keep_float32=('RMSNormMs',)" in finding.fix
    assert ("PYNATIVE" in finding.cause) == (mode == "pynative")


def test_pynative_to_float_undoes_a_ports_deliberate_upcast_while_graph_keeps_it():
    case = BUNDLED["rmsnorm_upcast_undone_in_pynative"]
    assert _verdict(case, mode="graph").status == "pass"
    v = _verdict(case, mode="pynative")
    assert (v.status, v.kind) == ("xfail", "value"), v.message
    assert _verdict(BUNDLED["rmsnorm_float16"], mode="pynative").status == "pass"  # the fix: keep it float32


def test_bfloat16_on_mindspore_cpu_is_a_skip_naming_the_backend():
    v = _verdict(BUNDLED["mlp_bfloat16"])
    assert v.status == "skip" and "bfloat16" in v.message and "Ascend" in v.message


def test_precision_is_part_of_the_golden_fingerprint_only_when_set():
    base = BUNDLED["mlp_float16"]
    fp32 = dataclasses.replace(base, precision=None)
    (f16, parts16), (f32, parts32) = case_fingerprint(base), case_fingerprint(fp32)
    assert f16 != f32 and "precision" in parts16 and "precision" not in parts32
    assert case_fingerprint(dataclasses.replace(base, precision=Precision("float16")))[0] == f16


def test_mixed_precision_goldens_replay_without_torch_and_keep_their_expectations(tmp_path):
    from migcheck.cli import main
    from migcheck.report.jsonfile import read_summary

    path = str(ROOT / "cases" / "mixed_precision.py")
    assert main(["record", path, "-k", "rmsnorm_without_upcast or mlp_float16", "--check", "forward",
                 "--fixtures", str(tmp_path / "gold")]) == 0
    code = main(["compare", path, "-k", "rmsnorm_without_upcast or mlp_float16", "--check", "forward",
                 "--mode", "pynative", "--golden", str(tmp_path / "gold"), "--report", str(tmp_path / "rep")])
    verdicts = {v.case: v for v in read_summary(tmp_path / "rep" / "summary.json")}
    assert code == 0, {k: v.message for k, v in verdicts.items()}
    assert verdicts["mlp_float16"].status == "pass" and verdicts["mlp_float16"].tensors[0].torch_dtype == "float16"
    bad = verdicts["rmsnorm_without_upcast"]
    assert bad.status == "xfail" and "'float16-overflow' not checked" in bad.message
