"""Held-out set 5, half b: two small model blocks with one functional-op mistake each (h5b_port_*).

Written blind, from the blocks' public descriptions (AdaIN, Huang & Belongie 2017; ResNet-D's average-pooled
shortcut, He et al. 2019 "Bag of Tricks"), ported as porters do with mindspore.nn layers and functional ops.
"""
from __future__ import annotations

from evaluation.corpus.build import entry
from migcheck.specs import uniform


def _adain(side):
    """A shared conv encoder, adaptive instance normalization of content by style statistics, a conv decoder.

    The style image is smaller than the content image (as AdaIN allows): with equal sizes the ddof factor of
    the two standard deviations would cancel in their ratio.
    """
    eps = 1e-5
    if side == "torch":
        import torch

        class AdaINBlock(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.enc = torch.nn.Conv2d(3, 4, 3, padding=1)
                self.dec = torch.nn.Conv2d(4, 3, 3, padding=1)

            @staticmethod
            def stats(feat):
                n, c = feat.shape[:2]
                flat = feat.view(n, c, -1)
                return flat.mean(dim=2).view(n, c, 1, 1), (flat.std(dim=2) + eps).view(n, c, 1, 1)

            def forward(self, content, style):
                c, s = self.enc(content), self.enc(style)
                c_mean, c_std = self.stats(c)
                s_mean, s_std = self.stats(s)
                return self.dec((c - c_mean) / c_std * s_std + s_mean)

        return AdaINBlock()
    import mindspore.nn as nn
    from mindspore import ops

    class AdaINBlock(nn.Cell):
        def __init__(self):
            super().__init__()
            self.enc = nn.Conv2d(3, 4, 3, pad_mode="pad", padding=1, has_bias=True)
            self.dec = nn.Conv2d(4, 3, 3, pad_mode="pad", padding=1, has_bias=True)

        def stats(self, feat):
            n, c = feat.shape[:2]
            flat = feat.view(n, c, -1)
            std = flat.std(dim=2) if side == "naive" else ops.std(flat, 2, ddof=1)
            return flat.mean(axis=2).view(n, c, 1, 1), (std + eps).view(n, c, 1, 1)

        def construct(self, content, style):
            c, s = self.enc(content), self.enc(style)
            c_mean, c_std = self.stats(c)
            s_mean, s_std = self.stats(s)
            return self.dec((c - c_mean) / c_std * s_std + s_mean)

    return AdaINBlock()


def _resnet_d(side):
    """A stem conv, then a ResNet-D downsampling block: 2x2 average pool before the 1x1 shortcut conv."""
    if side == "torch":
        import torch
        import torch.nn.functional as F

        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.stem = torch.nn.Conv2d(3, 4, 3, padding=1)
                self.conv1 = torch.nn.Conv2d(4, 8, 3, stride=2, padding=1, bias=False)
                self.bn1 = torch.nn.BatchNorm2d(8)
                self.conv2 = torch.nn.Conv2d(8, 8, 3, padding=1, bias=False)
                self.bn2 = torch.nn.BatchNorm2d(8)
                self.down = torch.nn.Conv2d(4, 8, 1, bias=False)
                self.down_bn = torch.nn.BatchNorm2d(8)

            def forward(self, x):
                x = F.relu(self.stem(x))
                out = F.relu(self.bn1(self.conv1(x)))
                out = self.bn2(self.conv2(out))
                shortcut = self.down_bn(self.down(F.avg_pool2d(x, 2)))
                return F.relu(out + shortcut)

        return Net()
    import mindspore.nn as nn
    from mindspore import ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.stem = nn.Conv2d(3, 4, 3, pad_mode="pad", padding=1, has_bias=True)
            self.conv1 = nn.Conv2d(4, 8, 3, stride=2, pad_mode="pad", padding=1)
            self.bn1 = nn.BatchNorm2d(8)
            self.conv2 = nn.Conv2d(8, 8, 3, pad_mode="pad", padding=1)
            self.bn2 = nn.BatchNorm2d(8)
            self.down = nn.Conv2d(4, 8, 1)
            self.down_bn = nn.BatchNorm2d(8)

        def construct(self, x):
            x = ops.relu(self.stem(x))
            out = ops.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            pooled = ops.avg_pool2d(x, 2) if side == "naive" else ops.avg_pool2d(x, 2, 2)
            return ops.relu(out + self.down_bn(self.down(pooled)))

    return Net()


ENTRIES = [
    entry("h5b_port_adain_tensor_std_dim_keyword", "h5-port", "model: AdaIN (Huang & Belongie 2017); probe: MindSpore"
          " Tensor.std(dim=...) accepts torch's keyword but keeps ddof=0",
          lambda: _adain("torch"), lambda: _adain("naive"), lambda: _adain("correct"), ("after:enc",),
          ("std|ddof|unbiased",), inputs={"content": uniform(1, 3, 5, 5), "style": uniform(1, 3, 3, 3)},
          cause_pattern=r"\bddof\b[^\n]*\b1\b|\bunbiased\b|\bcorrection\s*=\s*1\b|\bbessel\b|\bN\s*-\s*1\b"),
    entry("h5b_port_resnet_d_avg_pool2d_default_stride", "h5-port", "model: ResNet-D downsampling shortcut"
          " (Bag of Tricks, 2019); probe: ops.avg_pool2d's stride defaults to 1, F.avg_pool2d's to kernel_size",
          lambda: _resnet_d("torch"), lambda: _resnet_d("naive"), lambda: _resnet_d("correct"), ("after:stem",),
          ("avg_pool2d|stride",), inputs={"x": uniform(2, 3, 8, 8)}, fails_with="error",
          cause_pattern=r"\bavg_?pool(ing|2d)?\b[^\n]*\bstride\b|\bstride\b[^\n]*\bavg_?pool"
                        r"|\bavg_pool2d\s*\([^)\n]*,\s*2\s*,\s*2\b"
                        r"|\bstride\b[^\n]*\bdefaults? (to|is|of) (1|kernel_?size)\b"),
]
