"""Single-API differences of layers (nn.Module <-> nn.Cell), from MindSpore's PyTorch-API-difference pages.

Each network is `layer` (the API under test) behind nothing else, so the expected layer is `layer`;
parameterless MindSpore layers are registered as `op` (a porter's rename) to exercise dataflow pairing.
"""
import mindspore.nn as mnn
import mindspore.ops as ops
import torch.nn as tnn

from evaluation.corpus.build import entry
from migcheck import integers, uniform


class Pt(tnn.Module):
    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def forward(self, x):
        return self.layer(x)


class Ms(mnn.Cell):
    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def construct(self, x):
        return self.layer(x)


class MsRenamed(mnn.Cell):
    """A parameterless cell under another name than torch's."""

    def __init__(self, op):
        super().__init__()
        self.op = op

    def construct(self, x):
        return self.op(x)


class EluMs(mnn.Cell):
    """nn.ELU accepts only alpha=1.0 (documented): the correct port writes the formula."""

    def __init__(self, alpha):
        super().__init__()
        self.alpha = alpha

    def construct(self, x):
        return ops.where(x > 0, x, self.alpha * (ops.exp(x) - 1))


class PaddedEmbeddingMs(mnn.Cell):
    """nn.Embedding(padding_idx=) still gives the padding row a gradient on CPU: stop it explicitly."""

    def __init__(self, n, d, padding_idx):
        super().__init__()
        self.layer = mnn.Embedding(n, d, padding_idx=padding_idx)
        self.padding_idx = padding_idx

    def construct(self, x):
        out = self.layer(x)
        keep = (x != self.padding_idx).expand_dims(-1)
        return ops.where(keep, out, ops.stop_gradient(out))


def pt(make):
    return lambda: Pt(make())


def ms(make):
    return lambda: Ms(make())


def ren(make):
    return lambda: MsRenamed(make())


IMG = {"x": uniform(2, 2, 8, 8)}
IMG5 = {"x": uniform(2, 2, 5, 5)}
SEQ = {"x": uniform(2, 3, 8)}

ENTRIES = [
    entry("conv2d_same_stride2", "layer", "Conv2d",
          pt(lambda: tnn.Conv2d(2, 3, 3, stride=2, padding=1)),
          ms(lambda: mnn.Conv2d(2, 3, 3, stride=2, has_bias=True)),  # default pad_mode='same'
          ms(lambda: mnn.Conv2d(2, 3, 3, stride=2, pad_mode="pad", padding=1, has_bias=True)),
          ["layer"], ["pad-mode"], inputs=IMG, diagnosis="pad-mode"),
    entry("conv2d_valid_drops_padding", "layer", "Conv2d",
          pt(lambda: tnn.Conv2d(2, 3, 3, padding=1)),
          ms(lambda: mnn.Conv2d(2, 3, 3, pad_mode="valid", has_bias=True)),
          ms(lambda: mnn.Conv2d(2, 3, 3, pad_mode="same", has_bias=True)),  # stride-1 odd kernel: same pads 1/1
          ["layer"], ["pad-mode|padding"], inputs=IMG, fails_with="shape"),
    entry("conv1d_even_kernel_same", "layer", "Conv1d",
          pt(lambda: tnn.Conv1d(3, 2, 4, padding="same")),
          ms(lambda: mnn.Conv1d(3, 2, 4, pad_mode="pad", padding=2, has_bias=True)),  # symmetric guess, one too long
          ms(lambda: mnn.Conv1d(3, 2, 4, pad_mode="same", has_bias=True)),
          ["layer"], ["pad-mode|padding"], inputs=SEQ, fails_with="shape"),
    entry("conv2d_transpose_same", "layer", "Conv2dTranspose",
          pt(lambda: tnn.ConvTranspose2d(2, 2, 3, stride=2)),
          ms(lambda: mnn.Conv2dTranspose(2, 2, 3, stride=2, has_bias=True)),  # default pad_mode='same'
          ms(lambda: mnn.Conv2dTranspose(2, 2, 3, stride=2, pad_mode="valid", has_bias=True)),
          ["layer"], ["pad-mode|padding"], inputs={"x": uniform(1, 2, 4, 4)}, fails_with="shape"),
    entry("batchnorm_momentum", "layer", "BatchNorm2d",
          pt(lambda: tnn.BatchNorm2d(2)), ms(lambda: mnn.BatchNorm2d(2, momentum=0.1)), ms(lambda: mnn.BatchNorm2d(2)),
          ["layer"], ["batchnorm-momentum"], inputs=IMG5, checks=("train",), diagnosis="batchnorm-momentum"),
    entry("batchnorm_eps", "layer", "BatchNorm2d",
          pt(lambda: tnn.BatchNorm2d(2, eps=1e-3)), ms(lambda: mnn.BatchNorm2d(2)),
          ms(lambda: mnn.BatchNorm2d(2, eps=1e-3)), ["layer"], ["batchnorm-eps|eps"], inputs=IMG5),
    entry("layernorm_eps", "layer", "LayerNorm",
          pt(lambda: tnn.LayerNorm(8, eps=1e-3)), ms(lambda: mnn.LayerNorm((8,))),
          ms(lambda: mnn.LayerNorm((8,), epsilon=1e-3)), ["layer"], ["layernorm-eps|eps"], inputs=SEQ),
    entry("layernorm_two_axes", "layer", "LayerNorm",
          pt(lambda: tnn.LayerNorm((3, 8))), ms(lambda: mnn.LayerNorm((3, 8), epsilon=1e-5)),
          ms(lambda: mnn.LayerNorm((3, 8), begin_norm_axis=1, begin_params_axis=1, epsilon=1e-5)),
          ["layer"], ["begin_norm_axis|begin_params_axis"], inputs=SEQ, fails_with="error"),
    entry("groupnorm_eps", "layer", "GroupNorm",
          pt(lambda: tnn.GroupNorm(2, 4, eps=1e-2)), ms(lambda: mnn.GroupNorm(2, 4)),
          ms(lambda: mnn.GroupNorm(2, 4, eps=1e-2)), ["layer"], ["eps"], inputs={"x": uniform(2, 4, 3, 3)}),
    entry("dropout_keep_prob_positional", "layer", "Dropout",
          pt(lambda: tnn.Dropout(0.1)), ren(lambda: mnn.Dropout(0.1)),  # first positional is keep_prob
          ren(lambda: mnn.Dropout(p=0.1)), ["layer"], ["dropout-keep-prob|keep_prob"],
          inputs={"x": uniform(64, 32)}, checks=("train",)),
    entry("gelu_approximate_default", "layer", "GELU",
          pt(lambda: tnn.GELU()), ren(lambda: mnn.GELU()), ren(lambda: mnn.GELU(approximate=False)),
          ["layer"], ["gelu-approximate"], inputs={"x": uniform(4, 8, low=-3.0, high=3.0)}, diagnosis="gelu-approximate"),
    entry("leakyrelu_default_slope", "layer", "LeakyReLU",
          pt(lambda: tnn.LeakyReLU()), ren(lambda: mnn.LeakyReLU()), ren(lambda: mnn.LeakyReLU(alpha=0.01)),
          ["layer"], ["leakyrelu-slope|slope|alpha"], inputs={"x": uniform(4, 8)}),
    entry("softshrink_lambd", "layer", "SoftShrink",
          pt(lambda: tnn.Softshrink(0.3)), ren(lambda: mnn.SoftShrink()), ren(lambda: mnn.SoftShrink(0.3)),
          ["layer"], ["lambd"], inputs={"x": uniform(4, 8)}),
    entry("hardshrink_lambd", "layer", "HShrink",
          pt(lambda: tnn.Hardshrink(0.2)), ren(lambda: mnn.HShrink()), ren(lambda: mnn.HShrink(0.2)),
          ["layer"], ["lambd"], inputs={"x": uniform(4, 8)}),
    entry("elu_alpha", "layer", "elu",
          pt(lambda: tnn.ELU(alpha=0.5)), ren(lambda: mnn.ELU()), lambda: EluMs(0.5),
          ["layer"], ["alpha"], inputs={"x": uniform(4, 8, low=-3.0, high=1.0)}),
    entry("avgpool_count_include_pad", "layer", "AvgPool2d",
          pt(lambda: tnn.AvgPool2d(3, 1, padding=1, count_include_pad=False)),
          ren(lambda: mnn.AvgPool2d(3, 1, pad_mode="pad", padding=1)),
          ren(lambda: mnn.AvgPool2d(3, 1, pad_mode="pad", padding=1, count_include_pad=False)),
          ["layer"], ["pool-count-include-pad"], inputs=IMG5, diagnosis="pool-count-include-pad"),
    entry("avgpool_default_stride", "layer", "AvgPool2d",
          pt(lambda: tnn.AvgPool2d(2)), ren(lambda: mnn.AvgPool2d(2)), ren(lambda: mnn.AvgPool2d(2, 2)),
          ["layer"], ["stride"], inputs=IMG, fails_with="shape"),
    entry("maxpool_default_stride", "layer", "MaxPool2d",
          pt(lambda: tnn.MaxPool2d(2)), ren(lambda: mnn.MaxPool2d(2)), ren(lambda: mnn.MaxPool2d(2, 2)),
          ["layer"], ["stride"], inputs=IMG, fails_with="shape"),
    entry("maxpool_ceil_mode", "layer", "MaxPool2d",
          pt(lambda: tnn.MaxPool2d(2, 2, ceil_mode=True)), ren(lambda: mnn.MaxPool2d(2, 2)),
          ren(lambda: mnn.MaxPool2d(2, 2, pad_mode="pad", ceil_mode=True)), ["layer"], ["pool-ceil-mode|ceil_mode"],
          inputs=IMG5, fails_with="shape"),
    entry("maxpool_same_padding", "layer", "MaxPool2d",
          pt(lambda: tnn.MaxPool2d(3, 2, padding=1)), ren(lambda: mnn.MaxPool2d(3, 2, pad_mode="same")),
          ren(lambda: mnn.MaxPool2d(3, 2, pad_mode="pad", padding=1)), ["layer"], ["pad-mode"], inputs=IMG,
          diagnosis="pad-mode"),
    entry("upsample_align_corners", "layer", "interpolate",
          pt(lambda: tnn.Upsample(size=(6, 6), mode="bilinear", align_corners=True)),
          ren(lambda: mnn.Upsample(size=(6, 6), mode="bilinear")),
          ren(lambda: mnn.Upsample(size=(6, 6), mode="bilinear", align_corners=True)),
          ["layer"], ["align-corners|align_corners"], inputs={"x": uniform(1, 2, 3, 3)}),
    entry("softmax_default_axis", "layer", "nn_Softmax",
          pt(lambda: tnn.Softmax(dim=1)), ren(lambda: mnn.Softmax()), ren(lambda: mnn.Softmax(axis=1)),
          ["layer"], ["axis|dim"], inputs=SEQ),
    entry("logsoftmax_default_axis", "layer", "log_softmax",
          pt(lambda: tnn.LogSoftmax(dim=1)), ren(lambda: mnn.LogSoftmax()), ren(lambda: mnn.LogSoftmax(axis=1)),
          ["layer"], ["axis|dim"], inputs=SEQ),
    entry("embedding_padding_idx", "layer", "Embedding",
          pt(lambda: tnn.Embedding(6, 4, padding_idx=0)), ms(lambda: mnn.Embedding(6, 4)),
          lambda: PaddedEmbeddingMs(6, 4, 0), ["layer"], ["padding_idx|padding"],
          inputs={"x": integers(3, 4, high=6)}, checks=("backward",)),
    entry("dense_bias_missing", "layer", "Dense",
          pt(lambda: tnn.Linear(4, 3)), ms(lambda: mnn.Dense(4, 3, has_bias=False)), ms(lambda: mnn.Dense(4, 3)),
          ["layer"], ["bias"], inputs={"x": uniform(2, 4)}, fails_with="structure"),
]
