"""Built-in per-layer renames between torch and MindSpore parameter leaves. Pure data and lookups."""
from __future__ import annotations

from typing import Tuple

from migcheck.knowledge.lookup import leaf_renames
from migcheck.mapping.families import kind_of
from migcheck.runners.base import ParamInfo

# (torch owner-kind prefix, torch leaf, MindSpore leaf), from the knowledge table's leaves column. Tried before
# the unchanged name, because MindSpore's nn layers rename these while mindspore.mint layers keep torch's names.
LEAF_RULES: Tuple[Tuple[str, str, str], ...] = leaf_renames()


def ms_leaf(t: ParamInfo) -> str:
    """The MindSpore leaf name a torch parameter's leaf becomes under the built-in rules."""
    for kind, leaf, ms in LEAF_RULES:
        if kind_of(t).startswith(kind) and t.leaf == leaf:
            return ms
    return t.leaf


def rule_of(t: ParamInfo) -> str:
    for kind, leaf, ms in LEAF_RULES:
        if kind_of(t).startswith(kind) and t.leaf == leaf:
            return f"{kind}.{leaf}->{ms}"
    return ""
