"""Candidate changes to a port's own call, generated from the two calls actually made (pure functions).

Given the MindSpore layer's constructor arguments and the torch layer's (runners/base.Constructor), the
candidates are: torch's value for each argument of matching meaning (aligned by the correspondence table
where it has rows, else by name, type and value), all of those at once, the other members of a string
argument's enumeration (read from the class's docstring or annotation), flipped booleans, and reordered
tuples (pairs swapped, order reversed). A port's own class (not the framework's) gets candidates only for
arguments that align with one of torch's: a switch of its own (`naive=True`) is not a setting torch has.
The correspondence table only orders candidates; every one is re-run before it counts (arg_search.py).
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from migcheck.runners.base import Argument, Constructor, TensorValue

# Names that mean the same across the two APIs but share no spelling.
_SYNONYMS = {"dim": "axis", "keepdim": "keepdims", "bias": "hasbias", "groups": "group", "numfeatures": "numchannels",
             "epsilon": "eps", "ord": "p", "dims": "axis", "diagonal": "k", "lambd": "lambda"}


FLIPPED_AGAINST_TORCH = "flipped, though torch's call has the port's value"


@dataclass(frozen=True)
class Candidate:
    changes: Tuple[Tuple[str, Any], ...]  # argument name -> the value tried
    why: str  # "torch's value", "flipped", "another member of mode's enumeration", "reordered"

    @property
    def against_torch(self) -> bool:
        """The change contradicts torch's own call: agreement then shows a workaround, not the cause."""
        return self.why == FLIPPED_AGAINST_TORCH

    def label(self) -> str:
        return ", ".join(f"{k}={v!r}" for k, v in self.changes) + f" ({self.why})"


def _norm(name: str) -> str:
    n = name.lower().replace("_", "")
    return _SYNONYMS.get(n, n)


def similarity(a: str, b: str) -> float:
    na, nb = _norm(a), _norm(b)
    if na == nb:
        return 1.0
    return difflib.SequenceMatcher(None, na, nb).ratio()


def _family(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "str"
    if isinstance(value, tuple):
        return "tuple"
    return "none" if value is None else "other"


def _sizes(value: Any) -> bool:
    """A positive int or a tuple of them: a kernel size, a stride."""
    values = value if isinstance(value, tuple) else (value,)
    return bool(values) and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in values)


def _kind_of(value: Any) -> str:
    """_family, with an axis kept as a list of one ([0], as an operator stores it) counted as a number."""
    return "number" if isinstance(value, tuple) and len(value) == 1 and _family(value[0]) == "number" else _family(value)


def align(torch_c: Constructor, ms_c: Constructor, table: Sequence[Tuple[str, str]] = ()) -> Dict[str, Argument]:
    """MindSpore argument name -> torch's argument of matching meaning: the table's (torch, ms) name pairs
    first, then names at least 0.8 alike whose values are of the same kind (None matches any kind)."""
    t_args = {a.name: a for a in torch_c.arguments}
    out: Dict[str, Argument] = {}
    used = set()
    for t_name, m_name in table:
        if t_name in t_args and any(a.name == m_name for a in ms_c.arguments):
            out[m_name] = t_args[t_name]
            used.add(t_name)
    for m in ms_c.arguments:
        if m.name in out:
            continue
        best: Optional[Tuple[float, Argument]] = None
        for t in torch_c.arguments:
            if t.name in used:
                continue
            score = similarity(m.name, t.name)
            kinds = {_kind_of(m.value), _kind_of(t.value)}
            if score >= 0.8 and (len(kinds) == 1 or "none" in kinds) and (best is None or score > best[0]):
                best = (score, t)
        if best is not None:
            out[m.name] = best[1]
            used.add(best[1].name)
    return out


def doc_choices(doc: str, name: str, annotation: str = "") -> Tuple[str, ...]:
    """The string values an argument may take, as its class documents them: a Literal annotation, else the
    quoted words in the argument's paragraph of the docstring's Args section."""
    literal = re.findall(r"'([^']+)'", annotation) if "Literal" in annotation else []
    if literal:
        return tuple(dict.fromkeys(literal))
    lines = doc.splitlines()
    start = next((i for i, line in enumerate(lines) if re.match(rf"\s*{re.escape(name)} \(", line)), None)
    if start is None:
        return ()
    indent = len(lines[start]) - len(lines[start].lstrip())
    para = [lines[start]]
    for line in lines[start + 1:]:
        stripped = line.strip()
        if stripped and len(line) - len(line.lstrip()) <= indent:
            break
        para.append(line)
    text = " ".join(para)
    # quoted ('mean') or in reStructuredText's literal markup (``add``); Python's constants are no members
    words = re.findall(r"""(?:["']|``)([A-Za-z][A-Za-z0-9_\-]*)(?:["']|``)""", text)
    return tuple(dict.fromkeys(w for w in words if w not in ("None", "True", "False")))


def _as_ms(torch_value: Any, ms_value: Any) -> Any:
    """torch's value in the MindSpore argument's form, or None when the two cannot be compared as they are."""
    if isinstance(ms_value, str) and isinstance(torch_value, str):
        return torch_value.upper() if ms_value.isupper() else torch_value
    if isinstance(torch_value, TensorValue) and ms_value is None:  # a class weight the port's layer leaves off
        return torch_value
    if _family(torch_value) == _family(ms_value) and _family(ms_value) != "tuple":
        return torch_value
    if isinstance(torch_value, tuple) and isinstance(ms_value, tuple) and len(torch_value) == len(ms_value):
        return torch_value
    if isinstance(ms_value, tuple) and len(ms_value) == 1 and _family(ms_value[0]) == _family(torch_value) == "number":
        return torch_value  # an operator that keeps one axis as a list of one ([0]): torch's number in its place
    if _family(ms_value) == "none" and _family(torch_value) in ("number", "str", "bool"):
        return torch_value
    return None


def _differs(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a != b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b) > 1e-9 * max(1.0, abs(a), abs(b))
    if isinstance(a, str) and isinstance(b, str):
        return a.lower() != b.lower()
    return a != b


def reorderings(value: Any) -> List[Any]:
    """The same tuple in other orders: reversed, its pairs swapped, each pair (row) reversed."""
    if not isinstance(value, tuple) or len(value) < 2:
        return []
    out = [tuple(reversed(value))]
    nested = all(isinstance(v, tuple) for v in value)
    if nested:
        out.append(value[:-2] + (value[-1], value[-2]))
        out.append(tuple(tuple(reversed(v)) for v in value))
    elif len(value) % 2 == 0 and len(value) >= 4:
        pairs = [value[i:i + 2] for i in range(0, len(value), 2)]
        out.append(tuple(v for p in reversed(pairs) for v in p))
        out.append(tuple(v for p in pairs for v in reversed(p)))
    return [v for v in dict.fromkeys(out) if v != value]


def setting_candidates(torch_c: Constructor, ms_c: Constructor, table: Sequence[Tuple[str, str]] = (),
                       rank: Optional[int] = None) -> List[Candidate]:
    """Every candidate change to the MindSpore call, most likely first (torch's values, then enumerations,
    flips and reorderings); only arguments whose value was read off the cell or that it documents."""
    aligned = align(torch_c, ms_c, table)
    out: List[Candidate] = []
    torch_values = []
    for m in ms_c.arguments:
        t = aligned.get(m.name)
        if t is None or not (m.found or m.has_default):
            continue
        value = _as_ms(t.value, m.value)
        if value is not None and _differs(value, m.value):
            torch_values.append((m.name, value))
            out.append(Candidate(((m.name, value),), f"torch's {t.name}"))
        elif t.value is None and m.value is not None and m.has_default and m.default is None:
            # torch's None where MindSpore's own default is None too (use_batch_statistics: by the mode)
            torch_values.append((m.name, None))
            out.append(Candidate(((m.name, None),), f"MindSpore's default, as torch's {t.name}"))
        if isinstance(value, float) and value and _differs(1.0 / value, m.value):  # one side divides, one multiplies
            out.append(Candidate(((m.name, 1.0 / value),), f"the reciprocal of torch's {t.name}"))
    if len(torch_values) > 1:
        out.append(Candidate(tuple(torch_values), "torch's values together"))
    out.extend(_by_kind(torch_c, ms_c, aligned))
    out.extend(_unset_in_torch(ms_c, aligned))
    out.extend(_other_scale(ms_c, aligned))
    out.extend(_per_count(torch_c, ms_c, aligned))
    out.extend(_axes_of_shapes(ms_c, rank, torch_c))
    out.extend(_count_of_another(torch_c, ms_c))
    open_args = [m for m in ms_c.arguments if (m.found or m.has_default) and (ms_c.library or m.name in aligned)]
    for m in open_args:
        if isinstance(m.value, str):
            # a member the port wrote in another letter case is a member of its own ('constant' for 'CONSTANT')
            choices = [c for c in doc_choices(ms_c.doc, m.name, m.annotation) if c != m.value]
            choices.sort(key=lambda c: c.lower() != m.value.lower())
            out.extend(Candidate(((m.name, c),), f"another member of {m.name}'s enumeration") for c in choices)
            # a mode that only takes torch's values alongside it (pad_mode='pad' with torch's padding)
            rest = tuple((k, v) for k, v in torch_values if k != m.name)
            out.extend(Candidate(((m.name, c),) + rest, f"another member of {m.name}'s enumeration with torch's"
                                 f" values") for c in choices if rest)
    # A flip that sets an argument away from the value torch's own call gives it contradicts torch: tried last,
    # and a match is a workaround, not the cause (arg_search.py says so and keeps it below [high]).
    agreeing = {m.name for m in open_args if m.name in aligned
                and not _differs(_as_ms(aligned[m.name].value, m.value), m.value)}
    flips = [Candidate(((m.name, not m.value),), FLIPPED_AGAINST_TORCH if m.name in agreeing else "flipped")
             for m in open_args if isinstance(m.value, bool)]
    out.extend(c for c in flips if c.why == "flipped")
    for m in open_args:
        for value in reorderings(m.value):
            out.append(Candidate(((m.name, value),), "reordered"))
    out.extend(c for c in flips if c.why == FLIPPED_AGAINST_TORCH)
    seen, unique = set(), []
    for c in out:
        key = repr(c.changes)
        if key not in seen:
            seen.add(key)
            unique.append(c)
    return unique


def _count_of_another(torch_c: Constructor, ms_c: Constructor) -> List[Candidate]:
    """A count the port set to 1 given another count of the two calls (GroupNorm(num_groups=1, num_channels=8) for
    torch's InstanceNorm2d(8): a group per channel, num_groups=8)."""
    counts = {a.value for a in list(torch_c.arguments) + list(ms_c.arguments)
              if a.found and isinstance(a.value, int) and not isinstance(a.value, bool) and a.value > 1}
    return [Candidate(((m.name, n),), f"{m.name} as the call's count {n}") for m in ms_c.arguments
            if m.found and m.value == 1 and not isinstance(m.value, bool) and (m.name.startswith("num_") or "group" in m.name)
            for n in sorted(counts)]


def _by_kind(torch_c: Constructor, ms_c: Constructor, aligned: Mapping[str, Argument]) -> List[Candidate]:
    """Arguments no name aligns (torch's correction, MindSpore's ddof): each number the port's call left
    unaligned given each differing number torch's call left unaligned, one at a time. Only numbers: a flag or a
    word of one API rarely means a number of the other, and every pairing tried costs a re-run."""
    used = {t.name for t in aligned.values()}
    ms_open = [m for m in ms_c.arguments if m.name not in aligned and (m.found or m.has_default)
               and _family(m.value) == "number"]
    torch_open = [t for t in torch_c.arguments if t.name not in used and _family(t.value) == "number"]
    return [Candidate(((m.name, type(m.value)(t.value) if isinstance(m.value, int) and float(t.value).is_integer()
                        else t.value),), f"torch's {t.name} (no name aligns them: same kind of value)")
            for m in ms_open for t in torch_open if _differs(t.value, m.value)][:6]


def _unset_in_torch(ms_c: Constructor, aligned: Mapping[str, Argument]) -> List[Candidate]:
    """An argument torch's call leaves None (torch then derives it: a pool's stride is its kernel size) where the
    port's holds a number: the port's own other numbers of the same form, one at a time."""
    out = []
    for m in ms_c.arguments:
        t = aligned.get(m.name)
        if t is None or t.value is not None or _family(m.value) not in ("number", "tuple") or isinstance(m.value, bool):
            continue
        if isinstance(m.value, float) and 0.0 < m.value < 1.0:  # a small float torch derives from the input's dtype
            eps = float(np.finfo(np.float32).eps)
            if _differs(eps, m.value):
                out.append(Candidate(((m.name, eps),), f"float32's machine epsilon (torch leaves {t.name} unset, None:"
                                     " derived from the input's dtype)"))
        for other in ms_c.arguments:  # a size given as one number or one per axis is the same kind of value
            if (other.name != m.name and _family(other.value) in ("number", "tuple") and not isinstance(other.value, bool)
                    and (_family(other.value) == _family(m.value) or _sizes(other.value) and _sizes(m.value))
                    and _differs(other.value, m.value)):
                out.append(Candidate(((m.name, other.value),), f"{other.name}'s value (torch leaves {t.name} unset,"
                                     f" None)"))
    return out[:4]


def _other_scale(ms_c: Constructor, aligned: Mapping[str, Argument]) -> List[Candidate]:
    """A small float both calls give the same value (an eps) that one side may apply to a squared quantity and
    the other to its root (a product of two norms vs each norm, a variance vs a standard deviation): the same
    value squared and its square root."""
    out = []
    for m in ms_c.arguments:
        t = aligned.get(m.name)
        v = m.value
        if (t is None or not isinstance(v, float) or isinstance(v, bool) or not 0.0 < v < 1.0
                or _differs(_as_ms(t.value, v), v)):
            continue
        out.append(Candidate(((m.name, float(f"{v * v:.6g}")),), f"the square of the {m.name}={v!r} both calls give: one side applies "
                             f"it to a squared quantity (a product of two norms, a variance)"))
        out.append(Candidate(((m.name, float(f"{v ** 0.5:.6g}")),), f"the square root of the {m.name}={v!r} both calls give: one side "
                             f"applies it to a root (a norm, a standard deviation)"))
    return out[:4]


def _axes_of_shapes(ms_c: Constructor, rank: Optional[int] = None, torch_c: Optional[Constructor] = None
                    ) -> List[Candidate]:
    """An axis argument where the call also takes a shape of several axes: the axis that shape starts at, counted
    from the start where the input's rank is known, else from the end (nn.LayerNorm((3, 4)) normalizes from
    begin_norm_axis=-1 by default; on a 3-D input the shape wants 1), every such axis argument together, then
    each alone."""
    def ints(v: Any) -> bool:
        return isinstance(v, tuple) and bool(v) and all(isinstance(x, int) and not isinstance(x, bool) for x in v)

    shapes = [m for m in ms_c.arguments if ints(m.value) and len(m.value) >= 2]
    # torch's own shape argument (F.layer_norm's normalized_shape) where the port's call holds none
    shapes += [t for t in (torch_c.arguments if torch_c is not None else ()) if "shape" in t.name and ints(t.value)
               and not any(m.name == t.name for m in shapes)]
    axes = [m for m in ms_c.arguments if "axis" in m.name.lower() and isinstance(m.value, int)
            and not isinstance(m.value, bool) and (m.found or m.has_default)]
    out = []
    for shape in shapes:
        starts = ([(rank - len(shape.value), f"of the {rank}-D input")] if rank and rank > len(shape.value) else [])
        starts.append((-len(shape.value), "counted from the end"))
        for start, how in starts:
            moved = [m for m in axes if m.value != start]
            why = f"the axis {shape.name}={shape.value} starts at, {how}"
            if len(moved) > 1:
                out.append(Candidate(tuple((m.name, start) for m in moved), why))
            out.extend(Candidate(((m.name, start),), why) for m in moved)
    return out[:6]


def _per_count(torch_c: Constructor, ms_c: Constructor, aligned: Mapping[str, Argument]) -> List[Candidate]:
    """A float setting one side applies per element of a count the call also takes (LRN's alpha, divided by the
    window size in torch and not in MindSpore): the port's value (torch's, where they align) divided and
    multiplied by each integer torch's call gives."""
    counts = [t for t in torch_c.arguments if isinstance(t.value, int) and not isinstance(t.value, bool)
              and t.value >= 2 and t.found]
    out = []
    for m in ms_c.arguments:
        if not isinstance(m.value, float) or not m.value or not (m.found or m.has_default):
            continue
        t = aligned.get(m.name)
        v = _as_ms(t.value, m.value) if t is not None else m.value
        if not isinstance(v, float) or not v:
            continue
        for c in counts:
            out.append(Candidate(((m.name, float(f"{v / c.value:.6g}")),),
                                 f"{m.name}={v!r} divided by torch's {c.name}={c.value}: one side applies it per element"))
            out.append(Candidate(((m.name, float(f"{v * c.value:.6g}")),),
                                 f"{m.name}={v!r} multiplied by torch's {c.name}={c.value}: one side applies it per element"))
    return out[:6]


def not_carried(torch_c: Constructor, ms_c: Constructor, table: Sequence[Tuple[str, str]] = ()) -> List[Argument]:
    """torch's arguments set away from their default that match none of the MindSpore call's arguments."""
    aligned = {t.name for t in align(torch_c, ms_c, table).values()}
    return [t for t in torch_c.arguments if t.found and t.has_default and t.name not in aligned
            and _differs(t.value, t.default)]


def alternative_kwargs(alt: Constructor, ms_c: Constructor, torch_c: Constructor) -> Optional[Dict[str, Any]]:
    """Another class's constructor arguments filled from the port's call (same names) and torch's (aligned
    by name); None when a required one has no value."""
    ms_values = {m.name: m.value for m in ms_c.arguments if m.found}
    out: Dict[str, Any] = {}
    for a in alt.arguments:
        if a.name in ms_values:
            out[a.name] = ms_values[a.name]
            continue
        best = max(torch_c.arguments, key=lambda t: similarity(a.name, t.name), default=None)
        if best is not None and similarity(a.name, best.name) >= 0.8 and best.found:
            value = _as_ms(best.value, a.value) if a.has_default else best.value
            if value is not None or best.value is None:
                if not a.has_default or _differs(best.value, a.default):
                    out[a.name] = best.value if value is None else value
                continue
        if not a.has_default:
            return None
    return out


def call_text(kind: str, library: bool, changes: Mapping[str, Any]) -> str:
    prefix = "nn." if library else ""
    return f"{prefix}{kind}(..., " + ", ".join(f"{k}={v!r}" for k, v in changes.items()) + ")"
