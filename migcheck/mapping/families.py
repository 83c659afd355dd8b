"""What a layer is, for mapping: its library base class (from the runners), else its parameter signature.

A subclass of a library layer (timm's BatchNormAct2d, LayerNorm2d, a port's ConvNextLayerNorm) is the
layer it extends. A class with no library ancestor is read from its parameters: weight, bias,
running_mean, running_var is a batch norm whatever the class is called (gamma, beta, moving_mean,
moving_variance on the MindSpore side); a lone 2-D weight (and a bias of its rows) is linear-like; a 3-5-D
weight is a convolution. Class names never decide. Pure.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, FrozenSet, List, Sequence, Tuple

from migcheck.runners.base import ParamInfo

# (required leaves, allowed leaves, kind): batch norms first, so their 1-D weight is not read as anything else.
_SIGNATURES: Tuple[Tuple[FrozenSet[str], FrozenSet[str], str], ...] = (
    (frozenset({"weight", "running_mean", "running_var"}),
     frozenset({"weight", "bias", "running_mean", "running_var", "num_batches_tracked"}), "BatchNorm"),
    (frozenset({"gamma", "moving_mean", "moving_variance"}),
     frozenset({"gamma", "beta", "moving_mean", "moving_variance"}), "BatchNorm"),
)


def kind_of(p: ParamInfo) -> str:
    """The class a parameter's owner counts as: its library base, else (none, or not reported) its class name."""
    return p.owner_base or p.owner_kind


def signature_kind(leaves: Dict[str, Tuple[int, ...]], torch_side: bool) -> str:
    """The library layer a set of (leaf -> shape) reads as; "" when it reads as none."""
    names = frozenset(leaves)
    for required, allowed, kind in _SIGNATURES:
        if required <= names <= allowed and all(len(shape) == 1 for shape in leaves.values()):
            return kind
    weight = leaves.get("weight")
    if weight is None or not names <= {"weight", "bias"}:
        return ""
    bias_fits = "bias" not in leaves or leaves["bias"] == weight[:1]
    if len(weight) == 2 and bias_fits:
        return "Linear" if torch_side else "Dense"
    if 3 <= len(weight) <= 5 and bias_fits:
        return f"Conv{len(weight) - 2}d"
    return ""


def with_kinds(params: Sequence[ParamInfo], torch_side: bool) -> List[ParamInfo]:
    """The parameters, with owners that have no library base given the kind their signature reads as."""
    grouped: Dict[str, Dict[str, Tuple[int, ...]]] = {}
    for p in params:
        if p.owner_base == "":  # reported as having no library base
            grouped.setdefault(p.owner_path, {})[p.leaf] = tuple(p.shape)
    kinds = {owner: signature_kind(leaves, torch_side) for owner, leaves in grouped.items()}
    return [dataclasses.replace(p, owner_base=kinds[p.owner_path]) if kinds.get(p.owner_path) else p for p in params]


def subclass_note(params: Sequence[ParamInfo], side: str) -> str:
    """One line naming the library-layer subclasses that add children, mapped by their base class."""
    seen: Dict[Tuple[str, str, Tuple[str, ...]], List[str]] = {}
    for p in params:
        if p.owner_extra:
            paths = seen.setdefault((p.owner_kind, p.owner_base, p.owner_extra), [])
            if p.owner_path not in paths:
                paths.append(p.owner_path)
    if not seen:
        return ""
    parts = [f"{kind} is a {base} plus {', '.join(extra)} ({len(paths)} layer(s), e.g. '{paths[0]}')"
             for (kind, base, extra), paths in seen.items()]
    return (f"{side} layers mapped as their library base class; the children they add are layers of their own, compared"
            f" through the layer's output: " + "; ".join(parts))
