"""`migcheck convert` and `migcheck map` on the bundled renamed ResNet, with real checkpoints."""
import importlib.util
import os
from pathlib import Path

import pytest

# Needs both frameworks: skipped, with the reason, where either is not installed.
pytest.importorskip("torch", reason="needs torch, which is not installed here")
pytest.importorskip("mindspore", reason="needs MindSpore, which is not installed here")
pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]

import mindspore as ms
import numpy as np
import torch

from migcheck.cli import main

ROOT = Path(__file__).resolve().parents[2]
CASES = str(ROOT / "cases" / "mapping.py")


def _module():
    spec = importlib.util.spec_from_file_location("mapping_cases_for_convert", CASES)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_torch_checkpoint_converts_to_a_ckpt_that_reproduces_outputs_and_back(tmp_path, capsys):
    cases = _module()
    torch.manual_seed(3)
    net = cases.TinyResNetPt().eval()
    with torch.no_grad():  # non-default running statistics, so a BatchNorm mix-up would show
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 1.5)
    torch.save(net.state_dict(), tmp_path / "net.pt")
    assert main(["convert", "resnet_renamed", str(tmp_path / "net.pt"), str(tmp_path / "net.ckpt"), "--cases", CASES]) == 0

    cell = cases.TinyResNetMs()
    not_loaded, _ = ms.load_param_into_net(cell, ms.load_checkpoint(str(tmp_path / "net.ckpt")))
    assert not_loaded == []
    cell.set_train(False)
    x = np.random.default_rng(0).uniform(-1, 1, (2, 3, 8, 8)).astype(np.float32)
    expected = net(torch.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), expected, rtol=1e-5, atol=1e-6)

    assert main(["convert", "resnet_renamed", str(tmp_path / "net.ckpt"), str(tmp_path / "back.pt"), "--cases", CASES]) == 0
    back = torch.load(tmp_path / "back.pt", weights_only=True)
    original = net.state_dict()
    assert set(back) == set(original)
    for name, value in original.items():
        assert torch.equal(back[name].to(value.dtype), value), name
    net.load_state_dict(back, strict=True)


def test_unmatched_keys_fail_with_the_list_unless_partial_is_allowed(tmp_path, capsys):
    cases = _module()
    state = cases.TinyResNetPt().state_dict()
    state["extra.weight"] = torch.zeros(2)
    del state["fc.bias"]
    torch.save(state, tmp_path / "odd.pt")
    args = ["convert", "resnet_renamed", str(tmp_path / "odd.pt"), str(tmp_path / "odd.ckpt"), "--cases", CASES]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "missing from the source: fc.bias" in err and "not used by the mapping: extra.weight" in err
    assert not (tmp_path / "odd.ckpt").exists()
    assert main(args + ["--allow-partial"]) == 0
    assert "classifier.bias" not in ms.load_checkpoint(str(tmp_path / "odd.ckpt"))


def test_convert_refuses_a_direction_it_cannot_tell(tmp_path):
    (tmp_path / "a.txt").write_text("x")
    assert main(["convert", "resnet_renamed", str(tmp_path / "a.txt"), str(tmp_path / "b.ckpt"), "--cases", CASES]) == 2


@pytest.mark.parametrize("case, code, expected", [
    ("resnet_renamed", 0, "pairing(s) made by structure alone"),
    ("ambiguous_reordered", 0, "torch 'body' -> MindSpore 'hidden' (call position among same-signature layers,"
                                " outputs agree; high confidence)"),
    ("ambiguous_interchangeable", 1, "activations could not decide: 2 of 2 candidate assignments agree"),
    ("lstm_cell_gate_order", 0, "reorder blocks (0, 1, 3, 2)"),
    ("no_such_case", 2, ""),
])
def test_map_command(case, code, expected, capsys):
    assert main(["map", case, CASES]) == code
    assert expected in capsys.readouterr().out


def _state_with_steps():
    cases = _module()
    net = cases.TinyResNetPt()
    state = net.state_dict()
    for name in state:
        if name.endswith("num_batches_tracked"):
            state[name] = torch.tensor(7, dtype=torch.int64)
    return state


def test_round_trip_keeps_bookkeeping_buffers_exactly(tmp_path):
    state = _state_with_steps()
    assert any(n.endswith("num_batches_tracked") for n in state)
    torch.save(state, tmp_path / "net.pt")
    assert main(["convert", "resnet_renamed", str(tmp_path / "net.pt"), str(tmp_path / "net.ckpt"), "--cases", CASES]) == 0
    assert main(["convert", "resnet_renamed", str(tmp_path / "net.ckpt"), str(tmp_path / "back.pt"), "--cases", CASES]) == 0
    back = torch.load(tmp_path / "back.pt", weights_only=True)
    for name, value in state.items():
        assert torch.equal(back[name].to(value.dtype), value), name


def test_a_training_checkpoint_converts_with_key_and_is_named_without_it(tmp_path, capsys):
    torch.save({"model": _state_with_steps(), "epoch": 3}, tmp_path / "train.pt")
    args = ["convert", "resnet_renamed", str(tmp_path / "train.pt"), str(tmp_path / "out" / "net.ckpt"), "--cases", CASES]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.strip().endswith("not a state_dict: model (dict), epoch (int) are not tensors; a training checkpoint? pass --key model")
    assert main(args + ["--key", "model"]) == 0  # the missing output folder is created
    assert (tmp_path / "out" / "net.ckpt").is_file()
    assert main(args + ["--key", "optimizer"]) == 2
    assert "--key optimizer: no entry 'optimizer' (found: model, epoch)" in capsys.readouterr().err


def test_a_wrong_shape_writes_nothing_and_names_the_tensor(tmp_path, capsys):
    state = _state_with_steps()
    state["fc.weight"] = torch.zeros(3, 3)
    torch.save(state, tmp_path / "bad.pt")
    args = ["convert", "resnet_renamed", str(tmp_path / "bad.pt"), str(tmp_path / "bad.ckpt"), "--cases", CASES]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "1 tensor(s) of the wrong shape, nothing written: 'fc.weight' is [3, 3], the case's module has" in err
    assert "Traceback" not in err and not list(tmp_path.glob("*.ckpt")) and not list(tmp_path.glob(".*tmp*"))


class _Evil:
    def __reduce__(self):
        return (os.system, ("echo owned > owned.txt",))


def test_a_pickle_that_would_run_code_is_refused_in_one_line(tmp_path, capsys):
    import pickle

    (tmp_path / "evil.pt").write_bytes(pickle.dumps({"fc.weight": _Evil()}))
    args = ["convert", "resnet_renamed", str(tmp_path / "evil.pt"), str(tmp_path / "evil.ckpt"), "--cases", CASES]
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "refused: not a plain tensor checkpoint" in err
    assert not (tmp_path / "owned.txt").exists() and not (tmp_path / "evil.ckpt").exists()
