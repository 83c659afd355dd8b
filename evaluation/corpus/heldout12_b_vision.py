"""Held-out set 12, half b: vision blocks (written blind; family "h12-port")."""
from __future__ import annotations

from evaluation.corpus.build import entry
from migcheck import uniform


def _t():
    import torch
    import torch.nn as tnn
    import torch.nn.functional as F
    return torch, tnn, F


def _m():
    import mindspore as ms
    import mindspore.nn as mnn
    import mindspore.ops as mops
    return ms, mnn, mops


# ---------------------------------------------------------------------------------------------------------------
# P4: torchvision-style DenseNet dense layer (functional dropout)
# ---------------------------------------------------------------------------------------------------------------

def dense_layer_torch():
    torch, tnn, F = _t()

    class DenseLayer(tnn.Module):
        def __init__(self, cin=4, growth=2, bn_size=4, drop_rate=0.5):
            super().__init__()
            self.norm1 = tnn.BatchNorm2d(cin)
            self.relu1 = tnn.ReLU()
            self.conv1 = tnn.Conv2d(cin, bn_size * growth, 1, bias=False)
            self.norm2 = tnn.BatchNorm2d(bn_size * growth)
            self.relu2 = tnn.ReLU()
            self.conv2 = tnn.Conv2d(bn_size * growth, growth, 3, padding=1, bias=False)
            self.drop_rate = drop_rate

        def forward(self, x):
            out = self.conv1(self.relu1(self.norm1(x)))
            new = self.conv2(self.relu2(self.norm2(out)))
            new = F.dropout(new, p=self.drop_rate, training=self.training)
            return torch.cat([x, new], 1)

    return DenseLayer()


def _dense_layer_ms(pass_training):
    ms, mnn, mops = _m()

    class DenseLayer(mnn.Cell):
        def __init__(self, cin=4, growth=2, bn_size=4, drop_rate=0.5):
            super().__init__()
            self.norm1 = mnn.BatchNorm2d(cin)
            self.relu1 = mnn.ReLU()
            self.conv1 = mnn.Conv2d(cin, bn_size * growth, 1, has_bias=False)
            self.norm2 = mnn.BatchNorm2d(bn_size * growth)
            self.relu2 = mnn.ReLU()
            self.conv2 = mnn.Conv2d(bn_size * growth, growth, 3, pad_mode="pad", padding=1, has_bias=False)
            self.drop_rate = drop_rate

        def construct(self, x):
            out = self.conv1(self.relu1(self.norm1(x)))
            new = self.conv2(self.relu2(self.norm2(out)))
            if pass_training:
                new = mops.dropout(new, p=self.drop_rate, training=self.training)
            else:
                new = mops.dropout(new, p=self.drop_rate)
            return mops.cat((x, new), 1)

    return DenseLayer()


# ---------------------------------------------------------------------------------------------------------------
# P5: PointNet input transform (T-net, k=3): identity added to the regressed matrix
# ---------------------------------------------------------------------------------------------------------------

def tnet_torch():
    torch, tnn, F = _t()

    class STN3d(tnn.Module):
        def __init__(self, width=8):
            super().__init__()
            self.conv1 = tnn.Conv1d(3, width, 1)
            self.fc1 = tnn.Linear(width, 9)

        def forward(self, pts):
            b = pts.shape[0]
            x = F.relu(self.conv1(pts))
            x = torch.max(x, 2)[0]
            x = self.fc1(x)
            iden = torch.eye(3, dtype=torch.float32).view(1, 9).repeat(b, 1)
            trans = (x + iden).view(b, 3, 3)
            return torch.bmm(pts.transpose(2, 1), trans)

    return STN3d()


def _tnet_ms(use_tile):
    ms, mnn, mops = _m()

    class STN3d(mnn.Cell):
        def __init__(self, width=8):
            super().__init__()
            self.conv1 = mnn.Conv1d(3, width, 1, has_bias=True, pad_mode="valid")
            self.fc1 = mnn.Dense(width, 9)

        def construct(self, pts):
            b = pts.shape[0]
            x = mops.relu(self.conv1(pts))
            x = mops.amax(x, 2)
            x = self.fc1(x)
            iden = mops.eye(3, 3, ms.float32).view(1, 9)
            iden = mops.tile(iden, (b, 1)) if use_tile else iden.repeat(b, 1)
            trans = (x + iden).view(b, 3, 3)
            return mops.bmm(pts.transpose(0, 2, 1), trans)

    return STN3d()


# ---------------------------------------------------------------------------------------------------------------
# P8: ENet-style regular bottleneck with spatial (channel) dropout before the residual add
# ---------------------------------------------------------------------------------------------------------------

def enet_torch():
    torch, tnn, F = _t()

    class Bottleneck(tnn.Module):
        def __init__(self, c=4, internal=2, p=0.5):
            super().__init__()
            self.conv1 = tnn.Conv2d(c, internal, 1, bias=False)
            self.bn1 = tnn.BatchNorm2d(internal)
            self.conv2 = tnn.Conv2d(internal, internal, 3, padding=1, bias=False)
            self.bn2 = tnn.BatchNorm2d(internal)
            self.conv3 = tnn.Conv2d(internal, c, 1, bias=False)
            self.bn3 = tnn.BatchNorm2d(c)
            self.p = p

        def forward(self, x):
            h = F.relu(self.bn1(self.conv1(x)))
            h = F.relu(self.bn2(self.conv2(h)))
            h = self.bn3(self.conv3(h))
            h = F.dropout2d(h, p=self.p, training=self.training)
            return F.relu(x + h)

    return Bottleneck()


def _enet_ms(pass_training):
    ms, mnn, mops = _m()

    class Bottleneck(mnn.Cell):
        def __init__(self, c=4, internal=2, p=0.5):
            super().__init__()
            self.conv1 = mnn.Conv2d(c, internal, 1, has_bias=False)
            self.bn1 = mnn.BatchNorm2d(internal)
            self.conv2 = mnn.Conv2d(internal, internal, 3, pad_mode="pad", padding=1, has_bias=False)
            self.bn2 = mnn.BatchNorm2d(internal)
            self.conv3 = mnn.Conv2d(internal, c, 1, has_bias=False)
            self.bn3 = mnn.BatchNorm2d(c)
            self.p = p

        def construct(self, x):
            h = mops.relu(self.bn1(self.conv1(x)))
            h = mops.relu(self.bn2(self.conv2(h)))
            h = self.bn3(self.conv3(h))
            if pass_training:
                h = mops.dropout2d(h, p=self.p, training=self.training)
            else:
                h = mops.dropout2d(h, p=self.p)
            return mops.relu(x + h)

    return Bottleneck()


ENTRIES = [
    entry("h12b_port_densenet_dense_layer_ops_dropout_training_default", "h12-port",
          "model:torchvision densenet _DenseLayer (mindcv densenet port)",
          dense_layer_torch, lambda: _dense_layer_ms(False), lambda: _dense_layer_ms(True),
          ("after:conv2",), ("dropout|training",),
          inputs={"x": uniform(2, 4, 3, 3)},
          cause_pattern=(r"\btraining\s*=\s*(self\.training|False)\b|\bself\.training\b|"
                         r"\btraining\b[^.]*\bdefault\w*\b[^.]*\bTrue\b|\bdefault\w*\b[^.]*\btraining\s*=\s*True\b")),
    entry("h12b_port_pointnet_tnet_identity_tensor_repeat_raises", "h12-port",
          "model:fxia22 pointnet.pytorch STN3d (mindspore-ai/models pointnet port)",
          tnet_torch, lambda: _tnet_ms(False), lambda: _tnet_ms(True),
          ("after:fc1",), ("repeat|tile",),
          inputs={"pts": uniform(2, 3, 6)}, fails_with="error",
          cause_pattern=r"\b(ops\.)?tile\b|\bbroadcast_to\b|\brepeat\b[^.]*\b(CPU|device|supported|kernel)\b"),
    entry("h12b_port_enet_bottleneck_ops_dropout2d_training_default", "h12-port",
          "model:ENet regular bottleneck (mindspore-ai/models enet port)",
          enet_torch, lambda: _enet_ms(False), lambda: _enet_ms(True),
          ("after:bn3",), ("dropout2d|training",),
          inputs={"x": uniform(2, 4, 3, 3)},
          cause_pattern=(r"\btraining\s*=\s*(self\.training|False)\b|\bself\.training\b|"
                         r"\btraining\b[^.]*\bdefault\w*\b[^.]*\bTrue\b|\bdefault\w*\b[^.]*\btraining\s*=\s*True\b")),
]
