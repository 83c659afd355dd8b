"""Backends and tolerance profiles: what is not here is a skip with its reason, never a framework error.

This machine has no GPU and no Ascend: their paths are checked for their skip behaviour. Each test
that depends on that skips itself where the hardware is present.
"""
from __future__ import annotations

import dataclasses

import pytest

# Needs both frameworks: skipped, with the reason, where either is not installed.
pytest.importorskip("torch", reason="needs torch, which is not installed here")
pytest.importorskip("mindspore", reason="needs MindSpore, which is not installed here")
pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]

import mindspore as ms
import torch

from migcheck import PairedCase, Tolerance, uniform
from migcheck.cli import EXIT_OK, EXIT_USAGE, main
from migcheck.options import RunOptions
from migcheck.running.pipeline import Item, run_item
from migcheck.runners.mindspore_context import backend_unavailable
from migcheck.tolerance import PROFILES, Profile, register_profile, resolve

HAS_GPU = ms.hal.is_available("GPU")
HAS_ASCEND = ms.hal.is_available("Ascend")
HAS_CUDA = torch.cuda.is_available()

ONE = '''
dense_ok = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X, checks=FORWARD)
'''


def _case():
    import mindspore.nn as mnn
    import torch.nn as tnn

    case = PairedCase(torch=lambda: tnn.Linear(3, 2), mindspore=lambda: mnn.Dense(3, 2), inputs={"x": uniform(4, 3)})
    return dataclasses.replace(case, name="backend_linear", file="<backend_linear>")


@pytest.mark.parametrize("backend, target, present", [("gpu", "GPU", HAS_GPU), ("ascend", "Ascend", HAS_ASCEND)])
def test_an_absent_mindspore_backend_is_a_skip_with_its_reason(backend, target, present):
    if present:
        pytest.skip(f"{target} is present here")
    verdict = run_item(Item(_case(), "forward", "pynative", backend))
    assert verdict.status == "skip"
    assert verdict.message == (f"MindSpore {target} backend is not available on this machine"
                               f" (mindspore.hal.is_available({target!r}) is False); use --backend cpu, or"
                               f" --backend auto for what is here")


@pytest.mark.skipif(HAS_GPU or HAS_ASCEND, reason="an accelerator is present")
def test_cli_backends_auto_and_absent(write_case_file, capsys):
    path = write_case_file("cases/one.py", ONE)
    assert main(["list", str(path), "--backend", "auto", "--mode", "pynative"]) == EXIT_OK
    assert capsys.readouterr().out.split() == ["dense_ok[forward-pynative-cpu]"]
    assert main(["compare", "-v", str(path), "--backend", "gpu,ascend", "--mode", "pynative"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "SKIP   dense_ok[forward-pynative-gpu]  MindSpore GPU backend is not available" in out
    assert "SKIP   dense_ok[forward-pynative-ascend]  MindSpore Ascend backend is not available" in out
    assert main(["compare", str(path), "--backend", "tpu"]) == EXIT_USAGE
    assert "unknown backend 'tpu'; choose from cpu, gpu, ascend, auto" in capsys.readouterr().err


def test_device_ids_are_checked_where_they_mean_something():
    assert backend_unavailable("cpu", device_id=3) is None  # MindSpore's CPU target ignores the id
    if not HAS_GPU:
        assert "not available" in backend_unavailable("gpu", device_id=0)


@pytest.mark.skipif(HAS_CUDA, reason="CUDA is present")
def test_torch_on_cuda_without_cuda_is_a_skip_and_auto_falls_back_to_cpu():
    case = _case()
    cuda = run_item(Item(case, "forward", "pynative", "cpu"), RunOptions(torch_device="cuda"))
    assert cuda.status == "skip"
    assert cuda.message.startswith("torch CUDA is not available")
    assert "--torch-device cpu" in cuda.message
    auto = run_item(Item(case, "forward", "pynative", "cpu"), RunOptions(torch_device="auto"))
    assert auto.status == "pass" and auto.reference.endswith("on cpu")


@pytest.mark.skipif(HAS_CUDA, reason="CUDA is present")
def test_record_on_cuda_without_cuda_records_nothing_and_says_why(write_case_file, tmp_path, capsys):
    path = write_case_file("cases/one.py", ONE)
    assert main(["record", str(path), "--fixtures", str(tmp_path / "fx"), "--torch-device", "cuda"]) == EXIT_OK
    assert "SKIP   dense_ok[forward]  torch CUDA is not available" in capsys.readouterr().out
    assert not (tmp_path / "fx").exists()


def test_profiles_are_data_and_each_backend_has_its_own():
    assert resolve("float32", check="forward", backend="cpu", tensor="out") == (Tolerance(1.3e-6, 1e-5), "float32 default")
    assert resolve("float32", check="forward", backend="gpu", tensor="out")[0] == Tolerance(2.6e-6, 2e-5)
    ascend, source = resolve("float32", check="forward", backend="ascend", tensor="out")
    assert ascend == Tolerance(1e-3, 1e-3) and source == "float32 ascend profile"
    assert resolve("float32", check="backward", backend="ascend", tensor="out")[0] == Tolerance(1e-2, 1e-2)
    # strict: no headroom, gradients included; a chosen profile beats the backend's own
    strict, source = resolve("float32", check="backward", backend="gpu", tensor="out", profile="strict")
    assert (strict, source) == (Tolerance(1.3e-6, 1e-5), "float32 default")
    assert resolve("int64", check="forward", backend="ascend", tensor="i")[0] == Tolerance(0, 0)
    assert set(PROFILES) >= {"cpu", "gpu", "ascend", "strict"}
    with pytest.raises(ValueError, match="unknown tolerance profile 'tpu'"):
        resolve("float32", check="forward", backend="cpu", tensor="out", profile="tpu")


def test_a_registered_profile_is_selectable_and_recorded_in_the_verdict(monkeypatch):
    monkeypatch.setitem(PROFILES, "loose", PROFILES["cpu"])  # restored after the test
    register_profile(Profile("loose", "everything x100", scale={"float32": 100.0}))
    # Profiles are rtol/atol policies: the standard judge shows the chosen one at work.
    verdict = run_item(Item(_case(), "forward", "pynative", "cpu"), RunOptions(profile="loose", tolerance_mode="standard"))
    assert verdict.status == "pass" and verdict.profile == "loose"
    (out,) = verdict.tensors
    assert out.profile == "loose" and out.atol == pytest.approx(1e-3)
    assert out.tolerance_source == "float32 default x100 (loose/forward)"


def test_cli_profile_option(write_case_file, capsys):
    path = write_case_file("cases/one.py", ONE)
    assert main(["compare", str(path), "--mode", "pynative", "--profile", "strict",
                 "--report", str(path.parent.parent / "r")]) == EXIT_OK
    capsys.readouterr()
    import json

    (verdict,) = json.loads((path.parent.parent / "r" / "summary.json").read_text())["verdicts"]
    (full,) = json.loads((path.parent.parent / "r" / verdict["cell"]).read_text())["verdicts"]
    assert verdict["profile"] == "strict" and full["tensors"][0]["profile"] == "strict"
    assert main(["compare", str(path), "--profile", "tpu"]) == EXIT_USAGE
    assert "unknown profile 'tpu'; choose from cpu, gpu, ascend, strict" in capsys.readouterr().err
