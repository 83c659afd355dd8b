"""A parameterless layer ported as another parameterless class (a Swish written out by hand in torch, ported as
HSwish; QuickGELU as GELU): every mindspore.nn layer built without arguments and taking as many tensors is run on
torch's recorded input; one that agrees with torch there and on second inputs is the confirmed fix. Measured,
not named: the candidates are what the installed MindSpore offers, ordered by name likeness only."""
from __future__ import annotations

import difflib
import time
from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

from migcheck.localization.beyond import SecondInputs
from migcheck.runners.probes import MindSporeProbe

MAX_CLASSES = 64
MAX_SECONDS = 10.0


def sweep_classes(cell: MindSporeProbe, ms_name: str, torch_kind: str, ms_kind: str, inputs: Sequence[np.ndarray],
                  matches_torch: Callable[[Any], bool], second: SecondInputs, tried: List[str]
                  ) -> Optional[Tuple[str, str]]:
    """(cause, fix) for the first class that agrees with torch; None when none does. `tried` grows."""
    try:
        names = [n for n in cell.default_classes(len(inputs)) if n != ms_kind]
    except Exception:  # no class list on this side
        return None
    names.sort(key=lambda n: -difflib.SequenceMatcher(None, n.lower(), torch_kind.lower()).ratio())
    started, count = time.monotonic(), 0
    for name in names[:MAX_CLASSES]:
        if time.monotonic() - started > MAX_SECONDS:
            break
        count += 1
        tried.append(f"nn.{name}() (parameterless class sweep)")
        try:
            got = cell.run_alternative(ms_name, name, {}, inputs)
        except Exception:  # a layer that cannot take this input
            continue
        if not matches_torch(got):
            continue
        beyond = second.check_run(lambda arrays, n=name: cell.run_alternative(ms_name, n, {}, arrays))
        if not beyond.ok:
            tried[-1] += f" (rejected: {beyond.words})"
            continue
        try:  # its defaults written out: the fix does not lean on a default another version may change
            shown = ", ".join(f"{k}={v!r}" for k, v in cell.class_defaults(name))
        except Exception:  # no signature to read
            shown = ""
        code = f"mindspore.nn.{name}({shown})"
        cause = (f"the port's {ms_kind} does not compute torch's {torch_kind}: {code} in its place agrees with torch"
                 f" (re-run on torch's recorded input; {count} parameterless mindspore.nn layers built with their"
                 f" defaults run){'; ' + beyond.words if beyond.words else ''}")
        return cause, f"use {code} in place of {ms_kind}"
    return None
