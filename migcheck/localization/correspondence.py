"""Corresponding settings of a torch class and its MindSpore counterpart, and how to compare them. Pure.

Each entry says which torch attribute corresponds to which MindSpore attribute and how MindSpore's
value reads in torch's convention (BatchNorm momentum is the complement, Dropout keep_prob is
1 - p, GELU's approximate is a flag). `differences` diffs two *effective* configurations (plain
attribute dicts read off the live objects) through that table; padding is compared as the pads each
side actually applies for this kernel, stride, dilation and input size, so a `pad_mode="same"`
that pads exactly like the explicit padding is no difference.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

_MISSING = object()


@dataclass(frozen=True)
class Attr:
    torch: str  # attribute on the torch module (or keyword of the torch function / optimizer)
    ms: str  # attribute on the MindSpore cell (or keyword)
    convert: str = "same"  # how MindSpore's value reads in torch's convention: see CONVERT
    ms_default: Any = _MISSING  # MindSpore's value when the cell does not keep the attribute
    rule: str = ""  # finding id; "" -> "<family>-<torch attr>"
    fix: str = ""  # how torch's value becomes the MindSpore constructor argument; "" -> the inverse of convert


@dataclass(frozen=True)
class Correspondence:
    torch: str  # class (or function / optimizer) name
    ms: str
    family: str  # rule id prefix and kind family
    attrs: Tuple[Attr, ...] = ()
    padding: str = ""  # "conv" | "convtranspose" | "maxpool" | "avgpool": compare effective pads
    note: str = ""  # a documented difference with no attribute to compare


def _gelu_flag(v: Any) -> Any:
    return "tanh" if v in (True, "tanh") else "none"


def _axis(v: Any) -> Any:
    return v[0] if isinstance(v, (tuple, list)) and len(v) == 1 else v


CONVERT: Dict[str, Tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    # name: (MindSpore value -> torch convention, torch value -> MindSpore convention)
    "same": (lambda v: v, lambda v: v),
    "complement": (lambda v: 1 - v, lambda v: 1 - v),
    "gelu": (_gelu_flag, lambda v: v == "tanh"),
    "axis": (_axis, lambda v: v),
    "not": (lambda v: not v, lambda v: not v),
    # MindSpore's pools honour ceil_mode only with pad_mode='pad' (documented)
    "ceil": (lambda v: v, lambda v: {"pad_mode": "pad", "ceil_mode": v} if v else {"ceil_mode": v}),
}

A = Attr
_EPS = A("eps", "eps")
# MindSpore's BatchNorm keeps 1 - its momentum argument, i.e. torch's convention, on the cell.
_NORM = (A("eps", "eps"), A("momentum", "momentum", rule="batchnorm-momentum", fix="complement"), A("affine", "affine"),
         A("track_running_stats", "use_batch_statistics", "not", ms_default=None))
_RED = A("reduction", "reduction", rule="loss-reduction")
_II = A("ignore_index", "ignore_index", rule="loss-ignore-index")
_CONV = (A("stride", "stride"), A("dilation", "dilation"), A("groups", "group"))
# torch's pool stride defaults to the kernel size, MindSpore's to 1
_POOL = (A("ceil_mode", "ceil_mode", ms_default=False, rule="pool-ceil-mode", fix="ceil"), A("stride", "stride", rule="pool-stride"))

TABLE: Tuple[Correspondence, ...] = (
    # --- layers ---
    *(Correspondence(f"Conv{d}d", f"Conv{d}d", "conv", _CONV, padding="conv") for d in (1, 2, 3)),
    *(Correspondence(f"ConvTranspose{d}d", f"Conv{d}dTranspose", "convtranspose", _CONV + (A("output_padding", "output_padding"),),
                     padding="convtranspose") for d in (1, 2, 3)),
    Correspondence("Linear", "Dense", "dense", note="MindSpore's activation= argument fuses an activation into Dense"),
    Correspondence("Bilinear", "BiDense", "bilinear"),
    *(Correspondence(f"BatchNorm{d}d", f"BatchNorm{d}d", "batchnorm", (A("eps", "eps", rule="batchnorm-eps"),) + _NORM[1:])
      for d in (1, 2, 3)),
    Correspondence("SyncBatchNorm", "SyncBatchNorm", "batchnorm", _NORM),
    Correspondence("LayerNorm", "LayerNorm", "layernorm", (A("eps", "epsilon", rule="layernorm-eps"),),
                   note="MindSpore's default epsilon is 1e-7, torch's 1e-5"),
    Correspondence("GroupNorm", "GroupNorm", "groupnorm", (A("eps", "eps"), A("num_groups", "num_groups"), A("affine", "affine"))),
    *(Correspondence(f"InstanceNorm{d}d", f"InstanceNorm{d}d", "instancenorm", (A("eps", "eps"), A("affine", "affine")))
      for d in (1, 2, 3)),
    Correspondence("LocalResponseNorm", "LRN", "lrn", (A("size", "depth_radius"), A("alpha", "alpha"), A("beta", "beta"), A("k", "bias"))),
    Correspondence("Dropout", "Dropout", "dropout", (A("p", "p", rule="dropout-keep-prob"),),
                   note="MindSpore's older keep_prob argument is 1 - p"),
    *(Correspondence(f"Dropout{d}d", f"Dropout{d}d", "dropout", (A("p", "p"),)) for d in (1, 2, 3)),
    Correspondence("AlphaDropout", "AlphaDropout", "dropout", (A("p", "p"),)),
    Correspondence("GELU", "GELU", "gelu", (A("approximate", "approximate", "gelu", rule="gelu-approximate"),),
                   note="MindSpore's GELU defaults to the tanh approximation, torch's to exact erf"),
    Correspondence("LeakyReLU", "LeakyReLU", "leakyrelu", (A("negative_slope", "alpha", rule="leakyrelu-slope"),)),
    Correspondence("ELU", "ELU", "elu", (A("alpha", "alpha"),)),
    Correspondence("CELU", "CELU", "celu", (A("alpha", "alpha"),)),
    Correspondence("SELU", "SeLU", "selu"),
    Correspondence("Softplus", "Softplus", "softplus", (A("beta", "beta"), A("threshold", "threshold"))),
    Correspondence("Hardtanh", "Hardtanh", "hardtanh", (A("min_val", "min_val"), A("max_val", "max_val"))),
    Correspondence("Hardswish", "HSwish", "hardswish"),
    Correspondence("Hardsigmoid", "HSigmoid", "hardsigmoid"),
    Correspondence("Hardshrink", "HShrink", "hardshrink", (A("lambd", "lambd"),)),
    Correspondence("Softshrink", "SoftShrink", "softshrink", (A("lambd", "lambd"),)),
    Correspondence("Threshold", "Threshold", "threshold", (A("threshold", "threshold"), A("value", "value"))),
    Correspondence("SiLU", "SiLU", "silu"),
    Correspondence("Mish", "Mish", "mish"),
    Correspondence("PReLU", "PReLU", "prelu"),
    Correspondence("RReLU", "RReLU", "rrelu", (A("lower", "lower"), A("upper", "upper"))),
    Correspondence("ReLU", "ReLU", "relu"),
    Correspondence("ReLU6", "ReLU6", "relu6"),
    Correspondence("Sigmoid", "Sigmoid", "sigmoid"),
    Correspondence("LogSigmoid", "LogSigmoid", "logsigmoid"),
    Correspondence("Tanh", "Tanh", "tanh"),
    Correspondence("Tanhshrink", "Tanhshrink", "tanhshrink"),
    Correspondence("Softsign", "Softsign", "softsign"),
    Correspondence("GLU", "GLU", "glu", (A("dim", "dim"),)),
    Correspondence("Softmax", "Softmax", "softmax", (A("dim", "axis", "axis"),), note="torch's implicit dim differs from MindSpore's axis=-1"),
    Correspondence("LogSoftmax", "LogSoftmax", "logsoftmax", (A("dim", "axis", "axis"),)),
    Correspondence("Softmin", "Softmin", "softmin", (A("dim", "axis", "axis"),)),
    *(Correspondence(f"MaxPool{d}d", f"MaxPool{d}d", "maxpool", _POOL, padding="maxpool") for d in (1, 2, 3)),
    *(Correspondence(f"AvgPool{d}d", f"AvgPool{d}d", "avgpool",
                     _POOL + (A("count_include_pad", "count_include_pad", ms_default=True, rule="pool-count-include-pad"),),
                     padding="avgpool") for d in (1, 2, 3)),
    *(Correspondence(f"AdaptiveAvgPool{d}d", f"AdaptiveAvgPool{d}d", "adaptiveavgpool", (A("output_size", "output_size"),)) for d in (1, 2, 3)),
    *(Correspondence(f"AdaptiveMaxPool{d}d", f"AdaptiveMaxPool{d}d", "adaptivemaxpool", (A("output_size", "output_size"),)) for d in (1, 2, 3)),
    *(Correspondence(f"LPPool{d}d", f"LPPool{d}d", "lppool", (A("norm_type", "norm_type"),)) for d in (1, 2)),
    Correspondence("Upsample", "Upsample", "upsample", (A("mode", "mode"), A("align_corners", "align_corners", rule="align-corners"),
                                                        A("scale_factor", "scale_factor"))),
    Correspondence("PixelShuffle", "PixelShuffle", "pixelshuffle", (A("upscale_factor", "upscale_factor"),)),
    Correspondence("PixelUnshuffle", "PixelUnshuffle", "pixelunshuffle", (A("downscale_factor", "downscale_factor"),)),
    Correspondence("Flatten", "Flatten", "flatten", (A("start_dim", "start_dim"), A("end_dim", "end_dim"))),
    Correspondence("Unflatten", "Unflatten", "unflatten"),
    Correspondence("Identity", "Identity", "identity"),
    Correspondence("Embedding", "Embedding", "embedding", (A("padding_idx", "padding_idx"),)),
    *(Correspondence(f"ZeroPad{d}d", f"ZeroPad{d}d", "zeropad", (A("padding", "padding"),)) for d in (1, 2, 3)),
    *(Correspondence(f"ConstantPad{d}d", f"ConstantPad{d}d", "constantpad", (A("padding", "padding"), A("value", "value"))) for d in (1, 2, 3)),
    *(Correspondence(f"ReflectionPad{d}d", f"ReflectionPad{d}d", "reflectionpad", (A("padding", "padding"),)) for d in (1, 2, 3)),
    *(Correspondence(f"ReplicationPad{d}d", f"ReplicationPad{d}d", "replicationpad", (A("padding", "padding"),)) for d in (1, 2, 3)),
    Correspondence("CosineSimilarity", "CosineSimilarity", "cosinesimilarity", (A("dim", "dim"), A("eps", "eps"))),
    Correspondence("PairwiseDistance", "PairwiseDistance", "pairwisedistance", (A("p", "p"), A("eps", "eps"), A("keepdim", "keepdim"))),
    Correspondence("MultiheadAttention", "MultiheadAttention", "attention", (A("batch_first", "batch_first"), A("dropout", "dropout"))),
    Correspondence("TransformerEncoderLayer", "TransformerEncoderLayer", "transformer", (A("norm_first", "norm_first"),)),
    Correspondence("LSTM", "LSTM", "lstm", (A("batch_first", "batch_first"), A("bidirectional", "bidirectional"))),
    Correspondence("GRU", "GRU", "gru", (A("batch_first", "batch_first"), A("bidirectional", "bidirectional"))),
    Correspondence("RNN", "RNN", "rnn", (A("batch_first", "batch_first"), A("nonlinearity", "nonlinearity"))),
    Correspondence("Fold", "Fold", "fold"),
    Correspondence("Unfold", "Unfold", "unfold"),
    Correspondence("ChannelShuffle", "ChannelShuffle", "channelshuffle", (A("groups", "groups"),)),
    # --- losses ---
    Correspondence("CrossEntropyLoss", "CrossEntropyLoss", "loss", (_RED, _II, A("label_smoothing", "label_smoothing", rule="loss-label-smoothing"))),
    Correspondence("NLLLoss", "NLLLoss", "loss", (_RED, _II)),
    Correspondence("MSELoss", "MSELoss", "loss", (_RED,)),
    Correspondence("L1Loss", "L1Loss", "loss", (_RED,)),
    Correspondence("SmoothL1Loss", "SmoothL1Loss", "loss", (_RED, A("beta", "beta"))),
    Correspondence("HuberLoss", "HuberLoss", "loss", (_RED, A("delta", "delta"))),
    Correspondence("BCELoss", "BCELoss", "loss", (_RED,)),
    Correspondence("BCEWithLogitsLoss", "BCEWithLogitsLoss", "loss", (_RED,)),
    Correspondence("KLDivLoss", "KLDivLoss", "loss", (_RED, A("log_target", "log_target", ms_default=False)),
                   note="MindSpore's 'mean' is torch's deprecated elementwise mean; torch recommends 'batchmean'"),
    Correspondence("CTCLoss", "CTCLoss", "loss", (_RED, A("blank", "blank"), A("zero_infinity", "zero_infinity"))),
    Correspondence("CosineEmbeddingLoss", "CosineEmbeddingLoss", "loss", (_RED, A("margin", "margin"))),
    Correspondence("MarginRankingLoss", "MarginRankingLoss", "loss", (_RED, A("margin", "margin"))),
    Correspondence("MultiLabelSoftMarginLoss", "MultiLabelSoftMarginLoss", "loss", (_RED,)),
    Correspondence("MultiMarginLoss", "MultiMarginLoss", "loss", (_RED, A("p", "p"), A("margin", "margin"))),
    Correspondence("HingeEmbeddingLoss", "HingeEmbeddingLoss", "loss", (_RED, A("margin", "margin"))),
    Correspondence("TripletMarginLoss", "TripletMarginLoss", "loss", (_RED, A("margin", "margin"), A("p", "p"), A("eps", "eps"))),
    Correspondence("PoissonNLLLoss", "PoissonNLLLoss", "loss", (_RED, A("log_input", "log_input"), A("full", "full"), A("eps", "eps"))),
    Correspondence("GaussianNLLLoss", "GaussianNLLLoss", "loss", (_RED, A("full", "full"), A("eps", "eps"))),
    Correspondence("SoftMarginLoss", "SoftMarginLoss", "loss", (_RED,)),
    Correspondence("MultiLabelMarginLoss", "MultiLabelMarginLoss", "loss", (_RED,)),
    # --- functional ops (keyword correspondences, for ops captured between sub-cells) ---
    Correspondence("softmax", "ops.softmax", "softmax", (A("dim", "axis"),)),
    Correspondence("var", "ops.var", "var", (A("unbiased", "ddof", "not"), A("dim", "axis"), A("keepdim", "keepdims")),
                   note="torch.var is unbiased by default, Tensor.var in MindSpore takes ddof=0"),
    Correspondence("std", "ops.std", "std", (A("unbiased", "ddof", "not"), A("dim", "axis"), A("keepdim", "keepdims"))),
    Correspondence("mean", "ops.mean", "mean", (A("dim", "axis"), A("keepdim", "keep_dims"))),
    Correspondence("sum", "ops.sum", "sum", (A("dim", "dim"), A("keepdim", "keepdim"))),
    Correspondence("interpolate", "ops.interpolate", "interpolate", (A("mode", "mode"), A("align_corners", "align_corners", rule="align-corners"))),
    Correspondence("gelu", "ops.gelu", "gelu", (A("approximate", "approximate", "gelu", rule="gelu-approximate"),)),
    Correspondence("layer_norm", "ops.layer_norm", "layernorm", (A("eps", "eps"),)),
    Correspondence("normalize", "ops.L2Normalize", "normalize", (A("dim", "axis"), A("eps", "epsilon"))),
    Correspondence("pad", "ops.pad", "pad", (A("mode", "mode"), A("value", "value"))),
    Correspondence("dropout", "ops.dropout", "dropout", (A("p", "p"),)),
    Correspondence("cross_entropy", "ops.cross_entropy", "loss", (_RED, _II)),
    Correspondence("split", "ops.split", "split", note="torch splits by chunk size; MindSpore's Split op by number of outputs"),
    Correspondence("topk", "ops.topk", "topk", (A("sorted", "sorted"),), note="tie order may differ"),
    Correspondence("sort", "ops.sort", "sort", (A("stable", "stable"), A("descending", "descending"))),
    Correspondence("argmax", "ops.argmax", "argmax", (A("dim", "axis"),)),
    Correspondence("cumsum", "ops.cumsum", "cumsum", (A("dim", "axis"),)),
    Correspondence("clamp", "ops.clamp", "clamp"),
    Correspondence("gather", "ops.gather_elements", "gather", note="ops.gather is index_select, not torch.gather"),
    Correspondence("one_hot", "ops.one_hot", "onehot"),
    Correspondence("norm", "ops.norm", "norm", (A("p", "ord"), A("dim", "dim"))),
    Correspondence("round", "ops.round", "round", note="both round half to even"),
    # --- optimizers ---
    Correspondence("SGD", "SGD", "sgd", (A("lr", "learning_rate"), A("momentum", "momentum"), A("dampening", "dampening"),
                                         A("weight_decay", "weight_decay"), A("nesterov", "nesterov"))),
    Correspondence("Adam", "Adam", "adam", (A("lr", "learning_rate"), A("eps", "eps"), A("weight_decay", "weight_decay"),
                                            A("amsgrad", "use_amsgrad", ms_default=False))),
    Correspondence("AdamW", "AdamWeightDecay", "adamw", (A("lr", "learning_rate"), A("eps", "eps"), A("weight_decay", "weight_decay")),
                   note="AdamWeightDecay applies no bias correction"),
    Correspondence("RMSprop", "RMSProp", "rmsprop", (A("lr", "learning_rate"), A("alpha", "decay"), A("eps", "epsilon"),
                                                     A("momentum", "momentum"), A("centered", "centered")),
                   note="MindSpore adds epsilon inside the square root (TensorFlow style)"),
    Correspondence("Adagrad", "Adagrad", "adagrad", (A("lr", "learning_rate"), A("initial_accumulator_value", "accum"),
                                                     A("weight_decay", "weight_decay")),
                   note="MindSpore's accumulator starts at 0.1, torch's at 0"),
    Correspondence("Adadelta", "Adadelta", "adadelta", (A("lr", "learning_rate"), A("rho", "rho"), A("eps", "epsilon"))),
    Correspondence("Adamax", "AdaMax", "adamax", (A("lr", "learning_rate"), A("eps", "eps"))),
    Correspondence("ASGD", "ASGD", "asgd", (A("lambd", "lambd"), A("alpha", "alpha"), A("t0", "t0"))),
    Correspondence("Rprop", "Rprop", "rprop", (A("etas", "etas"), A("step_sizes", "step_sizes"))),
    Correspondence("LBFGS", "LBFGS", "lbfgs"),
    Correspondence("NAdam", "NAdam", "nadam"),
)

_BY_PAIR: Dict[Tuple[str, str], Correspondence] = {(c.torch, c.ms): c for c in TABLE}


def lookup(torch_kind: str, ms_kind: str) -> Optional[Correspondence]:
    return _BY_PAIR.get((torch_kind, ms_kind))


def corresponds(torch_kind: str, ms_kind: str) -> bool:
    return (torch_kind, ms_kind) in _BY_PAIR


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
                input_shape: Sequence[int] = ()) -> List[Difference]:
    """Settings that differ once MindSpore's are read in torch's convention; padding by effective pads."""
    entry = lookup(torch_kind, ms_kind)
    if entry is None:
        return []
    out = []
    for attr in entry.attrs:
        if attr.torch not in t:
            continue
        raw = m.get(attr.ms, attr.ms_default)
        if attr.ms == "reduction" and attr.ms not in m and "reduce" in m:  # LossBase keeps two flags instead
            raw = ("mean" if m.get("average") else "sum") if m["reduce"] else "none"
        if raw is _MISSING:
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
        rule = attr.rule or f"{entry.family}-{attr.torch.replace('_', '-')}"
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
    return Difference("layernorm-axes", "normalized_shape", "begin_norm_axis", tuple(shape), m["begin_norm_axis"],
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
        if isinstance(a, (str, bool, int, float, type(None))) and not _num_equal(a, b) and type(a) is type(b):
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
    tp, mp = torch_pads(t, spatial), ms_pads(m, spatial)
    if tp == mp:
        return None
    fix = tp[0][0] if all(a == b == tp[0][0] for a, b in tp) else tuple(p for pair in tp for p in pair)
    fixed: Dict[str, Any] = {"pad_mode": "pad", "padding": fix}
    if isinstance(fix, tuple) and ms_pads({**m, "pad_mode": "same"}, spatial) == tp:
        fixed = {"pad_mode": "same", "padding": 0}  # asymmetric pads that MindSpore's 'same' applies itself
    cause = (f"the padding each side applies differs for input size {tuple(spatial)}: torch pads"
             f" {_show(tp)}, MindSpore pad_mode='{str(m.get('pad_mode', 'pad')).lower()}' pads {_show(mp)}")
    return Difference("pad-mode", "padding", "pad_mode", t.get("padding"), m.get("pad_mode"), mp, fixed, cause)


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
    return Difference("pad-mode", "padding", "pad_mode", t.get("padding"), m.get("pad_mode"), ms_crop, fix, cause)


def _show(pads: Sequence[Tuple[int, int]]) -> str:
    return " x ".join(f"({a} before, {b} after)" for a, b in pads)
