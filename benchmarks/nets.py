"""Real-size network pairs for the overhead benchmarks: ResNet-50 and BERT-base, in torch and MindSpore.

Written in both frameworks with the same attribute names, so migcheck's built-in rules map every
weight by name (BatchNorm/LayerNorm/Embedding renames included): no weight_map is needed.
Weights are generated (migcheck's seeded fixtures, or numpy in the bare baseline), never downloaded.

Imports torch and mindspore inside the factories' helpers, so importing this file is cheap.
"""
from __future__ import annotations

import math

# ResNet-50: Bottleneck blocks [3, 4, 6, 3], widths 64..512, expansion 4, 1000 classes (25.6 M parameters).
RESNET_LAYERS = (3, 4, 6, 3)
# BERT-base: 12 layers, hidden 768, 12 heads, intermediate 3072, vocab 30522 (109 M parameters).
BERT = dict(vocab=30522, hidden=768, layers=12, heads=12, intermediate=3072, max_positions=512, type_vocab=2)


# ----------------------------------------------------------------------------------------------- torch
def torch_resnet50():
    import torch.nn as nn

    class Bottleneck(nn.Module):
        expansion = 4

        def __init__(self, inplanes, planes, stride=1, downsample=None):
            super().__init__()
            self.conv1 = nn.Conv2d(inplanes, planes, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.conv2 = nn.Conv2d(planes, planes, 3, stride=stride, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.conv3 = nn.Conv2d(planes, planes * 4, 1, bias=False)
            self.bn3 = nn.BatchNorm2d(planes * 4)
            self.relu = nn.ReLU()
            self.downsample = downsample

        def forward(self, x):
            identity = x if self.downsample is None else self.downsample(x)
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.relu(self.bn2(self.conv2(out)))
            out = self.bn3(self.conv3(out))
            return self.relu(out + identity)

    class ResNet50(nn.Module):
        def __init__(self, num_classes=1000):
            super().__init__()
            self.inplanes = 64
            self.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            self.relu = nn.ReLU()
            self.maxpool = nn.MaxPool2d(3, stride=2, padding=1)
            self.layer1 = self._layer(64, RESNET_LAYERS[0])
            self.layer2 = self._layer(128, RESNET_LAYERS[1], stride=2)
            self.layer3 = self._layer(256, RESNET_LAYERS[2], stride=2)
            self.layer4 = self._layer(512, RESNET_LAYERS[3], stride=2)
            self.fc = nn.Linear(2048, num_classes)

        def _layer(self, planes, blocks, stride=1):
            downsample = None
            if stride != 1 or self.inplanes != planes * 4:
                downsample = nn.Sequential(nn.Conv2d(self.inplanes, planes * 4, 1, stride=stride, bias=False),
                                           nn.BatchNorm2d(planes * 4))
            layers = [Bottleneck(self.inplanes, planes, stride, downsample)]
            self.inplanes = planes * 4
            layers += [Bottleneck(self.inplanes, planes) for _ in range(1, blocks)]
            return nn.Sequential(*layers)

        def forward(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(x.mean(dim=(2, 3)))

    return ResNet50()


def torch_bert_base():
    import torch
    import torch.nn as nn

    c = BERT

    class Embeddings(nn.Module):
        def __init__(self):
            super().__init__()
            self.word_embeddings = nn.Embedding(c["vocab"], c["hidden"])
            self.position_embeddings = nn.Embedding(c["max_positions"], c["hidden"])
            self.token_type_embeddings = nn.Embedding(c["type_vocab"], c["hidden"])
            self.LayerNorm = nn.LayerNorm(c["hidden"], eps=1e-12)

        def forward(self, input_ids):
            positions = torch.arange(input_ids.shape[1]).unsqueeze(0)
            x = self.word_embeddings(input_ids) + self.position_embeddings(positions) \
                + self.token_type_embeddings(torch.zeros_like(input_ids))
            return self.LayerNorm(x)

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            h = c["hidden"]
            self.query, self.key, self.value = nn.Linear(h, h), nn.Linear(h, h), nn.Linear(h, h)
            self.attention_output = nn.Linear(h, h)
            self.attention_norm = nn.LayerNorm(h, eps=1e-12)
            self.intermediate = nn.Linear(h, c["intermediate"])
            self.output = nn.Linear(c["intermediate"], h)
            self.output_norm = nn.LayerNorm(h, eps=1e-12)
            self.act = nn.GELU()

        def heads(self, x):
            b, s, _ = x.shape
            return x.reshape(b, s, c["heads"], -1).transpose(1, 2)

        def forward(self, x):
            b, s, h = x.shape
            q, k, v = self.heads(self.query(x)), self.heads(self.key(x)), self.heads(self.value(x))
            scores = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(h // c["heads"]))
            context = torch.matmul(torch.softmax(scores, dim=-1), v).transpose(1, 2).reshape(b, s, h)
            x = self.attention_norm(x + self.attention_output(context))
            return self.output_norm(x + self.output(self.act(self.intermediate(x))))

    class Bert(nn.Module):
        def __init__(self):
            super().__init__()
            self.embeddings = Embeddings()
            self.layer = nn.ModuleList([Layer() for _ in range(c["layers"])])
            self.pooler = nn.Linear(c["hidden"], c["hidden"])

        def forward(self, input_ids):
            x = self.embeddings(input_ids)
            for layer in self.layer:
                x = layer(x)
            return x, torch.tanh(self.pooler(x[:, 0]))

    return Bert()


# ----------------------------------------------------------------------------------------------- MindSpore
def ms_resnet50():
    import mindspore.nn as nn

    class Bottleneck(nn.Cell):
        def __init__(self, inplanes, planes, stride=1, downsample=None):
            super().__init__()
            self.conv1 = nn.Conv2d(inplanes, planes, 1, has_bias=False)
            self.bn1 = nn.BatchNorm2d(planes, momentum=0.9)
            self.conv2 = nn.Conv2d(planes, planes, 3, stride=stride, pad_mode="pad", padding=1, has_bias=False)
            self.bn2 = nn.BatchNorm2d(planes, momentum=0.9)
            self.conv3 = nn.Conv2d(planes, planes * 4, 1, has_bias=False)
            self.bn3 = nn.BatchNorm2d(planes * 4, momentum=0.9)
            self.relu = nn.ReLU()
            self.downsample = downsample
            self.has_downsample = downsample is not None

        def construct(self, x):
            identity = self.downsample(x) if self.has_downsample else x
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.relu(self.bn2(self.conv2(out)))
            out = self.bn3(self.conv3(out))
            return self.relu(out + identity)

    class ResNet50(nn.Cell):
        def __init__(self, num_classes=1000):
            super().__init__()
            self.inplanes = 64
            self.conv1 = nn.Conv2d(3, 64, 7, stride=2, pad_mode="pad", padding=3, has_bias=False)
            self.bn1 = nn.BatchNorm2d(64, momentum=0.9)
            self.relu = nn.ReLU()
            self.maxpool = nn.MaxPool2d(3, stride=2, pad_mode="pad", padding=1)
            self.layer1 = self._layer(64, RESNET_LAYERS[0])
            self.layer2 = self._layer(128, RESNET_LAYERS[1], stride=2)
            self.layer3 = self._layer(256, RESNET_LAYERS[2], stride=2)
            self.layer4 = self._layer(512, RESNET_LAYERS[3], stride=2)
            self.fc = nn.Dense(2048, num_classes)

        def _layer(self, planes, blocks, stride=1):
            downsample = None
            if stride != 1 or self.inplanes != planes * 4:
                downsample = nn.SequentialCell([nn.Conv2d(self.inplanes, planes * 4, 1, stride=stride, has_bias=False),
                                                nn.BatchNorm2d(planes * 4, momentum=0.9)])
            layers = [Bottleneck(self.inplanes, planes, stride, downsample)]
            self.inplanes = planes * 4
            layers += [Bottleneck(self.inplanes, planes) for _ in range(1, blocks)]
            return nn.SequentialCell(layers)

        def construct(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(x.mean(axis=(2, 3)))

    return ResNet50()


def ms_bert_base():
    import mindspore.nn as nn
    import mindspore.ops as ops

    c = BERT

    class Embeddings(nn.Cell):
        def __init__(self):
            super().__init__()
            self.word_embeddings = nn.Embedding(c["vocab"], c["hidden"])
            self.position_embeddings = nn.Embedding(c["max_positions"], c["hidden"])
            self.token_type_embeddings = nn.Embedding(c["type_vocab"], c["hidden"])
            self.LayerNorm = nn.LayerNorm((c["hidden"],), epsilon=1e-12)

        def construct(self, input_ids):
            positions = ops.arange(input_ids.shape[1]).reshape(1, -1)
            x = self.word_embeddings(input_ids) + self.position_embeddings(positions) \
                + self.token_type_embeddings(ops.zeros_like(input_ids))
            return self.LayerNorm(x)

    class Layer(nn.Cell):
        def __init__(self):
            super().__init__()
            h = c["hidden"]
            self.query, self.key, self.value = nn.Dense(h, h), nn.Dense(h, h), nn.Dense(h, h)
            self.attention_output = nn.Dense(h, h)
            self.attention_norm = nn.LayerNorm((h,), epsilon=1e-12)
            self.intermediate = nn.Dense(h, c["intermediate"])
            self.output = nn.Dense(c["intermediate"], h)
            self.output_norm = nn.LayerNorm((h,), epsilon=1e-12)
            self.act = nn.GELU(approximate=False)
            self.scale = 1.0 / math.sqrt(h // c["heads"])

        def heads(self, x):
            b, s, _ = x.shape
            return x.reshape(b, s, c["heads"], -1).transpose(0, 2, 1, 3)

        def construct(self, x):
            b, s, h = x.shape
            q, k, v = self.heads(self.query(x)), self.heads(self.key(x)), self.heads(self.value(x))
            scores = ops.matmul(q, k.transpose(0, 1, 3, 2)) * self.scale
            context = ops.matmul(ops.softmax(scores, axis=-1), v).transpose(0, 2, 1, 3).reshape(b, s, h)
            x = self.attention_norm(x + self.attention_output(context))
            return self.output_norm(x + self.output(self.act(self.intermediate(x))))

    class Bert(nn.Cell):
        def __init__(self):
            super().__init__()
            self.embeddings = Embeddings()
            self.layer = nn.CellList([Layer() for _ in range(c["layers"])])
            self.pooler = nn.Dense(c["hidden"], c["hidden"])

        def construct(self, input_ids):
            x = self.embeddings(input_ids)
            for layer in self.layer:
                x = layer(x)
            return x, ops.tanh(self.pooler(x[:, 0]))

    return Bert()


# ------------------------------------------------------------------------------------ ViT-B-sized encoder
# 12 blocks of hidden 768 (cases/localization.py's BlockPt/BlockMs: LayerNorm eps 1e-6, a small MLP), a 4x4
# patch conv and a 10-class head: the shape of ViT-B's compute, for localization cost and report size.
VIT_DIM, VIT_DEPTH = 768, 12


def _blocks_module():
    import sys
    from pathlib import Path

    cases = str(Path(__file__).resolve().parents[1] / "cases")
    if cases not in sys.path:
        sys.path.insert(0, cases)
    import localization

    return localization


def torch_vit_b():
    import torch.nn as tnn

    BlockPt = _blocks_module().BlockPt

    class VitPt(tnn.Module):
        def __init__(self):
            super().__init__()
            self.patch = tnn.Conv2d(3, VIT_DIM, 4, stride=4)
            self.blocks = tnn.Sequential(*[BlockPt(VIT_DIM, 1e-6) for _ in range(VIT_DEPTH)])
            self.head = tnn.Linear(VIT_DIM, 10)

        def forward(self, x):
            return self.head(self.blocks(self.patch(x).flatten(2).transpose(1, 2)).mean(dim=1))

    return VitPt()


def ms_vit_b(defect=None):
    """defect(blocks, mindspore.nn): plants a porting mistake in the list of blocks before they are wrapped."""
    import mindspore.nn as mnn

    BlockMs = _blocks_module().BlockMs

    class VitMs(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.patch = mnn.Conv2d(3, VIT_DIM, 4, stride=4, pad_mode="valid", has_bias=True)
            blocks = [BlockMs(VIT_DIM, 1e-6) for _ in range(VIT_DEPTH)]
            if defect is not None:
                defect(blocks, mnn)
            self.blocks = mnn.SequentialCell(blocks)
            self.head = mnn.Dense(VIT_DIM, 10)

        def construct(self, x):
            return self.head(self.blocks(self.patch(x).reshape(x.shape[0], VIT_DIM, -1).transpose(0, 2, 1)).mean(axis=1))

    return VitMs()

