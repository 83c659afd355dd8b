"""A number (or string) argument of the port's op at a value torch's own calls in that region use: torch's counterpart may be
a module or a function of its own (a RoI align written out in torch calls), so no argument aligns by name, but
the number (a sampling ratio of 4, a base of 2) still shows up among torch's call arguments. Candidates come from
those calls only; a re-run of the construct that then agrees with torch confirms one (op_search.py)."""
from __future__ import annotations

import re
from typing import Any, List, Sequence, Tuple

from migcheck.records.ops import TENSOR, OpChange, OpRecord, placed
from migcheck.runners.base import Constructor

# Arguments that say where or how much, not a setting (an out-of-range value can bring a kernel down with it),
# or that hand the op its data (a Cast's input_x is the value cast; a formula's scalar operand, `var + eps`,
# is a setting and is tried).
_STRUCTURAL = re.compile(r"axis|axes|dim|shape|size|perm|dtype|^type$|index|indices|segments|split|^begin$|^end$"
                         r"|stride"
                         r"|^(input\w*|x|data|tensor|start|stop|step)$", re.I)  # or data
MAX_VALUES = 8  # distinct numbers of torch's tried per argument, in the order torch's calls used them
MAX_CHANGES = 16


def _numbers(torch_ops: Sequence[OpRecord]) -> List[Any]:
    seen: List[Any] = []
    for r in torch_ops:
        for v in tuple(r.positional) + tuple(v for _, v in r.keywords):
            if isinstance(v, (int, float)) and not isinstance(v, bool) and v not in seen:
                seen.append(v)
    return seen


def _strings(torch_ops: Sequence[OpRecord]) -> List[str]:
    return list(dict.fromkeys(v for r in torch_ops for v in tuple(r.positional) + tuple(v for _, v in r.keywords)
                              if isinstance(v, str) and v != TENSOR))


def region_numbers(index: int, ms_c: Constructor, where: Any, torch_ops: Sequence[OpRecord]
                   ) -> List[Tuple[OpChange, str]]:
    """(change, words) for each number argument of the port's call, at each other number torch's region used;
    each string argument at each other string torch's calls there pass (a mode, a padding kind)."""
    numbers = _numbers(torch_ops)
    out: List[Tuple[OpChange, str]] = []
    for a in ms_c.arguments:
        if isinstance(a.value, str) and not _STRUCTURAL.search(a.name):
            out += [(placed(index, where, ((a.name, v),)),
                     f"{a.name}={v!r} (a string torch's own calls there pass; no argument of theirs aligns by name)")
                    for v in _strings(torch_ops) if v != a.value and v.lower() != a.value.lower()][:MAX_VALUES]
            continue
        if isinstance(a.value, bool) or not isinstance(a.value, (int, float)) or _STRUCTURAL.search(a.name):
            continue
        whole = isinstance(a.value, int)
        if whole and where.get(a.name, ("",))[0] != "init":  # a call's int is an axis or a size more often than not
            continue
        tried = [int(v) if whole else float(v) for v in numbers if not whole or float(v).is_integer()]
        for v in list(dict.fromkeys(t for t in tried if t != a.value and not (whole and t <= 0)))[:MAX_VALUES]:
            out.append((placed(index, where, ((a.name, v),)),
                        f"{a.name}={v!r} (a number torch's own calls there use; no argument of theirs aligns by name)"))
    return out[:MAX_CHANGES]
