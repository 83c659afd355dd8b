"""Settings of a torch class and its MindSpore counterpart compared through the one table
(migcheck.knowledge.table). Pure.

Each table row says which torch attribute corresponds to which MindSpore attribute and how MindSpore's
value reads in torch's convention (BatchNorm momentum is the complement, Dropout keep_prob is
1 - p, GELU's approximate is a flag). `differences` diffs two *effective* configurations (plain
attribute dicts read off the live objects) through that table; padding is compared as the pads each
side actually applies for this kernel, stride, dilation and input size, so a `pad_mode="same"`
that pads exactly like the explicit padding is no difference.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from migcheck.knowledge.lookup import LAYERNORM_AXES_ID, PADDING_ID, counterparts, corresponds, lookup, rule_id, same_family
from migcheck.knowledge.table import CONVERT, MISSING, TABLE, Attr, Correspondence

# The table and its lookups live in migcheck.knowledge (mapping and running read them too); their names stay
# importable from here.

__all__ = ["CONVERT", "TABLE", "Attr", "Correspondence", "Difference", "corresponds", "differences", "lookup",
           "padding_difference", "same_named_differences", "same_pads"]


@dataclass(frozen=True)
class Difference:
    rule: str
    torch_attr: str
    ms_attr: str
    torch_value: Any
    ms_value: Any  # as MindSpore holds it
    ms_as_torch: Any  # MindSpore's value in torch's convention: what to patch torch with to reproduce the port
    ms_fix: Any  # the MindSpore value that reproduces torch: what the port should say
    cause: str


def _num_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-12)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        if len(a) != len(b) and len(set(a)) == 1 and len(set(b)) == 1:  # Conv1d's (1,) vs MindSpore's 2-D (1, 1)
            return _num_equal(a[0], b[0])
        return len(a) == len(b) and all(_num_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, (tuple, list)) and len(set(a)) == 1:
        return _num_equal(a[0], b)
    if isinstance(b, (tuple, list)) and len(set(b)) == 1:
        return _num_equal(a, b[0])
    return a == b


def differences(torch_kind: str, t: Mapping[str, Any], ms_kind: str, m: Mapping[str, Any],
                input_shape: Sequence[int] = (), by_family: bool = False) -> List[Difference]:
    """Settings that differ once MindSpore's are read in torch's convention; padding by effective pads.

    by_family: a pair the table has no row for, but whose classes share a family (BatchNorm2d ported as
    BatchNorm1d, one loss as another), is compared through torch's class's row."""
    if not ms_kind:  # no MindSpore layer paired (an unpaired torch module): no settings to set beside torch's
        return []
    entry = lookup(torch_kind, ms_kind)
    if entry is None and by_family and same_family(torch_kind, ms_kind):
        entry = next(iter(counterparts(torch_kind)), None)
    if entry is None:
        return []
    out = []
    for attr in entry.attrs:
        if attr.torch not in t:
            continue
        raw = m.get(attr.ms, attr.ms_default)
        if attr.ms == "reduction" and attr.ms not in m and "reduce" in m:  # LossBase keeps two flags instead
            raw = ("mean" if m.get("average") else "sum") if m["reduce"] else "none"
        if raw is MISSING:
            continue
        to_torch, to_ms = CONVERT[attr.convert]
        if entry.family == "dropout" and attr.ms == "p" and raw is None and "keep_prob" in m:
            raw = 1 - m["keep_prob"]
        try:
            as_torch = to_torch(raw)
        except TypeError:
            continue
        if raw is None and attr.ms_default is None:
            continue
        if _num_equal(t[attr.torch], as_torch):
            continue
        rule = rule_id(entry, attr)
        shown = f"{raw!r}" + ("" if attr.ms in m else " (its default)")
        conv = "" if attr.convert == "same" else f", which is {as_torch!r} in torch's convention"
        cause = (f"{torch_kind} {attr.torch} differs: torch {t[attr.torch]!r}, MindSpore {shown}"
                 f" ({ms_kind}.{attr.ms}{conv})")
        to_arg = CONVERT[attr.fix][1] if attr.fix else to_ms
        out.append(Difference(rule, attr.torch, attr.ms, t[attr.torch], raw, _like(t[attr.torch], as_torch),
                              to_arg(t[attr.torch]), cause))
    if entry.padding and len(input_shape) >= 3:
        diff = padding_difference(entry.padding, t, m, tuple(input_shape[2:]))
        if diff is not None:
            out.append(diff)
    if entry.family == "layernorm" and input_shape:
        diff = layernorm_axes_difference(t, m, tuple(input_shape))
        if diff is not None:
            out.append(diff)
    return out


def _like(torch_value: Any, value: Any) -> Any:
    """MindSpore's value in the rank torch keeps it in (a 1-D pool's operator stride (1, 1) is torch's 1), so
    torch's layer can be re-run with it."""
    if not isinstance(value, (tuple, list)) or isinstance(torch_value, bool):
        return value
    if isinstance(torch_value, int) and len(set(value)) == 1:
        return value[0]
    if isinstance(torch_value, (tuple, list)) and len(value) > len(torch_value):
        return tuple(value[-len(torch_value):])
    return value


def layernorm_axes_difference(t: Mapping[str, Any], m: Mapping[str, Any], input_shape: Sequence[int]) -> Optional[Difference]:
    """torch normalizes the last len(normalized_shape) axes; MindSpore from begin_norm_axis on (its gamma from
    begin_params_axis on): the same only when both start where torch's shape starts."""
    shape = t.get("normalized_shape")
    if not isinstance(shape, (tuple, list)) or "begin_norm_axis" not in m:
        return None
    rank = len(input_shape)
    want = rank - len(shape)

    def axis(v: Any) -> int:
        return int(v) + rank if int(v) < 0 else int(v)

    norm, params = axis(m["begin_norm_axis"]), axis(m.get("begin_params_axis", m["begin_norm_axis"]))
    if norm == want and params == want:
        return None
    cause = (f"LayerNorm axes differ for a rank-{rank} input: torch normalizes the last {len(shape)} axes"
             f" (normalized_shape={tuple(shape)}), MindSpore begin_norm_axis={m['begin_norm_axis']},"
             f" begin_params_axis={m.get('begin_params_axis')} start at axes {norm} and {params}")
    return Difference(LAYERNORM_AXES_ID, "normalized_shape", "begin_norm_axis", tuple(shape), m["begin_norm_axis"],
                      tuple(input_shape[norm:]), {"begin_norm_axis": want, "begin_params_axis": want}, cause)


# Bookkeeping that says nothing about what a layer computes (and differs between frameworks by design).
_NOT_SETTINGS = frozenset({"training", "name", "cls_name", "requires_grad", "phase", "param_prefix", "inplace",
                           "enable_hook", "dump_patches", "call_super_init"})


def same_named_differences(torch_kind: str, t: Mapping[str, Any], ms_kind: str, m: Mapping[str, Any]) -> List[Difference]:
    """Settings both objects keep under the same name with different values: for classes the table does
    not know (a port's own modules). Candidates only: a caller keeps one only when a re-run confirms it."""
    out = []
    for key in sorted(set(t) & set(m) - _NOT_SETTINGS):
        a, b = t[key], m[key]
        unset_flag = (a is None and isinstance(b, bool)) or (b is None and isinstance(a, bool))  # None: not said
        if isinstance(a, (str, bool, int, float, type(None))) and not _num_equal(a, b) and (
                type(a) is type(b) or unset_flag):
            cause = (f"{key} differs: torch {torch_kind}.{key} is {a!r}, MindSpore {ms_kind}.{key} is {b!r}"
                     " (a setting both keep under the same name)")
            out.append(Difference(key.replace("_", "-").lower(), key, key, a, b, b, a, cause))
    return out


def _tuple(v: Any, n: int) -> Tuple[int, ...]:
    if isinstance(v, (tuple, list)):
        if len(v) > n:  # MindSpore's 1-D layers run a 2-D operator: kernel (1, k), the leading 1 is not spatial
            return tuple(int(x) for x in v[-n:])
        return tuple(int(x) for x in v) if len(v) == n else tuple(int(v[0]) for _ in range(n))
    return tuple(int(v) for _ in range(n))


def same_pads(size: int, kernel: int, stride: int, dilation: int = 1) -> Tuple[int, int]:
    """TensorFlow/MindSpore 'same': output ceil(size/stride), the extra pad at the end."""
    out = -(-size // stride)
    total = max((out - 1) * stride + (kernel - 1) * dilation + 1 - size, 0)
    return total // 2, total - total // 2


def torch_pads(t: Mapping[str, Any], spatial: Sequence[int]) -> Tuple[Tuple[int, int], ...]:
    n = len(spatial)
    kernel, stride = _tuple(t.get("kernel_size", 1), n), _tuple(t.get("stride") or t.get("kernel_size", 1), n)
    dilation = _tuple(t.get("dilation", 1), n)
    padding = t.get("padding", 0)
    if padding == "valid":
        return tuple((0, 0) for _ in range(n))
    if padding == "same":  # torch's 'same' (stride 1) puts the odd extra pad at the end, like MindSpore
        return tuple(same_pads(s, k, 1, d) for s, k, d in zip(spatial, kernel, dilation))
    return tuple((p, p) for p in _tuple(padding, n))


def ms_pads(m: Mapping[str, Any], spatial: Sequence[int]) -> Tuple[Tuple[int, int], ...]:
    n = len(spatial)
    kernel = _tuple(m.get("kernel_size", 1), n)
    stride = _tuple(m.get("stride", 1), n)
    dilation = _tuple(m.get("dilation", 1), n)
    mode = str(m.get("pad_mode", "pad")).lower()
    if mode == "same":
        return tuple(same_pads(s, k, st, d) for s, k, st, d in zip(spatial, kernel, stride, dilation))
    if mode == "valid":
        return tuple((0, 0) for _ in range(n))
    padding = m.get("padding", 0)
    if isinstance(padding, (tuple, list)) and len(padding) == 2 * n + 2:  # a 1-D layer's 2-D (0, 0, left, right)
        padding = tuple(padding[2:])
    if isinstance(padding, (tuple, list)) and len(padding) == 2 * n:  # MindSpore (top, bottom, left, right)
        return tuple((int(padding[2 * i]), int(padding[2 * i + 1])) for i in range(n))
    return tuple((p, p) for p in _tuple(padding, n))


def padding_difference(kind: str, t: Mapping[str, Any], m: Mapping[str, Any], spatial: Sequence[int]) -> Optional[Difference]:
    if kind == "convtranspose":
        return _transpose_padding(t, m, spatial)
    padding = t.get("padding", 0)
    if not ({"padding", "pad_mode"} & set(m)) or isinstance(padding, (tuple, list)) and len(padding) > len(spatial):
        return None  # no padding setting on MindSpore's side (an unrelated cell), or torch's per-side pads: not this rule
    tp, mp = torch_pads(t, spatial), ms_pads(m, spatial)
    if tp == mp:
        return None
    fix = tp[0][0] if all(a == b == tp[0][0] for a, b in tp) else tuple(p for pair in tp for p in pair)
    # no padding at all is MindSpore's pad_mode='valid' (the simpler call), any other pads are 'pad' with them
    fixed: Dict[str, Any] = {"pad_mode": "valid", "padding": 0} if fix == 0 else {"pad_mode": "pad", "padding": fix}
    # asymmetric pads that MindSpore's 'same' applies itself (torch's own padding='same' with an even kernel);
    # pads the same on both sides of each axis stay explicit, in MindSpore's (top, bottom, left, right) order: a
    # change of the port's own padding, right at every input size (a 'same' that matches is so only at stride 1)
    uneven = t.get("padding") == "same" or any(a != b for a, b in tp)
    if isinstance(fix, tuple) and uneven and ms_pads({**m, "pad_mode": "same"}, spatial) == tp:
        fixed = {"pad_mode": "same", "padding": 0}
    cause = (f"the padding each side applies differs for input size {tuple(spatial)}: torch pads"
             f" {_show(tp)}, MindSpore pad_mode='{str(m.get('pad_mode', 'pad')).lower()}' pads {_show(mp)}")
    return Difference(PADDING_ID, "padding", "pad_mode", t.get("padding"), m.get("pad_mode"), mp, fixed, cause)


def _transpose_padding(t: Mapping[str, Any], m: Mapping[str, Any], spatial: Sequence[int]) -> Optional[Difference]:
    """A transposed conv's 'same' crops to input*stride; torch crops `padding` from each side."""
    n = len(spatial)
    mode = str(m.get("pad_mode", "pad")).lower()
    k, s, d = _tuple(t.get("kernel_size", 1), n), _tuple(t.get("stride", 1), n), _tuple(t.get("dilation", 1), n)
    p, op = _tuple(t.get("padding", 0), n), _tuple(t.get("output_padding", 0), n)
    full = [(i - 1) * st + dd * (kk - 1) + 1 for i, st, dd, kk in zip(spatial, s, d, k)]
    torch_crop = tuple((pp, pp - o) for pp, o in zip(p, op))
    if mode == "same":
        ms_crop = tuple(((f - i * st) // 2, (f - i * st) - (f - i * st) // 2) for f, i, st in zip(full, spatial, s))
    elif mode == "valid":
        ms_crop = tuple((0, 0) for _ in range(n))
    else:
        ms_crop = tuple((q, q) for q in _tuple(m.get("padding", 0), n))
    if torch_crop == ms_crop:
        return None
    if all(a == b for a, b in torch_crop):
        fix = {"pad_mode": "pad", "padding": torch_crop[0][0] if len(set(torch_crop)) == 1 else tuple(a for a, _ in torch_crop)}
    else:  # torch's output_padding leaves an asymmetric crop: MindSpore's 'pad' takes (top, bottom, left, right)
        fix = {"pad_mode": "pad", "padding": tuple(v for pair in torch_crop for v in pair)}
    cause = (f"transposed conv output cropping differs for input size {tuple(spatial)}: torch crops"
             f" {_show(torch_crop)} (padding={t.get('padding')}, output_padding={t.get('output_padding', 0)}),"
             f" MindSpore pad_mode='{mode}' crops {_show(ms_crop)}")
    return Difference(PADDING_ID, "padding", "pad_mode", t.get("padding"), m.get("pad_mode"), ms_crop, fix, cause)


def _show(pads: Sequence[Tuple[int, int]]) -> str:
    return " x ".join(f"({a} before, {b} after)" for a, b in pads)
