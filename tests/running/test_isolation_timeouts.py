"""Robustness, timeouts: a hung case (a real time.sleep(1000)) becomes a `timeout` verdict within its limit,
its child process is killed, and every other result is kept.

`--timeout SECONDS` implies --isolate; a case's own `timeout=` wins over it, and isolates that case even
without the flag.
"""
from __future__ import annotations

import json
import re
import time

import pytest

from migcheck.cli import EXIT_UNEXPECTED, EXIT_USAGE, main
from migcheck.planning.discovery import load_file

pytestmark = pytest.mark.timeout(300)

HANGING = '''
import time

from migcheck import PairedCase, uniform


def torch_linear():
    import torch
    return torch.nn.Linear(3, 2)


def ms_dense():
    import mindspore
    return mindspore.nn.Dense(3, 2)


def torch_hangs_in_backward():
    """Linear(3, 2) whose backward never returns."""
    import torch

    class Sleepy(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            time.sleep(1000)

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(3, 2)

        def forward(self, x):
            return Sleepy.apply(self.lin(x))

    return Net()


def ms_port():
    import mindspore

    class Port(mindspore.nn.Cell):
        def __init__(self):
            super().__init__()
            self.lin = mindspore.nn.Dense(3, 2)

        def construct(self, x):
            return self.lin(x)

    return Port()


hangs = PairedCase(torch=torch_hangs_in_backward, mindspore=ms_port, inputs={"x": uniform(4, 3)},
                   checks=("forward", "backward", "train"), timeout=1.5)
quick = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs={"x": uniform(4, 3)}, checks=("forward",))
'''


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_hung_case_times_out_and_the_rest_is_kept(tmp_path, capsys):
    path = tmp_path / "cases" / "hang.py"
    path.parent.mkdir()
    path.write_text(HANGING)
    report = tmp_path / "report"
    started = time.monotonic()
    # No --isolate, no --timeout: the case's own timeout= runs it in a child process, and the other in-process.
    code = main(["compare", str(path), "--mode", "pynative", "--report", str(report), "--color", "never"])
    elapsed = time.monotonic() - started
    out = capsys.readouterr().out
    assert code == EXIT_UNEXPECTED
    assert elapsed < 45  # not the 1000 s of the sleep

    data = json.loads((report / "summary.json").read_text())
    assert [(v["item"], v["status"], v["kind"]) for v in data["verdicts"]] == [
        ("hangs[forward-pynative-cpu]", "pass", None),  # finished before the hang: kept
        ("hangs[backward-pynative-cpu]", "timeout", "timeout"),
        ("hangs[train-pynative-cpu]", "timeout", "timeout"),  # never started: the case's time was spent
        ("quick[forward-pynative-cpu]", "pass", None),  # the next case runs as usual
    ]
    verdicts = {v["item"]: v for v in data["verdicts"]}
    hung = verdicts["hangs[backward-pynative-cpu]"]
    assert hung["message"] == ("timed out: the case's time limit of 1.5 s (timeout=1.5 in the case) ran out during"
                               " this item; its child process was killed (its Python stack at that moment is in the"
                               " error excerpt)")
    assert 1.4 < hung["duration_s"] < 15
    # Where it hung: the child's Python stack (faulthandler, asked for before the kill), down to the sleep.
    assert re.search(rf'File "{re.escape(str(path.resolve()))}", line \d+ in backward', hung["error"])
    assert len(hung["error"].splitlines()) <= 20
    assert verdicts["hangs[train-pynative-cpu]"]["message"] == (
        "not run: the case's time limit of 1.5 s (timeout=1.5 in the case) ran out during hangs[backward-pynative-cpu]")
    assert data["counts"]["timeout"] == 2 and data["counts"]["pass"] == 2
    assert re.search(r"^TIMEOUT  hangs\[backward-pynative-cpu\]  timed out", out, re.M)
    assert out.splitlines()[-1].startswith("== 2 pass, 2 timeout: 2 not as expected == ")

def test_global_timeout_isolates_every_case_and_a_case_timeout_wins(monkeypatch, tmp_path):
    import migcheck.running.isolation as isolate
    from migcheck.options import RunOptions
    from migcheck.planning.items import plan

    path = tmp_path / "cases" / "hang.py"
    path.parent.mkdir()
    path.write_text(HANGING)
    items = plan(load_file(path).cases, RunOptions(modes=("pynative",)))
    calls = []
    monkeypatch.setattr(isolate, "run_case_isolated",
                        lambda case, group, options, limit, on_start: calls.append((case.name, len(group), limit)) or [])
    monkeypatch.setattr(isolate, "run_item", lambda item, options: calls.append((item.id, "in-process")))
    list(isolate.run_items(items, RunOptions(), timeout=60))
    assert calls == [("hangs", 3, 1.5), ("quick", 1, 60)]  # isolated both; the case's own limit wins
    calls.clear()
    list(isolate.run_items(items, RunOptions()))
    assert calls == [("hangs", 3, 1.5), ("quick[forward-pynative-cpu]", "in-process")]
    calls.clear()
    list(isolate.run_items(items, RunOptions(), isolate=True))
    assert calls == [("hangs", 3, 1.5), ("quick", 1, None)]


def test_the_timeout_option_reaches_the_runner_and_implies_isolation(monkeypatch, tmp_path, capsys):
    """The command line's half: --timeout and --isolate as run_items receives them (no process started)."""
    import migcheck.running.isolation as isolate

    path = tmp_path / "cases" / "hang.py"
    path.parent.mkdir()
    path.write_text(HANGING)
    seen = []
    monkeypatch.setattr(isolate, "run_items", lambda items, options, isolate, timeout, on_start:
                        seen.append((len(items), isolate, timeout)) or iter(()))
    for argv, expected in ((["--timeout", "2.5"], (4, True, 2.5)), (["--isolate"], (4, True, None)), ([], (4, False, None))):
        main(["compare", str(path), "--mode", "pynative", *argv])
        assert seen.pop() == expected
    capsys.readouterr()


@pytest.mark.parametrize("value", ["0", "-1", "soon", "nan"])
def test_timeout_option_must_be_a_positive_number(tmp_path, capsys, value):
    path = tmp_path / "cases" / "hang.py"
    path.parent.mkdir()
    path.write_text(HANGING)
    assert main(["compare", str(path), "--timeout", value]) == EXIT_USAGE
    assert "argument --timeout:" in capsys.readouterr().err


@pytest.mark.parametrize("value, shown", [("0", "0"), ("-5", "-5"), ("'60'", "'60'"), ("float('inf')", "inf"),
                                          ("float('nan')", "nan"), ("True", "True")])
def test_case_timeout_must_be_a_positive_number(tmp_path, value, shown):
    path = tmp_path / "cases" / "bad_timeout.py"
    path.parent.mkdir()
    path.write_text(HANGING + f"\nbad = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs={{}}, timeout={value})\n")
    loaded = load_file(path)
    assert [c.name for c in loaded.cases] == ["hangs", "quick"]
    [error] = loaded.errors
    assert (error.case, error.problem) == ("bad", f"timeout={shown} (fix: use a positive number of seconds such as"
                                                  f" timeout=60, or None)")
