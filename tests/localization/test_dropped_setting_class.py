"""A setting torch's layer holds that the port's own class lacks, where another MindSpore class computes it: said by
the setting (torch's layer re-run without it reproduces the port's output) and the class (in the port's place it
agrees with torch); a port normalising with the running statistics in eval passes."""
import pytest

from migcheck import PairedCase, uniform
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")
pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]


class _PerInstance(ms.nn.Cell):
    """Instance normalisation written out: each sample's channel over its own pixels."""

    def __init__(self, num_features):
        super().__init__()
        self.gamma = ms.Parameter(ms.ops.ones(num_features, ms.float32), name="gamma")
        self.beta = ms.Parameter(ms.ops.zeros(num_features, ms.float32), name="beta")
        self.moving_mean = ms.Parameter(ms.ops.zeros(num_features, ms.float32), name="moving_mean",
                                        requires_grad=False)
        self.moving_variance = ms.Parameter(ms.ops.ones(num_features, ms.float32), name="moving_variance",
                                            requires_grad=False)

    def construct(self, x):
        mean = x.mean(axis=(2, 3), keep_dims=True)
        var = ((x - mean) ** 2).mean(axis=(2, 3), keep_dims=True)
        y = (x - mean) / ms.ops.sqrt(var + 1e-5)
        return y * self.gamma.reshape(1, -1, 1, 1) + self.beta.reshape(1, -1, 1, 1)


def _run(port_normalises_per_instance: bool):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(2, 3, 1)
            self.norm = torch.nn.InstanceNorm2d(3, affine=True, track_running_stats=True)

        def forward(self, x):
            return self.norm(self.conv(x))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = ms.nn.Conv2d(2, 3, 1, has_bias=True)
            self.norm = _PerInstance(3) if port_normalises_per_instance else ms.nn.BatchNorm2d(3)

        def construct(self, x):
            return self.norm(self.conv(x))

    case = PairedCase(name="tracked", torch=T, mindspore=M, inputs={"x": uniform(2, 2, 4, 4)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_a_tracked_instance_norm_in_eval_is_said_by_its_setting_and_the_class_that_computes_it():
    v = _run(True)
    assert v.status == "fail"
    (finding,) = v.localization.findings
    assert finding.confirmed
    assert finding.cause.startswith("torch's InstanceNorm2d sets track_running_stats=True, which the port's"
                                    " _PerInstance does not carry: torch's layer re-run without it reproduces")
    assert "and nn.BatchNorm2d(num_features=3" in finding.cause and "BatchNorm2d" in finding.fix


def test_a_port_normalising_with_the_running_statistics_in_eval_passes():
    assert _run(False).status == "pass"
