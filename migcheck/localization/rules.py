"""Findings read from a pattern of failing tensors rather than from one layer's settings: a decay filter that
skips normalization parameters, float16's narrow range in a mixed-precision run.

A setting that differs between a torch class and its MindSpore counterpart is a row in the knowledge table
(migcheck.knowledge.table), compared by migcheck.localization.correspondence; the older list of rules that
ran beside it is folded into that table. Pure.
"""
from __future__ import annotations

from typing import List, Mapping, Optional

from migcheck.knowledge.lookup import has_gamma
from migcheck.records.findings import Finding  # noqa: F401  (re-exported)
from migcheck.runners.hooks import plain_config  # noqa: F401  (re-exported: the runners read settings with it)


def diagnose_update_pattern(check: str, failing: List[str], owner_kinds: Mapping[str, str]) -> List[Finding]:
    """Optimizer updates that differ exactly on normalisation weights and biases: a decay filter."""
    if check != "step":
        return []
    first = sorted({n.split(".param.", 1)[1] for n in failing if n.startswith("step1.param.")})
    if first and all(has_gamma(owner_kinds.get(p, "")) for p in first):
        return [Finding("weight-decay-filter", ", ".join(first),
                        "the first update differs only on normalisation parameters: MindSpore's float weight_decay"
                        " skips parameters named gamma/beta (its default decay filter), torch decays them",
                        "pass parameter groups: [{'params': params, 'weight_decay': wd}]", "medium")]
    return []


FLOAT16_MAX = 65504.0


def diagnose_precision(dtype: Optional[str], mode: str, kinds: List[str], layer: str = "",
                       peak_input: float = 0.0) -> List[Finding]:
    """float16's narrow range in a mixed-precision run: a failure that is non-finite, or whose first
    diverging layer takes inputs whose squares pass float16's largest value (a mean of squares turns
    inf, its rsqrt 0: values, not infinities, come out).

    dtype: the case's compute dtype (None: float32, no finding); kinds: the failing tensors' kinds;
    layer: the first diverging layer's class; peak_input: the largest |input| torch fed it.
    """
    if dtype != "float16":
        return []
    squares = peak_input * peak_input > FLOAT16_MAX
    if "nonfinite" not in kinds and not squares:
        return []
    seen = (f"the inputs of {layer} reach {peak_input:.4g}: their squares ({peak_input * peak_input:.3g}) pass"
            f" float16's largest value, {FLOAT16_MAX:g}" if squares else "a value is not finite on one side only")
    cause = (f"{seen}; the original computes such steps in float32 (x.float() before a square, a variance or a"
             " softmax), the port in float16")
    if mode == "pynative":
        cause += ("; MindSpore's PYNATIVE to_float casts the inputs of every op inside a flagged cell, undoing an"
                  " astype(mindspore.float32) there (GRAPH mode keeps it)")
    keep = f"keep_float32=('{layer}',)" if layer else "keep_float32=('<layer class>',)"
    return [Finding("float16-overflow", layer or "the network", cause,
                    f"compute that step in float32 in the port and keep the layer in float32 ({keep})", "medium")]
