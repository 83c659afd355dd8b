"""Lookups over the one correspondence table (migcheck.knowledge.table). Pure.

Every stage that needs to know which torch class a MindSpore class ports, which family a class belongs
to, which parameter leaves MindSpore renames, or how an optimizer's settings are spelled on each side
reads it here, so the answer has one home.
"""
from __future__ import annotations

import re
from typing import Dict, FrozenSet, List, Optional, Tuple

from migcheck.knowledge.table import CONTAINERS, OPS, OPTIMIZERS, TABLE, Attr, Correspondence

_BY_PAIR: Dict[Tuple[str, str], Correspondence] = {(c.torch, c.ms): c for c in TABLE}
_DIMS = re.compile(r"\d+d$")


def lookup(torch_kind: str, ms_kind: str) -> Optional[Correspondence]:
    """The row for this exact pair of classes, or None."""
    return _BY_PAIR.get((torch_kind, ms_kind))


def corresponds(torch_kind: str, ms_kind: str) -> bool:
    return (torch_kind, ms_kind) in _BY_PAIR


def counterparts(torch_kind: str) -> List[Correspondence]:
    """The rows of a torch class, its first port first."""
    return [c for c in TABLE if c.torch == torch_kind]


def ported_from(ms_kind: str) -> List[Correspondence]:
    """The rows whose MindSpore class is this one (the torch classes it ports)."""
    return [c for c in TABLE if c.ms == ms_kind]


def rule_id(entry: Correspondence, attr: Attr) -> str:
    """The finding id a difference in this attribute reports."""
    return attr.rule or f"{entry.family}-{attr.torch.replace('_', '-')}"


# ids the table reports besides its attributes: the pads each side applies (rows with a padding column),
# LayerNorm's normalized axes, and a class ported as another class the table knows
PADDING_ID, LAYERNORM_AXES_ID, CLASS_SWAP_ID = "pad-mode", "layernorm-axes", "class-swap"


def table_ids() -> FrozenSet[str]:
    """Every finding id a table row can report."""
    return frozenset({rule_id(c, a) for c in TABLE for a in c.attrs} | {PADDING_ID, LAYERNORM_AXES_ID, CLASS_SWAP_ID})


def _stem(name: str) -> str:
    return _DIMS.sub("", name)


_FAMILY: Dict[str, str] = {}
for _row in TABLE:  # exact class names first (either side), then their stems (BatchNorm2d -> BatchNorm)
    _FAMILY.setdefault(_row.torch, _row.family)
    _FAMILY.setdefault(_row.ms, _row.family)
_STEM_FAMILY: Dict[str, str] = {}
for _row in TABLE:
    _STEM_FAMILY.setdefault(_stem(_row.torch), _row.family)
    _STEM_FAMILY.setdefault(_stem(_row.ms), _row.family)


def family(kind: str) -> str:
    """The layer family a torch or MindSpore class name belongs to (Linear and Dense: "linear"; BatchNorm,
    BatchNorm2d, SyncBatchNorm: "batchnorm"), or "" for a class the table does not know."""
    return _FAMILY.get(kind) or _STEM_FAMILY.get(_stem(kind), "")


def same_family(torch_kind: str, ms_kind: str) -> bool:
    """Both classes belong to one family the table knows (a BatchNorm2d ported as BatchNorm1d, two losses)."""
    fam = family(torch_kind)
    return bool(fam) and fam == family(ms_kind)


_TORCH_NAME: Dict[str, str] = {}
for _t, _m in tuple((c.torch, c.ms) for c in TABLE) + CONTAINERS:
    _TORCH_NAME.setdefault(_t, _t)  # a name torch uses stays itself (MindSpore's Dropout is torch's Dropout)
for _t, _m in tuple((c.torch, c.ms) for c in TABLE) + CONTAINERS:
    _TORCH_NAME.setdefault(_m, _t)


def torch_name(kind: str) -> str:
    """The torch class a class name stands for: Dense -> Linear, Conv2dTranspose -> ConvTranspose2d,
    SequentialCell -> Sequential; a torch class, or one the table does not know, is itself."""
    return _TORCH_NAME.get(kind, kind)


def leaf_renames() -> Tuple[Tuple[str, str, str], ...]:
    """(torch class stem, torch leaf, MindSpore leaf) for every leaf MindSpore's nn layers rename, in table
    order; a stem matches its numbered classes and their subclasses by prefix (BatchNorm: BatchNorm2d)."""
    out: Dict[Tuple[str, str], str] = {}
    for row in TABLE:
        for leaf, ms in row.leaves:
            out.setdefault((_stem(row.torch), leaf), ms)
    return tuple((stem, leaf, ms) for (stem, leaf), ms in out.items())


def gamma_stems() -> Tuple[str, ...]:
    """Class-name stems of the layers whose weight MindSpore names gamma (and bias beta): the normalization
    layers, which its optimizers' default decay filter skips by those names."""
    return tuple(dict.fromkeys(stem for stem, leaf, ms in leaf_renames() if leaf == "weight" and ms == "gamma"))


def has_gamma(kind: str) -> bool:
    """A class whose name contains such a stem (timm's BatchNormAct2d, a port's LayerNorm2d)."""
    return any(stem in kind for stem in gamma_stems())


# A normalization layer named by convention with no MindSpore nn counterpart (torch.nn.RMSNorm; MindSpore
# 2.10's nn has none, so ports write their own class of that name).
_NORMALIZATION_WITHOUT_ROW = ("RMSNorm",)


def is_normalization(kind: str) -> bool:
    """A normalization layer by its class name: a gamma layer's stem, or a conventional name with no row."""
    return has_gamma(kind) or any(stem in kind for stem in _NORMALIZATION_WITHOUT_ROW)


def update_rules(torch_optimizer: str) -> Tuple[str, ...]:
    """The update rules a torch optimizer class follows (ids in localization.update_rules.RULES)."""
    return next((c.update for c in OPTIMIZERS if c.torch == torch_optimizer and c.update), ())


def optimizer_names() -> Dict[str, Tuple[str, ...]]:
    """torch optimizer setting -> the names MindSpore's optimizers give it (torch's own spelling last)."""
    out: Dict[str, Tuple[str, ...]] = {}
    for row in OPTIMIZERS:
        for attr in row.attrs:
            out[attr.torch] = tuple(dict.fromkeys(out.get(attr.torch, ()) + (attr.ms,)))
    return {key: names if key in names else names + (key,) for key, names in out.items()}


def op_ids() -> FrozenSet[str]:
    """The ids of functional ops found between two sub-cells: "op-" and torch's function name."""
    return frozenset(f"op-{c.torch}" for c in OPS)
