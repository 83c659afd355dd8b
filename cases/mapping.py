"""Weight mapping for real ports: renamed and regrouped modules, packed projections, gate orders."""
import mindspore as ms
import mindspore.nn as mnn
import mindspore.ops as ops
import torch
import torch.nn as tnn

from migcheck import PairedCase, integers, uniform
from migcheck.transforms import reorder_blocks, transpose


# --- A ResNet-style network whose port renames and regroups every module. ---

class BlockPt(tnn.Module):
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
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + (x if self.downsample is None else self.downsample(x)))


class TinyResNetPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = tnn.Conv2d(3, 4, 3, 1, 1, bias=False)
        self.bn1 = tnn.BatchNorm2d(4)
        self.layer1 = tnn.Sequential(BlockPt(4, 4, 1), BlockPt(4, 8, 2))
        self.fc = tnn.Linear(8, 5)

    def forward(self, x):
        x = torch.relu(self.bn1(self.conv1(x)))
        return self.fc(self.layer1(x).mean(dim=(2, 3)))


class ResidualUnitMs(mnn.Cell):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.body = mnn.SequentialCell([
            mnn.Conv2d(cin, cout, 3, stride, pad_mode="pad", padding=1), mnn.BatchNorm2d(cout), mnn.ReLU(),
            mnn.Conv2d(cout, cout, 3, 1, pad_mode="pad", padding=1), mnn.BatchNorm2d(cout)])
        self.shortcut = None
        if stride != 1 or cin != cout:
            self.shortcut = mnn.SequentialCell([mnn.Conv2d(cin, cout, 1, stride, pad_mode="valid"), mnn.BatchNorm2d(cout)])
        self.relu = mnn.ReLU()

    def construct(self, x):
        skip = x if self.shortcut is None else self.shortcut(x)
        return self.relu(self.body(x) + skip)


class TinyResNetMs(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.features = mnn.SequentialCell([
            mnn.Conv2d(3, 4, 3, 1, pad_mode="pad", padding=1), mnn.BatchNorm2d(4), mnn.ReLU(),
            ResidualUnitMs(4, 4, 1), ResidualUnitMs(4, 8, 2)])
        self.classifier = mnn.Dense(8, 5)

    def construct(self, x):
        return self.classifier(self.features(x).mean(axis=(2, 3)))


resnet_renamed = PairedCase(
    doc="every module renamed and regrouped (conv1/bn1/layer1/fc -> features.N.body.M/classifier): paired by structure",
    torch=TinyResNetPt, mindspore=TinyResNetMs, inputs={"x": uniform(2, 3, 8, 8)},
    tags=("network", "mapping"),
)


class TwoHeadsPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.body = tnn.Linear(6, 6)
        self.head = tnn.Linear(6, 6)

    def forward(self, x):
        return self.head(torch.tanh(self.body(x)))


class TwoHeadsMs(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.output = mnn.Dense(6, 6)  # registered first, used last
        self.hidden = mnn.Dense(6, 6)

    def construct(self, x):
        return self.output(ops.tanh(self.hidden(x)))


ambiguous_reordered = PairedCase(
    doc="two same-shaped layers renamed and registered in another order: nothing static pairs them; the"
        " candidate whose layer outputs agree (body->hidden, head->output) wins, and `migcheck map` says so",
    torch=TwoHeadsPt, mindspore=TwoHeadsMs, inputs={"x": uniform(3, 6)}, checks=("forward",),
    tags=("mapping",),
)


class TwoBranchesPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.left = tnn.Linear(6, 6)
        self.right = tnn.Linear(6, 6)

    def forward(self, x):
        return self.left(x) + self.right(x)


class TwoBranchesMs(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.b = mnn.Dense(6, 6)
        self.a = mnn.Dense(6, 6)

    def construct(self, x):
        return self.a(x) + self.b(x)


ambiguous_interchangeable = PairedCase(
    doc="known-bad: two renamed branches that are summed: every assignment gives the same outputs, so"
        " activations cannot say which is which; reported as ambiguous with its candidates, never guessed",
    torch=TwoBranchesPt, mindspore=TwoBranchesMs, inputs={"x": uniform(3, 6)}, checks=("forward",),
    expect="fail", fails_with="structure", tags=("known-bad", "mapping"),
)

ambiguous_resolved = PairedCase(
    doc="the same port with the rename rules the ambiguity asks for",
    torch=TwoHeadsPt, mindspore=TwoHeadsMs, inputs={"x": uniform(3, 6)},
    weight_map=[(r"body\.(.*)", r"hidden.\1"), (r"head\.(.*)", r"output.\1")], tags=("mapping",),
)


# --- Recurrent and attention layers: MindSpore 2.x keeps torch's names and layouts. ---

lstm_bidirectional = PairedCase(
    doc="2-layer bidirectional LSTM: per-layer, per-direction weights keep torch's names and gate order",
    torch=lambda: tnn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True),
    mindspore=lambda: mnn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True),
    inputs={"x": uniform(2, 5, 3)}, checks=("forward", "backward"), tags=("rnn",),
)

gru_two_layer = PairedCase(
    doc="2-layer GRU: gate order r, z, n on both sides",
    torch=lambda: tnn.GRU(3, 4, num_layers=2, batch_first=True),
    mindspore=lambda: mnn.GRU(3, 4, num_layers=2, batch_first=True),
    inputs={"x": uniform(2, 5, 3)}, checks=("forward", "backward"), tags=("rnn",),
)


class SelfAttentionPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.attn = tnn.MultiheadAttention(8, 2, batch_first=True)

    def forward(self, x):
        return self.attn(x, x, x, need_weights=False)[0]


class SelfAttentionMs(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.attn = mnn.MultiheadAttention(8, 2, batch_first=True)

    def construct(self, x):
        return self.attn(x, x, x, need_weights=False)[0]


multihead_attention = PairedCase(
    doc="MultiheadAttention: packed in_proj on both sides",
    torch=SelfAttentionPt, mindspore=SelfAttentionMs, inputs={"x": uniform(2, 5, 8)},
    checks=("forward", "backward"), tags=("attention",),
)


class SeparateProjectionAttentionMs(mnn.Cell):
    """Hand-written attention with separate q/k/v projections, a common port of MultiheadAttention."""

    def __init__(self, dim=8, heads=2):
        super().__init__()
        self.heads = heads
        self.q = mnn.Dense(dim, dim)
        self.k = mnn.Dense(dim, dim)
        self.v = mnn.Dense(dim, dim)
        self.proj = mnn.Dense(dim, dim)

    def construct(self, x):
        b, n, d = x.shape
        h = self.heads

        def heads(t):
            return t.reshape(b, n, h, d // h).transpose(0, 2, 1, 3)

        q, k, v = heads(self.q(x)), heads(self.k(x)), heads(self.v(x))
        scores = ops.softmax(ops.matmul(q, k.transpose(0, 1, 3, 2)) / ((d // h) ** 0.5), axis=-1)
        return self.proj(ops.matmul(scores, v).transpose(0, 2, 1, 3).reshape(b, n, d))


attention_split_projections = PairedCase(
    doc="torch's packed in_proj_weight split into separate q/k/v Dense layers (a declared split)",
    torch=SelfAttentionPt, mindspore=SeparateProjectionAttentionMs, inputs={"x": uniform(2, 5, 8)},
    weight_map={"attn.in_proj_weight": ["q.weight", "k.weight", "v.weight"],
                "attn.in_proj_bias": ["q.bias", "k.bias", "v.bias"],
                "attn.out_proj.weight": "proj.weight", "attn.out_proj.bias": "proj.bias"},
    checks=("forward", "backward"), tags=("attention", "mapping"),
)


class EncoderPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.embed = tnn.Embedding(11, 8)
        self.layers = tnn.TransformerEncoder(
            tnn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True), num_layers=2, enable_nested_tensor=False)

    def forward(self, tokens):
        return self.layers(self.embed(tokens))


class EncoderMs(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.embed = mnn.Embedding(11, 8)
        self.layers = mnn.TransformerEncoder(mnn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True), 2)

    def construct(self, tokens):
        return self.layers(self.embed(tokens))


transformer_encoder = PairedCase(
    doc="2-layer Transformer encoder: linear1/linear2 become dense1/dense2 (paired by structure), norms gamma/beta",
    torch=EncoderPt, mindspore=EncoderMs, inputs={"tokens": integers(2, 5, high=11, dtype="int32")},
    checks=("forward", "backward"), tags=("network", "attention", "mapping"),
)


# --- A hand-written LSTM cell whose gates are stored in another order. ---

class LstmCellIfogMs(mnn.Cell):
    """One LSTM step with gates packed i, f, o, g (torch packs i, f, g, o)."""

    def __init__(self, n_in=3, hidden=4):
        super().__init__()
        self.ih = mnn.Dense(n_in, 4 * hidden)
        self.hh = mnn.Dense(hidden, 4 * hidden)

    def construct(self, x, h, c):
        i, f, o, g = ops.split(self.ih(x) + self.hh(h), x.shape[0] * 0 + self.hh.out_channels // 4, axis=1)
        c2 = ops.sigmoid(f) * c + ops.sigmoid(i) * ops.tanh(g)
        return ops.sigmoid(o) * ops.tanh(c2), c2


class LstmCellPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.cell = tnn.LSTMCell(3, 4)

    def forward(self, x, h, c):
        return self.cell(x, (h, c))


lstm_cell_gate_order = PairedCase(
    doc="hand-written LSTM cell with gates i,f,o,g: torch's i,f,g,o blocks reordered on transfer",
    torch=LstmCellPt, mindspore=LstmCellIfogMs,
    inputs={"x": uniform(2, 3), "h": uniform(2, 4), "c": uniform(2, 4)},
    weight_map={"cell.weight_ih": "ih.weight", "cell.bias_ih": "ih.bias",
                "cell.weight_hh": "hh.weight", "cell.bias_hh": "hh.bias"},
    weight_transforms={"cell.*": reorder_blocks(0, 1, 3, 2)},
    checks=("forward", "backward"), tags=("rnn", "mapping"),
)


class TransposedDenseMs(mnn.Cell):
    """A port that stores the weight (in, out) and computes x @ W."""

    def __init__(self):
        super().__init__()
        self.weight = ms.Parameter(ops.zeros((5, 3), ms.float32), name="weight")
        self.bias = ms.Parameter(ops.zeros((3,), ms.float32), name="bias")

    def construct(self, x):
        return ops.matmul(x, self.weight) + self.bias


transposed_weight = PairedCase(
    doc="a Dense written as x @ W with W stored (in, out): a declared transpose",
    torch=lambda: tnn.Linear(5, 3), mindspore=TransposedDenseMs, inputs={"x": uniform(4, 5)},
    weight_transforms={"weight": transpose(1, 0)}, tags=("mapping",),
)
