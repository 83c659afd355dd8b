"""Held-out set 17, half a: two small model blocks (family "h17-port"), one porting mistake each (blind)."""
from __future__ import annotations

from evaluation.corpus.build import entry
from migcheck.specs import uniform


# --------------------------------------------------------------------------------------------------------------
# STN-style resampler: an identity affine grid at half the resolution, sampled with mode="nearest". Every sample
# point falls exactly half-way between two pixels; torch rounds those ties to even, MindSpore's kernel rounds up.
# --------------------------------------------------------------------------------------------------------------

def _stn_torch():
    import torch
    import torch.nn as tnn
    import torch.nn.functional as F

    class STNDown(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv_in = tnn.Conv2d(2, 4, 1)
            self.conv_out = tnn.Conv2d(4, 3, 1)
            self.head = tnn.Linear(3 * 4 * 4, 5)

        def forward(self, x):
            f = torch.relu(self.conv_in(x))
            n, c, h, w = f.shape
            theta = torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], dtype=f.dtype).expand(n, 2, 3)
            grid = F.affine_grid(theta, (n, c, h // 2, w // 2), align_corners=False)
            z = F.grid_sample(f, grid, mode="nearest", padding_mode="zeros", align_corners=False)
            z = torch.relu(self.conv_out(z))
            return self.head(z.flatten(1))
    return STNDown()


def _stn_ms(correct: bool):
    import mindspore as ms
    import mindspore.nn as mnn
    import mindspore.ops as ops

    def nearest_sample(f, grid):
        n, c, h, w = f.shape
        ho, wo = grid.shape[1], grid.shape[2]
        ix = ops.round(((grid[..., 0] + 1.0) * w - 1.0) / 2.0)     # round half to even, as torch's nearbyint
        iy = ops.round(((grid[..., 1] + 1.0) * h - 1.0) / 2.0)
        inside = ((ix >= 0) & (ix <= w - 1) & (iy >= 0) & (iy <= h - 1)).astype(f.dtype)
        flat = (ops.clamp(iy, 0, h - 1) * w + ops.clamp(ix, 0, w - 1)).astype(ms.int32).reshape(n, 1, ho * wo)
        flat = ops.broadcast_to(flat, (n, c, ho * wo))
        out = ops.gather_elements(f.reshape(n, c, h * w), 2, flat).reshape(n, c, ho, wo)
        return out * inside.expand_dims(1)

    class STNDown(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.conv_in = mnn.Conv2d(2, 4, 1, has_bias=True)
            self.conv_out = mnn.Conv2d(4, 3, 1, has_bias=True)
            self.head = mnn.Dense(3 * 4 * 4, 5)
            self.identity = ms.Tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], ms.float32)

        def construct(self, x):
            f = ops.relu(self.conv_in(x))
            n, c, h, w = f.shape
            theta = ops.broadcast_to(self.identity, (n, 2, 3))
            grid = ops.affine_grid(theta, (n, c, h // 2, w // 2), align_corners=False)
            if correct:
                z = nearest_sample(f, grid)
            else:
                z = ops.grid_sample(f, grid, mode="nearest", padding_mode="zeros", align_corners=False)
            z = ops.relu(self.conv_out(z))
            return self.head(z.reshape(n, -1))
    return STNDown()


# --------------------------------------------------------------------------------------------------------------
# Multi-scale (pyramid) discriminator head: the half-resolution branch is F.interpolate(scale_factor=0.5,
# bilinear) of a 9x9 map. MindSpore's interpolate only takes scale_factor with recompute_scale_factor=True, which
# maps coordinates with in/out = 9/4 instead of torch's 1/scale_factor = 2.
# --------------------------------------------------------------------------------------------------------------

def _pyr_torch():
    import torch
    import torch.nn as tnn
    import torch.nn.functional as F

    class PyramidDisc(tnn.Module):
        def __init__(self):
            super().__init__()
            self.stem = tnn.Conv2d(3, 4, 1)
            self.body0 = tnn.Conv2d(4, 4, 3, padding=1)
            self.head0 = tnn.Conv2d(4, 1, 1)
            self.body1 = tnn.Conv2d(4, 4, 3, padding=1)
            self.head1 = tnn.Conv2d(4, 1, 1)

        def forward(self, x):
            h = F.leaky_relu(self.stem(x), 0.2)
            s0 = self.head0(F.leaky_relu(self.body0(h), 0.2))
            half = F.interpolate(h, scale_factor=0.5, mode="bilinear", align_corners=False)
            s1 = self.head1(F.leaky_relu(self.body1(half), 0.2))
            return torch.cat([s0.flatten(1), s1.flatten(1)], 1)
    return PyramidDisc()


def _pyr_ms(correct: bool):
    import mindspore.nn as mnn
    import mindspore.ops as ops

    class PyramidDisc(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.stem = mnn.Conv2d(3, 4, 1, has_bias=True)
            self.body0 = mnn.Conv2d(4, 4, 3, pad_mode="pad", padding=1, has_bias=True)
            self.head0 = mnn.Conv2d(4, 1, 1, has_bias=True)
            self.body1 = mnn.Conv2d(4, 4, 3, pad_mode="pad", padding=1, has_bias=True)
            self.head1 = mnn.Conv2d(4, 1, 1, has_bias=True)
            # bilinear at scale 0.5 without align_corners samples at 2i + 0.5: the mean of each 2x2 block
            self.half = mnn.AvgPool2d(2, 2)

        def construct(self, x):
            h = ops.leaky_relu(self.stem(x), 0.2)
            s0 = self.head0(ops.leaky_relu(self.body0(h), 0.2))
            if correct:
                half = self.half(h)
            else:
                half = ops.interpolate(h, scale_factor=0.5, mode="bilinear", align_corners=False,
                                       recompute_scale_factor=True)
            s1 = self.head1(ops.leaky_relu(self.body1(half), 0.2))
            return ops.cat([s0.reshape(s0.shape[0], -1), s1.reshape(s1.shape[0], -1)], 1)
    return PyramidDisc()


ENTRIES = [
    entry("h17a_port_stn_half_res_resampler_grid_sample_nearest_tie_rounding", "h17-port",
          "probe:F.grid_sample(mode='nearest') at half-pixel sample points vs ops.grid_sample",
          _stn_torch, lambda: _stn_ms(False), lambda: _stn_ms(True), ("after:conv_in",),
          ("nearest|round|half|tie",), inputs={"x": uniform(2, 2, 8, 8)},
          cause_pattern=r"\b(round\w*|rint|nearbyint)\b[^.]*\b(half|ties?|even|halfway|0?\.5)\b"
                        r"|\bhalf[- ]to[- ]even\b|\b(ties?|halfway|half-pixel)\b[^.]*\b(round\w*|nearest)\b"),
    entry("h17a_port_pyramid_disc_half_scale_bilinear_recompute_scale_factor", "h17-port",
          "probe:F.interpolate(scale_factor=0.5, mode='bilinear') on an odd size vs ops.interpolate"
          "(recompute_scale_factor=True)",
          _pyr_torch, lambda: _pyr_ms(False), lambda: _pyr_ms(True), ("after:stem",),
          ("recompute_scale_factor|scale_factor",), inputs={"x": uniform(1, 3, 9, 9)},
          cause_pattern=r"\brecompute_scale_factor\b|\bscale_factor\b[^.]*\b(recomput\w*|coordinates?|1\s*/\s*0\.5)\b"
                        r"|\bAvgPool2d\b|\bavg_pool2d\b"),
]
