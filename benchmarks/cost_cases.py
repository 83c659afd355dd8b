"""A failing real-size port and its fixed twin, for benchmarks/cost_ratios.py (issue 26): ResNet-50 (nets.py)
whose max-pool was ported with pad_mode='same' (the README's showcase), and the same port fixed. Forward only;
the input is small (1x3x64x64) because the ratio of the two whole processes is what is measured."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from migcheck import PairedCase, uniform  # noqa: E402
from nets import ms_resnet50, torch_resnet50  # noqa: E402

SIZE = int(__import__("os").environ.get("MIGCHECK_BENCH_SIZE", "64"))


def ms_resnet50_maxpool_same():
    import mindspore.nn as mnn

    net = ms_resnet50()
    net.maxpool = mnn.MaxPool2d(3, 2, pad_mode="same")  # planted defect
    return net


resnet50_fixed = PairedCase(torch=torch_resnet50, mindspore=ms_resnet50, inputs={"x": uniform(1, 3, SIZE, SIZE)},
                            checks=("forward",), tags=("cost",))
resnet50_maxpool_same = PairedCase(torch=torch_resnet50, mindspore=ms_resnet50_maxpool_same,
                                   inputs={"x": uniform(1, 3, SIZE, SIZE)}, checks=("forward",), expect="fail",
                                   fails_with="value", tags=("cost",))
