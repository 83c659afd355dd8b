"""Write failures mid-run (disk full, file size limits): the run ends cleanly, what was written is kept, and one
line says why; `migcheck report` on a full disk says what the report holds. Real faults, no mocks: /dev/full
put under the journal's file descriptor (ENOSPC at the very write call), and RLIMIT_FSIZE (EFBIG for every
file past a size, as a full disk fails every write). Framework-free: every item is a skip verdict."""
from __future__ import annotations

import json
import re
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

import migcheck
from migcheck import PairedCase, uniform
from migcheck.report.outdir import unlock

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/full") or not os.path.isdir("/proc/self/fd"),
                                reason="Linux: /dev/full and /proc/self/fd")
ENV = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
SKIP = {"pynative": "not here", "graph": "not here"}
CASES = "from migcheck import PairedCase, uniform\n" + "".join(
    f"c{k} = PairedCase(torch=lambda: None, mindspore=lambda: None, inputs={{'x': uniform(2)}}, checks=('forward',),"
    f" skip={SKIP!r})\n" for k in range(3))


def _fd_of(path: Path) -> int:
    for name in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{name}") == str(path):
                return int(name)
        except OSError:
            continue
    raise AssertionError(f"{path} is not open")


def test_a_full_disk_at_the_journal_write_ends_the_run_cleanly_and_keeps_what_was_written(tmp_path):
    cases = [PairedCase(torch=lambda: None, mindspore=lambda: None, inputs={"x": uniform(2)}, checks=("forward",),
                        skip=SKIP, name=f"c{k}") for k in range(3)]
    seen = []

    def fill_the_disk(verdict):
        seen.append(verdict)
        if len(seen) == 1:  # from now on every write to the journal fails with ENOSPC
            full = os.open("/dev/full", os.O_WRONLY)
            os.dup2(full, _fd_of(tmp_path / "r" / "journal.jsonl"))
            os.close(full)

    result = migcheck.run(cases, report=tmp_path / "r", on_verdict=fill_the_disk)
    unlock(tmp_path / "r")
    assert len(result.verdicts) == 2 and not result.ok and not result.interrupted
    assert "No space left on device" in result.write_error and "stopped after 2 of 6 item(s)" in result.write_error
    assert "\n" not in result.write_error
    data = json.loads((tmp_path / "r" / "summary.json").read_text())  # what reached the journal is reported
    assert [v["item"] for v in data["verdicts"]] == ["c0[forward-pynative-cpu]"] and data["partial"]
    assert len(data["not_run"]) == 5


def _limited(nbytes: int):
    def limit() -> None:  # every file this process writes past nbytes fails with EFBIG (SIGXFSZ is ignored)
        resource.setrlimit(resource.RLIMIT_FSIZE, (nbytes, nbytes))
    return limit


def test_compare_and_report_on_a_full_disk_end_with_one_line_and_lose_nothing_written(tmp_path):
    (tmp_path / "m.py").write_text(CASES)
    run = subprocess.run([sys.executable, "-m", "migcheck.cli", "compare", "m.py", "--report", "r", "--color", "never"],
                         capture_output=True, text=True, env=ENV, cwd=tmp_path, preexec_fn=_limited(1400))
    assert run.returncode == 2 and "Traceback" not in run.stdout + run.stderr, run.stderr
    final = run.stdout.strip().splitlines()[-1]
    assert "stopped: cannot write the report folder r (File too large" in final, final
    # Where the 1400-byte limit falls depends on how large a verdict record is: read it off the line.
    stopped = re.search(r"the run stopped after (\d) of 6 item\(s\)", final)
    assert stopped and int(stopped.group(1)) >= 2 and "report: none written" in final, final
    kept = int(stopped.group(1)) - 1  # the item whose verdict could not be written is the one it stopped after
    # The verdicts that reached the journal are kept; the report could not be written, so nothing else was.
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == [".migcheck.lock", "journal.jsonl"]
    report = subprocess.run([sys.executable, "-m", "migcheck.cli", "report", "r"], capture_output=True, text=True,
                            env=ENV, cwd=tmp_path, preexec_fn=_limited(1400))
    assert report.returncode == 2 and "Traceback" not in report.stderr, report.stderr
    assert report.stderr.strip().splitlines() == [
        report.stderr.strip()] and "cannot write the report in r (File too large" in report.stderr
    assert f"it holds {kept} verdict(s): {kept} skip (partial); nothing in it was changed" in report.stderr
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == [".migcheck.lock", "journal.jsonl"]
    again = subprocess.run([sys.executable, "-m", "migcheck.cli", "report", "r"], capture_output=True, text=True,
                           env=ENV, cwd=tmp_path)  # space again: the journal renders
    assert again.returncode == 0, again.stderr
    data = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert len(data["verdicts"]) == kept and data["partial"] and len(data["not_run"]) == 6 - kept


def test_pytest_on_a_full_disk_stops_as_compare_does_with_one_line_and_exit_2(tmp_path):
    """The plugin's session is compare's: a journal that cannot be written stops the run, says why in one line,
    keeps what was journaled, and exits 2 (pytest stops as with -x)."""
    (tmp_path / "m.py").write_text(CASES)
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "migcheck.pytest_plugin", "m.py", "--migcheck-report",
                          "r", "-p", "no:cacheprovider", "-q"], capture_output=True, text=True, env=ENV, cwd=tmp_path,
                         preexec_fn=_limited(1400))
    assert run.returncode == 2 and "Traceback" not in run.stdout + run.stderr, run.stdout + run.stderr
    line = next(x for x in run.stdout.splitlines() if x.startswith("migcheck: cannot write the report folder r"))
    assert "(File too large" in line and re.search(r"the run stopped after \d of 6 item\(s\)", line), line
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == [".migcheck.lock", "journal.jsonl"]
    assert "skipped" in run.stdout and "6 skipped" not in run.stdout  # it stopped before the last items
