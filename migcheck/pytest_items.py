"""The pytest items of migcheck's plugin: a case file, each planned item of it, and a case that could not
be used. The item runs its check in setup, through the process's RunSession (an error verdict is a pytest
error, as JUnit counts it) and raises a wrong result from runtest (a failure); its verdict travels as JUnit
properties."""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, List, Optional

import pytest

from migcheck.vocab import Status, plain

if TYPE_CHECKING:  # pragma: no cover (the engine is imported when the first item runs, not with the plugin)
    from migcheck.running.session import RunSession

VERDICT_PROPERTY = "migcheck_verdict"
# The process's RunSession (one per pytest process: the controller's, each xdist worker's), set by the plugin.
SESSION = pytest.StashKey["RunSession"]()


class CaseFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        from migcheck.planning.discovery import load_file
        from migcheck.planning.items import plan

        loaded = load_file(self.path)
        file_errors = [e for e in loaded.errors if not e.case]
        if file_errors:
            raise self.CollectError("; ".join(e.problem for e in file_errors))
        for error in loaded.errors:  # a broken case fails alone; its neighbours still run
            name = f"{error.case}[definition]"
            yield CaseDefinitionItem.from_parent(self, name=name, nodeid=item_nodeid(self, name), problem=error.problem)
        for item in plan(loaded.cases, self.config.stash[SESSION].options):
            yield CaseItem.from_parent(self, name=item.id, nodeid=item_nodeid(self, item.id), planned=item)


def item_nodeid(parent: pytest.File, name: str) -> str:
    """The item's node id, given whole: pytest then reads it (path, name, [params]) as it reads the ids it
    caches for --lf/--ff/--sw, so the two match (built from the name alone, 'case[check-mode-backend]' was one
    opaque name to pytest 9 and never matched its cache: --lf re-ran everything)."""
    return f"{parent.nodeid}::{name}"




def verdict_properties(verdict: Any, report_dir: Optional[str]) -> List[tuple]:
    """The JUnit properties of one verdict (every status, crashed included). The verdict leaves out its error
    samples: the report's plots come from the journals, and --junitxml stays small."""
    from migcheck.report.jsonfile import safe_name
    from migcheck.serialize import verdict_to_json

    props = [(VERDICT_PROPERTY, json.dumps(verdict_to_json(verdict, error_samples=False))),
             ("migcheck_status", plain(verdict.status)), ("migcheck_kind", plain(verdict.kind or ""))]
    worst = verdict.worst
    if worst is not None:
        props += [("max_abs_err", f"{worst.max_abs_err:.6g}"), ("max_rel_err", f"{worst.max_rel_err:.6g}")]
    if report_dir:
        props.append(("migcheck_page", str(Path(report_dir) / "cells" / f"{safe_name(verdict.case)}.html")))
    return props


class MigcheckFailure(Exception):
    def __init__(self, verdict: Any) -> None:
        self.verdict = verdict
        super().__init__(verdict.message)


class CaseItem(pytest.Item):
    def __init__(self, *, planned: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.planned = planned
        self.add_marker("migcheck")
        for tag in planned.case.tags:
            self.add_marker(tag.replace("-", "_"))
        # A case's timeout= applies to each of its items through pytest-timeout, when it is installed.
        if planned.case.timeout is not None and self.config.pluginmanager.hasplugin("timeout"):
            self.add_marker(pytest.mark.timeout(planned.case.timeout))

    def setup(self) -> None:
        """The item runs here: an error, crash or timeout verdict is raised now, so that pytest and
        --junitxml count it as an error (with its message), while a wrong result is a failure (runtest)."""
        self.verdict = None
        option = self.config.option
        if getattr(option, "setuponly", False) or getattr(option, "setupplan", False):  # --setup-only runs nothing
            return
        session = self.config.stash[SESSION]
        try:
            verdict = session.step(self.planned)
        except pytest.fail.Exception as exc:  # pytest-timeout ("signal" method) stopped a hung item
            if "pytest-timeout" not in str(exc) and not str(exc).startswith("Timeout"):
                raise
            verdict = session.timed_out(self.planned, str(exc))
        if session.write_error:  # the journal cannot be written: stop, keeping what was journaled
            self.session.shouldstop = session.write_error
        self.verdict = verdict
        self.user_properties += verdict_properties(verdict, session.report)
        # Raised in the item's setup, so that pytest and --junitxml count them as errors, not failures.
        status = Status.of(verdict.status)
        if status is not None and status.unjudged and not verdict.as_expected:
            pytest.fail(self._explain(verdict), pytrace=False)

    def runtest(self) -> None:
        verdict = self.verdict
        if verdict is None:
            return
        if verdict.status == "skip":
            pytest.skip(verdict.message)
        if verdict.status == "xfail":
            pytest.xfail(verdict.message)
        if not verdict.as_expected:
            raise MigcheckFailure(verdict)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Optional[str] = None) -> str:
        if isinstance(excinfo.value, MigcheckFailure):
            return self._explain(excinfo.value.verdict)
        return super().repr_failure(excinfo, style=style)

    @staticmethod
    def _explain(v: Any) -> str:
        from migcheck.report.terminal import failure_details

        return "\n".join([f"{v.status.upper()}: {v.message}"] + ["  " + d for d in failure_details(v)])

    def reportinfo(self):
        return self.path, None, f"{self.planned.case.name} [{self.planned.check}/{self.planned.mode}/{self.planned.backend}]"


class CaseDefinitionItem(pytest.Item):
    """Stands for a case that could not be used, so its file's other cases still run."""

    def __init__(self, *, problem: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.problem = problem

    def runtest(self) -> None:
        pytest.fail(f"bad case definition: {self.problem}", pytrace=False)

    def reportinfo(self):
        return self.path, None, self.name
