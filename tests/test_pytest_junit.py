"""--junitxml: every migcheck status mapped (error, crashed and timeout as <error> with their message),
migcheck's properties on every item."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

pytestmark = pytest.mark.timeout(300)

CASES = '''
import time


def torch_broken():
    raise RuntimeError("the torch factory is broken")


def torch_hangs():
    time.sleep(1000)


dense_ok = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X, checks=FORWARD)
dense_relu = PairedCase(torch=torch_linear, mindspore=ms_dense_relu, inputs=X, checks=FORWARD)
dense_known_bad = PairedCase(torch=torch_linear, mindspore=ms_dense_relu, inputs=X, checks=FORWARD,
                             expect="fail", fails_with="value")
dense_skipped = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X, checks=FORWARD,
                           skip={"pynative": "not in this mode"})
broken = PairedCase(torch=torch_broken, mindspore=ms_dense, inputs=X, checks=FORWARD)
hangs = PairedCase(torch=torch_hangs, mindspore=ms_dense, inputs=X, checks=FORWARD, timeout=1)
'''


def test_every_status_is_mapped_and_every_item_has_its_properties(pytester, case_text):
    pytester.mkdir("cases")
    (pytester.path / "cases" / "demo.py").write_text(case_text(CASES))
    result = pytester.runpytest_subprocess("-p", "migcheck.pytest_plugin", "--migcheck-mode", "pynative",
                                           "--junitxml", "junit.xml", "--migcheck-report", "report")
    result.assert_outcomes(passed=1, failed=1, xfailed=1, skipped=1, errors=2)
    cases = {tc.get("name"): tc for tc in ET.parse(pytester.path / "junit.xml").iter("testcase")}
    outcome = {name: [child.tag for child in tc if child.tag != "properties"] for name, tc in cases.items()}
    assert outcome == {"dense_ok[forward-pynative-cpu]": [], "dense_relu[forward-pynative-cpu]": ["failure"],
                       "dense_known_bad[forward-pynative-cpu]": ["skipped"],
                       "dense_skipped[forward-pynative-cpu]": ["skipped"],
                       "broken[forward-pynative-cpu]": ["error"], "hangs[forward-pynative-cpu]": ["error"]}
    status = {}
    for name, tc in cases.items():
        props = {p.get("name"): p.get("value") for p in tc.iter("property")}
        assert json.loads(props["migcheck_verdict"])["item"] == name
        assert props["migcheck_page"].startswith("report/cells/")
        status[name] = props["migcheck_status"]
    assert status == {"dense_ok[forward-pynative-cpu]": "pass", "dense_relu[forward-pynative-cpu]": "fail",
                      "dense_known_bad[forward-pynative-cpu]": "xfail", "dense_skipped[forward-pynative-cpu]": "skip",
                      "broken[forward-pynative-cpu]": "error", "hangs[forward-pynative-cpu]": "timeout"}
    assert "the torch factory is broken" in cases["broken[forward-pynative-cpu]"].find("error").get("message")
    assert "TIMEOUT: timed out" in cases["hangs[forward-pynative-cpu]"].find("error").get("message")
    # The merged report holds each verdict once.
    data = json.loads((pytester.path / "report" / "summary.json").read_text())
    assert sorted(v["status"] for v in data["verdicts"]) == ["error", "fail", "pass", "skip", "timeout", "xfail"]
