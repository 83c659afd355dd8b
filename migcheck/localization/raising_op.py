"""The MindSpore call that raised, set beside torch's corresponding call: both calls' arguments side by side.

The raising call comes from a PYNATIVE re-run with the public call points wrapped and the queue drained after
each (runners/mindspore_raising_op.py), so it is the op that raised, not the layer after it. torch's calls
of the counterpart module come from one forward on the same inputs (runners/torch_call_args.py). Pairing
is by the operator's name (aliases only order: cat/concat, view/reshape, ...); without a name match, the
torch call at the same position among the module's own calls is shown and said to be paired by position.
"""
from __future__ import annotations

import re
from typing import Any, Callable, List, Optional, Sequence, Tuple

from migcheck.records.ops import RaisingCall
from migcheck.runners.probes import MindSporeProbe, TorchProbe

# MindSpore's name -> torch's name for the same operation, where they differ: they order which torch call
# is shown first, never decide anything.
_MS_TO_TORCH = {"concat": ("cat", "concat"), "reshape": ("view", "reshape"), "view": ("view", "reshape"),
                "expanddims": ("unsqueeze",), "gather": ("index_select",), "gatherelements": ("gather",),
                "gatherd": ("gather",), "batchmatmul": ("bmm", "matmul"), "matmul": ("matmul", "mm", "__matmul__"),
                "swapaxes": ("transpose",), "clipbyvalue": ("clamp", "clip")}


def squashed_name(name: str) -> str:
    return name.lower() if name.startswith("__") else name.lower().replace("_", "")


def torch_names(ms_name: str) -> Tuple[str, ...]:
    """'ops.concat' -> ('cat', 'concat'), 'primitive MatMul' -> ('matmul', 'mm', '__matmul__'), 'Tensor.view'
    -> ('view', 'reshape'); otherwise the name itself (squashed: no underscores, lower case, no Ext)."""
    short = squashed_name(ms_name.rsplit(" ", 1)[-1].rsplit(".", 1)[-1])
    short = short[:-3] if short.endswith("ext") and len(short) > 3 else short
    return tuple(squashed_name(n) for n in _MS_TO_TORCH.get(short, (short,)))


def same_operation(ms_name: str, torch_name: str) -> bool:
    """Whether two calls name the same operation: one's squashed name holds the other's as more than half of it
    (L2Normalize and normalize, ops.max and max, Squeeze and squeeze; not exp in logsumexp), or an alias pairs
    them (concat and cat)."""
    a, b = (squashed_name(n.rsplit(" ", 1)[-1].rsplit(".", 1)[-1]) for n in (ms_name, torch_name))
    short, long_ = sorted((a, b), key=len)
    return (short in long_ and 2 * len(short) > len(long_)) or b in torch_names(ms_name)


def counterpart_call(raised: RaisingCall, torch_owner: str, ms_position: int, torch_calls: Sequence[RaisingCall]
                     ) -> Tuple[Optional[RaisingCall], str]:
    """(torch's call set beside the raising one, how it was paired: "by name" / "by position"), or (None, "")."""
    own = [c for c in torch_calls if c.owner == torch_owner and "Tensor[" in c.text]  # calls on tensors
    wanted = torch_names(raised.name)
    same = sorted((c for c in own if squashed_name(c.name) in wanted), key=lambda c: wanted.index(squashed_name(c.name)))
    if len(same) == 1:
        return same[0], "by name"
    if len(same) > 1:
        return same[min(ms_position, len(same) - 1)], "by name and position"
    if 0 <= ms_position < len(own):
        return own[ms_position], "by position only"
    return None, ""


def side_by_side(raised: RaisingCall, torch_call: Optional[RaisingCall], how: str) -> str:
    text = f"the raising call: MindSpore {raised.text} in '{raised.owner or '<root>'}'"
    def short(child: str) -> str:
        return child.removeprefix(raised.owner + ".") if raised.owner else child

    if raised.fed_by:  # a functional op in construct: named by the sub-cells its arguments were computed from
        text += ", taking values computed from " + " and ".join(f"'{short(c)}' output" for c in raised.fed_by)
    elif raised.after:  # else placed as a value divergence between sub-cells is
        text += f", after '{short(raised.after)}' output"
    if raised.message:
        text += f" ({raised.message})"
    if torch_call is None:
        return text + "; torch's counterpart module made no call to set beside it"
    return text + f"; torch's corresponding call ({how}): {torch_call.text}"


def raising_call_site(cell: MindSporeProbe, inputs: Sequence[Any], dtypes: Sequence[str]) -> Optional[Tuple[RaisingCall, int]]:
    """The MindSpore runner's re-run with wrapped call points; None when no wrapped call raised."""
    try:
        return cell.raising_op(inputs, dtypes)
    except Exception:  # the wrapped re-run itself failed: the sub-cell-level location stands alone
        return None


_SHAPE = re.compile(r"Tensor\[[^\]]*\]")


def shapes(text: str) -> List[str]:
    """The tensor shapes a call's text shows, in order ("Tensor[2, 6]"; dtypes left out: int32 vs int64)."""
    return _SHAPE.findall(text)


def upstream_change(ms_calls: Sequence[RaisingCall], torch_calls: Sequence[RaisingCall],
                    torch_owner_of: Callable[[str], Optional[str]]) -> Optional[Tuple[RaisingCall, RaisingCall]]:
    """The first MindSpore call that ran through and returned another shape than torch's corresponding call
    (same name, same owner, inputs of the same shapes): where a wrong call's error starts when it surfaces later."""
    used: set = set()
    for m in ms_calls:
        owner = torch_owner_of(m.owner)
        if owner is None:
            continue
        wanted = torch_names(m.name)
        k = next((i for i, c in enumerate(torch_calls) if i not in used and c.owner == owner
                  and squashed_name(c.name) in wanted and shapes(c.text) == shapes(m.text)), None)
        if k is None:
            continue
        used.add(k)
        t_out, m_out = shapes(torch_calls[k].output), shapes(m.output)
        # one tensor out on each side: a tuple on one side only (max with dim: values and indices) is no evidence
        if len(t_out) == len(m_out) == 1 and t_out != m_out:
            return m, torch_calls[k]
    return None


def explain_raise(module: TorchProbe, inputs: Sequence[Any], dtypes: Sequence[str],
                  op: Tuple[RaisingCall, int, Tuple[RaisingCall, ...]], torch_owner: str,
                  torch_owner_of: Callable[[str], Optional[str]]) -> Tuple[Optional[RaisingCall], str, str]:
    """(the earlier MindSpore call whose output shape already differed from torch's, or None; the line to show;
    the argument MindSpore's error refuses, when it names one torch gave the same value: refused_argument)."""
    from migcheck.runners.torch_call_args import torch_calls

    try:
        calls = torch_calls(module, inputs, dtypes)
    except Exception:  # torch's forward cannot be traced again: the MindSpore call alone
        calls = []
    found, how = counterpart_call(op[0], torch_owner, op[1], calls)
    text = side_by_side(op[0], found, how)
    earlier = upstream_change(op[2], calls, torch_owner_of) if len(op) > 2 else None
    if earlier is None:
        return None, text, refused_argument(op[0], found)
    m, t = earlier
    return m, (f"the shape went wrong upstream, in '{m.owner or '<root>'}': MindSpore {m.text} returned {m.output}"
               f" where torch's {t.text} returned {t.output} from inputs of the same shapes; the error surfaced"
               f" later: {text.removeprefix('the raising call: ')}"), ""


_KEYWORD = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)=([^,\[\]()]+)")


def keyword_values(text: str) -> dict:
    """name -> value as written, for the `name=value` pairs of a call's text (a primitive's [attrs] included)."""
    return {m.group(1): m.group(2).strip() for m in _KEYWORD.finditer(text)}


def refused_argument(raised: RaisingCall, torch_call: Optional[RaisingCall]) -> str:
    """When MindSpore's error names one of the raising call's own arguments and torch's call gave that argument
    the same value, the setting MindSpore refuses: 'MindSpore's Elu refuses alpha=0.5 ...'. Read off the two
    calls and the message, not confirmed by a re-run; "" when the message names none of them."""
    if torch_call is None or not raised.message:
        return ""
    ms_args, torch_args = keyword_values(raised.text), keyword_values(torch_call.text)
    for name, value in ms_args.items():
        if name in torch_args and torch_args[name] == value and re.search(rf"\b{re.escape(name)}\b", raised.message):
            return (f"MindSpore's {raised.name} refuses {name}={value} ({raised.message.strip()}), the value torch's"
                    f" {torch_call.name} was called with: that setting has no equivalent in this MindSpore call")
    return ""
