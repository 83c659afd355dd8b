"""A count the port left at 1 given another count of the two calls: InstanceNorm2d ported as GroupNorm with one
group is GroupNorm with a group per channel, confirmed by a re-run; the per-channel twin passes."""
import pytest

from migcheck import PairedCase, uniform
from migcheck.localization.arg_candidates import setting_candidates
from migcheck.planning.items import Item
from migcheck.runners.base import Argument, Constructor
from migcheck.running.pipeline import run_item


def test_a_count_left_at_one_is_tried_as_each_other_count_of_the_calls():
    torch_c = Constructor("InstanceNorm2d", True, (Argument("num_features", 4, True, False),))
    ms_c = Constructor("GroupNorm", True, (Argument("num_groups", 1, True, False),
                                           Argument("num_channels", 4, True, False)))
    changes = [c.changes for c in setting_candidates(torch_c, ms_c)]
    assert (("num_groups", 4),) in changes
    assert (("num_channels", 1),) not in changes  # only a count left at 1 is changed


def _norm(groups: int):
    def pt():
        import torch

        return torch.nn.Sequential(torch.nn.Conv2d(2, 4, 1), torch.nn.InstanceNorm2d(4))

    def port():
        import mindspore.nn as mnn

        return mnn.SequentialCell(mnn.Conv2d(2, 4, 1, has_bias=True), mnn.GroupNorm(groups, 4, affine=False))

    return PairedCase(name="inorm", torch=pt, mindspore=port, inputs={"x": uniform(2, 2, 3, 3)}, checks=("forward",),
                      weight_map={"0.weight": "0.weight", "0.bias": "0.bias"}, constant_params=("1.gamma", "1.beta"))


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_instance_norm_ported_as_one_group_is_a_group_per_channel_after_a_re_run():
    v = run_item(Item(_norm(1), "forward", "pynative", "cpu"))
    assert v.status == "fail"
    (finding,) = v.localization.findings
    assert finding.confirmed and finding.confidence == "high"
    assert finding.fix == "nn.GroupNorm(..., num_groups=1) -> nn.GroupNorm(..., num_groups=4)"


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_the_group_per_channel_twin_passes():
    assert run_item(Item(_norm(4), "forward", "pynative", "cpu")).status == "pass"
