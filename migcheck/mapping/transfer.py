"""Pair torch parameters with MindSpore parameters. Pure: works on ParamInfo lists only.

Order of evidence: the case's explicit map (migcheck.mapping.rules; built-in layer rules
still apply to a renamed target), then name rules per layer kind, then structural pairing of what
is left (migcheck.mapping.structure: family, shapes and order, with a confidence per
layer). Every pairing says how it was made; anything that cannot be paired is a problem naming
both dotted paths (migcheck.mapping.diagnosis says what the port lacks). Nothing is
dropped silently and nothing ambiguous is guessed: activations may settle an ambiguity later
(migcheck.mapping.pairing), else it is a problem listing its candidates.
"""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field, replace
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from migcheck.records.params import MappedParam, SkippedParam  # noqa: F401  (re-exported)
from migcheck.runners.base import ParamInfo
from migcheck.mapping.call_order import CallOrder, by_feeders, ordered
from migcheck.mapping.families import kind_of, with_kinds
from migcheck.mapping.layer_rules import LEAF_RULES, ms_leaf, rule_of
from migcheck.mapping.rules import Explicit, transform_warnings, with_leaf_rule
from migcheck.mapping.structure import Ambiguity, Inference, layers, pair_layers, pair_leaves
from migcheck.transforms import IDENTITY, Transform, concat, fits, reshape, same_but_singletons, split
from migcheck.util.tree import contiguous

BOOKKEEPING = {
    "num_batches_tracked": "torch BatchNorm step counter; MindSpore keeps none (it only matters with momentum=None)",
}

RenameRules = Sequence[Tuple[str, str]]
WeightMapOverride = Union[Mapping[Union[str, Tuple[str, ...]], object], Callable[[str], Optional[str]], RenameRules, None]


@dataclass(frozen=True)
class Link:
    """Torch parameters -> MindSpore parameters through one transform (1:1, 1:n split, n:1 concat)."""

    torch: Tuple[ParamInfo, ...]
    ms: Tuple[ParamInfo, ...]
    transform: Transform
    how: str
    fits: bool = True  # False: the shapes admit no transform; the link is a problem and is not loaded

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
    ambiguities: Tuple[Ambiguity, ...] = ()  # layer groups only their order could pair
    inferred: Tuple[Inference, ...] = ()  # layer pairings made without a name or rule
    warnings: Tuple[str, ...] = ()  # rules and patterns that match nothing: said, not fatal
    constant: Tuple[ParamInfo, ...] = ()  # MindSpore parameters the case declares constant by design
    duplicates: Tuple[Tuple[str, str, str], ...] = ()  # (MindSpore name, first torch, second torch)
    torch_params: Tuple[ParamInfo, ...] = ()
    ms_params: Tuple[ParamInfo, ...] = ()
    # The port's own values of the parameters no torch parameter sets (with_port_values): loaded with
    # the mapped weights, so a structure problem on one layer does not stop the comparison of the rest.
    port_values: Optional[Mapping[str, np.ndarray]] = field(default=None, compare=False, repr=False)

    @property
    def pairs(self) -> Tuple[MappedParam, ...]:
        return tuple(row for link in self.links for row in link.rows)

    @property
    def dtype_mismatches(self) -> Tuple[Tuple[ParamInfo, ParamInfo], ...]:
        """Paired parameters held in another kind of number (a float weight in an int64 Parameter, which
        truncates the loaded values) or another float width."""
        return tuple((t, m) for link in self.links if link.fits for t in link.torch for m in link.ms
                     if t.dtype != m.dtype and "bfloat16" not in (t.dtype, m.dtype))

    @property
    def ambiguous(self) -> Tuple[str, ...]:
        return tuple(a.message() for a in self.ambiguities)

    @property
    def ok(self) -> bool:
        return not self.problems()

    def problems(self) -> List[str]:
        """One message per problem, each naming both dotted paths where there are two."""
        from migcheck.mapping.diagnosis import diagnose

        out = [f"weight_map sends torch '{t}' to MindSpore '{target}', which does not exist"
               for t, target in self.bad_targets]
        out += [f"torch '{a}' and '{b}' are both sent to MindSpore '{m}' (by the weight_map or its rules);"
                f" only one can feed it" for m, a, b in self.duplicates]
        out.extend(self.ambiguous)
        out += diagnose(self)
        for pair in self.shape_mismatches:
            out.append(f"shape mismatch: torch '{pair.torch_name}' {list(pair.torch_shape)} vs"
                       f" MindSpore '{pair.ms_name}' {list(pair.ms_shape)}"
                       f" (declare a transform for it in the case's weight_transforms)")
        for t, m in self.trainable_mismatches:
            out.append(f"trainable on one side only: torch '{t.name}' trainable={t.trainable},"
                       f" MindSpore '{m.name}' requires_grad={m.trainable}")
        return out

    def structural(self) -> Tuple[MappedParam, ...]:
        """Rows paired by structure or activations, not by a name or rule: the user should confirm them."""
        return tuple(row for row in self.pairs if row.how.startswith(("structure", "activations")))

    def left_at_port_values(self) -> Tuple[str, ...]:
        """MindSpore parameters no (fitting) torch parameter sets: they keep the port's own values."""
        fed = {m.name for link in self.links if link.fits for m in link.ms}
        return tuple(m.name for m in self.ms_params if m.name not in fed)

    def untransferred_torch(self) -> Tuple[str, ...]:
        """Torch parameters whose values reach no MindSpore parameter (unmapped, or no fitting transform)."""
        fed = {t.name for link in self.links if link.fits for t in link.torch}
        skipped = {s.torch_name for s in self.skipped}
        return tuple(t.name for t in self.torch_params if t.name not in fed and t.name not in skipped)

    def with_port_values(self, own: Mapping[str, np.ndarray]) -> "WeightMapping":
        return replace(self, port_values={name: own[name] for name in self.left_at_port_values() if name in own})

    def ms_name_for(self, torch_name: str) -> Optional[str]:
        for pair in self.pairs:
            if pair.torch_name == torch_name:
                return pair.ms_name
        return None


def map_weights(torch_params: Sequence[ParamInfo], ms_params: Sequence[ParamInfo],
                override: WeightMapOverride = None,
                transforms: Optional[Mapping[str, Optional[Transform]]] = None, *,
                constant: Sequence[str] = (), resolved: Optional[Mapping[str, str]] = None,
                order: Optional[CallOrder] = None) -> WeightMapping:
    """Pair every torch parameter with MindSpore ones: the case's map, name rules, then structure.

    constant: MindSpore names (globs) that are constant by design and fed by no torch parameter.
    resolved: torch layer -> MindSpore layer pairings that activations settled (migcheck.mapping.pairing).
    order: the layers' call order in one forward pass per side (migcheck.mapping.call_order): leftover layers
    align in that order, not registration order.
    """
    torch_params, ms_params = with_kinds(torch_params, True), with_kinds(ms_params, False)
    ms_by_name: Dict[str, ParamInfo] = {p.name: p for p in ms_params}
    torch_by_name: Dict[str, ParamInfo] = {p.name: p for p in torch_params}
    claimed_ms: Dict[str, str] = {}
    used_torch: set = set()
    proposals: List[Tuple[Tuple[ParamInfo, ...], Tuple[ParamInfo, ...], str, Optional[Transform]]] = []
    skipped, bad, duplicates = [], [], []
    explicit = Explicit.of(override)

    def claim(ts: Sequence[ParamInfo], ms: Sequence[ParamInfo], how: str, kind: Optional[Transform] = None) -> None:
        for m in ms:
            if m.name in claimed_ms:
                duplicates.append((m.name, claimed_ms[m.name], ts[0].name))
        proposals.append((tuple(ts), tuple(ms), how, kind))
        used_torch.update(t.name for t in ts)
        claimed_ms.update({m.name: ts[0].name for m in ms if m.name not in claimed_ms})

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
        target, how = explicit.target(t.name)
        if not how:
            continue
        if target is None:
            skipped.append(SkippedParam(t.name, f"mapped to None by the case's weight_map ({how})"
                                        if how != "override" else "mapped to None by the case's weight_map"))
            used_torch.add(t.name)
            continue
        targets = list(target) if isinstance(target, (list, tuple)) else [target]
        found = []
        for name in targets:  # built-in layer rules still apply under a renamed prefix
            ruled = None if name in ms_by_name else with_leaf_rule(str(name), ms_by_name, ms_leaf(t))
            found.append(ruled or name)
            if ruled:
                how += f" + rule {rule_of(t)}"
        missing = [m for m in found if m not in ms_by_name]
        if missing and t.leaf in BOOKKEEPING:  # a renamed counter: still torch's bookkeeping, not a bad target
            continue
        if missing:
            bad.extend((t.name, m) for m in missing)
            used_torch.add(t.name)
            continue
        claim([t], [ms_by_name[m] for m in found], how, split() if len(found) > 1 else None)

    # 2. Name rules per layer kind, then the unchanged name.
    for t in torch_params:
        if t.name in used_torch:
            continue
        target, how = _rule_target(t, ms_by_name, claimed_ms)
        if target is not None:
            claim([t], [ms_by_name[target]], how)

    # 3. Structural pairing of what is left, layer by layer.
    is_constant = _matcher(constant)
    left_torch = [t for t in torch_params if t.name not in used_torch and t.leaf not in BOOKKEEPING]
    left_ms = [m for m in ms_params if m.name not in claimed_ms and not is_constant(m.name)]
    t_layers, m_layers = layers(left_torch, ms_leaf), layers(left_ms, lambda p: p.leaf)
    if order is not None:
        t_layers, m_layers = ordered(t_layers, order.torch), ordered(m_layers, order.ms)
    layer_pairs, ambiguities = pair_layers(t_layers, m_layers, resolved or {}, by_calls=order.parallel if order else None)
    if order is not None:
        layer_pairs = by_feeders(layer_pairs, order)
    inferred = []
    for t_layer, m_layer, inference in layer_pairs:
        leaves = pair_leaves(t_layer, m_layer, ms_leaf)
        if leaves:
            inferred.append(inference)
        for t, m in leaves:
            how = "activations" if inference.how == "activations" else f"structure ({inference.how})"
            claim([t], [m], how)

    for t in torch_params:
        if t.name not in used_torch and t.leaf in BOOKKEEPING:
            skipped.append(SkippedParam(t.name, BOOKKEEPING[t.leaf]))
            used_torch.add(t.name)

    links, mismatches, frozen = [], [], []
    for ts, ms, how, kind in proposals:
        transform = _choose_transform(ts, ms, kind, transforms or {})
        link = Link(ts, ms, transform or IDENTITY, how, fits=transform is not None)
        if transform is None:
            mismatches.extend(link.rows)
        links.append(link)
        frozen.extend((t, m) for t in ts for m in ms if t.trainable != m.trainable)
    unmapped = [t for t in torch_params if t.name not in used_torch]
    unset = [m for m in ms_params if m.name not in claimed_ms and not is_constant(m.name)]
    constants = [m for m in ms_params if m.name not in claimed_ms and is_constant(m.name)]
    names = [t.name for t in torch_params]
    warnings = explicit.warnings(names) + transform_warnings([p for p in (transforms or {})], names)
    warnings += [f"constant_params entry {c!r} matches no MindSpore parameter name" for c in constant
                 if not any(fnmatch.fnmatchcase(m.name, c) for m in ms_params)]
    return WeightMapping(tuple(links), tuple(skipped), tuple(unmapped), tuple(unset), tuple(mismatches),
                         tuple(frozen), tuple(bad), tuple(ambiguities), tuple(inferred), tuple(warnings),
                         tuple(constants), tuple(duplicates), tuple(torch_params), tuple(ms_params))


def _matcher(globs: Sequence[str]) -> Callable[[str], bool]:
    return lambda name: any(fnmatch.fnmatchcase(name, g) for g in globs)


def _rule_target(t: ParamInfo, ms_by_name: Mapping[str, ParamInfo], claimed: Mapping[str, str]) -> Tuple[Optional[str], str]:
    prefix = t.owner_path + "." if t.owner_path else ""
    for kind, leaf, renamed in LEAF_RULES:
        if kind_of(t).startswith(kind) and t.leaf == leaf:
            candidate = prefix + renamed
            if candidate in ms_by_name and candidate not in claimed:
                return candidate, f"rule {kind}.{leaf}->{renamed}"
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
            transform = transform or IDENTITY  # None: no transform, said in so many words
            return transform if fits(transform, torch_shapes, ms_shapes) else None
    if kind is not None:
        return kind if fits(kind, torch_shapes, ms_shapes) else None
    if torch_shapes == ms_shapes:
        return IDENTITY
    if len(ts) == len(ms) == 1 and same_but_singletons(torch_shapes[0], ms_shapes[0]):
        return reshape()
    return None


def to_mindspore(weights: Mapping[str, np.ndarray], mapping: WeightMapping) -> Dict[str, np.ndarray]:
    """Torch-named arrays -> MindSpore-named arrays, through each link's transform (plus the port's own
    values of unset parameters, when the mapping carries them)."""
    out: Dict[str, np.ndarray] = dict(mapping.port_values or {})
    for link in mapping.links:
        if not link.fits:
            continue
        arrays = link.transform.to_ms([weights[t.name] for t in link.torch], [m.shape for m in link.ms])
        out.update({m.name: contiguous(a) for m, a in zip(link.ms, arrays)})
    return out


def to_torch(values: Mapping[str, np.ndarray], mapping: WeightMapping) -> Dict[str, np.ndarray]:
    """MindSpore-named arrays (gradients, updated parameters) -> torch names and layouts.

    Links whose MindSpore side is not fully present (e.g. no gradient for a buffer) are left out.
    """
    out: Dict[str, np.ndarray] = {}
    for link in mapping.links:
        if link.fits and all(m.name in values for m in link.ms):
            arrays = link.transform.to_torch([values[m.name] for m in link.ms], [t.shape for t in link.torch])
            out.update({t.name: a for t, a in zip(link.torch, arrays)})
    return out
