"""--lf, --ff, --sw and -k understand the plugin's item ids: the ids pytest caches are the ids it collects next
time (pytest 9 reads 'case[check-mode-backend]' as a name and its params). Framework-free: a bad case definition
is the failing item, skip verdicts the passing ones."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ENV = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
CASES = '''
from migcheck import PairedCase, uniform

SKIP = {"pynative": "not here", "graph": "not here"}
first = PairedCase(torch=lambda: None, mindspore=lambda: None, inputs={"x": uniform(2)}, checks=("forward",), skip=SKIP)
broken = PairedCase(torch=lambda: None, mindspore=lambda: None, inputs={"x": uniform(2, low=1.0, high=-1.0)})
last = PairedCase(torch=lambda: None, mindspore=lambda: None, inputs={"x": uniform(2)}, checks=("forward",), skip=SKIP)
'''


def _pytest(tmp_path, *args):
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "migcheck.pytest_plugin", "cases", "-q", "-rA", *args],
                          cwd=tmp_path, capture_output=True, text=True, env=ENV, timeout=300)
    return done.returncode, done.stdout.strip().splitlines()


def test_last_failed_failed_first_stepwise_and_keyword_select_by_the_plugin_s_ids(tmp_path):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "c.py").write_text(CASES)
    code, out = _pytest(tmp_path)
    assert code == 1 and out[-1].startswith("1 failed, 4 skipped"), out
    code, out = _pytest(tmp_path, "--lf")
    assert code == 1 and out[-1].startswith("1 failed in"), out  # the other items are not even collected
    assert not [line for line in out if line.startswith("SKIPPED")], out  # before: all 5 ran ("not in selected tests")
    code, out = _pytest(tmp_path, "--ff", "-vv")
    ran = [line.split(" ")[0] for line in out if line.startswith("cases/c.py::")]
    assert ran[0] == "cases/c.py::broken[definition]" and len(ran) == 5, out
    for _ in range(2):  # stops at the failure (a definition item comes first), and starts from it next time
        code, out = _pytest(tmp_path, "--sw")
        assert out[-1].startswith("1 failed in"), out
    code, out = _pytest(tmp_path, "-k", "last and graph")
    assert code == 0 and out[-1].startswith("1 skipped, 4 deselected"), out
