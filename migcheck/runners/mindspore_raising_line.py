"""The line of the port's own code where a PYNATIVE forward raised, when no public call point raised (a Python
error in construct itself: calling a property torch has as a method, `h.size(0)`), and which attributes that line
calls that MindSpore's Tensor holds as plain values (properties)."""
from __future__ import annotations

import inspect
import linecache
import os
import re
from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence, Tuple

import mindspore as ms

import migcheck

_OWN = (os.path.dirname(ms.__file__), os.path.dirname(migcheck.__file__), os.path.dirname(os.__file__))
_CALLED = re.compile(r"\.(\w+)\s*\(")


@dataclass(frozen=True)
class RaisingLine:
    file: str
    line: int
    function: str  # "MsNet.construct"
    code: str
    error: str  # "TypeError: 'int' object is not callable"
    properties: Tuple[str, ...]  # attributes the line calls that mindspore.Tensor holds as properties


def raising_line(network: Any, call: Callable, args: Sequence[Any]) -> Optional[RaisingLine]:
    """The innermost frame of the port's own code in the traceback of one forward; None when it runs through."""
    try:
        call(*args)
        return None
    except Exception as exc:  # the error being located
        tb, own = exc.__traceback__, None
        while tb is not None:
            if not tb.tb_frame.f_code.co_filename.startswith(_OWN):
                own = tb
            tb = tb.tb_next
        if own is None:
            return None
        frame = own.tb_frame
        code = linecache.getline(frame.f_code.co_filename, own.tb_lineno).strip()
        holder = frame.f_locals.get("self")
        function = f"{type(holder).__name__}.{frame.f_code.co_name}" if holder is not None else frame.f_code.co_name
        props = tuple(a for a in dict.fromkeys(_CALLED.findall(code))
                      if isinstance(inspect.getattr_static(ms.Tensor, a, None), property))
        first = (str(exc).strip().splitlines() or [""])[0]
        return RaisingLine(os.path.basename(frame.f_code.co_filename), own.tb_lineno, function, code,
                           f"{type(exc).__name__}: {first[:200]}", props)
