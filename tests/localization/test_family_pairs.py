"""A layer ported as another class of its family (no table row of its own) is compared through torch's row,
as the old rule list's class-name patterns did: a bad port and its correct twin, through the engine."""
import mindspore.nn as mnn
import pytest
import torch.nn as tnn

from migcheck import PairedCase, uniform
from migcheck.running.pipeline import Item, run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]


def _sync_bn_as_bn1d(ms_momentum):
    return PairedCase(doc="torch SyncBatchNorm (one process) ported as MindSpore BatchNorm1d",
                      torch=lambda: tnn.SyncBatchNorm(4, momentum=0.1),
                      mindspore=lambda: mnn.BatchNorm1d(4, momentum=ms_momentum),
                      inputs={"x": uniform(8, 4)}, checks=("train",), name="sync_bn_as_bn1d")


def test_momentum_copied_into_another_batchnorm_class_is_found_through_torchs_row():
    v = run_item(Item(_sync_bn_as_bn1d(0.1), "train", "pynative", "cpu"))
    assert v.status == "fail"
    (finding,) = v.localization.findings
    assert finding.rule == "batchnorm-momentum" and "(SyncBatchNorm) / MindSpore" in finding.where
    # the cell keeps 1 - its argument: MindSpore 0.9 is a running-average weight of 0.9 in torch's convention
    assert "torch 0.1, MindSpore 0.9" in finding.cause and finding.confirmed and finding.confidence == "high"


def test_its_correct_twin_passes_without_a_finding():
    v = run_item(Item(_sync_bn_as_bn1d(0.9), "train", "pynative", "cpu"))
    assert v.status == "pass" and v.localization is None
