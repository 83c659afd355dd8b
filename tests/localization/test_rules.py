"""The known differences the old rule list named, now rows of the knowledge table, on plain settings as the
runners extract them from real layers; and the pattern findings that stay functions."""
import pytest

from migcheck.localization.correspondence import differences
from migcheck.localization.rules import diagnose_update_pattern, plain_config


def rules(t_kind, t_cfg, m_kind, m_cfg, shape=(1, 3, 8, 8), by_family=False):
    return [d.rule for d in differences(t_kind, t_cfg, m_kind, m_cfg, shape, by_family=by_family)]


@pytest.mark.parametrize("t_kind, t_cfg, m_kind, m_cfg, expected", [
    ("Conv2d", {"padding": (1, 1), "stride": (2, 2), "kernel_size": (3, 3)}, "Conv2d",
     {"pad_mode": "same", "stride": (2, 2), "kernel_size": (3, 3)}, ["pad-mode"]),  # 'same' pads (0, 1) at stride 2
    ("Conv2d", {"padding": (1, 1), "kernel_size": (1, 1)}, "Conv2d", {"pad_mode": "same", "kernel_size": (1, 1)}, ["pad-mode"]),
    ("MaxPool2d", {"padding": 1, "stride": 2, "kernel_size": 2}, "MaxPool2d",
     {"pad_mode": "SAME", "stride": 2, "kernel_size": 2}, ["pad-mode"]),
    ("Conv2d", {"padding": (1, 1)}, "Conv2d", {"pad_mode": "pad", "padding": 1}, []),
    ("Conv2d", {"padding": (1, 1)}, "Conv2d", {"pad_mode": "valid"}, ["pad-mode"]),
    # MindSpore stores 1 - momentum_arg: 0.9 given -> 0.1 stored, torch's 0.1 agrees.
    ("BatchNorm2d", {"momentum": 0.1, "eps": 1e-5}, "BatchNorm2d", {"momentum": 0.1, "eps": 1e-5}, []),
    ("BatchNorm2d", {"momentum": 0.1, "eps": 1e-5}, "BatchNorm2d", {"momentum": 0.9, "eps": 1e-5}, ["batchnorm-momentum"]),
    ("BatchNorm1d", {"momentum": 0.1, "eps": 1e-5}, "BatchNorm1d", {"momentum": 0.1, "eps": 1e-3}, ["batchnorm-eps"]),
    ("LayerNorm", {"eps": 1e-5}, "LayerNorm", {"epsilon": 1e-7}, ["layernorm-eps"]),
    ("LayerNorm", {"eps": 1e-5}, "LayerNorm", {"epsilon": 1e-5}, []),
    ("GELU", {"approximate": "none"}, "GELU", {"approximate": "tanh"}, ["gelu-approximate"]),
    ("GELU", {"approximate": "none"}, "GELU", {"approximate": False}, []),
    ("GELU", {"approximate": "tanh"}, "GELU", {"approximate": True}, []),
    ("LeakyReLU", {"negative_slope": 0.01}, "LeakyReLU", {"alpha": 0.2}, ["leakyrelu-slope"]),
    ("AvgPool2d", {"ceil_mode": True, "count_include_pad": True}, "AvgPool2d", {}, ["pool-ceil-mode"]),
    ("AvgPool2d", {"ceil_mode": False, "count_include_pad": False}, "AvgPool2d", {}, ["pool-count-include-pad"]),
    ("AvgPool2d", {"ceil_mode": False, "count_include_pad": True}, "AvgPool2d", {}, []),
    # MindSpore's Dropout(keep_prob=0.1) keeps p=None and keep_prob=0.1 (read off the real cell)
    ("Dropout", {"p": 0.1}, "Dropout", {"p": None, "keep_prob": 0.1}, ["dropout-keep-prob"]),
    ("Dropout", {"p": 0.1}, "Dropout", {"p": None, "keep_prob": 0.9}, []),
    ("Upsample", {"align_corners": True}, "Upsample", {"align_corners": False}, ["align-corners"]),
    ("SmoothL1Loss", {"reduction": "mean"}, "SmoothL1Loss", {"reduction": "none"}, ["loss-reduction"]),
    ("CrossEntropyLoss", {"reduction": "mean", "ignore_index": 0, "label_smoothing": 0.1}, "CrossEntropyLoss",
     {"reduction": "mean", "ignore_index": -100, "label_smoothing": 0.0}, ["loss-ignore-index", "loss-label-smoothing"]),
    ("Linear", {"in_features": 3}, "Dense", {"in_channels": 3}, []),
])
def test_old_rule_as_a_table_row(t_kind, t_cfg, m_kind, m_cfg, expected):
    assert rules(t_kind, t_cfg, m_kind, m_cfg) == expected


def test_a_pair_of_one_family_without_a_row_is_compared_only_when_asked():
    """What the old rules' class-name patterns caught (BatchNorm2d ported as BatchNorm1d, one loss as another)
    goes through torch's class's row with by_family; an exact pair never needs it."""
    bn = ({"momentum": 0.1, "eps": 1e-5}, {"momentum": 0.9, "eps": 1e-5})
    assert rules("BatchNorm2d", bn[0], "BatchNorm1d", bn[1]) == []
    assert rules("BatchNorm2d", bn[0], "BatchNorm1d", bn[1], by_family=True) == ["batchnorm-momentum"]
    assert rules("MSELoss", {"reduction": "mean"}, "L1Loss", {"reduction": "sum"}, by_family=True) == ["loss-reduction"]
    assert rules("BatchNorm2d", bn[0], "LayerNorm", {"epsilon": 1e-7}, by_family=True) == []  # two families


def test_findings_carry_cause_and_fix():
    (diff,) = differences("LayerNorm", {"eps": 1e-3}, "LayerNorm", {"epsilon": 1e-7})
    assert diff.ms_fix == 0.001 and diff.ms_as_torch == 1e-7
    assert "torch 0.001, MindSpore 1e-07" in diff.cause and "LayerNorm.epsilon" in diff.cause


def test_update_pattern_names_a_decay_filter_only_when_norm_parameters_alone_differ():
    kinds = {"bn.weight": "BatchNorm1d", "bn.bias": "BatchNorm1d", "fc.weight": "Linear"}
    only_norm = ["step1.param.bn.weight", "step1.param.bn.bias", "step2.param.fc.weight"]
    assert [f.rule for f in diagnose_update_pattern("step", only_norm, kinds)] == ["weight-decay-filter"]
    assert diagnose_update_pattern("step", ["step1.param.fc.weight", "step1.param.bn.weight"], kinds) == []
    assert diagnose_update_pattern("train", only_norm, kinds) == []


def test_plain_config_keeps_plain_public_values_and_merges_operator_attrs():
    class Op:
        attrs = {"ceil_mode": True, "count_include_pad": False, "pad_list": (0, 1), "obj": object()}

    class Cell:
        def __init__(self):
            self.kernel_size = (3, 3)
            self.pad_mode = "pad"
            self._private = 1
            self.weights = [1, 2]
            self.pool = Op()
            self.ceil_mode = False  # the cell's own attribute wins over its operator's

    assert plain_config(Cell()) == {"kernel_size": (3, 3), "pad_mode": "pad", "ceil_mode": False,
                                    "count_include_pad": False, "pad_list": (0, 1)}
