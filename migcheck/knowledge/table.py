"""The one table of what corresponds between torch and MindSpore: classes, functional ops, optimizers.

One row per torch class (or function, or optimizer) and the MindSpore class that ports it: which attribute
corresponds to which, how MindSpore's value reads in torch's convention, the finding id a difference
reports, the parameter leaves MindSpore renames, an optimizer's update rules. Pure data; the lookups over
it are in migcheck.knowledge.lookup. The table orders candidates and names them in words; it never decides
a verdict or a cause: a re-run does (migcheck.localization.confirm).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, Tuple

MISSING = object()  # "MindSpore keeps no such attribute": Attr.ms_default when none is given


@dataclass(frozen=True)
class Attr:
    torch: str  # attribute on the torch module (or keyword of the torch function / optimizer)
    ms: str  # attribute on the MindSpore cell (or keyword)
    convert: str = "same"  # how MindSpore's value reads in torch's convention: see CONVERT
    ms_default: Any = MISSING  # MindSpore's value when the cell does not keep the attribute
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
    leaves: Tuple[Tuple[str, str], ...] = ()  # (torch parameter leaf, MindSpore's name for it) where they differ
    update: Tuple[str, ...] = ()  # an optimizer: the update rules torch's class follows (ids in update_rules.RULES)


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
# MindSpore's BatchNorm keeps 1 - its momentum argument, i.e. torch's convention, on the cell.
_NORM = (A("eps", "eps"), A("momentum", "momentum", rule="batchnorm-momentum", fix="complement"), A("affine", "affine"),
         A("track_running_stats", "use_batch_statistics", "not", ms_default=None))
_RED = A("reduction", "reduction", rule="loss-reduction")
_II = A("ignore_index", "ignore_index", rule="loss-ignore-index")
_CONV = (A("stride", "stride"), A("dilation", "dilation"), A("groups", "group"))
# torch's pool stride defaults to the kernel size, MindSpore's to 1
_POOL = (A("ceil_mode", "ceil_mode", ms_default=False, rule="pool-ceil-mode", fix="ceil"), A("stride", "stride", rule="pool-stride"))

# Parameter leaves MindSpore's nn layers rename (mindspore.mint layers keep torch's names). Linear<->Dense,
# Conv*, RNN/LSTM/GRU and MultiheadAttention keep torch's names (and layouts) in MindSpore 2.x;
# tests/mapping/test_mapping_layers.py proves each against the real layers.
_AFFINE = (("weight", "gamma"), ("bias", "beta"))
_STATS = _AFFINE + (("running_mean", "moving_mean"), ("running_var", "moving_variance"))

LAYERS: Tuple[Correspondence, ...] = (
    *(Correspondence(f"Conv{d}d", f"Conv{d}d", "conv", _CONV, padding="conv") for d in (1, 2, 3)),
    *(Correspondence(f"ConvTranspose{d}d", f"Conv{d}dTranspose", "convtranspose", _CONV + (A("output_padding", "output_padding"),),
                     padding="convtranspose") for d in (1, 2, 3)),
    Correspondence("Linear", "Dense", "linear", note="MindSpore's activation= argument fuses an activation into Dense"),
    Correspondence("Bilinear", "BiDense", "bilinear"),
    *(Correspondence(f"BatchNorm{d}d", f"BatchNorm{d}d", "batchnorm", (A("eps", "eps", rule="batchnorm-eps"),) + _NORM[1:],
                     leaves=_STATS)
      for d in (1, 2, 3)),
    Correspondence("SyncBatchNorm", "SyncBatchNorm", "batchnorm", _NORM, leaves=_STATS),
    Correspondence("LayerNorm", "LayerNorm", "layernorm", (A("eps", "epsilon", rule="layernorm-eps"),),
                   note="MindSpore's default epsilon is 1e-7, torch's 1e-5", leaves=_AFFINE),
    Correspondence("GroupNorm", "GroupNorm", "groupnorm", (A("eps", "eps"), A("num_groups", "num_groups"), A("affine", "affine")),
                   leaves=_AFFINE),
    *(Correspondence(f"InstanceNorm{d}d", f"InstanceNorm{d}d", "instancenorm", (A("eps", "eps"), A("affine", "affine")),
                     leaves=_STATS)
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
    Correspondence("PReLU", "PReLU", "prelu", leaves=(("weight", "w"),)),
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
    Correspondence("Embedding", "Embedding", "embedding", (A("padding_idx", "padding_idx"),), leaves=(("weight", "embedding_table"),)),
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
)

LOSSES: Tuple[Correspondence, ...] = (
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
)

# Keyword correspondences of functional ops, for ops captured between sub-cells.
OPS: Tuple[Correspondence, ...] = (
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
)

OPTIMIZERS: Tuple[Correspondence, ...] = (
    Correspondence("SGD", "SGD", "sgd", (A("lr", "learning_rate"), A("momentum", "momentum"), A("dampening", "dampening"),
                                         A("weight_decay", "weight_decay"), A("nesterov", "nesterov")), update=("sgd", "sgd-nesterov")),
    Correspondence("SGD", "Momentum", "sgd", (A("lr", "learning_rate"), A("momentum", "momentum"), A("weight_decay", "weight_decay"),
                                              A("nesterov", "use_nesterov")), note="mindspore.nn.Momentum is SGD with momentum"),
    Correspondence("Adam", "Adam", "adam", (A("lr", "learning_rate"), A("eps", "eps"), A("weight_decay", "weight_decay"),
                                            A("amsgrad", "use_amsgrad", ms_default=False)), update=("adam",)),
    Correspondence("AdamW", "AdamWeightDecay", "adamw", (A("lr", "learning_rate"), A("eps", "eps"), A("weight_decay", "weight_decay")),
                   note="AdamWeightDecay applies no bias correction", update=("adamw",)),
    Correspondence("RMSprop", "RMSProp", "rmsprop", (A("lr", "learning_rate"), A("alpha", "decay"), A("eps", "epsilon"),
                                                     A("momentum", "momentum"), A("centered", "centered")),
                   note="MindSpore adds epsilon inside the square root (TensorFlow style)", update=("rmsprop",)),
    Correspondence("Adagrad", "Adagrad", "adagrad", (A("lr", "learning_rate"), A("initial_accumulator_value", "accum"),
                                                     A("weight_decay", "weight_decay")),
                   note="MindSpore's accumulator starts at 0.1, torch's at 0", update=("adagrad",)),
    Correspondence("Adadelta", "Adadelta", "adadelta", (A("lr", "learning_rate"), A("rho", "rho"), A("eps", "epsilon"))),
    Correspondence("Adamax", "AdaMax", "adamax", (A("lr", "learning_rate"), A("eps", "eps"))),
    Correspondence("ASGD", "ASGD", "asgd", (A("lambd", "lambd"), A("alpha", "alpha"), A("t0", "t0"))),
    Correspondence("Rprop", "Rprop", "rprop", (A("etas", "etas"), A("step_sizes", "step_sizes"))),
    Correspondence("LBFGS", "LBFGS", "lbfgs"),
    Correspondence("NAdam", "NAdam", "nadam"),
)

TABLE: Tuple[Correspondence, ...] = LAYERS + LOSSES + OPS + OPTIMIZERS

# Containers compute nothing themselves: they pair as the same kind of node, never as a setting's owner.
CONTAINERS: Tuple[Tuple[str, str], ...] = (("Sequential", "SequentialCell"), ("ModuleList", "CellList"),
                                           ("ModuleDict", "CellDict"))
