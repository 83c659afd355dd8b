"""Networks of realistic depth with one defect planted deep inside: migcheck must name that layer and why."""
import mindspore.nn as mnn
import mindspore.ops as ops
import torch
import torch.nn as tnn

from migcheck import PairedCase, uniform


# --- ResNet-style: four stages; stage 3 downsamples with a max-pool. ---

class StagePt(tnn.Module):
    def __init__(self, cin, cout, pool):
        super().__init__()
        self.conv = tnn.Conv2d(cin, cout, 3, padding=1, bias=False)
        self.bn = tnn.BatchNorm2d(cout)
        self.pool = tnn.MaxPool2d(3, 2, padding=1) if pool else tnn.Identity()

    def forward(self, x):
        return self.pool(torch.relu(self.bn(self.conv(x))))


class DeepCnnPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.stages = tnn.Sequential(StagePt(3, 4, False), StagePt(4, 6, False), StagePt(6, 8, True), StagePt(8, 8, False))
        self.head = tnn.Linear(8, 5)

    def forward(self, x):
        return self.head(self.stages(x).mean(dim=(2, 3)))


class StageMs(mnn.Cell):
    def __init__(self, cin, cout, pool, pool_pad_mode="pad"):
        super().__init__()
        self.conv = mnn.Conv2d(cin, cout, 3, pad_mode="pad", padding=1)
        self.bn = mnn.BatchNorm2d(cout)
        if not pool:
            self.pool = mnn.Identity()
        elif pool_pad_mode == "same":
            self.pool = mnn.MaxPool2d(3, 2, pad_mode="same")
        else:
            self.pool = mnn.MaxPool2d(3, 2, pad_mode="pad", padding=1)
        self.relu = mnn.ReLU()

    def construct(self, x):
        return self.pool(self.relu(self.bn(self.conv(x))))


class DeepCnnMs(mnn.Cell):
    def __init__(self, pool_pad_mode="pad"):
        super().__init__()
        self.stages = mnn.SequentialCell([StageMs(3, 4, False), StageMs(4, 6, False),
                                          StageMs(6, 8, True, pool_pad_mode), StageMs(8, 8, False)])
        self.head = mnn.Dense(8, 5)

    def construct(self, x):
        return self.head(self.stages(x).mean(axis=(2, 3)))


deep_cnn = PairedCase(
    doc="four-stage CNN with a padded stride-2 max-pool in stage 3, ported faithfully",
    torch=DeepCnnPt, mindspore=DeepCnnMs, inputs={"x": uniform(2, 3, 8, 8)}, tags=("network", "localization"),
)

deep_cnn_maxpool_same = PairedCase(
    doc="known-bad deep inside: stage 3's stride-2 max-pool ported with pad_mode='same' (pads only bottom/right)",
    torch=DeepCnnPt, mindspore=lambda: DeepCnnMs(pool_pad_mode="same"), inputs={"x": uniform(2, 3, 8, 8)},
    checks=("forward",), expect="fail", fails_with="value", diagnosis="pad-mode",
    tags=("network", "localization", "known-bad"),
)


# --- ViT-style: patch embedding, four pre-norm transformer blocks, final norm, head. ---

class BlockPt(tnn.Module):
    def __init__(self, dim=8, eps=1e-5):
        super().__init__()
        self.norm1 = tnn.LayerNorm(dim, eps=eps)
        self.attn = tnn.MultiheadAttention(dim, 2, batch_first=True)
        self.norm2 = tnn.LayerNorm(dim, eps=eps)
        self.mlp = tnn.Sequential(tnn.Linear(dim, 16), tnn.GELU(), tnn.Linear(16, dim))

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.norm2(x))


class VitPt(tnn.Module):
    def __init__(self, eps=1e-3):
        super().__init__()
        self.patch = tnn.Conv2d(3, 8, 4, stride=4)
        self.blocks = tnn.Sequential(*[BlockPt(8, eps) for _ in range(4)])
        self.norm = tnn.LayerNorm(8, eps=eps)
        self.head = tnn.Linear(8, 5)

    def forward(self, x):
        tokens = self.patch(x).flatten(2).transpose(1, 2)
        return self.head(self.norm(self.blocks(tokens)).mean(dim=1))


class BlockMs(mnn.Cell):
    def __init__(self, dim=8, eps=1e-5):
        super().__init__()
        self.norm1 = mnn.LayerNorm((dim,), epsilon=eps)
        self.attn = mnn.MultiheadAttention(dim, 2, batch_first=True)
        self.norm2 = mnn.LayerNorm((dim,), epsilon=eps)
        self.mlp = mnn.SequentialCell([mnn.Dense(dim, 16), mnn.GELU(approximate=False), mnn.Dense(16, dim)])

    def construct(self, x):
        h = self.norm1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.norm2(x))


class VitMs(mnn.Cell):
    def __init__(self, eps=1e-3, bad_block=None):
        super().__init__()
        self.patch = mnn.Conv2d(3, 8, 4, stride=4, pad_mode="valid", has_bias=True)
        blocks = [BlockMs(8, eps) for _ in range(4)]
        if bad_block is not None:  # that block's second norm left at MindSpore's default epsilon
            blocks[bad_block].norm2 = mnn.LayerNorm((8,))
        self.blocks = mnn.SequentialCell(blocks)
        self.norm = mnn.LayerNorm((8,), epsilon=eps)
        self.head = mnn.Dense(8, 5)

    def construct(self, x):
        b, c = x.shape[0], 8
        tokens = self.patch(x).reshape(b, c, -1).transpose(0, 2, 1)
        return self.head(self.norm(self.blocks(tokens)).mean(axis=1))


VIT_INPUT = {"x": uniform(2, 3, 8, 8)}

vit = PairedCase(
    doc="ViT-style encoder (patch conv, 4 pre-norm blocks with MHA and GELU MLP, LayerNorm eps=1e-3), ported faithfully",
    torch=VitPt, mindspore=VitMs, inputs=VIT_INPUT, checks=("forward", "backward"),
    tags=("network", "attention", "localization"),
)

vit_layernorm_eps = PairedCase(
    doc="known-bad deep inside: the original's eps=1e-3 not carried to block 2's second LayerNorm (MindSpore default 1e-7)",
    torch=VitPt, mindspore=lambda: VitMs(bad_block=2), inputs=VIT_INPUT,
    checks=("forward",), expect="fail", fails_with="value", diagnosis="layernorm-eps",
    tags=("network", "attention", "localization", "known-bad"),
)
