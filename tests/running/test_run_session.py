"""RunSession (migcheck.running.session), the one object behind migcheck.run(), `migcheck compare` and the pytest
plugin, driven here as the plugin's hooks drive it under pytest-xdist: a controller that receives its workers'
verdicts and a worker that journals its own. Verdicts are given whole (no framework runs), so what is tested is
the session itself: when the journal starts, who writes what, the report's order."""
from __future__ import annotations

import json
from pathlib import Path

from migcheck.judging.verdict import Verdict
from migcheck.options import RunOptions
from migcheck.report.journal import read_journal
from migcheck.report.outdir import unlock
from migcheck.running.session import RunSession
from migcheck.serialize import verdict_to_json

IDS = ["a[forward-pynative-cpu]", "b[forward-pynative-cpu]", "c[forward-pynative-cpu]"]


def verdict(case: str, status: str = "pass") -> Verdict:
    return Verdict(case=case, check="forward", mode="pynative", backend="cpu", status=status,
                   kind=None if status == "pass" else "value", message=f"{case} {status}", file="cases/demo.py")


def summary(report: Path) -> dict:
    return json.loads((report / "summary.json").read_text())


def test_a_controller_and_its_worker_write_one_report_in_plan_order(tmp_path):
    report = tmp_path / "rep"
    controller = RunSession(RunOptions(), report=report)
    controller.check_folder()
    controller.plan_ids(IDS)
    worker = RunSession(RunOptions(), report=report, worker="gw0", run_id=controller.run_id)
    assert not (report / "journal.jsonl").exists()  # the journal starts with the first verdict

    for case in ("c", "a"):  # the worker finishes them in another order than they were planned
        finished = worker.record(verdict(case, "fail" if case == "c" else "pass"))
        controller.received(verdict_to_json(finished))  # as its report reaches the controller
    controller.collection_error("cases/broken.py: syntax error")
    worker.finish()
    result = controller.finish()
    unlock(report)

    [worker_journal] = report.glob("journal-gw0-*.jsonl")
    assert '"verdict"' in worker_journal.read_text()
    assert '"verdict"' not in (report / "journal.jsonl").read_text()  # each verdict journaled once, by its worker
    assert [v["item"] for v in summary(report)["verdicts"]] == ["a[forward-pynative-cpu]", "c[forward-pynative-cpu]"]
    assert summary(report)["not_run"] == ["b[forward-pynative-cpu]"]
    assert summary(report)["collection_errors"] == ["cases/broken.py: syntax error"]
    run = read_journal(report)
    assert run.ended and not run.partial and list(run.planned) == IDS
    assert result.report == report and [v.status for v in result.verdicts] == ["fail", "pass"] and not result.ok


def test_a_run_stopped_before_its_first_verdict_leaves_the_last_report_untouched(tmp_path):
    report = tmp_path / "rep"
    first = RunSession(RunOptions(), report=report)
    first.plan_ids(IDS[:1])
    first.check_folder()
    first.record(verdict("a"))
    first.finish()
    unlock(report)
    before = (report / "summary.json").read_text()

    second = RunSession(RunOptions(), report=report)
    second.check_folder()
    second.plan_ids(IDS)
    second.interrupted(KeyboardInterrupt())
    result = second.finish()
    unlock(report)
    assert result.interrupted and result.signal_exit == 130 and result.report is None
    assert (report / "summary.json").read_text() == before


def test_an_empty_shard_still_writes_its_report_and_a_pytest_stop_is_partial_but_no_signal(tmp_path):
    empty = RunSession(RunOptions(), report=tmp_path / "shard", shard=True)
    assert empty.plan([]) == []
    result = empty.finish()
    unlock(tmp_path / "shard")
    assert result.report == tmp_path / "shard" and summary(tmp_path / "shard")["verdicts"] == []

    class Interrupted(KeyboardInterrupt):  # pytest stopping (collection errors, -x): not a signal
        pass

    stopped = RunSession(RunOptions(), report=tmp_path / "stopped")
    stopped.check_folder()
    stopped.record(verdict("a"))
    stopped.interrupted(Interrupted())
    result = stopped.finish()
    unlock(tmp_path / "stopped")
    assert summary(tmp_path / "stopped")["partial"] is True
    assert not result.interrupted and result.signal_exit is None
