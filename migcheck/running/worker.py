"""The child side of `migcheck compare --isolate` (see migcheck/isolate.py): `python -m migcheck.running.worker`.

Reads one JSON request on stdin: {"file", "case", "items": [[check, mode, backend], ...], "options",
"preload"}. Writes JSON lines on its stdout: {"event": "ready"} once the case is loaded, then per
item {"event": "start", "item": id} and {"event": "verdict", "verdict": {...}}, or a single
{"event": "error", "message": ...} when the case cannot be set up. Anything else (prints from the
case, framework logs, faulthandler stacks) goes to stderr: stdout is moved out of everybody's way
before any user code runs.
"""
from __future__ import annotations

import faulthandler
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any, Dict, TextIO


def _protocol_stream() -> TextIO:
    """A private copy of stdout for the events; fd 1 itself then points at stderr, so that a print (or a
    C library writing to fd 1) in user code cannot corrupt the protocol."""
    stream = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)  # os.dup: not inherited by grandchildren
    os.dup2(2, 1)
    return stream


def main() -> int:
    os.environ.setdefault("GLOG_v", "3")
    events = _protocol_stream()
    faulthandler.enable()  # SIGSEGV, SIGABRT, ...: the Python stack goes to stderr before the process dies
    if hasattr(signal, "SIGUSR1"):
        faulthandler.register(signal.SIGUSR1, all_threads=True)  # the parent asks for stacks before a timeout kill

    def send(event: Dict[str, Any]) -> None:
        events.write(json.dumps(event) + "\n")
        events.flush()

    request = json.loads(sys.stdin.read())
    from migcheck.planning.discovery import load_file
    from migcheck.running.pipeline import Item, run_item
    from migcheck.options import from_json as options_from_json
    from migcheck.serialize import verdict_to_json

    options = options_from_json(request["options"])
    loaded = load_file(Path(request["file"]))
    case = next((c for c in loaded.cases if c.name == request["case"]), None)
    if case is None:
        problems = "; ".join(str(e) for e in loaded.errors) or "no such case in the file"
        send({"event": "error", "message": f"the child process could not load case {request['case']!r}"
                                           f" from {request['file']}: {problems}"})
        return 0
    if request.get("preload"):
        # The frameworks load before the case's time starts, so a timeout measures the case, not the imports.
        import migcheck.runners.mindspore_side  # noqa: F401
        if not options.golden:
            import migcheck.runners.torch_side  # noqa: F401
    send({"event": "ready"})
    for check, mode, backend in request["items"]:
        item = Item(case, check, mode, backend)
        send({"event": "start", "item": item.id})
        verdict = run_item(item, options)
        send({"event": "verdict", "verdict": verdict_to_json(verdict)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
