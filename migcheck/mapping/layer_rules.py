"""Built-in per-layer renames between torch and MindSpore parameter leaves. Pure data and lookups."""
from __future__ import annotations

from typing import Tuple

from migcheck.mapping.families import kind_of
from migcheck.runners.base import ParamInfo

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
