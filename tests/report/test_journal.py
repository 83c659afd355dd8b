"""The run journal (migcheck.report.journal) and the report folder checks (migcheck.report.outdir): no frameworks needed."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from migcheck.report.journal import Journal, JournalError, read_journal
from migcheck.report.outdir import OutputError, prepare, unlock
from migcheck.report import render_report, write_report_from_journal
from migcheck.judging.verdict import Verdict

CASE = ("from migcheck import PairedCase, uniform\n"
        "c = PairedCase(torch=lambda: None, mindspore=lambda: None, inputs={'x': uniform(2)}, checks=('forward',))\n")
ENV = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}


def _verdict(case: str, status: str = "pass", err: float = 0.0) -> Verdict:
    return Verdict(case=case, check="forward", mode="pynative", backend="cpu", status=status, kind=None,
                   message=f"max abs err {err}", file="/cases/a.py")


def test_a_journal_round_trips_and_an_unfinished_one_is_partial(tmp_path):
    journal = Journal(tmp_path / "journal.jsonl", command=["migcheck", "compare"],
                      planned=["a[forward-pynative-cpu]", "b[forward-pynative-cpu]", "c[forward-pynative-cpu]"])
    journal.verdict(_verdict("a"))
    journal.collection_error("cases/x.py: syntax error")
    journal.verdict(_verdict("b", "fail"))
    run = read_journal(tmp_path)
    assert [(v.case, v.status) for v in run.verdicts] == [("a", "pass"), ("b", "fail")]
    assert run.errors == ("cases/x.py: syntax error",) and not run.ended and run.partial
    assert run.not_run == ("c[forward-pynative-cpu]",)
    journal.end(partial=False)
    assert read_journal(tmp_path).ended and not read_journal(tmp_path).partial
    lines = (tmp_path / "journal.jsonl").read_text().splitlines()
    assert [next(iter(json.loads(line))) for line in lines] == ["header", "verdict", "collection_error", "verdict", "end"]


def test_a_torn_last_line_is_dropped_and_a_corrupt_middle_line_is_skipped_and_named(tmp_path):
    journal = Journal(tmp_path / "journal.jsonl")
    journal.verdict(_verdict("a"))
    journal.close()
    with open(tmp_path / "journal.jsonl", "a") as f:
        f.write('{"verdict": {"case": "b", "che')  # SIGKILL in the middle of a write
    assert [v.case for v in read_journal(tmp_path).verdicts] == ["a"] and not read_journal(tmp_path).skipped
    with open(tmp_path / "journal.jsonl", "a") as f:
        f.write('\n{"verdict": {}}\n')
    run = read_journal(tmp_path)
    assert [v.case for v in run.verdicts] == ["a"]
    assert len(run.skipped) == 2 and "journal.jsonl: line 3 was skipped (not a journal record" in run.skipped[0]
    assert "journal.jsonl: line 4 was skipped (verdict cannot be read" in run.skipped[1]


def test_one_bad_line_mid_journal_keeps_every_intact_verdict_renderable(tmp_path):
    journal = Journal(tmp_path / "journal.jsonl", planned=[f"{c}[forward-pynative-cpu]" for c in "abcd"])
    for case in "abcd":
        journal.verdict(_verdict(case))
    journal.end()
    lines = (tmp_path / "journal.jsonl").read_text().splitlines(keepends=True)
    lines[2] = lines[2][:40] + "\x00garbage" + lines[2][40:]  # verdict b damaged in place
    lines.insert(4, '{"planned": 7}\n')
    (tmp_path / "journal.jsonl").write_text("".join(lines))
    result = subprocess.run([sys.executable, "-m", "migcheck.cli", "report", str(tmp_path)], capture_output=True,
                            text=True, env=ENV)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    data = json.loads((tmp_path / "summary.json").read_text())
    assert sorted(v["case"] for v in data["verdicts"]) == ["a", "c", "d"]
    assert data["not_run"] == ["b[forward-pynative-cpu]"] and data["all_as_expected"] is False
    warnings = [line for line in result.stderr.splitlines() if line.startswith("migcheck: warning:")]
    assert len(warnings) == 2 and "line 3 was skipped" in warnings[0] and "line 5 was skipped" in warnings[1]


def test_worker_journals_merge_and_a_stale_one_from_another_run_is_ignored(tmp_path):
    main = Journal(tmp_path / "journal.jsonl", planned=["a[forward-pynative-cpu]", "b[forward-pynative-cpu]"])
    Journal(tmp_path / "journal-gw0-1.jsonl", run=main.run, worker="gw0").verdict(_verdict("a"))
    Journal(tmp_path / "journal-gw1-2.jsonl", run=main.run, worker="gw1").verdict(_verdict("b"))
    Journal(tmp_path / "journal-gw2-3.jsonl", run="another run", worker="gw2").verdict(_verdict("stale"))
    assert sorted(v.case for v in read_journal(tmp_path).verdicts) == ["a", "b"]


def test_report_renders_a_dead_runs_journal_as_partial(tmp_path):
    journal = Journal(tmp_path / "journal.jsonl", planned=["a[forward-pynative-cpu]", "b[forward-pynative-cpu]"])
    journal.verdict(_verdict("a"))  # then the process died: no end, no summary.json
    index, run, _ = render_report(tmp_path)
    data = json.loads((tmp_path / "summary.json").read_text())
    assert run.partial and data["partial"] and data["not_run"] == ["b[forward-pynative-cpu]"]
    assert data["all_as_expected"] is False
    assert "b[forward-pynative-cpu]" in index.read_text()


def test_a_finished_run_is_not_partial(tmp_path):
    journal = Journal(tmp_path / "journal.jsonl", planned=["a[forward-pynative-cpu]"])
    journal.verdict(_verdict("a"))
    write_report_from_journal(tmp_path, partial=False)
    journal.end()
    data = json.loads((tmp_path / "summary.json").read_text())
    assert data["all_as_expected"] is True and "not_run" not in data


def test_report_folder_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "out").write_text("")
    with pytest.raises(OutputError, match="is a file, not a folder"):
        prepare(tmp_path / "out")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes anywhere")
def test_a_read_only_report_folder_is_refused(tmp_path):
    (tmp_path / "ro").mkdir()
    os.chmod(tmp_path / "ro", 0o500)
    try:
        with pytest.raises(OutputError, match="cannot write there"):
            prepare(tmp_path / "ro")
    finally:
        os.chmod(tmp_path / "ro", 0o700)


def test_a_second_writer_is_refused_while_the_first_holds_the_lock(tmp_path):
    pytest.importorskip("fcntl")
    prepare(tmp_path / "out")
    try:
        # Another process (flock locks are per open file, so a second process is the real test).
        code = ("import sys; from migcheck.report.outdir import prepare, OutputError\n"
                "try:\n    prepare(sys.argv[1])\nexcept OutputError as e:\n    print(e); sys.exit(2)\n")
        other = subprocess.run([sys.executable, "-c", code, str(tmp_path / "out")], capture_output=True, text=True,
                               env=ENV)
        assert other.returncode == 2 and f"another migcheck run (pid {os.getpid()})" in other.stdout
        (tmp_path / "c.py").write_text(CASE)
        cli = subprocess.run([sys.executable, "-m", "migcheck.cli", "compare", "c.py", "--report", "out"],
                             capture_output=True, text=True, env=ENV, cwd=tmp_path)
        assert cli.returncode == 2 and "Traceback" not in cli.stderr
        assert cli.stderr.startswith("migcheck: error: --report out: another migcheck run")
        assert cli.stdout == ""  # refused before the first case ran
    finally:
        unlock(tmp_path / "out")


def test_keyword_selecting_nothing_exits_2_and_leaves_the_report_untouched(tmp_path):
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "c.py").write_text(CASE)
    (tmp_path / "report").mkdir()
    (tmp_path / "report" / "summary.json").write_text('{"old": true}')
    result = subprocess.run([sys.executable, "-m", "migcheck.cli", "compare", "cases", "-k", "nomatch", "--report",
                             "report"], capture_output=True, text=True, env=ENV, cwd=tmp_path)
    assert result.returncode == 2 and "-k 'nomatch' matched nothing" in result.stderr
    assert sorted(p.name for p in (tmp_path / "report").iterdir()) == ["summary.json"]
    assert (tmp_path / "report" / "summary.json").read_text() == '{"old": true}'


def test_file_names_from_long_case_names_are_bounded_and_unique(tmp_path):
    from migcheck.report import write_report
    from migcheck.report.jsonfile import safe_name

    long_a, long_b = "a" * 300, "a" * 299 + "b"
    assert len(safe_name(long_a)) <= 100 and safe_name(long_a) != safe_name(long_b)
    write_report(tmp_path, [_verdict(long_a), _verdict(long_b)])
    assert len(list((tmp_path / "cells").glob("*.json"))) == 2


def test_a_finished_journal_is_compacted_and_still_reads_back_whole(tmp_path):
    import numpy as np

    from migcheck.judging.compare import compare_arrays
    from migcheck.report.journal import compact
    from migcheck.tolerance import Tolerance

    tensors = tuple(compare_arrays(f"grad.param.l{k}", np.zeros((8, 8), np.float32), np.full((8, 8), 0.1 * k, np.float32),
                                   Tolerance(rtol=1e-6, atol=1e-6)) for k in range(20))
    verdict = Verdict(case="big", check="backward", mode="pynative", backend="cpu", status="fail", kind="value",
                      message="value mismatch", file="/cases/a.py", tensors=tensors)
    journal = Journal(tmp_path / "journal.jsonl", planned=[verdict.item])
    journal.verdict(verdict)
    write_report_from_journal(tmp_path, partial=False)
    journal.end(partial=False)
    before = (tmp_path / "journal.jsonl").stat().st_size
    compact(tmp_path)
    assert (tmp_path / "journal.jsonl").stat().st_size < before / 5
    run = read_journal(tmp_path)
    assert run.ended and [v.tensors for v in run.verdicts] == [tensors]  # the cell file gives the rest back
    (tmp_path / "summary.json").unlink()  # a re-render from the compacted journal keeps every tensor
    write_report_from_journal(tmp_path)
    assert json.loads((tmp_path / "cells" / "big.json").read_text())["verdicts"][0]["tensors"][19]["name"] == "grad.param.l19"


def test_a_run_stopped_before_its_first_verdict_leaves_the_old_report_alone(tmp_path):
    import migcheck

    (tmp_path / "c.py").write_text(CASE)
    (tmp_path / "report").mkdir()
    (tmp_path / "report" / "summary.json").write_text('{"old": true}')

    def stop(item):  # Ctrl-C as the first item starts
        raise KeyboardInterrupt

    result = migcheck.run(str(tmp_path / "c.py"), report=tmp_path / "report", on_start=stop)
    unlock(tmp_path / "report")
    assert result.interrupted and result.verdicts == () and result.report is None
    assert sorted(p.name for p in (tmp_path / "report").iterdir()) == [".migcheck.lock", "summary.json"]
    assert (tmp_path / "report" / "summary.json").read_text() == '{"old": true}'
