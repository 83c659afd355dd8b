"""A layer the port calls without an argument torch's call carries in another form (torch's LSTM takes a packed
sequence, whose lengths MindSpore's nn.LSTM takes as construct's seq_length=): the layer cannot be fed torch's
inputs, so whether it is wrong on its own is unknown. Each optional parameter of the port's layer's construct
that the call left at None is given, in turn, each integer input of the network (as int32), and the layer is
re-run on its own recorded inputs. Outputs are compared where both sides' results have the same form (the last
leaves of the two result trees, of equal shape: an LSTM's (h, c)); the change is the confirmed cause only when
the call as written disagrees there and the changed call agrees.
"""
from __future__ import annotations

import time
from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

from migcheck.localization.confirm import agree
from migcheck.runners.probes import MindSporeProbe

TolFor = Callable[[str], Tuple[float, float]]


def _leaves(tree: Any) -> List[np.ndarray]:
    if isinstance(tree, np.ndarray):
        return [tree]
    if isinstance(tree, dict):
        return [a for v in tree.values() for a in _leaves(v)]
    if isinstance(tree, (list, tuple)):
        return [a for v in tree for a in _leaves(v)]
    return []


def _same_form(torch_out: Any, ms_out: Any) -> List[Tuple[np.ndarray, np.ndarray]]:
    """Float leaves paired from the end of both trees, while their shapes are equal."""
    out = []
    for t, m in zip(reversed(_leaves(torch_out)), reversed(_leaves(ms_out))):
        if t.shape != m.shape or t.dtype.kind != "f":
            break
        out.append((t, m))
    return out


def _agrees(torch_out: Any, ms_out: Any, tol: TolFor) -> bool:
    pairs = _same_form(torch_out, ms_out)
    return bool(pairs) and all(agree(t, m, tol) for t, m in pairs)


def fill_optional(cell: MindSporeProbe, ms_name: str, ms_inputs: Sequence[Any], torch_out: Any, ms_out: Any,
                  network_inputs: Sequence[Any], tol: TolFor) -> Optional[Tuple[str, str, Tuple[str, ...], float]]:
    """(cause, fix, candidates tried, seconds) when one optional argument makes the layer agree; else None.
    ms_out: what the port's call returned; the call without optional arguments must reproduce it (else the port
    passed one, and "left at None" would not be true)."""
    started = time.monotonic()
    try:
        optional, base = cell.call_optional(ms_name, list(ms_inputs), {})
    except Exception:  # the layer cannot run on its own recorded inputs
        return None
    if not optional or not _same_form(torch_out, base) or _agrees(torch_out, base, tol):
        return None
    ours = _leaves(ms_out)
    if not ours or len(ours) != len(_leaves(base)) or not all(
            a.shape == b.shape and np.array_equal(a, b) for a, b in zip(ours, _leaves(base))):
        return None  # the port's call passed something: not a call that left its optional arguments out
    given = [(k, np.asarray(x)) for k, x in enumerate(network_inputs)
             if isinstance(x, np.ndarray) and x.dtype.kind in "iu" and x.ndim == 1 and x.size <= 4096]
    tried: List[str] = []
    for param in optional:
        for k, x in given:
            tried.append(f"{param}=network input {k} (int32)")
            try:
                _, got = cell.call_optional(ms_name, list(ms_inputs), {param: x.astype(np.int32)})
            except Exception:  # a value this parameter refuses
                continue
            if _agrees(torch_out, got, tol):
                cause = (f"the port calls its layer '{ms_name}' without {param}= (left at None), where torch's layer"
                         f" takes its inputs in another form (such as a packed sequence, which carries lengths): re-run"
                         f" on its own"
                         f" recorded input with {param}= the network's integer input {k} {x.tolist()[:8]}, its"
                         f" result agrees with torch's where both have the same form ({len(tried)} candidates tried)")
                fix = (f"pass {param}= (network input {k}, as int32) when calling '{ms_name}' in construct:"
                       f" self.{ms_name.rsplit('.', 1)[-1]}(x, {param}=<input {k}>.astype(mindspore.int32))")
                return cause, fix, tuple(tried), round(time.monotonic() - started, 3)
    return None
