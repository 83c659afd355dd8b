"""Pair two captured executions through their tensors, not their names. Numpy only.

With the weights transferred, most intermediate activations of a correct port equal the original's.
So a torch sub-module is paired with the MindSpore sub-cell whose output equals its output (shape and
values within tolerance); names and the weight mapping are hints that win ties and pair layers whose
outputs already differ. This pairs parameterless sub-cells (pools, activations), renamed or
re-registered children, and a fused torch module (BatchNorm+activation) with the chain of MindSpore
cells that computes the same thing. The first divergence is the earliest torch call whose inputs all
equal some MindSpore tensor while its output equals none; when that call is a container, the defect
sits in a functional op between two of its children, reported as "between A's output and B's input".
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from migcheck.util.closeness import close  # noqa: F401  (re-exported)

TolFor = Callable[[str], Tuple[float, float]]  # dtype name -> (rtol, atol)


@dataclass(frozen=True)
class Pair:
    torch_index: int  # position in the torch calls (completion order)
    ms_indices: Tuple[int, ...]  # one MindSpore call, or a chain of leaf calls (a fused torch module)
    how: str  # "weights" | "name" | "value" | "input" | "kind" | "inputs and kind"


@dataclass(frozen=True)
class Dataflow:
    pairs: Tuple[Pair, ...]
    inputs_matched: Tuple[bool, ...]  # per torch call: every float input equals some MindSpore tensor
    output_matched: Tuple[bool, ...]  # per torch call: its output equals some MindSpore tensor
    first: Optional[int]  # torch call index of the first divergence
    between: Optional[Tuple[str, str]]  # (last agreeing child, first child fed a wrong value) inside `first`

    def pair_of(self, torch_index: int) -> Optional[Pair]:
        return next((p for p in self.pairs if p.torch_index == torch_index), None)


def _floats(tree: Any) -> List[np.ndarray]:
    if isinstance(tree, np.ndarray):
        return [tree] if tree.dtype.kind in "fc" else []
    if isinstance(tree, (list, tuple)):
        return [a for v in tree for a in _floats(v)]
    if isinstance(tree, dict):
        return [a for v in tree.values() for a in _floats(v)]
    return []


def _main_output(call: Any) -> Optional[np.ndarray]:
    outs = _floats(call.output)
    return outs[0] if outs else None


class _Index:
    """MindSpore tensors by shape, each with a cheap sketch that rules most candidates out before allclose."""

    def __init__(self, tol_for: TolFor):
        self.tol_for = tol_for
        self.by_shape: Dict[Tuple[int, ...], List[Tuple[int, np.ndarray, float, float]]] = {}
        self.by_size: Dict[int, List[Tuple[int, np.ndarray, float, float]]] = {}

    def add(self, key: int, a: np.ndarray) -> None:
        a64 = a.astype(np.float64, copy=False)
        finite = np.isfinite(a64)
        entry = (key, a, float(a64[finite].sum()), float(np.abs(a64[finite]).sum()))
        self.by_shape.setdefault(a.shape, []).append(entry)
        if a.ndim >= 2:
            self.by_size.setdefault(a.size, []).append(entry)

    def matches(self, a: np.ndarray, first_only: bool = True, reshaped: bool = False) -> List[int]:
        """Keys of the tensors equal to `a`; reshaped: also those holding its values in another shape of the same
        size (a layer that flattens to 2-D before its activation: nn.Dense hands GELU a (N*T, C) view)."""
        out = []
        rtol, atol = self.tol_for(str(a.dtype))
        a64 = a.astype(np.float64, copy=False)
        finite = np.isfinite(a64)
        s, sa = float(a64[finite].sum()), float(np.abs(a64[finite]).sum())
        slack = a.size * atol + rtol * sa + 1e-9 * (sa + 1.0)
        pool = list(self.by_shape.get(a.shape, ()))
        if reshaped and a.ndim >= 2:
            pool += [e for e in self.by_size.get(a.size, ()) if e[1].shape != a.shape]
        for key, b, bs, bsa in pool:
            if abs(s - bs) > slack or abs(sa - bsa) > slack:
                continue  # sum|a-b| <= n*atol + rtol*sum|a| bounds both differences
            if close(a.reshape(-1), b.reshape(-1), rtol, atol):
                out.append(key)
                if first_only:
                    break
        return out


def _words(name: str) -> set:
    return {w for w in re.split(r"[._\d]+", re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()) if w}


def kind_family(kind: str) -> str:
    """A class name reduced to what both frameworks call it: the torch class it stands for (the knowledge
    table: Dense -> Linear, Conv2dTranspose -> ConvTranspose2d, SequentialCell -> Sequential), without its
    rank suffix or a port's "Cell" suffix, in lower case: linear, maxpool, convtranspose."""
    from migcheck.knowledge.lookup import torch_name

    return re.sub(r"(\d+d|Cell)$", "", torch_name(kind)).lower().replace("_", "")


def descendants(names: Sequence[str], name: str) -> List[int]:
    prefix = name + "." if name else ""
    return [i for i, n in enumerate(names) if n != name and n.startswith(prefix)]


def pair_calls(torch_calls: Sequence[Any], ms_calls: Sequence[Any], hints: Mapping[str, str], tol_for: TolFor,
               network_inputs: Sequence[np.ndarray] = (), judge_root: bool = True) -> Dataflow:
    """Pair each torch call with the MindSpore call(s) computing the same tensor, in execution order.

    hints: torch module path -> MindSpore cell path (owners of mapped weights, shared names).
    network_inputs: the arrays both sides were fed (they match by construction).
    judge_root: compare the whole network's output with MindSpore's own output (what a forward or train
    verdict compared; not when the case adapts MindSpore's outputs first, nor for gradients and steps).
    """
    index = _Index(tol_for)
    ms_out: Dict[int, np.ndarray] = {}
    for j, call in enumerate(ms_calls):
        out = _main_output(call)
        if out is not None:
            ms_out[j] = out
            index.add(j, out)
    inputs_index = _Index(tol_for)
    for j, call in enumerate(ms_calls):
        for a in _floats(list(call.inputs)):
            inputs_index.add(j, a)
    for k, a in enumerate(_floats(list(network_inputs))):
        inputs_index.add(-1 - k, a)

    def known(a: np.ndarray) -> bool:
        return bool(index.matches(a) or inputs_index.matches(a, reshaped=True))

    t_names = [c.name for c in torch_calls]
    m_names = [c.name for c in ms_calls]
    m_leaf = [not descendants(m_names, n) or n == "" and len(m_names) == 1 for n in m_names]
    in_ok, out_ok = [], []
    for call in torch_calls:
        in_ok.append(all(known(a) for a in _floats(list(call.inputs))))
        out = _main_output(call)
        out_ok.append(out is not None and known(out))

    occurrences: Dict[str, int] = {}
    ms_by_key: Dict[Tuple[str, int], int] = {}
    seen: Dict[str, int] = {}
    for j, n in enumerate(m_names):
        ms_by_key[(n, seen.get(n, 0))] = j
        seen[n] = seen.get(n, 0) + 1
    used: set = set()
    pairs: List[Pair] = []
    last_ms = -1
    for i, call in enumerate(torch_calls):
        occ = occurrences.get(call.name, 0)
        occurrences[call.name] = occ + 1
        out = _main_output(call)
        chosen: Optional[Tuple[Tuple[int, ...], str]] = None
        hinted = hints.get(call.name)
        j = ms_by_key.get((hinted, occ)) if hinted is not None else None
        if j is not None:
            how = "name" if hinted == call.name else "weights"
            chosen = ((j,), how)
            if out is not None and j in ms_out and not close(out, ms_out[j], *tol_for(str(out.dtype))) and out_ok[i]:
                span = _fused_span(j, out, ms_calls, ms_out, m_leaf, tol_for)
                if span:
                    chosen = (span, how)
        if chosen is None and out is not None and out_ok[i]:
            cands = [j for j in index.matches(out, first_only=False) if j not in used]
            cands = [j for j in cands if _same_inputs(call, ms_calls[j], tol_for)] or cands
            if cands:
                chosen = ((_best(call, cands, ms_calls, m_leaf, t_names, last_ms),), "value")
        if chosen is None and out is not None and in_ok[i] and call.inputs:
            cands = [j for j in range(len(ms_calls)) if j not in used and j in ms_out
                     and ms_out[j].shape == out.shape and _same_inputs(call, ms_calls[j], tol_for)
                     and _compatible(call.kind, ms_calls[j].kind)]
            if cands:
                chosen = ((_best(call, cands, ms_calls, m_leaf, t_names, last_ms),), "input")
        if chosen is None and out is not None and not descendants(t_names, call.name):
            cands = [j for j in range(last_ms + 1, len(ms_calls)) if j not in used and m_leaf[j] and j in ms_out
                     and ms_out[j].shape == out.shape and kind_family(ms_calls[j].kind) == kind_family(call.kind)]
            if cands:
                chosen = ((cands[0],), "kind")
        if chosen is None and out is not None and in_ok[i] and not out_ok[i] and call.inputs \
                and not descendants(t_names, call.name):
            # a renamed parameterless layer whose output *shape* differs (a pool's stride or ceil_mode): the same
            # inputs into a leaf of the same kind family, the first such after the last pair
            cands = [j for j in range(last_ms + 1, len(ms_calls)) if j not in used and m_leaf[j] and j in ms_out
                     and ms_out[j].shape != out.shape and _same_inputs(call, ms_calls[j], tol_for)
                     and _compatible(call.kind, ms_calls[j].kind)]
            if cands:
                chosen = ((cands[0],), "inputs and kind")
        if chosen is not None:
            js, how = chosen
            used.update(js)
            pairs.append(Pair(i, js, how))
            if m_leaf[js[-1]]:
                last_ms = max(last_ms, js[-1])
    for p in pairs:  # a layer paired by its weights or name that MindSpore fed another value than torch's own input
        i, j = p.torch_index, p.ms_indices[0]
        if p.how in ("weights", "name") and in_ok[i] and len(p.ms_indices) == 1 and m_leaf[j] \
                and _fed_otherwise(torch_calls[i], ms_calls[j], tol_for):
            in_ok[i] = False  # the value reaching it differs (a random op before it): the place is upstream
    roots = [(i, m_names.index("")) for i, call in enumerate(torch_calls) if call.name == "" and "" in m_names
             and judge_root]
    for i, j in roots:  # the whole network's output is what the verdict compared: equal to some other MindSpore
        out_ok[i] = _agree(torch_calls[i].output, ms_calls[j].output, tol_for)  # tensor is not enough
    root = roots[0][0] if roots else None
    diverging = [i for i in range(len(torch_calls)) if in_ok[i] and not out_ok[i]
                 and (_main_output(torch_calls[i]) is not None or i == root)]
    first = next(iter(diverging), None)
    paired_at = {p.torch_index for p in pairs}
    if first is not None and first not in paired_at:  # computed by ops in the port: no cell output shows it;
        inside = [i for i in diverging if i > first and i in paired_at  # a later paired layer fed agreeing
                  and not (t_names[i] == "" or t_names[first].startswith(t_names[i] + "."))]  # inputs is proof
        first = inside[0] if inside else first
    between = _between(first, torch_calls, in_ok, out_ok) if first is not None else None
    return Dataflow(tuple(pairs), tuple(in_ok), tuple(out_ok), first, between)


def _agree(a: Any, b: Any, tol_for: TolFor) -> bool:
    """Two output trees: floats within tolerance, anything else (indices, masks) exactly, shapes always."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_agree(x, y, tol_for) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return set(a) == set(b) and all(_agree(a[k], b[k], tol_for) for k in a)
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        if a.shape != b.shape:
            return False
        if a.dtype.kind in "fc" and b.dtype.kind in "fc":
            return close(a, b, *tol_for(str(a.dtype)))
        return bool(np.array_equal(a, b))
    return a is None or b is None  # a leaf the hooks could not convert (attention weights not asked for)


def _same_inputs(t_call: Any, m_call: Any, tol_for: TolFor) -> bool:
    """Equal float inputs; one held in another shape of the same size counts (a view flattened to 2-D)."""
    a, b = _floats(list(t_call.inputs)), _floats(list(m_call.inputs))
    return bool(a) and len(a) == len(b) and all(
        close(x, y, *tol_for(str(x.dtype))) if x.shape == y.shape else
        x.size == y.size and x.ndim >= 2 and y.ndim >= 2 and close(x.reshape(-1), y.reshape(-1), *tol_for(str(x.dtype)))
        for x, y in zip(a, b))


def _fed_otherwise(t_call: Any, m_call: Any, tol_for: TolFor) -> bool:
    """Both calls got float inputs of the same shapes, and MindSpore's values differ from torch's."""
    a, b = _floats(list(t_call.inputs)), _floats(list(m_call.inputs))
    return bool(a) and len(a) == len(b) and all(x.shape == y.shape for x, y in zip(a, b)) \
        and not _same_inputs(t_call, m_call, tol_for)


def _compatible(t_kind: str, m_kind: str) -> bool:
    from migcheck.knowledge.lookup import corresponds

    return kind_family(t_kind) == kind_family(m_kind) or corresponds(t_kind, m_kind)


def _best(t_call: Any, cands: Sequence[int], ms_calls: Sequence[Any], m_leaf: Sequence[bool],
          t_names: Sequence[str], last_ms: int) -> int:
    """Among equal tensors: same class family, then shared name words, then leafness, then nearest after the last pair."""
    t_leaf = not descendants(t_names, t_call.name)
    words = _words(t_call.name)

    def score(j: int) -> Tuple:
        m = ms_calls[j]
        return (kind_family(m.kind) != kind_family(t_call.kind), -len(words & _words(m.name)),
                m_leaf[j] != t_leaf, j <= last_ms, abs(j - last_ms))

    return min(cands, key=score)


def _fused_span(start: int, out: np.ndarray, ms_calls: Sequence[Any], ms_out: Mapping[int, np.ndarray],
                m_leaf: Sequence[bool], tol_for: TolFor, longest: int = 3) -> Tuple[int, ...]:
    """A chain of MindSpore leaf calls, each fed the previous one's output, that ends in torch's output."""
    chain = [start]
    j = start + 1
    while j < len(ms_calls) and len(chain) < longest:
        if not m_leaf[j]:
            j += 1
            continue
        prev = ms_out.get(chain[-1])
        ins = _floats(list(ms_calls[j].inputs))
        if prev is None or not ins or ins[0].shape != prev.shape or not np.array_equal(ins[0], prev, equal_nan=True):
            return ()
        chain.append(j)
        if j in ms_out and close(out, ms_out[j], *tol_for(str(out.dtype))):
            return tuple(chain)
        j += 1
    return ()


def _between(first: int, torch_calls: Sequence[Any], in_ok: Sequence[bool], out_ok: Sequence[bool]
             ) -> Optional[Tuple[str, str]]:
    """Inside a container whose inputs agree and output does not, yet no child diverged on its own."""
    names = [c.name for c in torch_calls]
    inner = [i for i in descendants(names, names[first]) if i < first]
    if not inner:
        return None
    bad = next((i for i in inner if not in_ok[i]), None)
    before = [i for i in inner if (bad is None or i < bad) and out_ok[i]]
    a = names[before[-1]] if before else "<input>"
    b = names[bad] if bad is not None else "<output>"
    return a, b


def as_handed(torch_inputs: Sequence[Any], ms_inputs: Sequence[Any]) -> List[Any]:
    """Each integer input of torch's in the dtype the port's own call received at that place: another integer
    width, or a float holding the very same values (±1 labels the port casts before its loss)."""
    return [t.astype(m.dtype) if _handed_as(t, m) else t
            for t, m in zip(torch_inputs, list(ms_inputs) + [None] * (len(torch_inputs) - len(ms_inputs)))]


def _handed_as(t: Any, m: Any) -> bool:
    if not (isinstance(t, np.ndarray) and isinstance(m, np.ndarray) and t.dtype.kind in "iu" and t.shape == m.shape):
        return False
    if m.dtype.kind in "iu":
        return True
    return m.dtype.kind == "f" and bool(np.array_equal(t.astype(m.dtype), m))
