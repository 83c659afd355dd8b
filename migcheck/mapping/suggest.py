"""`migcheck map CASE --suggest`: a ready-to-paste weight_map that freezes the current pairing. Pure.

Every pairing that no name or built-in rule makes is written out (inferred ones with their evidence,
ambiguous ones as their registration-order guess marked CONFIRM), so a pasted map no longer depends
on inference. What has no counterpart at all is written as a comment: nothing is silently mapped to None.
"""
from __future__ import annotations

from typing import Dict, List, Tuple

from migcheck.mapping.transfer import WeightMapping

_BY_NAME = ("same name", "rule ")


def suggest(mapping: WeightMapping) -> Tuple[str, bool]:
    """(the text of a `weight_map = {...}` dict, whether it maps everything without a comment to resolve)."""
    by_layer = {(i.torch_layer, i.ms_layer): i for i in mapping.inferred}
    lines: List[str] = ["weight_map = {"]
    complete = True
    last_note = ""
    for link in mapping.links:
        if link.how.startswith(_BY_NAME):
            continue
        t, m = link.torch[0], link.ms[0]
        inference = by_layer.get((t.owner_path, m.owner_path))
        note = (f"# {inference.describe()}" if inference is not None else
                "# from the case's weight_map" if link.how.startswith(("override", "rename")) else "")
        if note and note != last_note:
            lines.append(f"    {note}")
            last_note = note
        key = repr(t.name) if len(link.torch) == 1 else repr(tuple(x.name for x in link.torch))
        value = repr(m.name) if len(link.ms) == 1 else repr([x.name for x in link.ms])
        lines.append(f"    {key}: {value},")
    for skip in mapping.skipped:
        if skip.reason.startswith("mapped to None"):
            lines.append(f"    {skip.torch_name!r}: None,  # unused on purpose")
    for amb in mapping.ambiguities:
        lines.append(f"    # AMBIGUOUS ({amb.signature}): paired by registration order; CONFIRM or reorder")
        for t_layer, m_layer in amb.guess:
            for t_name, m_name in _leaves(mapping, t_layer, m_layer).items():
                lines.append(f"    {t_name!r}: {m_name!r},")
    for info in mapping.unmapped_torch:
        if not any(info.owner_path in a.torch_layers for a in mapping.ambiguities):
            complete = False
            lines.append(f"    # {info.name!r}: ...,  # torch {list(info.shape)} ({info.owner_kind}): no MindSpore"
                         f" counterpart found; name one, or None if unused on purpose")
    ambiguous_ms = {p for a in mapping.ambiguities for p in a.ms_layers}
    for info in mapping.unset_ms:
        if info.owner_path not in ambiguous_ms:
            complete = False
            lines.append(f"    # MindSpore {info.name!r} {list(info.shape)} ({info.owner_kind}) is fed by no torch parameter")
    lines.append("}")
    return "\n".join(lines), complete


def _leaves(mapping: WeightMapping, t_layer: str, m_layer: str) -> Dict[str, str]:
    """torch name -> MindSpore name for two layers' parameters, by (translated) leaf."""
    from migcheck.mapping.layer_rules import ms_leaf

    ms = {p.leaf: p.name for p in mapping.ms_params if p.owner_path == m_layer}
    return {p.name: ms[ms_leaf(p)] for p in mapping.torch_params if p.owner_path == t_layer and ms_leaf(p) in ms}


def evidence(mapping: WeightMapping) -> str:
    """What `migcheck map` adds under the table: each inferred layer pairing and every warning."""
    lines = [f"{len(mapping.inferred)} layer pairing(s) inferred without a name or rule:"] if mapping.inferred else []
    lines += [f"  ~ {i.describe()}" for i in mapping.inferred]
    lines += [f"warning: {w}" for w in mapping.warnings]
    return "".join("\n" + line for line in lines)
