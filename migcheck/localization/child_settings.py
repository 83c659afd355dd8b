"""A library layer inside a port's own cell whose settings torch writes as a functional call (nn.Softmax() at
its default axis where torch's forward calls x.softmax(1)): no torch module pairs with it, so the argument search
never sees it. Each parameterless mindspore.nn child of the cell is rebuilt with each other axis for an axis
argument and the whole cell re-run on torch's recorded inputs; agreement with torch is the confirmed cause."""
from __future__ import annotations

import re
import time
from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

from migcheck.localization.arg_search import SearchOutcome
from migcheck.localization.confirm import agree_all
from migcheck.runners.base import ChildRebuild
from migcheck.runners.probes import MindSporeProbe

TolFor = Callable[[str], Tuple[float, float]]
_AXIS = re.compile(r"^(axis|dim)$")
MAX_RANK = 5


def child_settings(cell: MindSporeProbe, ms_name: str, inputs: Sequence[np.ndarray], torch_out: Any,
                   tol_for: TolFor) -> Optional[SearchOutcome]:
    """The first direct child's axis setting after which the cell agrees with torch; None when none does."""
    started, tried = time.monotonic(), []
    prefix = f"{ms_name}." if ms_name else ""
    try:
        kinds = cell.subcell_kinds()
    except Exception:  # a side that cannot list its cells
        return None
    children = [n for n in kinds if n.startswith(prefix) and "." not in n[len(prefix):] and n != ms_name]
    rank = max((np.ndim(x) for x in inputs if isinstance(x, np.ndarray)), default=0)
    for child in children:
        try:
            c = cell.constructor(child)
        except Exception:  # no constructor to read
            continue
        if not c.library or c.has_parameters:
            continue
        for arg in c.arguments:
            one = arg.value[0] if isinstance(arg.value, tuple) and len(arg.value) == 1 else arg.value
            if not _AXIS.match(arg.name) or not isinstance(one, int) or isinstance(one, bool):
                continue
            for axis in range(min(max(rank, 2), MAX_RANK)):
                new = type(arg.value)((axis,)) if isinstance(arg.value, tuple) else axis
                if new == arg.value or (one < 0 and axis == one % max(rank, 1)):
                    continue
                attr = child[len(prefix):]
                tried.append(f"'{child}' ({c.kind}) with {arg.name}={new!r}")
                try:
                    got = cell.rerun_with_attributes(ms_name, inputs, {attr: ChildRebuild(((arg.name, new),))})
                except Exception:  # a value the child refuses, or a shape the rest of the cell cannot take
                    continue
                if agree_all(torch_out, got, tol_for):
                    cause = (f"the port's {c.kind} '{child}' inside '{ms_name or '<root>'}' runs with {arg.name}="
                             f"{arg.value!r}, where torch's forward computes that step with a functional call: with"
                             f" {arg.name}={new!r}, '{ms_name or '<root>'}' re-run on torch's recorded inputs agrees with"
                             f" torch ({len(tried)} candidates tried)")
                    fix = f"nn.{c.kind}({arg.name}={arg.value!r}) -> nn.{c.kind}({arg.name}={new!r}) for '{child}'"
                    return SearchOutcome(cause, fix, True, tuple(tried), round(time.monotonic() - started, 3),
                                         "child-setting")
    return None
