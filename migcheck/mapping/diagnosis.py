"""Structure problems said as what is wrong with the port, not as advice about the case. Pure.

A torch parameter with no MindSpore counterpart whose layer's other parameters did find one means
the port's layer lacks it (a dropped bias); a MindSpore parameter no torch parameter feeds, on a
layer that otherwise receives torch weights, means the port's layer has one the original lacks.
Only when no layer partner exists is the fix a weight_map entry.
"""
from __future__ import annotations

from typing import Any, Dict, List

from migcheck.mapping.families import kind_of
from migcheck.mapping.structure import family

_NORM_AFFINE = ("gamma", "beta")


def diagnose(mapping: Any) -> List[str]:
    """One message per unmapped torch parameter and per unset MindSpore parameter."""
    from migcheck.mapping.layer_rules import ms_leaf

    rows = [(r.torch_name, r.ms_name) for r in mapping.pairs]
    to_ms: Dict[str, str] = {}
    to_torch: Dict[str, str] = {}
    for t, m in rows:
        to_ms.setdefault(t.rpartition(".")[0], m.rpartition(".")[0])
        to_torch.setdefault(m.rpartition(".")[0], t.rpartition(".")[0])
    ms_kind = {p.owner_path: kind_of(p) for p in mapping.ms_params}
    torch_kind = {p.owner_path: p.owner_kind for p in mapping.torch_params}
    ms_leaves = {(p.owner_path, p.leaf) for p in mapping.ms_params}
    torch_leaves = {(p.owner_path, ms_leaf(p)) for p in mapping.torch_params}
    out = []
    in_ambiguity = {p for a in mapping.ambiguities for p in a.torch_layers + a.ms_layers}  # said once, by layer
    for info in mapping.unmapped_torch:
        if info.owner_path in in_ambiguity:
            continue
        partner = to_ms.get(info.owner_path)
        if (partner, ms_leaf(info)) in ms_leaves:
            partner = None  # the port's layer has it: the map sent something else there
        out.append(_missing_on_ms(info, partner, ms_kind.get(partner, "?")) if partner is not None else
                   f"torch '{info.name}' {list(info.shape)} ({info.owner_kind}) has no MindSpore counterpart;"
                   f" add it to the case's weight_map (or map it to None if unused on purpose)")
    for info in mapping.unset_ms:
        if info.owner_path in in_ambiguity:
            continue
        partner = to_torch.get(info.owner_path)
        if (partner, info.leaf) in torch_leaves:
            partner = None
        out.append(_extra_on_ms(info, partner, torch_kind.get(partner, "?")) if partner is not None else
                   _unfed(info))
    return out


def _missing_on_ms(t: Any, ms_layer: str, ms_kind: str) -> str:
    what = f"the MindSpore {ms_kind} {_at(ms_layer)} has no {t.leaf}, but torch {_at(t.owner_path)} ({t.owner_kind}) has one"
    fam = family(ms_kind)
    if t.leaf == "bias" and fam in ("conv", "convtranspose"):
        return f"{what} ('{t.name}' {list(t.shape)}): pass has_bias=True to the {ms_kind} (has_bias=False is its default)"
    if t.leaf == "bias" and fam == "linear":
        return f"{what} ('{t.name}' {list(t.shape)}): the port builds it with has_bias=False; pass has_bias=True"
    return f"{what} ('{t.name}' {list(t.shape)}): the port's layer lacks this parameter"


def _extra_on_ms(m: Any, torch_layer: str, torch_kind: str) -> str:
    what = (f"the MindSpore {m.owner_kind} {_at(m.owner_path)} has {m.leaf} ('{m.name}' {list(m.shape)}),"
            f" which torch {_at(torch_layer)} ({torch_kind}) lacks")
    fam = family(kind_of(m))
    if m.leaf == "bias" and fam in ("conv", "convtranspose", "linear"):
        return f"{what} (built with bias=False): pass has_bias=False to the {m.owner_kind}"
    if m.leaf in _NORM_AFFINE:
        return f"{what} (built with affine=False): " + _constant_hint(m)
    return f"{what}: the port's layer has a parameter the original does not"


def _unfed(m: Any) -> str:
    if m.leaf in _NORM_AFFINE and not m.trainable:
        return (f"MindSpore '{m.name}' {list(m.shape)} ({m.owner_kind}) is constant (requires_grad=False) and set by"
                f" no torch parameter, as a norm layer built with affine=False keeps it: " + _constant_hint(m))
    return (f"MindSpore '{m.name}' {list(m.shape)} ({m.owner_kind}) is set by no torch parameter;"
            f" add the torch name that feeds it to the case's weight_map"
            + (" (or, if it is constant by design, declare it in constant_params)" if m.leaf in _NORM_AFFINE else ""))


def _constant_hint(m: Any) -> str:
    return (f"if it is constant by design, declare constant_params=({m.name!r},) on the case"
            f" (it then keeps the port's own value)")



def _at(path: str) -> str:
    return f"'{path}'" if path else "(top level)"
