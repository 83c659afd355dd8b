"""An exception raised by a side, turned into an outcome: its kind, a short message, the user's frames."""
from __future__ import annotations

import traceback
from pathlib import Path

from migcheck.planning.items import Item
from migcheck.running.outcome import Outcome
from migcheck.vocab import Kind


def error_outcome(exc: BaseException, item: Item, side: str = "") -> Outcome:
    from migcheck.runners import mindspore_side

    graph = item.mode == "graph" and side != "torch" and mindspore_side.is_graph_compile_error(exc)
    kind = Kind.GRAPH_COMPILE_ERROR if graph else Kind.ERROR
    where = side or "mindspore"
    text = _first_lines(str(exc), 3)
    message = f"{where} side raised {type(exc).__name__}: {text}"
    hint = getattr(exc, "migcheck_hint", "")  # set by a runner that knows why (a torch-like MindSpore module)
    if hint and item.mode == "graph" and side != "torch":
        kind = Kind.GRAPH_COMPILE_ERROR
        message = f"GRAPH mode could not compile the port: {text}; hint: {hint}"
    elif graph:
        message = (f"GRAPH mode could not compile the cell: {text}; hint: move numpy/Python-object work out of"
                   f" construct (into __init__) or run this case in PYNATIVE only (skip={{'graph': '...'}})")
    return Outcome(kind, message, error=_excerpt(exc, item.case.file))


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
