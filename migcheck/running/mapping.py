"""Pair torch parameters with MindSpore parameters. Pure: works on ParamInfo lists only.

Order of evidence: the case's explicit map, then name rules per layer kind, then structural
pairing of what is left (layers of the same family with the same parameter shapes, in
registration order). Every pairing says how it was made; anything that cannot be paired is a
problem naming both dotted paths. Nothing is dropped silently and nothing ambiguous is guessed.
"""
from __future__ import annotations

import fnmatch
import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from migcheck.runners.base import ParamInfo
from migcheck.transforms import IDENTITY, Transform, concat, fits, reshape, same_but_singletons, split
from migcheck.util.tree import contiguous

# (torch owner-kind prefix, torch leaf) -> MindSpore leaf. Tried before the unchanged name,
# because MindSpore's nn layers rename these while mindspore.mint layers keep torch's names.
# Linear<->Dense, Conv*, RNN/LSTM/GRU and MultiheadAttention keep torch's names (and layouts) in
# MindSpore 2.x; tests/running/test_mapping_layers.py proves each against the real layers.
LEAF_RULES: Tuple[Tuple[str, str, str], ...] = (
    ("BatchNorm", "weight", "gamma"),
    ("BatchNorm", "bias", "beta"),
    ("BatchNorm", "running_mean", "moving_mean"),
    ("BatchNorm", "running_var", "moving_variance"),
    ("SyncBatchNorm", "weight", "gamma"),
    ("SyncBatchNorm", "bias", "beta"),
    ("SyncBatchNorm", "running_mean", "moving_mean"),
    ("SyncBatchNorm", "running_var", "moving_variance"),
    ("InstanceNorm", "weight", "gamma"),
    ("InstanceNorm", "bias", "beta"),
    ("InstanceNorm", "running_mean", "moving_mean"),
    ("InstanceNorm", "running_var", "moving_variance"),
    ("LayerNorm", "weight", "gamma"),
    ("LayerNorm", "bias", "beta"),
    ("GroupNorm", "weight", "gamma"),
    ("GroupNorm", "bias", "beta"),
    ("Embedding", "weight", "embedding_table"),
    ("PReLU", "weight", "w"),
)

# Layer families for structural pairing: torch and MindSpore class names that are ports of each other.
FAMILIES: Tuple[Tuple[str, str], ...] = (
    (r"^(Linear|Dense)$", "linear"),
    (r"^Conv(1d|2d|3d)$", "conv"),
    (r"^Conv(Transpose|)(1d|2d|3d)(Transpose|)$", "conv-transpose"),
    (r"^(Sync)?BatchNorm(1d|2d|3d)?$", "batchnorm"),
    (r"^LayerNorm$", "layernorm"),
    (r"^GroupNorm$", "groupnorm"),
    (r"^InstanceNorm(1d|2d|3d)$", "instancenorm"),
    (r"^Embedding$", "embedding"),
    (r"^PReLU$", "prelu"),
    (r"^(LSTM|GRU|RNN)$", "rnn"),
    (r"^MultiheadAttention$", "attention"),
)

BOOKKEEPING = {
    "num_batches_tracked": "torch BatchNorm step counter; MindSpore keeps none (it only matters with momentum=None)",
}

RenameRules = Sequence[Tuple[str, str]]
WeightMapOverride = Union[Mapping[Union[str, Tuple[str, ...]], object], Callable[[str], Optional[str]], RenameRules, None]


@dataclass(frozen=True)
class MappedParam:
    """One row of the mapping table: a torch name and the MindSpore name it feeds."""

    torch_name: str
    ms_name: str
    torch_shape: Tuple[int, ...]
    ms_shape: Tuple[int, ...]
    how: str  # "same name", "rule BatchNorm.running_var->moving_variance", "override", "structure"
    transform: str = ""  # "" for none, else e.g. "reshape", "split(axis=0)"


@dataclass(frozen=True)
class SkippedParam:
    torch_name: str
    reason: str


@dataclass(frozen=True)
class Link:
    """Torch parameters -> MindSpore parameters through one transform (1:1, 1:n split, n:1 concat)."""

    torch: Tuple[ParamInfo, ...]
    ms: Tuple[ParamInfo, ...]
    transform: Transform
    how: str

    @property
    def rows(self) -> Tuple[MappedParam, ...]:
        desc = self.transform.describe()
        pairs = [(t, m) for t in self.torch for m in self.ms]
        return tuple(MappedParam(t.name, m.name, t.shape, m.shape, self.how, desc) for t, m in pairs)


@dataclass(frozen=True)
class WeightMapping:
    links: Tuple[Link, ...]
    skipped: Tuple[SkippedParam, ...]  # deliberately unused torch entries, with the reason
    unmapped_torch: Tuple[ParamInfo, ...]
    unset_ms: Tuple[ParamInfo, ...]
    shape_mismatches: Tuple[MappedParam, ...]
    trainable_mismatches: Tuple[Tuple[ParamInfo, ParamInfo], ...]
    bad_targets: Tuple[Tuple[str, str], ...]  # (torch name, override target that does not exist)
    ambiguous: Tuple[str, ...] = ()  # structural pairings that had more than one candidate

    @property
    def pairs(self) -> Tuple[MappedParam, ...]:
        return tuple(row for link in self.links for row in link.rows)

    @property
    def ok(self) -> bool:
        return not self.problems()

    def problems(self) -> List[str]:
        """One message per problem, each naming both dotted paths where there are two."""
        out = []
        for torch_name, target in self.bad_targets:
            out.append(f"weight_map sends torch '{torch_name}' to MindSpore '{target}', which does not exist")
        out.extend(self.ambiguous)
        for info in self.unmapped_torch:
            out.append(f"torch '{info.name}' {list(info.shape)} ({info.owner_kind}) has no MindSpore counterpart;"
                       f" add it to the case's weight_map (or map it to None if unused on purpose)")
        for info in self.unset_ms:
            out.append(f"MindSpore '{info.name}' {list(info.shape)} ({info.owner_kind}) is set by no torch parameter;"
                       f" add the torch name that feeds it to the case's weight_map")
        for pair in self.shape_mismatches:
            out.append(f"shape mismatch: torch '{pair.torch_name}' {list(pair.torch_shape)} vs"
                       f" MindSpore '{pair.ms_name}' {list(pair.ms_shape)}"
                       f" (declare a transform for it in the case's weight_transforms)")
        for t, m in self.trainable_mismatches:
            out.append(f"trainable on one side only: torch '{t.name}' trainable={t.trainable},"
                       f" MindSpore '{m.name}' requires_grad={m.trainable}")
        return out

    def structural(self) -> Tuple[MappedParam, ...]:
        """Rows paired by structure alone: the user should confirm them."""
        return tuple(row for row in self.pairs if row.how == "structure")

    def ms_name_for(self, torch_name: str) -> Optional[str]:
        for pair in self.pairs:
            if pair.torch_name == torch_name:
                return pair.ms_name
        return None


def map_weights(torch_params: Sequence[ParamInfo], ms_params: Sequence[ParamInfo],
                override: WeightMapOverride = None,
                transforms: Optional[Mapping[str, Transform]] = None) -> WeightMapping:
    ms_by_name: Dict[str, ParamInfo] = {p.name: p for p in ms_params}
    torch_by_name: Dict[str, ParamInfo] = {p.name: p for p in torch_params}
    claimed_ms: Dict[str, str] = {}
    used_torch: set = set()
    proposals: List[Tuple[Tuple[ParamInfo, ...], Tuple[ParamInfo, ...], str, Optional[Transform]]] = []
    skipped, bad = [], []

    def claim(ts: Sequence[ParamInfo], ms: Sequence[ParamInfo], how: str, kind: Optional[Transform] = None) -> None:
        proposals.append((tuple(ts), tuple(ms), how, kind))
        used_torch.update(t.name for t in ts)
        claimed_ms.update({m.name: ts[0].name for m in ms})

    # 1. The case's explicit map: tuple keys concatenate several torch tensors into one.
    if isinstance(override, Mapping):
        for key, target in override.items():
            if isinstance(key, tuple):
                missing = [k for k in key if k not in torch_by_name]
                if missing or target not in ms_by_name:
                    bad.append((", ".join(key), str(target) if not missing else f"(unknown torch {missing})"))
                    continue
                claim([torch_by_name[k] for k in key], [ms_by_name[target]], "override", concat())
    for t in torch_params:
        if t.name in used_torch:
            continue
        target, how = _explicit_target(override, t.name)
        if not how:
            continue
        if target is None:
            skipped.append(SkippedParam(t.name, "mapped to None by the case's weight_map"))
            used_torch.add(t.name)
            continue
        targets = list(target) if isinstance(target, (list, tuple)) else [target]
        missing = [m for m in targets if m not in ms_by_name]
        if missing:
            bad.extend((t.name, m) for m in missing)
            used_torch.add(t.name)
            continue
        claim([t], [ms_by_name[m] for m in targets], how, split() if len(targets) > 1 else None)

    # 2. Name rules per layer kind, then the unchanged name.
    for t in torch_params:
        if t.name in used_torch:
            continue
        target, how = _rule_target(t, ms_by_name, claimed_ms)
        if target is not None:
            claim([t], [ms_by_name[target]], how)

    # 3. Structural pairing of what is left, layer by layer.
    left_torch = [t for t in torch_params if t.name not in used_torch and t.leaf not in BOOKKEEPING]
    left_ms = [m for m in ms_params if m.name not in claimed_ms]
    structural, ambiguous = _pair_by_structure(left_torch, left_ms)
    for t, m in structural:
        claim([t], [m], "structure")

    for t in torch_params:
        if t.name not in used_torch and t.leaf in BOOKKEEPING:
            skipped.append(SkippedParam(t.name, BOOKKEEPING[t.leaf]))
            used_torch.add(t.name)

    links, mismatches, frozen = [], [], []
    for ts, ms, how, kind in proposals:
        transform = _choose_transform(ts, ms, kind, transforms or {})
        link = Link(ts, ms, transform or IDENTITY, how)
        if transform is None:
            mismatches.extend(link.rows)
        links.append(link)
        frozen.extend((t, m) for t in ts for m in ms if t.trainable != m.trainable)
    unmapped = [t for t in torch_params if t.name not in used_torch]
    unset = [m for m in ms_params if m.name not in claimed_ms]
    return WeightMapping(tuple(links), tuple(skipped), tuple(unmapped), tuple(unset), tuple(mismatches),
                         tuple(frozen), tuple(bad), tuple(ambiguous))


def _explicit_target(override: WeightMapOverride, name: str) -> Tuple[object, str]:
    """A dict value of None means "unused on purpose"; a function returning None means "no opinion"."""
    if override is None:
        return None, ""
    if callable(override):
        target = override(name)
        return (target, "override") if target is not None else (None, "")
    if isinstance(override, Mapping):
        return (override[name], "override") if name in override else (None, "")
    for pattern, replacement in override:  # regex rename rules, first full match wins
        if re.fullmatch(pattern, name):
            return re.sub(pattern, replacement, name), f"rename {pattern!r}"
    return None, ""


def _rule_target(t: ParamInfo, ms_by_name: Mapping[str, ParamInfo], claimed: Mapping[str, str]) -> Tuple[Optional[str], str]:
    prefix = t.owner_path + "." if t.owner_path else ""
    for kind, leaf, ms_leaf in LEAF_RULES:
        if t.owner_kind.startswith(kind) and t.leaf == leaf:
            candidate = prefix + ms_leaf
            if candidate in ms_by_name and candidate not in claimed:
                return candidate, f"rule {kind}.{leaf}->{ms_leaf}"
    for name in (t.name, *t.aliases):  # an alias: the same torch tensor under another attribute name
        if name in ms_by_name and name not in claimed:
            return name, "same name" if name == t.name else f"same name as torch alias '{name}'"
    return None, ""


def _choose_transform(ts: Sequence[ParamInfo], ms: Sequence[ParamInfo], kind: Optional[Transform],
                      declared: Mapping[str, Transform]) -> Optional[Transform]:
    """The declared transform, else the link's own kind, else identity or a singleton reshape; None: no fit."""
    torch_shapes = [tuple(t.shape) for t in ts]
    ms_shapes = [tuple(m.shape) for m in ms]
    for pattern, transform in declared.items():
        if any(fnmatch.fnmatchcase(t.name, pattern) for t in ts):
            return transform if fits(transform, torch_shapes, ms_shapes) else None
    if kind is not None:
        return kind if fits(kind, torch_shapes, ms_shapes) else None
    if torch_shapes == ms_shapes:
        return IDENTITY
    if len(ts) == len(ms) == 1 and same_but_singletons(torch_shapes[0], ms_shapes[0]):
        return reshape()
    return None


def family(kind: str) -> str:
    for pattern, name in FAMILIES:
        if re.match(pattern, kind):
            return name
    return kind


def _ms_leaf(t: ParamInfo) -> str:
    for kind, leaf, ms_leaf in LEAF_RULES:
        if t.owner_kind.startswith(kind) and t.leaf == leaf:
            return ms_leaf
    return t.leaf


def _pair_by_structure(left_torch: Sequence[ParamInfo], left_ms: Sequence[ParamInfo]
                       ) -> Tuple[List[Tuple[ParamInfo, ParamInfo]], List[str]]:
    """Pair leftover layers by signature: family plus parameter leaves and shapes.

    A signature held by one layer on each side pairs them. When both trees list their leftover
    layers in the same signature sequence (the port kept the original's structure), layers pair
    by position, except runs of adjacent same-signature layers: nothing confirms their order, so
    they are reported as ambiguous, as is every other group with more than one candidate.
    """
    torch_layers = list(_layers(left_torch, translate=True).items())
    ms_layers = list(_layers(left_ms, translate=False).items())
    torch_sigs = [sig for _, (sig, _) in torch_layers]
    ms_sigs = [sig for _, (sig, _) in ms_layers]
    pairs: List[Tuple[ParamInfo, ParamInfo]] = []
    unresolved: Dict[tuple, Tuple[List[str], List[str]]] = defaultdict(lambda: ([], []))
    if torch_sigs == ms_sigs:
        for i, ((t_path, (sig, t_params)), (m_path, (_, m_params))) in enumerate(zip(torch_layers, ms_layers)):
            in_run = (i > 0 and torch_sigs[i - 1] == sig) or (i + 1 < len(torch_sigs) and torch_sigs[i + 1] == sig)
            if in_run:
                unresolved[sig][0].append(t_path)
                unresolved[sig][1].append(m_path)
            else:
                pairs.extend(_pair_leaves(t_params, m_params))
    else:
        for sig in dict.fromkeys(torch_sigs):
            t_group = [(p, params) for p, (s, params) in torch_layers if s == sig]
            m_group = [(p, params) for p, (s, params) in ms_layers if s == sig]
            if len(t_group) == len(m_group) == 1:
                pairs.extend(_pair_leaves(t_group[0][1], m_group[0][1]))
            elif m_group:
                unresolved[sig] = ([p for p, _ in t_group], [p for p, _ in m_group])
    ambiguous = [f"ambiguous pairing: torch layers {t} and MindSpore layers {m} share the signature"
                 f" {_describe(sig)} and nothing fixes which is which; give a weight_map for them"
                 for sig, (t, m) in unresolved.items()]
    return pairs, ambiguous


def _pair_leaves(t_params: Sequence[ParamInfo], m_params: Sequence[ParamInfo]) -> List[Tuple[ParamInfo, ParamInfo]]:
    m_by_leaf = {m.leaf: m for m in m_params}
    return [(t, m_by_leaf[_ms_leaf(t)]) for t in t_params]


def _layers(params: Sequence[ParamInfo], translate: bool) -> Dict[str, Tuple[tuple, List[ParamInfo]]]:
    grouped: Dict[str, List[ParamInfo]] = {}
    for p in params:  # dicts keep registration order
        grouped.setdefault(p.owner_path, []).append(p)
    out = {}
    for path, group in grouped.items():
        leaves = tuple(sorted(((_ms_leaf(p) if translate else p.leaf), tuple(p.shape)) for p in group))
        out[path] = ((family(group[0].owner_kind), leaves), group)
    return out


def _describe(sig: tuple) -> str:
    fam, leaves = sig
    return f"{fam} " + ", ".join(f"{leaf}{list(shape)}" for leaf, shape in leaves)


def to_mindspore(weights: Mapping[str, np.ndarray], mapping: WeightMapping) -> Dict[str, np.ndarray]:
    """Torch-named arrays -> MindSpore-named arrays, through each link's transform."""
    out: Dict[str, np.ndarray] = {}
    for link in mapping.links:
        arrays = link.transform.to_ms([weights[t.name] for t in link.torch], [m.shape for m in link.ms])
        out.update({m.name: contiguous(a) for m, a in zip(link.ms, arrays)})
    return out


def to_torch(values: Mapping[str, np.ndarray], mapping: WeightMapping) -> Dict[str, np.ndarray]:
    """MindSpore-named arrays (gradients, updated parameters) -> torch names and layouts.

    Links whose MindSpore side is not fully present (e.g. no gradient for a buffer) are left out.
    """
    out: Dict[str, np.ndarray] = {}
    for link in mapping.links:
        if all(m.name in values for m in link.ms):
            arrays = link.transform.to_torch([values[m.name] for m in link.ms], [t.shape for t in link.torch])
            out.update({t.name: a for t, a in zip(link.torch, arrays)})
    return out
