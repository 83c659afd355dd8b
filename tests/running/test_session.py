"""migcheck.run(): the public entry point the CLI and scripts share (real frameworks, tiny layers)."""
from __future__ import annotations

import json

import pytest

import migcheck

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]

CASES = '''
dense_ok = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X, checks=FORWARD, modes=("pynative",))
dense_known_bad = PairedCase(torch=torch_linear, mindspore=ms_dense_relu, inputs=X, checks=FORWARD,
                             modes=("pynative",), expect="fail", fails_with="value", tags=("bad",))
'''


def test_run_a_folder_and_write_a_report(write_case_file, tmp_path):
    path = write_case_file("cases/demo.py", CASES)
    seen = []
    result = migcheck.run(str(path.parent), modes=("pynative",), report=tmp_path / "rep", on_verdict=seen.append)
    assert [v.item for v in result.verdicts] == ["dense_ok[forward-pynative-cpu]",
                                                 "dense_known_bad[forward-pynative-cpu]"]
    assert [v.status for v in result.verdicts] == ["pass", "xfail"] and result.ok
    assert seen == list(result.verdicts)
    assert result.counts == {"pass": 1, "xfail": 1} and result.summary() == "1 pass, 1 xfail"
    summary = json.loads((tmp_path / "rep" / "summary.json").read_text())
    assert summary["counts"]["xfail"] == 1 and result.report == tmp_path / "rep"


def test_run_case_objects_with_options_and_a_keyword(write_case_file):
    from migcheck.planning.discovery import load_file

    path = write_case_file("cases/near.py", '''
shifted = PairedCase(torch=torch_linear, mindspore=ms_dense_shifted, inputs=X, checks=FORWARD, weight_map=SHIFTED_MAP)
''')
    [case] = load_file(path).cases
    strict = migcheck.run(case, modes=("pynative",))
    loose = migcheck.run([case], modes=("pynative",), atol=0.02)
    none = migcheck.run(case, modes=("pynative",), keyword="nothing_matches")
    assert strict.verdicts[0].status == "fail" and not strict.ok
    assert loose.verdicts[0].status == "pass" and loose.ok
    assert none.items == () and none.verdicts == ()


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match="unknown run option.*atoll"):
        migcheck.run("cases", atoll=1e-3)
    with pytest.raises(TypeError, match="paths and PairedCase objects, not int"):
        migcheck.run([3])


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_two_runs_of_same_named_cases_each_use_their_own_torch_side():
    """Unnamed cases are numbered per run (case0, case1, ...): a second run in the same process must not
    reuse the first run's torch results or settled mapping for its case0 (they were keyed by name once)."""
    def linear(out_features):
        def build():
            import torch

            return torch.nn.Linear(3, out_features)
        return build

    def dense(out_features):
        def build():
            import mindspore

            return mindspore.nn.Dense(3, out_features)
        return build

    from migcheck import PairedCase, uniform

    first = migcheck.run(PairedCase(torch=linear(2), mindspore=dense(2), inputs={"x": uniform(4, 3)}, checks=("forward",)),
                         modes=("pynative",))
    second = migcheck.run(PairedCase(torch=linear(5), mindspore=dense(5), inputs={"x": uniform(4, 3)}, checks=("forward",)),
                          modes=("pynative",))
    assert [v.case for v in first.verdicts] == [v.case for v in second.verdicts] == ["case0"]
    assert first.ok and second.ok, second.summary()
    assert second.verdicts[0].tensors[0].torch_shape == (4, 5)
