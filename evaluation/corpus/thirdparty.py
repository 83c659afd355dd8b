"""Real third-party ports: diffusers' torch blocks against mindone's published MindSpore ports of them.

Needs diffusers 0.35.1 and mindone 0.5.0 (the diffusers release mindone 0.5.0 mirrors), installed as
evaluation/README.md says; `entries()` leaves this family out when they are not importable.

The correct port is mindone's block exactly as published, built with the same arguments. The naive port is
that block with one realistic porting mistake injected by changing one constructor argument or one
attribute (a child rebuilt with another setting), so everything else in it is real third-party code.
Configurations are tiny (a few channels, 8x8 images) to keep MindSpore CPU time low.
"""
from typing import Any, Callable

from evaluation.corpus import mint_cpu

mint_cpu.install()  # before mindone binds any mint function at import time

import mindspore.mint as mint  # noqa: E402
import mindspore.nn as mnn  # noqa: E402
import torch.nn as tnn  # noqa: E402
from diffusers.models.attention import BasicTransformerBlock, FeedForward  # noqa: E402
from diffusers.models.attention_processor import Attention  # noqa: E402
from diffusers.models.autoencoders.vae import Encoder  # noqa: E402
from diffusers.models.embeddings import TimestepEmbedding, Timesteps  # noqa: E402
from diffusers.models.normalization import AdaGroupNorm  # noqa: E402
from diffusers.models.resnet import ResnetBlock2D  # noqa: E402
from diffusers.models.downsampling import Downsample2D  # noqa: E402
from diffusers.models.upsampling import Upsample2D  # noqa: E402
from diffusers.models.unets.unet_2d_blocks import UNetMidBlock2D  # noqa: E402
from mindone.diffusers.models import attention as ms_attention  # noqa: E402
from mindone.diffusers.models import attention_processor as ms_attention_processor  # noqa: E402
from mindone.diffusers.models import downsampling as ms_downsampling  # noqa: E402
from mindone.diffusers.models import embeddings as ms_embeddings  # noqa: E402
from mindone.diffusers.models import normalization as ms_normalization  # noqa: E402
from mindone.diffusers.models import resnet as ms_resnet  # noqa: E402
from mindone.diffusers.models import upsampling as ms_upsampling  # noqa: E402
from mindone.diffusers.models.autoencoders import vae as ms_vae  # noqa: E402
from mindone.diffusers.models.unets import unet_2d_blocks as ms_unet_blocks  # noqa: E402

from evaluation.corpus.build import entry  # noqa: E402
from migcheck import uniform  # noqa: E402

ORIGIN = "diffusers 0.35.1 {} vs mindone 0.5.0 mindone.diffusers.{}"


def block(cls: Callable[..., Any], **kwargs: Any) -> Callable[[], Any]:
    """A factory for one block with fixed arguments (both sides take the same ones)."""
    def make():
        return cls(**kwargs)
    make.__name__ = f"make_{cls.__name__}"
    return make


def injected(make: Callable[[], Any], mistake: Callable[[Any], None]) -> Callable[[], Any]:
    """The published block, then one porting mistake applied to it."""
    def make_naive():
        cell = make()
        mistake(cell)
        return cell
    make_naive.__name__ = f"{make.__name__}_naive"
    return make_naive


# Wrappers with the same two children on each side, as UNet2DConditionModel holds them.
class TimeEmbedPt(tnn.Module):
    def __init__(self, shift=0):
        super().__init__()
        self.time_proj = Timesteps(8, flip_sin_to_cos=True, downscale_freq_shift=shift)
        self.time_embedding = TimestepEmbedding(8, 16)

    def forward(self, timesteps):
        return self.time_embedding(self.time_proj(timesteps))


class TimeEmbedMs(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.time_proj = ms_embeddings.Timesteps(8, flip_sin_to_cos=True, downscale_freq_shift=0)
        self.time_embedding = ms_embeddings.TimestepEmbedding(8, 16)

    def construct(self, timesteps):
        return self.time_embedding(self.time_proj(timesteps))


def _set(path: str, value: Any) -> Callable[[Any], None]:
    """Set one (dotted) attribute of the built block."""
    def apply(cell):
        *parents, leaf = path.split(".")
        for name in parents:
            cell = cell[int(name)] if name.isdigit() else getattr(cell, name)
        setattr(cell, leaf, value)
    return apply


def _rebuild(path: str, factory: Callable[[], Any]) -> Callable[[Any], None]:
    """Replace one child of the built block by another construction (a constructor argument changed)."""
    def apply(cell):
        _set(path, factory())(cell)
    return apply


RESNET = dict(in_channels=4, out_channels=8, temb_channels=6, groups=2, groups_out=4)
DOWN = dict(channels=4, use_conv=True, out_channels=4, padding=0, name="conv")
UP = dict(channels=4, use_conv=True, out_channels=4)
ATTN = dict(query_dim=8, heads=2, dim_head=4)
FF = dict(dim=8, mult=2, activation_fn="gelu")
ADA = dict(embedding_dim=6, out_dim=8, num_groups=2, act_fn="silu", eps=1e-6)
BTB = dict(dim=8, num_attention_heads=2, attention_head_dim=4)
MID = dict(in_channels=8, temb_channels=6, resnet_groups=2, attention_head_dim=4, num_layers=1)
ENC = dict(in_channels=3, out_channels=2, down_block_types=("DownEncoderBlock2D",) * 2, block_out_channels=(4, 8),
           layers_per_block=1, norm_num_groups=2, double_z=True)

IMG4 = {"x": uniform(2, 4, 8, 8)}
TOKENS = {"x": uniform(2, 5, 8)}

ENTRIES = [
    # diffusers' ResnetBlock2D normalizes its second half with groups_out groups; the port reuses `groups`.
    entry("diffusers_resnet_block_2d", "third-party", ORIGIN.format("ResnetBlock2D", "models.resnet"),
          block(ResnetBlock2D, **RESNET),
          injected(block(ms_resnet.ResnetBlock2D, **RESNET), _rebuild("norm2", lambda: mint.nn.GroupNorm(2, 8, eps=1e-6))),
          block(ms_resnet.ResnetBlock2D, **RESNET), ["norm2"], ["num_groups|groups"],
          inputs={"x": uniform(2, 4, 8, 8), "temb": uniform(2, 6)}),
    # The SD VAE's Downsample2D: padding=0 plus an asymmetric F.pad (0,1,0,1); the port pads 1 on every side.
    entry("diffusers_downsample_2d", "third-party", ORIGIN.format("Downsample2D", "models.downsampling"),
          block(Downsample2D, **DOWN), block(ms_downsampling.Downsample2D, **dict(DOWN, padding=1)),
          block(ms_downsampling.Downsample2D, **DOWN), ["after:<input>"], ["padding|pad"], inputs=IMG4),
    # The port's conv is MindSpore's nn.Conv2d, whose has_bias defaults to False (torch's bias=True).
    entry("diffusers_upsample_2d", "third-party", ORIGIN.format("Upsample2D", "models.upsampling"),
          block(Upsample2D, **UP),
          injected(block(ms_upsampling.Upsample2D, **UP),
                   _rebuild("conv", lambda: mnn.Conv2d(4, 4, 3, pad_mode="pad", padding=1))),
          block(ms_upsampling.Upsample2D, **UP), ["conv"], ["bias"], inputs=IMG4, fails_with="structure"),
    # The port is built with scale_qk=False: the attention scores lose their 1/sqrt(head_dim) scale.
    entry("diffusers_attention", "third-party", ORIGIN.format("Attention", "models.attention_processor"),
          block(Attention, **ATTN), block(ms_attention_processor.Attention, **dict(ATTN, scale_qk=False)),
          block(ms_attention_processor.Attention, **ATTN), ["after:to_v"], ["scale"], inputs=TOKENS),
    # FeedForward's GELU run with the tanh approximation.
    entry("diffusers_feedforward_gelu", "third-party", ORIGIN.format("FeedForward", "models.attention"),
          block(FeedForward, **FF), injected(block(ms_attention.FeedForward, **FF), _set("net.0.approximate", "tanh")),
          block(ms_attention.FeedForward, **FF), ["net.0"], ["gelu|tanh|approximat"], inputs=TOKENS),
    # Timesteps with DDPM's downscale_freq_shift=1 where the original (Stable Diffusion) uses 0.
    entry("diffusers_timestep_embedding", "third-party",
          ORIGIN.format("Timesteps+TimestepEmbedding", "models.embeddings"),
          TimeEmbedPt, injected(TimeEmbedMs, _set("time_proj.downscale_freq_shift", 1)), TimeEmbedMs,
          ["time_proj"], ["downscale_freq_shift|shift"], inputs={"timesteps": uniform(3, low=0.0, high=50.0)}),
    # AdaGroupNorm built with MindSpore's usual eps 1e-5 where the original passes 1e-6; a low-variance input
    # (a late denoising step's residual) makes eps matter.
    entry("diffusers_ada_group_norm", "third-party", ORIGIN.format("AdaGroupNorm", "models.normalization"),
          block(AdaGroupNorm, **ADA), block(ms_normalization.AdaGroupNorm, **dict(ADA, eps=1e-5)),
          block(ms_normalization.AdaGroupNorm, **ADA), ["<root>"], ["eps"],
          inputs={"x": uniform(2, 8, 4, 4, low=-0.01, high=0.01), "emb": uniform(2, 6)}),
    # BasicTransformerBlock whose self-attention splits into one head instead of two (heads/head_dim mixed up).
    entry("diffusers_basic_transformer_block", "third-party",
          ORIGIN.format("BasicTransformerBlock", "models.attention"),
          block(BasicTransformerBlock, **BTB),
          injected(block(ms_attention.BasicTransformerBlock, **BTB), _set("attn1.heads", 1)),
          block(ms_attention.BasicTransformerBlock, **BTB), ["attn1"], ["heads"], inputs=TOKENS),
    # UNet mid block whose attention lost its residual connection.
    entry("diffusers_unet_mid_block_2d", "third-party", ORIGIN.format("UNetMidBlock2D", "models.unets.unet_2d_blocks"),
          block(UNetMidBlock2D, **MID),
          injected(block(ms_unet_blocks.UNetMidBlock2D, **MID), _set("attentions.0.residual_connection", False)),
          block(ms_unet_blocks.UNetMidBlock2D, **MID), ["attentions.0"], ["residual"],
          inputs={"x": uniform(2, 8, 4, 4), "temb": uniform(2, 6)}),
    # The VAE encoder's stride-2 downsampling conv ported as MindSpore's nn.Conv2d with pad_mode='same'.
    entry("diffusers_vae_encoder", "third-party", ORIGIN.format("autoencoders.vae.Encoder", "models.autoencoders.vae"),
          block(Encoder, **ENC),
          injected(block(ms_vae.Encoder, **ENC),
                   _rebuild("down_blocks.0.downsamplers.0.conv",
                            lambda: mnn.Conv2d(4, 4, 3, stride=2, pad_mode="same", has_bias=True))),
          block(ms_vae.Encoder, **ENC), ["down_blocks.0.downsamplers.0.conv"], ["pad-mode"],
          inputs={"x": uniform(1, 3, 8, 8)}),
]
