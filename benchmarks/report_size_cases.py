"""A dozen failing real-size pairs for benchmarks/report_size.py: ResNet-50, BERT-base and a ViT-B-sized
encoder, each port with one planted defect as porters make them. Inputs are small (the report's size
follows the parameters' count and sizes, which are the real ones); weights are drawn, never downloaded."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cases"))

from migcheck import PairedCase, integers, uniform  # noqa: E402
from nets import VIT_DEPTH as DEPTH, VIT_DIM as DIM, ms_bert_base, ms_resnet50, ms_vit_b, torch_bert_base, torch_resnet50, torch_vit_b  # noqa: E402,E501

def _resnet(patch):
    def build():
        import mindspore.nn as mnn

        net = ms_resnet50()
        patch(net, mnn)
        return net
    return build


def _bert(patch):
    def build():
        import mindspore.nn as mnn

        net = ms_bert_base()
        patch(net, mnn)
        return net
    return build


def _each_bn(net, mnn, eps):
    for _, cell in net.cells_and_names():
        for name, child in list(cell.name_cells().items()):
            if isinstance(child, mnn.BatchNorm2d):
                setattr(cell, name, mnn.BatchNorm2d(child.num_features, eps=eps))


def _bert_layers(net, fn):
    for layer in net.layer:
        fn(layer)


def _vit_ms(defect):
    return lambda: ms_vit_b(defect)


def _gelu_tanh(blocks, mnn, which=7):
    blocks[which].mlp = mnn.SequentialCell([mnn.Dense(DIM, 16), mnn.GELU(approximate=True), mnn.Dense(16, DIM)])


def _norm_eps(blocks, mnn):
    for b in blocks:
        b.norm2 = mnn.LayerNorm((DIM,), epsilon=1e-3)  # a wrong epsilon in every block


IMG = {"x": uniform(1, 3, 64, 64)}
TOKENS = {"input_ids": integers(1, 16, high=30522)}
VIT_IN = {"x": uniform(1, 3, 32, 32)}
BAD = dict(expect="fail", fails_with="value", tags=("report-size",))

resnet50_maxpool_same = PairedCase(torch=torch_resnet50, inputs=IMG, **BAD, mindspore=_resnet(
    lambda net, mnn: setattr(net, "maxpool", mnn.MaxPool2d(3, 2, pad_mode="same"))), doc="maxpool pad_mode='same'")
resnet50_bn_eps = PairedCase(torch=torch_resnet50, inputs=IMG, **BAD, mindspore=_resnet(
    lambda net, mnn: _each_bn(net, mnn, 1e-3)), doc="every BatchNorm eps=1e-3")
resnet50_leaky_relu = PairedCase(torch=torch_resnet50, inputs=IMG, **BAD, mindspore=_resnet(
    lambda net, mnn: setattr(net, "relu", mnn.LeakyReLU())), doc="stem ReLU ported as LeakyReLU (alpha 0.2)")
resnet50_first_bn_eps = PairedCase(torch=torch_resnet50, inputs=IMG, **BAD, mindspore=_resnet(
    lambda net, mnn: setattr(net, "bn1", mnn.BatchNorm2d(64, eps=1e-1))), doc="stem BatchNorm eps=0.1")
bert_gelu_tanh = PairedCase(torch=torch_bert_base, inputs=TOKENS, **BAD, mindspore=_bert(
    lambda net, mnn: _bert_layers(net, lambda l: setattr(l, "act", mnn.GELU(approximate=True)))), doc="GELU tanh")
bert_ln_eps = PairedCase(torch=torch_bert_base, inputs=TOKENS, **BAD, mindspore=_bert(
    lambda net, mnn: _bert_layers(net, lambda l: setattr(l, "output_norm", mnn.LayerNorm((768,), epsilon=1e-3)))),
    doc="output LayerNorm epsilon 1e-3")
bert_scale = PairedCase(torch=torch_bert_base, inputs=TOKENS, **BAD, mindspore=_bert(
    lambda net, mnn: _bert_layers(net, lambda l: setattr(l, "scale", 1.0 / 768 ** 0.5))),
    doc="attention scaled by sqrt(hidden) instead of sqrt(head dim)")
bert_emb_ln_eps = PairedCase(torch=torch_bert_base, inputs=TOKENS, **BAD, mindspore=_bert(
    lambda net, mnn: setattr(net.embeddings, "LayerNorm", mnn.LayerNorm((768,), epsilon=1e-2))),
    doc="embedding LayerNorm epsilon 1e-2")
vit_gelu_tanh_block7 = PairedCase(torch=torch_vit_b, mindspore=_vit_ms(_gelu_tanh), inputs=VIT_IN, **BAD, doc="GELU tanh in block 7")
vit_gelu_tanh_block0 = PairedCase(torch=torch_vit_b, mindspore=_vit_ms(lambda b, m: _gelu_tanh(b, m, 0)), inputs=VIT_IN, **BAD,
                                  doc="GELU tanh in block 0")
vit_norm_eps = PairedCase(torch=torch_vit_b, mindspore=_vit_ms(_norm_eps), inputs=VIT_IN, **BAD, doc="LayerNorm epsilon 1e-3 in every block")
vit_gelu_tanh_all = PairedCase(torch=torch_vit_b, mindspore=_vit_ms(lambda b, m: [_gelu_tanh(b, m, k) for k in range(DEPTH)]),
                               inputs=VIT_IN, **BAD, doc="GELU tanh everywhere")
