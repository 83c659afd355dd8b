"""Zoo-style ports that rename and regroup every layer, mapped with no weight_map at all.

Each pair lists its parameter-bearing layers in the same order with the same shapes (as model-zoo
ports do), so structural pairing maps them; same-shaped neighbours whose order the port changed
(q/k/v projections) are settled by activations. `migcheck map CASE` shows how each pairing was made.
"""
import mindspore.nn as mnn
import mindspore.ops as ops
import torch
import torch.nn as tnn

from migcheck import PairedCase, integers, uniform


# --- A MobileNet-style net: timm-like names on torch, features.N.layers.M on MindSpore. ---

class DepthwiseSeparablePt(tnn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv_dw = tnn.Conv2d(cin, cin, 3, 1, 1, groups=cin, bias=False)
        self.bn1 = tnn.BatchNorm2d(cin)
        self.conv_pw = tnn.Conv2d(cin, cout, 1, bias=False)
        self.bn2 = tnn.BatchNorm2d(cout)

    def forward(self, x):
        return torch.relu(self.bn2(self.conv_pw(torch.relu(self.bn1(self.conv_dw(x))))))


class MobileNetPt(tnn.Module):
    def __init__(self, head_bias=True):
        super().__init__()
        self.conv_stem = tnn.Conv2d(3, 4, 3, 1, 1, bias=False)
        self.bn1 = tnn.BatchNorm2d(4)
        self.blocks = tnn.Sequential(tnn.Sequential(DepthwiseSeparablePt(4, 6)),
                                     tnn.Sequential(DepthwiseSeparablePt(6, 8), DepthwiseSeparablePt(8, 8)))
        self.conv_head = tnn.Conv2d(8, 10, 1, bias=head_bias)
        self.classifier = tnn.Linear(10, 5)

    def forward(self, x):
        x = self.blocks(torch.relu(self.bn1(self.conv_stem(x))))
        return self.classifier(torch.relu(self.conv_head(x)).mean(dim=(2, 3)))


def _dw_ms(cin, cout):
    return mnn.SequentialCell([
        mnn.Conv2d(cin, cin, 3, 1, pad_mode="pad", padding=1, group=cin), mnn.BatchNorm2d(cin), mnn.ReLU(),
        mnn.Conv2d(cin, cout, 1), mnn.BatchNorm2d(cout), mnn.ReLU()])


class InvertedBlockMs(mnn.Cell):
    def __init__(self, cin, cout):
        super().__init__()
        self.layers = _dw_ms(cin, cout)

    def construct(self, x):
        return self.layers(x)


class MobileNetMs(mnn.Cell):
    def __init__(self, head_bias=True):
        super().__init__()
        self.features = mnn.SequentialCell([
            mnn.Conv2d(3, 4, 3, 1, pad_mode="pad", padding=1), mnn.BatchNorm2d(4), mnn.ReLU(),
            InvertedBlockMs(4, 6), InvertedBlockMs(6, 8), InvertedBlockMs(8, 8),
            mnn.Conv2d(8, 10, 1, has_bias=head_bias), mnn.ReLU()])
        self.head = mnn.Dense(10, 5)

    def construct(self, x):
        return self.head(self.features(x).mean(axis=(2, 3)))


mobilenet_renamed = PairedCase(
    doc="timm-style names (blocks.1.0.conv_dw) ported as features.4.layers.0: paired by order and shapes, no weight_map",
    torch=MobileNetPt, mindspore=MobileNetMs, inputs={"x": uniform(2, 3, 4, 4)},
    checks=("forward", "backward"), tags=("network", "mapping", "renamed"),
)


class MobileNetNoHeadBiasMs(MobileNetMs):
    def __init__(self):
        super().__init__(head_bias=False)  # has_bias=False is MindSpore Conv2d's default: an easy slip


mobilenet_dropped_bias = PairedCase(
    doc="known-bad: the port's head Conv2d has no bias (MindSpore's default) where torch's has one;"
        " the verdict names the layer and has_bias=True, and still compares the rest",
    torch=MobileNetPt, mindspore=MobileNetNoHeadBiasMs, inputs={"x": uniform(2, 3, 4, 4)},
    checks=("forward",), expect="fail", fails_with="structure", tags=("known-bad", "mapping", "renamed"),
)


# --- A BERT-style encoder layer: HF-like names on torch, a port that registers v, k, q. ---

class SelfAttentionPt(tnn.Module):
    def __init__(self, d=8, heads=2):
        super().__init__()
        self.heads = heads
        self.query = tnn.Linear(d, d)
        self.key = tnn.Linear(d, d)
        self.value = tnn.Linear(d, d)

    def forward(self, x):
        b, n, d = x.shape

        def split(t):
            return t.view(b, n, self.heads, d // self.heads).transpose(1, 2)

        q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))
        att = torch.softmax(q @ k.transpose(-1, -2) / (d // self.heads) ** 0.5, dim=-1)
        return (att @ v).transpose(1, 2).reshape(b, n, d)


class EncoderLayerPt(tnn.Module):
    def __init__(self, d=8, hidden=16):
        super().__init__()
        self.attention = SelfAttentionPt(d)
        self.attention_output = tnn.Linear(d, d)
        self.LayerNorm = tnn.LayerNorm(d)
        self.intermediate = tnn.Linear(d, hidden)
        self.output = tnn.Linear(hidden, d)
        self.output_LayerNorm = tnn.LayerNorm(d)

    def forward(self, x):
        x = self.LayerNorm(x + self.attention_output(self.attention(x)))
        return self.output_LayerNorm(x + self.output(torch.nn.functional.gelu(self.intermediate(x))))


class TinyBertPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.word_embeddings = tnn.Embedding(13, 8)
        self.layer = tnn.ModuleList([EncoderLayerPt(), EncoderLayerPt()])

    def forward(self, ids):
        x = self.word_embeddings(ids)
        for layer in self.layer:
            x = layer(x)
        return x


class AttentionMs(mnn.Cell):
    def __init__(self, d=8, heads=2):
        super().__init__()
        self.heads = heads
        self.v_proj = mnn.Dense(d, d)  # registered v, k, q: another order than torch's
        self.k_proj = mnn.Dense(d, d)
        self.q_proj = mnn.Dense(d, d)
        self.out_proj = mnn.Dense(d, d)

    def construct(self, x):
        b, n, d = x.shape
        h = self.heads

        def split(t):
            return t.reshape(b, n, h, d // h).transpose(0, 2, 1, 3)

        q, k, v = split(self.q_proj(x)), split(self.k_proj(x)), split(self.v_proj(x))
        att = ops.softmax(ops.matmul(q, k.transpose(0, 1, 3, 2)) / ((d // h) ** 0.5), axis=-1)
        return self.out_proj(ops.matmul(att, v).transpose(0, 2, 1, 3).reshape(b, n, d))


class BlockMs(mnn.Cell):
    def __init__(self, d=8, hidden=16):
        super().__init__()
        self.attn = AttentionMs(d)
        self.norm1 = mnn.LayerNorm((d,), epsilon=1e-5)
        self.mlp = mnn.SequentialCell([mnn.Dense(d, hidden), mnn.GELU(approximate=False), mnn.Dense(hidden, d)])
        self.norm2 = mnn.LayerNorm((d,), epsilon=1e-5)

    def construct(self, x):
        x = self.norm1(x + self.attn(x))
        return self.norm2(x + self.mlp(x))


class TinyBertMs(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.tok = mnn.Embedding(13, 8)
        self.blocks = mnn.CellList([BlockMs(), BlockMs()])

    def construct(self, ids):
        x = self.tok(ids)
        for block in self.blocks:
            x = block(x)
        return x


bert_renamed = PairedCase(
    doc="HF-style names (layer.0.attention.query) ported as blocks.0.attn.q_proj, with q/k/v registered v, k, q:"
        " order and shapes pair most layers, activations settle which projection is which; no weight_map",
    torch=TinyBertPt, mindspore=TinyBertMs, inputs={"ids": integers(2, 5, high=13, dtype="int32")},
    checks=("forward", "backward"), tags=("network", "attention", "mapping", "renamed"),
)


# --- GroupNorm without affine parameters: MindSpore keeps constant gamma/beta, torch has none. ---

class GroupNormNetPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.proj = tnn.Conv2d(4, 4, 1)
        self.gn = tnn.GroupNorm(2, 4, affine=False)

    def forward(self, x):
        return self.gn(self.proj(x))


class GroupNormNetMs(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.proj = mnn.Conv2d(4, 4, 1, has_bias=True)
        self.gn = mnn.GroupNorm(2, 4, affine=False)

    def construct(self, x):
        return self.gn(self.proj(x))


groupnorm_constant_params = PairedCase(
    doc="GroupNorm(affine=False): MindSpore's gamma/beta are constant by design, declared in constant_params",
    torch=GroupNormNetPt, mindspore=GroupNormNetMs, inputs={"x": uniform(2, 4, 3, 3)},
    constant_params=("gn.gamma", "gn.beta"), tags=("normalization", "mapping"),
)


# --- A ResNet-style port that registers each unit's shortcut before its body. ---

class BasicBlockPt(tnn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = tnn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = tnn.BatchNorm2d(cout)
        self.conv2 = tnn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = tnn.BatchNorm2d(cout)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = tnn.Sequential(tnn.Conv2d(cin, cout, 1, stride, bias=False), tnn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.bn2(self.conv2(torch.relu(self.bn1(self.conv1(x)))))
        return torch.relu(y + (x if self.downsample is None else self.downsample(x)))


class ResNetPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = tnn.Conv2d(3, 4, 3, 1, 1, bias=False)
        self.bn1 = tnn.BatchNorm2d(4)
        self.layer1 = tnn.Sequential(BasicBlockPt(4, 4, 1), BasicBlockPt(4, 4, 1))
        self.layer2 = tnn.Sequential(BasicBlockPt(4, 8, 2), BasicBlockPt(8, 8, 1))
        self.fc = tnn.Linear(8, 3)

    def forward(self, x):
        x = self.layer2(self.layer1(torch.relu(self.bn1(self.conv1(x)))))
        return self.fc(x.mean(dim=(2, 3)))


class ResidualCellMs(mnn.Cell):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.proj = None  # registered before the body, as several zoo ports do
        if stride != 1 or cin != cout:
            self.proj = mnn.SequentialCell([mnn.Conv2d(cin, cout, 1, stride, pad_mode="valid"), mnn.BatchNorm2d(cout)])
        self.residual = mnn.SequentialCell([
            mnn.Conv2d(cin, cout, 3, stride, pad_mode="pad", padding=1), mnn.BatchNorm2d(cout), mnn.ReLU(),
            mnn.Conv2d(cout, cout, 3, 1, pad_mode="pad", padding=1), mnn.BatchNorm2d(cout)])
        self.relu = mnn.ReLU()

    def construct(self, x):
        skip = x if self.proj is None else self.proj(x)
        return self.relu(self.residual(x) + skip)


class ResNetMs(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.stem = mnn.SequentialCell([mnn.Conv2d(3, 4, 3, 1, pad_mode="pad", padding=1), mnn.BatchNorm2d(4), mnn.ReLU()])
        self.stages = mnn.SequentialCell([ResidualCellMs(4, 4, 1), ResidualCellMs(4, 4, 1),
                                          ResidualCellMs(4, 8, 2), ResidualCellMs(8, 8, 1)])
        self.head = mnn.Dense(8, 3)

    def construct(self, x):
        return self.head(self.stages(self.stem(x)).mean(axis=(2, 3)))


resnet_shortcut_first = PairedCase(
    doc="torchvision-style names ported as stem/stages.N.residual.M with each shortcut registered before its body:"
        " the layer sequences differ in order, alignment plus activations pair them; no weight_map",
    torch=ResNetPt, mindspore=ResNetMs, inputs={"x": uniform(2, 3, 6, 6)},
    checks=("forward", "backward", "train"), tags=("network", "mapping", "renamed"),
)
