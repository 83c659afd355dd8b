"""An exception raised by a side, turned into an outcome: its kind, a short message, the user's frames."""
from __future__ import annotations

import traceback
from pathlib import Path
from typing import Callable, Optional, Tuple

from migcheck.planning.items import Item
from migcheck.running.outcome import Outcome
from migcheck.vocab import Kind


def error_outcome(exc: BaseException, item: Item, side: str = "",
                  pynative_runs: Optional[Callable[[], Optional[bool]]] = None) -> Outcome:
    """pynative_runs: re-runs the item in PYNATIVE and says whether it got through; asked only for a
    MindSpore failure in GRAPH mode, so that the GRAPH hint is given only where GRAPH alone fails."""
    from migcheck.localization.exceptions import classify
    from migcheck.runners import mindspore_context

    where = side or "mindspore"
    ms_failed = side != "torch"
    text = _first_lines(str(exc), 3)
    found = classify(str(exc), item.backend) if ms_failed else None
    graph_only = None
    if item.mode == "graph" and ms_failed and pynative_runs is not None:
        graph_only = pynative_runs()
    banner = item.mode == "graph" and ms_failed and mindspore_context.is_graph_compile_error(exc)
    notes: Tuple[str, ...] = ()
    hint = getattr(exc, "migcheck_hint", "")  # set by a runner that knows why (a torch-like MindSpore module)
    if hint and item.mode == "graph" and ms_failed:
        return Outcome(Kind.GRAPH_COMPILE_ERROR, f"GRAPH mode could not compile the port: {text}; hint: {hint}",
                       error=_excerpt(exc, item.case.file))
    if graph_only or (banner and graph_only is None):
        checked = "; the same item runs in PYNATIVE (re-run), so only GRAPH compilation fails" if graph_only else ""
        message = (f"GRAPH mode could not compile the cell: {text}{checked}; what GRAPH cannot compile is in"
                   f" construct (the excerpt shows the line): move numpy/Python-object work into __init__, or"
                   f" run this case in PYNATIVE only (skip={{'graph': '...'}})")
        return Outcome(Kind.GRAPH_COMPILE_ERROR, message, error=_excerpt(exc, item.case.file))
    message = f"{where} side raised {type(exc).__name__}: {text}"
    if found is not None:
        message += f"; cause: {found.cause}"
        notes += (f"diagnosis [{found.rule}]: {found.cause}" + (f" ({found.said})" if found.said else ""),)
    if graph_only is False:
        notes += ("PYNATIVE fails the same way (re-run): not a GRAPH-mode limit",)
    return Outcome(Kind.ERROR, message, error=_excerpt(exc, item.case.file), notes=notes)


def _first_lines(text: str, n: int) -> str:
    """The message's first lines, stopping at MindSpore's '----' banners (its C++ stack follows)."""
    lines = []
    for line in text.strip().splitlines():
        if line.startswith("-----"):
            break
        if line.strip():
            lines.append(line.strip())
    return " / ".join(lines[:n]) if lines else "(no message)"


def _excerpt(exc: BaseException, case_file: str) -> str:
    """The exception and the frames in the user's case file; migcheck's own frames are noise."""
    frames = traceback.extract_tb(exc.__traceback__)
    package = str(Path(__file__).parents[1])  # migcheck/: frames there say nothing about the case
    mine = ([f for f in frames if case_file and f.filename == case_file]
            or [f for f in frames if not f.filename.startswith(package)][-2:])
    lines = [f"{f.filename}:{f.lineno} in {f.name}: {f.line or ''}".rstrip() for f in mine]
    body = str(exc).strip().splitlines()
    construct = [line for line in body if line.strip().startswith(("# ", "In file"))][:6]
    return "\n".join(lines + [f"{type(exc).__name__}: {_first_lines(str(exc), 8)}"] + construct)
