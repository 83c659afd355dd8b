"""Pair torch parameters with MindSpore parameters by name. Pure: works on ParamInfo lists only.

Anything that cannot be paired is reported with both dotted paths; nothing is dropped silently.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from migcheck.params import ParamInfo

# (torch owner-kind prefix, torch leaf) -> MindSpore leaf. Tried before the unchanged name,
# because MindSpore's nn layers rename these while mindspore.mint layers keep torch's names.
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

# Bookkeeping buffers with no MindSpore counterpart: paired with nothing, on purpose, and said so.
BOOKKEEPING = {
    "num_batches_tracked": "torch BatchNorm step counter; MindSpore keeps none (it only matters with momentum=None)",
}

WeightMapOverride = Union[Mapping[str, Optional[str]], Callable[[str], Optional[str]], None]


@dataclass(frozen=True)
class MappedParam:
    torch_name: str
    ms_name: str
    torch_shape: Tuple[int, ...]
    ms_shape: Tuple[int, ...]
    how: str  # "same name", "rule BatchNorm.running_var", "override"


@dataclass(frozen=True)
class SkippedParam:
    torch_name: str
    reason: str


@dataclass(frozen=True)
class WeightMapping:
    pairs: Tuple[MappedParam, ...]
    skipped: Tuple[SkippedParam, ...]  # deliberately unused torch entries, with the reason
    unmapped_torch: Tuple[ParamInfo, ...]
    unset_ms: Tuple[ParamInfo, ...]
    shape_mismatches: Tuple[MappedParam, ...]
    trainable_mismatches: Tuple[Tuple[ParamInfo, ParamInfo], ...]
    bad_targets: Tuple[Tuple[str, str], ...]  # (torch name, override target that does not exist)

    @property
    def ok(self) -> bool:
        return not self.problems()

    def problems(self) -> list[str]:
        """One message per problem, each naming both dotted paths where there are two."""
        out = []
        for torch_name, target in self.bad_targets:
            out.append(f"weight_map sends torch '{torch_name}' to MindSpore '{target}', which does not exist")
        for info in self.unmapped_torch:
            out.append(f"torch '{info.name}' {list(info.shape)} ({info.owner_kind}) has no MindSpore counterpart;"
                       f" add it to the case's weight_map (or map it to None if unused on purpose)")
        for info in self.unset_ms:
            out.append(f"MindSpore '{info.name}' {list(info.shape)} ({info.owner_kind}) is set by no torch parameter;"
                       f" add the torch name that feeds it to the case's weight_map")
        for pair in self.shape_mismatches:
            out.append(f"shape mismatch: torch '{pair.torch_name}' {list(pair.torch_shape)} vs"
                       f" MindSpore '{pair.ms_name}' {list(pair.ms_shape)}")
        for t, m in self.trainable_mismatches:
            out.append(f"trainable on one side only: torch '{t.name}' trainable={t.trainable},"
                       f" MindSpore '{m.name}' requires_grad={m.trainable}")
        return out

    def ms_name_for(self, torch_name: str) -> Optional[str]:
        for pair in self.pairs:
            if pair.torch_name == torch_name:
                return pair.ms_name
        return None


def map_weights(torch_params: Sequence[ParamInfo], ms_params: Sequence[ParamInfo],
                override: WeightMapOverride = None) -> WeightMapping:
    ms_by_name: Dict[str, ParamInfo] = {p.name: p for p in ms_params}
    claimed: Dict[str, str] = {}
    pairs, skipped, unmapped, mismatches, frozen, bad = [], [], [], [], [], []
    for t in torch_params:
        target, how = _override_target(override, t.name)
        if how == "override" and target is None:
            skipped.append(SkippedParam(t.name, "mapped to None by the case's weight_map"))
            continue
        if how == "override":
            if target not in ms_by_name:
                bad.append((t.name, target))
                continue
        else:
            target, how = _rule_target(t, ms_by_name, claimed)
        if target is None:
            if t.leaf in BOOKKEEPING:
                skipped.append(SkippedParam(t.name, BOOKKEEPING[t.leaf]))
            else:
                unmapped.append(t)
            continue
        m = ms_by_name[target]
        claimed[target] = t.name
        pair = MappedParam(t.name, m.name, t.shape, m.shape, how)
        pairs.append(pair)
        if tuple(t.shape) != tuple(m.shape):
            mismatches.append(pair)
        if t.trainable != m.trainable:
            frozen.append((t, m))
    unset = [m for m in ms_params if m.name not in claimed]
    return WeightMapping(tuple(pairs), tuple(skipped), tuple(unmapped), tuple(unset),
                         tuple(mismatches), tuple(frozen), tuple(bad))


def _override_target(override: WeightMapOverride, name: str) -> Tuple[Optional[str], str]:
    """A dict value of None means "unused on purpose"; a function returning None means "no opinion"."""
    if override is None:
        return None, ""
    if callable(override):
        target = override(name)
        return (target, "override") if target is not None else (None, "")
    if name in override:
        return override[name], "override"
    return None, ""


def _rule_target(t: ParamInfo, ms_by_name: Mapping[str, ParamInfo], claimed: Mapping[str, str]) -> Tuple[Optional[str], str]:
    prefix = t.owner_path + "." if t.owner_path else ""
    for kind, leaf, ms_leaf in LEAF_RULES:
        if t.owner_kind.startswith(kind) and t.leaf == leaf:
            candidate = prefix + ms_leaf
            if candidate in ms_by_name and candidate not in claimed:
                return candidate, f"rule {kind}.{leaf}->{ms_leaf}"
    if t.name in ms_by_name and t.name not in claimed:
        return t.name, "same name"
    return None, ""


def to_mindspore(weights: Mapping[str, np.ndarray], mapping: WeightMapping) -> Dict[str, np.ndarray]:
    """Torch-named arrays -> MindSpore-named arrays, through the mapping's pairs."""
    return {pair.ms_name: weights[pair.torch_name] for pair in mapping.pairs}
