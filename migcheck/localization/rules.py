"""Known framework differences, one small rule each: given a diverging pair of layers' settings, say why.

Pure: a rule sees two plain dicts of public attributes (the runners extract them) and returns a
Finding or None. Add a rule by appending to RULES.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Callable, List, Mapping, Optional, Tuple

from migcheck.records.findings import Finding  # noqa: F401  (re-exported)
from migcheck.runners.hooks import plain_config  # noqa: F401  (re-exported: the runners read settings with it)

Config = Mapping[str, Any]


@dataclass(frozen=True)
class Rule:
    id: str
    torch_kinds: str  # regex over the torch class name
    ms_kinds: str  # regex over the MindSpore class name
    check: Callable[[Config, Config], Optional[Tuple[str, str, str]]]  # -> (cause, fix, confidence)


def _close(a: Any, b: Any) -> bool:
    return isinstance(a, (int, float)) and isinstance(b, (int, float)) and math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-12)


def _pad_mode_same(t: Config, m: Config):
    mode = str(m.get("pad_mode", "")).lower()
    padding = t.get("padding", 0)
    if mode == "same" and t.get("padding") != "same":
        stride = t.get("stride", 1)
        asym = " (asymmetric on stride 2)" if (stride == 2 or stride == (2, 2)) else ""
        return (f"MindSpore pads with pad_mode='same'{asym}; torch uses explicit padding={padding}",
                f"pad_mode='pad', padding={padding if isinstance(padding, int) else tuple(padding)[0]}", "high")
    if mode == "valid" and padding not in (0, (0, 0), (0, 0, 0), "valid"):
        return (f"MindSpore pad_mode='valid' drops torch's padding={padding}", f"pad_mode='pad', padding={padding}", "high")
    return None


def _bn_momentum(t: Config, m: Config):
    # MindSpore's BatchNorm stores 1 - momentum_arg internally, i.e. torch's convention.
    tm, mm = t.get("momentum"), m.get("momentum")
    if tm is None or mm is None or _close(tm, mm):
        return None
    if _close(mm, 1 - tm):
        return (f"BatchNorm momentum copied from torch ({tm:g}); MindSpore's momentum is the complement",
                f"momentum={1 - tm:g}", "high")
    return (f"BatchNorm running-average weight differs: torch {tm:g}, MindSpore {mm:g} (as torch sees it)",
            f"momentum={1 - tm:g}", "high")


def _eps(key_t: str, key_m: str, what: str):
    def check(t: Config, m: Config):
        a, b = t.get(key_t), m.get(key_m)
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not _close(a, b):
            return f"{what} epsilon differs: torch {a:g}, MindSpore {b:g}", f"{key_m}={a:g}", "high"
        return None
    return check


def _gelu(t: Config, m: Config):
    torch_tanh = t.get("approximate") == "tanh"
    ms_value = m.get("approximate")
    ms_tanh = ms_value in (True, "tanh")
    if ms_value is not None and torch_tanh != ms_tanh:
        want = "True" if torch_tanh else "False"
        return (f"GELU form differs: torch {'tanh approximation' if torch_tanh else 'exact erf'},"
                f" MindSpore {'tanh approximation' if ms_tanh else 'exact erf'}", f"approximate={want}", "high")
    return None


_ABSENT = object()


def _same(key_t: str, key_m: str, what: str, ms_default: Any = _ABSENT):
    """torch's setting against MindSpore's; ms_default stands in when the MindSpore side does not record it."""
    def check(t: Config, m: Config):
        ms_value = m.get(key_m, ms_default)
        if key_t not in t or ms_value is _ABSENT:
            return None
        if t[key_t] != ms_value and not _close(t[key_t], ms_value):
            shown = f"{ms_value!r}" + ("" if key_m in m else " (its default)")
            return f"{what} differs: torch {t[key_t]!r}, MindSpore {shown}", f"{key_m}={t[key_t]!r}", "high"
        return None
    return check


def _dropout(t: Config, m: Config):
    p, keep = t.get("p"), m.get("keep_prob")
    if p is not None and m.get("p") is None and keep is not None and _close(keep, p) and not _close(p, 0.5):
        return (f"Dropout keep_prob={keep:g} was given torch's drop probability p={p:g}", f"p={p:g} (or keep_prob={1 - p:g})", "high")
    return None


RULES: Tuple[Rule, ...] = (
    Rule("pad-mode", r"^(Conv|MaxPool|AvgPool)", r"^(Conv|MaxPool|AvgPool)", _pad_mode_same),
    Rule("batchnorm-momentum", r"BatchNorm", r"BatchNorm", _bn_momentum),
    Rule("batchnorm-eps", r"BatchNorm", r"BatchNorm", _eps("eps", "eps", "BatchNorm")),
    Rule("layernorm-eps", r"^LayerNorm$", r"^LayerNorm$", _eps("eps", "epsilon", "LayerNorm")),
    Rule("gelu-approximate", r"^GELU$", r"^GELU$", _gelu),
    Rule("leakyrelu-slope", r"^LeakyReLU$", r"^LeakyReLU$", _same("negative_slope", "alpha", "LeakyReLU slope")),
    Rule("pool-ceil-mode", r"Pool", r"Pool", _same("ceil_mode", "ceil_mode", "pooling ceil_mode", ms_default=False)),
    Rule("pool-count-include-pad", r"AvgPool", r"AvgPool", _same("count_include_pad", "count_include_pad", "count_include_pad", ms_default=True)),
    Rule("align-corners", r"Upsample|Interpolat|Resize", r"Upsample|Interpolat|Resize", _same("align_corners", "align_corners", "align_corners")),
    Rule("dropout-keep-prob", r"^Dropout", r"^Dropout", _dropout),
    Rule("loss-reduction", r"Loss$", r"Loss$", _same("reduction", "reduction", "loss reduction")),
    Rule("loss-ignore-index", r"Loss$", r"Loss$", _same("ignore_index", "ignore_index", "ignore_index")),
    Rule("loss-label-smoothing", r"Loss$", r"Loss$", _same("label_smoothing", "label_smoothing", "label_smoothing")),
)


def diagnose(torch_name: str, torch_kind: str, torch_cfg: Config, ms_name: str, ms_kind: str, ms_cfg: Config,
             rules: Tuple[Rule, ...] = RULES) -> List[Finding]:
    where = f"torch '{torch_name or '<root>'}' ({torch_kind}) / MindSpore '{ms_name or '<root>'}' ({ms_kind})"
    out = []
    for rule in rules:
        if re.search(rule.torch_kinds, torch_kind) and re.search(rule.ms_kinds, ms_kind):
            found = rule.check(torch_cfg, ms_cfg)
            if found:
                cause, fix, confidence = found
                out.append(Finding(rule.id, where, cause, fix, confidence))
    return out


_NORM_KINDS = re.compile(r"BatchNorm|LayerNorm|GroupNorm|InstanceNorm")


def diagnose_update_pattern(check: str, failing: List[str], owner_kinds: Mapping[str, str]) -> List[Finding]:
    """Optimizer updates that differ exactly on normalisation weights and biases: a decay filter."""
    if check != "step":
        return []
    first = sorted({n.split(".param.", 1)[1] for n in failing if n.startswith("step1.param.")})
    if first and all(_NORM_KINDS.search(owner_kinds.get(p, "")) for p in first):
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
