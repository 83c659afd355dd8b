"""Pair the layers that names and rules left over, by layer family, parameter shapes and order. Pure.

Each side's leftover layers form a sequence of signatures (family + parameter leaves and shapes) in
registration order. The two sequences are aligned (a port usually keeps the original's layer order
even when it renames and regroups everything); layers at matching positions pair. A signature held
by exactly one leftover layer on each side pairs wherever it sits. Adjacent layers with the same
signature (q/k/v projections, fc1/fc2 of one size) can be paired by nothing but their order, which
a port may change: they are an Ambiguity with its candidates, which activations may later resolve
(migcheck.mapping.pairing). A second, relaxed pass ignores biases, so a layer whose port dropped or
added a bias still has its weight transferred and the bias diagnosed (migcheck.mapping.transfer).
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from migcheck.knowledge.lookup import family as table_family
from migcheck.runners.base import ParamInfo

_OPTIONAL_LEAVES = ("bias", "beta")  # leaves a port may drop or add without changing the layer's kind


def family(kind: str) -> str:
    """The layer family of a torch or MindSpore class (the knowledge table: Linear and Dense are "linear"),
    else the class name itself."""
    return table_family(kind) or kind


@dataclass(frozen=True)
class Inference:
    """One layer pairing made without a name or rule, with the evidence and how sure it is."""

    torch_layer: str
    ms_layer: str
    how: str  # "unique signature", "aligned position", "activations", + ", bias ignored" for the relaxed pass
    confidence: str  # "high" | "medium"

    def describe(self) -> str:
        return f"torch '{self.torch_layer}' -> MindSpore '{self.ms_layer}' ({self.how}; {self.confidence} confidence)"


@dataclass(frozen=True)
class Ambiguity:
    """Layers with one signature that only their order could pair: never guessed."""

    signature: str
    torch_layers: Tuple[str, ...]  # registration order
    ms_layers: Tuple[str, ...]
    note: str = ""  # what activations found, when they were tried

    @property
    def guess(self) -> Tuple[Tuple[str, str], ...]:
        """Pairing by position: only a starting point for a weight_map the user confirms."""
        return tuple(zip(self.torch_layers, self.ms_layers))

    def message(self) -> str:
        t = ", ".join(f"'{p}'" for p in self.torch_layers)
        m = ", ".join(f"'{p}'" for p in self.ms_layers)
        return (f"ambiguous pairing: torch layers {t} and MindSpore layers {m} share the signature {self.signature}"
                f" and nothing fixes which is which{'; ' + self.note if self.note else ''}; give a weight_map for"
                f" them (`migcheck map CASE --suggest` prints one to edit)")


Leaf = Callable[[ParamInfo], str]
Parallel = Callable[[Sequence[str], Sequence[str]], bool]  # do these torch / MindSpore layers all read one input?


@dataclass(frozen=True)
class Layer:
    path: str
    kind: str
    params: Tuple[ParamInfo, ...]
    leaves: Tuple[Tuple[str, Tuple[int, ...]], ...]  # (MindSpore-side leaf name, shape), sorted

    def signature(self, relaxed: bool, pointwise: bool = False) -> tuple:
        leaves = tuple(x for x in self.leaves if not (relaxed and x[0] in _OPTIONAL_LEAVES))
        fam = family(self.kind)
        if not self.known:  # a class with no library ancestor: only its parameter shapes say what it is
            return ("custom", tuple(sorted(shape for _, shape in leaves)))
        if pointwise and fam in ("conv", "linear"):  # a 1x1 conv on pooled features is a linear layer
            return ("pointwise", tuple((leaf, _squeezed(shape)) for leaf, shape in leaves))
        return (fam, leaves)

    @property
    def known(self) -> bool:
        return self.params[0].owner_base != ""  # None: not reported, so the class name is taken as the layer


def _squeezed(shape: Tuple[int, ...]) -> Tuple[int, ...]:
    while len(shape) > 2 and shape[-1] == 1:
        shape = shape[:-1]
    return shape


def layers(params: Sequence[ParamInfo], leaf: Leaf) -> List[Layer]:
    grouped: Dict[str, List[ParamInfo]] = {}
    for p in params:  # dicts keep registration order
        grouped.setdefault(p.owner_path, []).append(p)
    return [Layer(path, group[0].owner_base or group[0].owner_kind, tuple(group), tuple(sorted((leaf(p), tuple(p.shape)) for p in group)))
            for path, group in grouped.items()]


def describe_signature(sig: tuple) -> str:
    fam, leaves = sig
    return f"{fam} " + ", ".join(f"{leaf}{list(shape)}" for leaf, shape in leaves)


LayerPair = Tuple[Layer, Layer, Inference]


def pair_layers(torch_layers: Sequence[Layer], ms_layers: Sequence[Layer], resolved: Mapping[str, str] = {},
                by_calls: Optional[Parallel] = None) -> Tuple[List[LayerPair], List[Ambiguity]]:
    """Strict pass (all leaves), then a relaxed pass (biases ignored) over what is still unpaired.

    resolved: torch layer -> MindSpore layer for ambiguities that activations settled. They apply to
    whole ambiguity groups after the alignment, so settling one group never shifts the others.
    """
    by_t = {t.path: t for t in torch_layers}
    by_m = {m.path: m for m in ms_layers}
    pairs, ambiguities = _pass(torch_layers, ms_layers, relaxed=False, by_calls=by_calls)
    open_ambiguities = []
    for amb in ambiguities:
        chosen = [resolved.get(t) for t in amb.torch_layers]
        if sorted(c or "" for c in chosen) == sorted(amb.ms_layers):
            pairs += [(by_t[t], by_m[m], Inference(t, m, "activations", "high")) for t, m in zip(amb.torch_layers, chosen)]
        else:
            open_ambiguities.append(amb)
    # Other settled pairings replace what alignment paired (a swap that activations showed to agree better).
    overrides = {t: m for t, m in resolved.items() if t in by_t and m in by_m
                 and not any(a.torch_layers and t in a.torch_layers for a in ambiguities)}
    if overrides:
        taken = set(overrides.values())
        pairs = [p for p in pairs if p[0].path not in overrides and p[1].path not in taken]
        pairs += [(by_t[t], by_m[m], Inference(t, m, "activations", "high")) for t, m in overrides.items()
                  if by_t[t].signature(True) == by_m[m].signature(True)]
    done_t = {t.path for t, _, _ in pairs} | {p for a in open_ambiguities for p in a.torch_layers}
    done_m = {m.path for _, m, _ in pairs} | {p for a in open_ambiguities for p in a.ms_layers}
    found, _ = _pass([t for t in torch_layers if t.path not in done_t], [m for m in ms_layers if m.path not in done_m],
                     relaxed=True)
    done_t |= {t.path for t, _, _ in found}
    done_m |= {m.path for _, m, _ in found}
    pointwise, _ = _pass([t for t in torch_layers if t.path not in done_t],
                         [m for m in ms_layers if m.path not in done_m], relaxed=False, pointwise=True)
    return pairs + found + pointwise, open_ambiguities


def _pass(left_t: Sequence[Layer], left_m: Sequence[Layer], relaxed: bool, pointwise: bool = False,
          by_calls: Optional[Parallel] = None) -> Tuple[List[LayerPair], List[Ambiguity]]:
    """by_calls: the layers come in call order, and whether same-signature layers read one input; a run of
    same-signature layers that do not pairs by its call position."""
    t_sigs = [t.signature(relaxed, pointwise) for t in left_t]
    m_sigs = [m.signature(relaxed, pointwise) for m in left_m]
    suffix = ", bias ignored" if relaxed else ", 1x1 conv as linear" if pointwise else ""
    whole = t_sigs == m_sigs
    pairs: List[LayerPair] = []
    used_t, used_m = set(), set()
    ambiguities: List[Ambiguity] = []
    matcher = difflib.SequenceMatcher(None, t_sigs, m_sigs, autojunk=False)
    for block in matcher.get_matching_blocks():
        i = 0
        while i < block.size:
            j = i
            while j + 1 < block.size and t_sigs[block.a + j + 1] == t_sigs[block.a + i]:
                j += 1  # a run of adjacent same-signature layers: [i, j]
            ts = left_t[block.a + i:block.a + j + 1]
            ms = left_m[block.b + i:block.b + j + 1]
            if len(ts) == 1:
                sig = t_sigs[block.a + i]
                unique = t_sigs.count(sig) == 1 and m_sigs.count(sig) == 1
                how = "unique signature" if unique else "aligned call position" if by_calls else "aligned position"
                confidence = "high" if whole or unique else "medium"
                pairs.append((ts[0], ms[0], Inference(ts[0].path, ms[0].path, how + suffix, confidence)))
            elif by_calls and not relaxed and not by_calls([t.path for t in ts], [m.path for m in ms]):
                # same shapes, one after the other: the order they run in pairs them, activations check it
                pairs += [(a, b, Inference(a.path, b.path, "call position among same-signature layers" + suffix,
                                           "medium")) for a, b in zip(ts, ms)]
            elif not relaxed and not pointwise:
                ambiguities.append(Ambiguity(describe_signature(t_sigs[block.a + i]),
                                             tuple(t.path for t in ts), tuple(m.path for m in ms)))
            used_t.update(range(block.a + i, block.a + j + 1))
            used_m.update(range(block.b + i, block.b + j + 1))
            i = j + 1
    # Outside the aligned blocks: a signature held by one leftover layer on each side still pairs.
    rest_t = [k for k in range(len(left_t)) if k not in used_t]
    rest_m = [k for k in range(len(left_m)) if k not in used_m]
    for sig in dict.fromkeys(t_sigs[k] for k in rest_t):
        group_t = [left_t[k] for k in rest_t if t_sigs[k] == sig]
        group_m = [left_m[k] for k in rest_m if m_sigs[k] == sig]
        if len(group_t) == len(group_m) == 1:
            unique = t_sigs.count(sig) == 1 and m_sigs.count(sig) == 1  # else unique only among the unaligned
            how = "unique signature" if unique else "only unaligned layer of its signature"
            pairs.append((group_t[0], group_m[0], Inference(group_t[0].path, group_m[0].path, how + suffix,
                                                            "high" if unique else "medium")))
        elif (by_calls and len(group_t) == len(group_m) and not relaxed
              and not by_calls([t.path for t in group_t], [m.path for m in group_m])):
            pairs += [(a, b, Inference(a.path, b.path, "call position among same-signature layers" + suffix, "medium"))
                      for a, b in zip(group_t, group_m)]
        elif group_t and group_m and not relaxed and not pointwise:
            ambiguities.append(Ambiguity(describe_signature(sig), tuple(t.path for t in group_t),
                                         tuple(m.path for m in group_m)))
    return pairs, ambiguities


def pair_leaves(t: Layer, m: Layer, leaf: Leaf) -> List[Tuple[ParamInfo, ParamInfo]]:
    """Parameters of two paired layers, matched by (translated) leaf name; leaves on one side only stay out."""
    m_by_leaf = {p.leaf: p for p in m.params}
    by_name = [(p, m_by_leaf[leaf(p)]) for p in t.params if leaf(p) in m_by_leaf]
    if by_name or t.known or m.known:
        return by_name
    # Two classes of no library: their leaves pair in registration order where every shape agrees (gamma <-> gamma_).
    if len(t.params) == len(m.params) and all(a.shape == b.shape for a, b in zip(t.params, m.params)):
        return list(zip(t.params, m.params))
    return []


def ms_owner_of(torch_layer: str, links: Sequence[Tuple[str, str]]) -> Optional[str]:
    """The MindSpore layer that receives another parameter of this torch layer, if any."""
    for t_name, m_name in links:
        if t_name.rpartition(".")[0] == torch_layer:
            return m_name.rpartition(".")[0]
    return None
