"""migcheck.options: one table of run options, registered by the CLI and the pytest plugin alike."""
from __future__ import annotations

import dataclasses
import json

import pytest

from migcheck.cli import build_parser
from migcheck.options import EXECUTION, OPTIONS, OptionError, RunOptions, build, from_json, to_json

PLUGIN = ("-p", "migcheck.pytest_plugin")


def test_every_comparison_option_has_one_flag_and_the_defaults_are_run_options_defaults():
    """Execution fields (log capture, the torch cache) are set by each front end's own flags."""
    assert sorted([o.name for o in OPTIONS] + list(EXECUTION)) == sorted(f.name for f in dataclasses.fields(RunOptions))
    assert build({}) == RunOptions()
    assert build({o.name: o.default_text for o in OPTIONS}) == RunOptions()


def test_the_cli_compare_parser_accepts_every_option():
    examples = {"checks": "forward", "modes": "graph", "backends": "cpu", "golden": ".", "torch_device": "cpu",
                "device_id": "0", "profile": "strict", "tolerance_mode": "budget"}
    argv = ["compare"] + [s for o in OPTIONS for s in ((o.flag,) if o.switch else (o.flag, examples.get(o.name, "0.5")))]
    args = build_parser().parse_args(argv)
    assert all(getattr(args, o.name) == (True if o.switch else examples.get(o.name, "0.5")) for o in OPTIONS)
    assert build_parser().parse_args(["compare"]).changed is None and build({"changed": None}).changed is False


@pytest.mark.parametrize("raw, message", [
    ({"atol": "inf"}, "--atol: 'inf' is infinite: every value would pass; give a finite tolerance"),
    ({"rtol": "nan"}, "--rtol: 'nan' must be a finite non-negative number"),
    ({"modes": "eager"}, "--mode: unknown mode 'eager'; choose from pynative, graph"),
    ({"budget_factor": "0"}, "--budget-factor: '0' must be positive"),
    ({"device_id": "one"}, "--device-id: 'one' is not a device id (0, 1, ...)"),
    ({"golden": "/no/such/folder"}, "--golden: /no/such/folder: no such folder"),
])
def test_bad_values_name_the_flag(raw, message):
    with pytest.raises(OptionError) as err:
        build(raw)
    assert str(err.value).startswith(message)


def test_pytest_spelling_in_errors():
    with pytest.raises(OptionError, match=r"^--migcheck-atol: '-1' must be"):
        build({"atol": "-1"}, pytest_names=True)


def test_options_survive_the_worker_json_round_trip():
    options = build({"checks": "forward,step", "modes": "graph", "atol": "1e-3", "device_id": "1"})
    assert from_json(json.loads(json.dumps(to_json(options)))) == options


def test_pytest_registers_every_option(pytester):
    help_text = pytester.runpytest_subprocess(*PLUGIN, "--help").stdout.str()
    for o in OPTIONS:
        assert o.pytest_flag in help_text, o.pytest_flag


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_pytest_comparison_options_take_effect(pytester, case_text):
    """--migcheck-atol makes an off-by-0.01 port pass, as `migcheck compare --atol` does; inf is refused."""
    cases = pytester.mkdir("cases")
    (cases / "near.py").write_text(case_text('''
near = PairedCase(torch=torch_linear, mindspore=ms_dense_shifted, inputs=X, checks=FORWARD, modes=("pynative",),
                  weight_map=SHIFTED_MAP)
'''))
    strict = pytester.runpytest_subprocess(*PLUGIN, "cases", "-q")
    loose = pytester.runpytest_subprocess(*PLUGIN, "cases", "-q", "--migcheck-atol", "0.02")
    refused = pytester.runpytest_subprocess(*PLUGIN, "cases", "-q", "--migcheck-atol", "inf")
    assert strict.ret == 1 and loose.ret == 0, strict.stdout.str() + loose.stdout.str()
    assert refused.ret == 4 and "--migcheck-atol: 'inf' is infinite: every value would pass; give a finite tolerance" in refused.stderr.str()


def test_backend_auto_is_resolved_by_the_probe_the_front_end_passes():
    assert build({"backends": "auto,cpu"}, auto_backend=lambda: "gpu").backends == ("gpu", "cpu")
    assert build({"backends": "auto"}, auto_backend=lambda: "cpu").backends == ("cpu",)
    with pytest.raises(OptionError, match="no backend probe"):
        build({"backends": "auto"})  # options import no runner: without a probe 'auto' cannot be resolved
