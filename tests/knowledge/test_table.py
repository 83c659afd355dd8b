"""The one knowledge table and its lookups (numpy-free, framework-free)."""
import re
from pathlib import Path

from migcheck.knowledge import lookup
from migcheck.knowledge.table import CONTAINERS, OPTIMIZERS, TABLE

ROOT = Path(__file__).resolve().parents[2]

# The ids the old rule list (localization/rules.py RULES) reported: each is now a table row's id.
OLD_RULE_IDS = ("pad-mode", "batchnorm-momentum", "batchnorm-eps", "layernorm-eps", "gelu-approximate", "leakyrelu-slope",
                "pool-ceil-mode", "pool-count-include-pad", "align-corners", "dropout-keep-prob", "loss-reduction",
                "loss-ignore-index", "loss-label-smoothing")
# ids a measurement reports rather than a table row (the module that reports each)
MEASURED_IDS = {
    "optimizer-update": "localization/stages.py (update_rules.py names the rule)",
    "weight-decay-filter": "localization/rules.py, localization/stages.py",
    "float16-overflow": "localization/rules.py",
    "custom-bprop": "localization/backward.py",
    "optimizer-torch-class": "localization/optimizer_fix.py (torch's class from mindspore.experimental.optim)",
}


def test_every_old_rule_id_is_a_table_id():
    assert set(OLD_RULE_IDS) <= lookup.table_ids()


def test_each_pair_of_classes_has_one_row():
    pairs = [(c.torch, c.ms) for c in TABLE]
    assert len(pairs) == len(set(pairs))


def _diagnosis_ids():
    files = sorted((ROOT / "cases").glob("*.py")) + sorted((ROOT / "evaluation" / "corpus").glob("*.py"))
    return {m for f in files for m in re.findall(r'diagnosis="([^"]+)"', f.read_text())}


def test_every_diagnosis_id_a_case_names_resolves():
    """A case's diagnosis= names a table id, a functional op's id, or one that a measurement reports."""
    ids = _diagnosis_ids()
    assert "layernorm-eps" in ids and "pad-mode" in ids  # the scan reads the bundled cases
    unknown = ids - lookup.table_ids() - lookup.op_ids() - set(MEASURED_IDS)
    assert not unknown, f"diagnosis ids no table row, op or measurement reports: {sorted(unknown)}"


def test_rule_ids_default_to_family_and_torch_attribute():
    entry = lookup.lookup("Embedding", "Embedding")
    assert [lookup.rule_id(entry, a) for a in entry.attrs] == ["embedding-padding-idx"]
    entry = lookup.lookup("LayerNorm", "LayerNorm")
    assert [lookup.rule_id(entry, a) for a in entry.attrs] == ["layernorm-eps"]


def test_families_join_both_frameworks_class_names():
    assert lookup.family("Linear") == lookup.family("Dense") == "linear"
    assert lookup.family("ConvTranspose2d") == lookup.family("Conv2dTranspose") == "convtranspose"
    # a stem stands for its numbered classes (a custom class read by its parameters is "BatchNorm")
    assert lookup.family("BatchNorm") == lookup.family("SyncBatchNorm") == lookup.family("BatchNorm3d") == "batchnorm"
    assert lookup.family("MyBlock") == ""
    assert lookup.same_family("MSELoss", "L1Loss") and not lookup.same_family("Linear", "Conv2d")
    assert not lookup.same_family("MyBlock", "MyBlock")  # unknown classes have no family to share


def test_torch_name_reads_a_mindspore_class_as_the_torch_class_it_ports():
    assert lookup.torch_name("Dense") == "Linear"
    assert lookup.torch_name("Conv1dTranspose") == "ConvTranspose1d"
    assert lookup.torch_name("HSwish") == "Hardswish"
    assert lookup.torch_name("SequentialCell") == "Sequential" and lookup.torch_name("CellList") == "ModuleList"
    assert lookup.torch_name("Dropout") == "Dropout"  # a name torch uses stays itself
    assert lookup.torch_name("MyCell") == "MyCell"
    assert ("Sequential", "SequentialCell") in CONTAINERS and not lookup.corresponds("Sequential", "SequentialCell")


def test_leaf_renames_are_the_mapping_built_ins():
    renames = lookup.leaf_renames()
    assert ("BatchNorm", "running_var", "moving_variance") in renames
    assert ("LayerNorm", "weight", "gamma") in renames and ("Embedding", "weight", "embedding_table") in renames
    assert ("PReLU", "weight", "w") in renames
    assert not any(stem in ("Linear", "Conv") for stem, _, _ in renames)  # Dense and Conv keep torch's names
    assert len(renames) == len(set(renames)) == 18


def test_normalization_layers_by_name():
    assert lookup.gamma_stems() == ("BatchNorm", "SyncBatchNorm", "LayerNorm", "GroupNorm", "InstanceNorm")
    assert lookup.has_gamma("BatchNormAct2d") and lookup.has_gamma("LayerNorm") and not lookup.has_gamma("RMSNorm")
    assert lookup.is_normalization("RMSNorm") and lookup.is_normalization("GroupNorm")
    assert not lookup.is_normalization("Linear")


def test_optimizer_rows_name_settings_and_update_rules():
    names = lookup.optimizer_names()
    assert names["lr"] == ("learning_rate", "lr")
    assert set(names["eps"]) == {"eps", "epsilon"} and set(names["alpha"]) == {"decay", "alpha"}
    assert "use_nesterov" in names["nesterov"] and "use_amsgrad" in names["amsgrad"]
    assert lookup.update_rules("SGD") == ("sgd", "sgd-nesterov") and lookup.update_rules("AdamW") == ("adamw",)
    assert lookup.update_rules("LBFGS") == ()
    assert {c.torch for c in OPTIMIZERS} >= {"SGD", "Adam", "AdamW", "RMSprop", "Adagrad"}


def test_update_rule_ids_exist():
    from migcheck.localization.update_rules import RULES

    assert all(rule in RULES for c in OPTIMIZERS for rule in c.update)
