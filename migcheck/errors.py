"""Exceptions that carry structured data; they become text only at the edges (CLI, pytest, reports)."""
from __future__ import annotations


class MigcheckError(Exception):
    """Base class for errors migcheck raises on purpose."""


class CaseDefinitionError(MigcheckError):
    """A paired case is described wrongly; the message names the case and the fix."""

    def __init__(self, case: str, problem: str, fix: str = "") -> None:
        self.case = case
        self.problem = problem
        self.fix = fix
        text = f"case {case!r}: {problem}"
        if fix:
            text += f" (fix: {fix})"
        super().__init__(text)


class CollectionError(MigcheckError):
    """A case file could not be loaded."""

    def __init__(self, path: str, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(f"{path}: {problem}")
