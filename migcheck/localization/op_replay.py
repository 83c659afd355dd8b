"""Which one setting of which torch call, changed, reproduces MindSpore's value: replaying a module's own calls.

When the first divergence is a region of functional calls inside a forward (attention's softmax among
q/k/v matmuls, a resize followed by a concatenation, a loss function called on prepared targets), the
single-op catalogue of functional_ops.py cannot recompute it from one agreeing value. The torch runner
keeps the calls a container's own forward made (op_trace's recorder, on the localization re-run) and
can replay them, children's outputs held fixed, with one keyword of one call changed. A setting is
named only when exactly one call site has a change that reproduces MindSpore's value where the region
ends, and the unchanged replay reproduces torch's: the replay is the counterfactual that confirms it.
No framework import: `module` is the torch runner's object (op_sites, replay_ops).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from migcheck.records.ops import DROPPED, TENSOR, Change, OpSite  # noqa: F401  (re-exported)
from migcheck.runners.probes import MindSporeProbe, OpReplayer

MAX_SITES = 64  # larger regions are not replayed (cost: one replay per alternative)


@dataclass(frozen=True)
class Setting:
    keyword: str
    position: Optional[int]
    default: Any  # torch's value when the call does not pass it
    alternatives: Callable[[int], List[Any]]  # the values the two frameworks' defaults and signatures allow


def _axes(nd: int) -> List[Any]:
    return list(range(-nd, 0))


def _axes_or_all(nd: int) -> List[Any]:
    return [None] + _axes(nd)


def _fixed(*values: Any) -> Callable[[int], List[Any]]:
    return lambda nd: list(values)


_REDUCTION = Setting("reduction", None, "mean", _fixed("mean", "sum", "none"))
_DIM1 = Setting("dim", 1, None, _axes)
_REDUCE_DIM = Setting("dim", 1, None, _axes_or_all)
SETTINGS: Dict[str, Tuple[Setting, ...]] = {
    **{op: (_DIM1,) for op in ("softmax", "log_softmax", "softmin")},
    **{op: (_REDUCE_DIM,) for op in ("argmax", "argmin", "amax", "amin", "sum", "mean", "prod")},
    **{op: (Setting("dim", 1, 0, _axes),) for op in ("cat", "concat", "concatenate")},
    "interpolate": (Setting("align_corners", 4, None, _fixed(True, False)),),
    "gelu": (Setting("approximate", None, "none", _fixed("none", "tanh")),),
    "leaky_relu": (Setting("negative_slope", 1, 0.01, _fixed(0.01, 0.2)),),
    "normalize": (Setting("dim", 2, 1, _axes), Setting("eps", 3, 1e-12, _fixed(1e-12, 1e-4))),
    "layer_norm": (Setting("eps", 4, 1e-5, _fixed(1e-5, 1e-6, 1e-7, 1e-12)),),
    "group_norm": (Setting("eps", 4, 1e-5, _fixed(1e-5, 1e-6)),),
    **{op: (Setting("correction", None, 1, _fixed(0, 1)),) for op in ("std", "var")},
    "flatten": (Setting("start_dim", 1, 0, lambda nd: list(range(nd))),),
    "binary_cross_entropy_with_logits": (Setting("pos_weight", None, None, _fixed(None)),
                                         Setting("weight", 2, None, _fixed(None)), _REDUCTION),
    "binary_cross_entropy": (Setting("weight", 2, None, _fixed(None)), _REDUCTION),
    "cross_entropy": (Setting("label_smoothing", None, 0.0, _fixed(0.0)), Setting("ignore_index", None, -100, _fixed(-100)),
                      Setting("weight", 2, None, _fixed(None)), _REDUCTION),
    "nll_loss": (Setting("ignore_index", None, -100, _fixed(-100)), Setting("weight", 2, None, _fixed(None)), _REDUCTION),
    **{op: (_REDUCTION,) for op in ("mse_loss", "l1_loss")},
    "smooth_l1_loss": (_REDUCTION, Setting("beta", None, 1.0, _fixed(1.0))),
    "huber_loss": (_REDUCTION, Setting("delta", None, 1.0, _fixed(1.0))),
    "kl_div": (Setting("reduction", None, "mean", _fixed("mean", "sum", "none", "batchmean")),
               Setting("log_target", None, False, _fixed(False, True))),
}


def own_settings(site: OpSite) -> List[Setting]:
    """Settings read off the call itself: each plain argument it passes away from its signature's default,
    tried at that default (torch sets `antialias=True`, a port that cannot say it computes the default), and
    each boolean it passes, flipped."""
    defaults = dict(site.defaults)
    given = [(k, v, None) for k, v in site.keywords]
    given += [(site.names[i], v, i) for i, v in enumerate(site.positional) if i < len(site.names)]
    out = []
    for name, value, position in given:
        if value == TENSOR and name in defaults and defaults[name] is None:  # a tensor argument the port may drop
            out.append(Setting(name, position, None, _fixed(None)))
            continue
        if value == TENSOR or isinstance(value, (tuple, list)) or name not in defaults and not isinstance(value, bool):
            continue
        alts = []
        if name in defaults and not _same(defaults[name], value, site.ndim):
            alts.append(defaults[name])
        if isinstance(value, bool) and (not value) not in alts:
            alts.append(not value)
        if alts:
            out.append(Setting(name, position, defaults.get(name), _fixed(*alts)))
    return out


def settings_of(site: OpSite) -> List[Setting]:
    """The table's settings for the op (they order and widen the values tried), then the call's own."""
    table = list(SETTINGS.get(site.name, ()))
    known = {s.keyword for s in table}
    return table + [s for s in own_settings(site) if s.keyword not in known]


@dataclass(frozen=True)
class ReplayMatch:
    site: OpSite
    keyword: str
    torch_value: Any
    ms_value: Any
    torch_array: Any = None  # torch's tensor for that setting (TENSOR), as numpy, where the replayer kept it
    calls: int = 0  # a left-out call: how many calls of that op torch's region makes

    @property
    def rule(self) -> str:
        return f"op-{self.site.name}" + ("-dropped" if self.dropped else "")

    @property
    def dropped(self) -> bool:
        """torch's call itself, left out (its tensor argument passed on), reproduces MindSpore's value."""
        return self.keyword == DROPPED

    @property
    def drops_mask(self) -> bool:
        """torch's setting is a tensor other than float values (a padding mask), replayed as None: it changes which
        positions count, which much else (a fast path zeroing them) changes too."""
        if self.torch_value != TENSOR:
            return False
        if self.torch_array is None:
            return True
        values = np.asarray(self.torch_array)  # booleans, or floats that only say keep/drop (0/1, 0/-inf)
        return values.dtype.kind not in "fc" or bool(np.isin(values, (0.0, 1.0, -np.inf, np.inf)).all())

    def cause(self, where: str) -> str:
        if self.dropped:
            return (f"the port leaves out torch's {self.torch_value} ({self.site.text}):"
                    f" replaying torch's own calls {where} with only that call left out (its argument {self.ms_value}"
                    f" passed on) reproduces MindSpore's value")
        return (f"{self.site.name} called with {self.keyword}={_shown(self.torch_value)} in torch"
                f" ({self.site.text}) but computed as with {self.keyword}={_shown(self.ms_value)} in MindSpore:"
                f" replaying torch's own calls {where} with only that setting changed reproduces MindSpore's value")

    @property
    def fix(self) -> str:
        if self.dropped:  # no change to the port's calls was re-run: nothing to print
            return ""
        return f"give {self.site.name} {self.keyword}={_shown(self.torch_value)} in construct, as torch does"


def _shown(v: Any) -> str:
    return "a tensor" if v == TENSOR else repr(v)


def current(site: OpSite, setting: Setting) -> Any:
    keywords = dict(site.keywords)
    if setting.keyword in keywords:
        return keywords[setting.keyword]
    if setting.position is not None and len(site.positional) > setting.position:
        return site.positional[setting.position]
    return setting.default


def _same(a: Any, b: Any, nd: int) -> bool:
    ints = all(isinstance(v, int) and not isinstance(v, bool) for v in (a, b))
    if ints and nd:
        return a % nd == b % nd  # dim=1 and dim=-3 name the same axis of a rank-4 tensor
    if ints or all(isinstance(v, float) for v in (a, b)):
        return a == b
    return type(a) is type(b) and a == b


def agree(a: Any, b: Any, rtol: float, atol: float) -> bool:
    """Floats within tolerance, integers and booleans exactly, shapes always."""
    if not isinstance(a, np.ndarray) or not isinstance(b, np.ndarray) or a.shape != b.shape:
        return False
    if a.dtype.kind in "fc" and b.dtype.kind in "fc":
        scale = max(float(np.max(np.abs(a), initial=0.0)), 1.0)
        return bool(np.allclose(a.astype(np.float64), b.astype(np.float64), rtol=max(rtol, 1e-5),
                                atol=max(atol, 1e-6 * scale), equal_nan=True))
    return bool(np.array_equal(a, b))


def find_setting(module: OpReplayer, owner: str, after: int, before: int, torch_value: np.ndarray, ms_value: np.ndarray,
                 rtol: float, atol: float) -> Optional[ReplayMatch]:
    """The one call site and setting whose change makes torch's replayed region give MindSpore's value."""
    try:
        sites: Sequence[OpSite] = module.op_sites(owner, after, before)
        if not sites or len(sites) > MAX_SITES:
            return None
        base: Dict[int, Any] = module.replay_ops(owner, after, before, None)
    except Exception:  # nothing recorded, or a call that cannot run again outside its forward
        return None
    at = max((seq for seq, v in base.items() if agree(v, torch_value, rtol, atol)), default=None)
    if at is None:  # the unchanged replay must reproduce torch's value, or a change proves nothing
        return None
    hits: List[ReplayMatch] = []
    for site in sites:
        if site.seq > at:
            continue
        for setting in settings_of(site):
            now = current(site, setting)
            for alt in setting.alternatives(site.ndim):
                if _same(alt, now, site.ndim):
                    continue
                try:
                    got = module.replay_ops(owner, after, before, Change(site.seq, setting.position, setting.keyword, alt))
                except Exception:  # a combination torch refuses
                    continue
                if agree(got.get(at), ms_value, rtol, atol):
                    array = _site_tensor(module, site, setting) if now == TENSOR else None
                    hits.append(ReplayMatch(site, setting.keyword, now, alt, array))
    if not hits:  # no setting explains it: a call of torch's the port leaves out
        hits = [h for site in sites if site.seq <= at for h in _dropped(module, owner, after, before, site, at,
                                                                          ms_value, rtol, atol)]
        hits = [dataclasses.replace(h, calls=sum(_op(s.name) == _op(h.site.name) for s in sites)) for h in hits]
    keys = {(h.site.seq, h.keyword) for h in hits}
    return hits[0] if len(keys) == 1 else None  # two sites (or two settings) that both explain it: not named


def _dropped(module: OpReplayer, owner: str, after: int, before: int, site: OpSite, at: int, ms_value: np.ndarray,
             rtol: float, atol: float) -> List[ReplayMatch]:
    """The call left out, each of its tensor arguments passed on in turn (an `adj + eye` the port never adds)."""
    hits = []
    for position, value in enumerate(site.positional[:2]):
        if not (isinstance(value, str) and value == TENSOR):
            continue
        try:
            got = module.replay_ops(owner, after, before, Change(site.seq, position, DROPPED, None))
        except Exception:  # a region that cannot run with the call left out
            continue
        if agree(got.get(at), ms_value, rtol, atol):
            hits.append(ReplayMatch(site, DROPPED, _expression(module, site), f"#{position + 1}"))
    return hits


_SYMBOLS = {"add": "+", "__add__": "+", "__radd__": "+", "sub": "-", "__sub__": "-", "mul": "*", "__mul__": "*",
            "__rmul__": "*", "div": "/", "__truediv__": "/", "matmul": "@", "__matmul__": "@"}


def _expression(module: OpReplayer, site: OpSite) -> str:
    """The left-out call written with what its arguments are (`input_layernorm.weight + 1`, `its input +
    torch.eye(4)`), or its recorded text where they cannot be read."""
    try:
        origins = module.origins(site.seq)
    except Exception:  # a replayer that cannot say where its arguments come from
        origins = ()
    if len(origins) == 2 and site.name in _SYMBOLS:
        return f"{origins[0]} {_SYMBOLS[site.name]} {origins[1]}"
    if origins:
        return f"{site.name}({', '.join(origins)})"
    return site.text


def _site_tensor(module: OpReplayer, site: OpSite, setting: Setting) -> Any:
    try:
        return module.site_tensor(site.seq, setting.keyword, setting.position)
    except Exception:  # a replayer that keeps no tensors: the setting is named, no tensor to hand over
        return None


def _op(name: str) -> str:
    """An op's name for counting calls on both sides: Tensor.__radd__, add and Add are all 'add'."""
    base = name.rsplit(".", 1)[-1].strip("_").lower().replace("truediv", "div")
    return base[1:] if base[:1] == "r" and base[1:] in ("add", "sub", "mul", "div", "matmul", "pow") else base


def port_passes_torchs_value(cell: MindSporeProbe, ms_name: str, inputs: Sequence[Any], match: ReplayMatch) -> bool:
    """Whether the port's own call of the replayed op already passes torch's value for that setting: then the
    replay (torch's calls with another value give MindSpore's output) is a coincidence of what follows (a cat on
    another axis that a reshape maps onto the port's wrong shuffle), not the port's mistake, and no fix is owed.
    For a left-out call: whether the port makes as many calls of that op as torch's region (then leaving one out
    reproduces MindSpore's value by coincidence: a factor the port zeroes elsewhere, a NaN it makes elsewhere)."""
    from migcheck.localization.arg_candidates import similarity

    try:
        records, _ = cell.trace_ops(ms_name, list(inputs))
    except Exception:  # the container cannot run alone: nothing contradicts the replay
        return False
    if match.dropped:
        return sum(_op(r.name) == _op(match.site.name) for r in records) >= match.calls
    op = match.site.name.lower()
    for r in records:
        base = r.name.split(".")[-1].strip("_").lower()
        if base != op and similarity(base, op) < 0.6:
            continue
        given = dict(zip(r.names, r.positional))
        given.update(dict(r.keywords))
        value = next((v for k, v in given.items() if similarity(k, match.keyword) >= 0.8), None)
        nd = r.inputs[0].ndim if r.inputs else 0
        if value is not None and _same(value, match.torch_value, nd):
            return True
    return False
