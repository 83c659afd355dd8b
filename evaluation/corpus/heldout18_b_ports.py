"""Held-out set 18, half b: small speech, audio and sequence model blocks (family h18-port).

Written blind (without reading the localization code). Each entry's naive port holds one porting mistake.
"""
from __future__ import annotations

import numpy as np

from evaluation.corpus.build import entry
from migcheck import uniform

PORT = "h18-port"


def _ms():
    import mindspore
    import mindspore.nn as mnn
    import mindspore.ops as ops

    return mindspore, mnn, ops


# ---------------------------------------------------------------- speechbrain x-vector TDNN stack

def xvector_torch():
    import torch.nn as tnn

    class TDNNBlock(tnn.Module):
        def __init__(self, cin, cout, k, d):
            super().__init__()
            self.conv = tnn.Conv1d(cin, cout, k, dilation=d)
            self.activation = tnn.LeakyReLU()
            self.norm = tnn.BatchNorm1d(cout)

        def forward(self, x):
            return self.norm(self.activation(self.conv(x)))

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = tnn.ModuleList([TDNNBlock(6, 8, 3, 1), TDNNBlock(8, 8, 3, 2)])

        def forward(self, x):
            for block in self.blocks:
                x = block(x)
            return x

    return Net()


def _xvector_ms(alpha):
    _, mnn, _ = _ms()

    class TDNNBlock(mnn.Cell):
        def __init__(self, cin, cout, k, d):
            super().__init__()
            self.conv = mnn.Conv1d(cin, cout, k, dilation=d, pad_mode="valid", has_bias=True)
            self.activation = mnn.LeakyReLU() if alpha is None else mnn.LeakyReLU(alpha=alpha)
            self.norm = mnn.BatchNorm1d(cout, momentum=0.9)

        def construct(self, x):
            return self.norm(self.activation(self.conv(x)))

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.blocks = mnn.CellList([TDNNBlock(6, 8, 3, 1), TDNNBlock(8, 8, 3, 2)])

        def construct(self, x):
            for block in self.blocks:
                x = block(x)
            return x

    return Net()


# ---------------------------------------------------------------- Whisper residual block MLP

def whisper_mlp_torch():
    import torch.nn as tnn

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.mlp_ln = tnn.LayerNorm(8)
            self.mlp = tnn.Sequential(tnn.Linear(8, 32), tnn.GELU(), tnn.Linear(32, 8))

        def forward(self, x):
            return x + self.mlp(self.mlp_ln(x))

    return Net()


def _whisper_mlp_ms(exact):
    _, mnn, _ = _ms()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.mlp_ln = mnn.LayerNorm((8,), epsilon=1e-5)
            gelu = mnn.GELU(approximate=False) if exact else mnn.GELU()
            self.mlp = mnn.SequentialCell([mnn.Dense(8, 32), gelu, mnn.Dense(32, 8)])

        def construct(self, x):
            return x + self.mlp(self.mlp_ln(x))

    return Net()


# ---------------------------------------------------------------- DeepSpeech2 conv stem

def ds2_torch():
    import torch.nn as tnn

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv = tnn.Sequential(
                tnn.Conv2d(1, 4, kernel_size=(5, 3), stride=(2, 1), padding=(2, 1)),
                tnn.BatchNorm2d(4),
                tnn.Hardtanh(0, 20, inplace=True),
            )

        def forward(self, x):
            return self.conv(x)

    return Net()


def _ds2_ms(ranged):
    _, mnn, _ = _ms()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            act = mnn.Hardtanh(0.0, 20.0) if ranged else mnn.Hardtanh()
            self.conv = mnn.SequentialCell([
                mnn.Conv2d(1, 4, kernel_size=(5, 3), stride=(2, 1), pad_mode="pad", padding=(2, 2, 1, 1),
                           has_bias=True),
                mnn.BatchNorm2d(4, momentum=0.9),
                act,
            ])

        def construct(self, x):
            return self.conv(x)

    return Net()


# ---------------------------------------------------------------- ESPnet Conv2dSubsampling (conv part)

def subsampling_torch():
    import torch.nn as tnn

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv = tnn.Sequential(tnn.Conv2d(1, 4, 3, 2), tnn.ReLU(), tnn.Conv2d(4, 4, 3, 2), tnn.ReLU())

        def forward(self, x):
            x = x.unsqueeze(1)  # (b, 1, t, f)
            x = self.conv(x)
            b, c, t, f = x.size()
            return x.transpose(1, 2).reshape(b, t, c * f)

    return Net()


def _subsampling_ms(valid):
    _, mnn, ops = _ms()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            kw = {"pad_mode": "valid"} if valid else {}
            self.conv = mnn.SequentialCell([mnn.Conv2d(1, 4, 3, 2, has_bias=True, **kw), mnn.ReLU(),
                                            mnn.Conv2d(4, 4, 3, 2, has_bias=True, **kw), mnn.ReLU()])

        def construct(self, x):
            x = ops.expand_dims(x, 1)
            x = self.conv(x)
            b, c, t, f = x.shape
            return ops.transpose(x, (0, 2, 1, 3)).reshape(b, t, c * f)

    return Net()


# ---------------------------------------------------------------- RNN-T joiner (torchaudio style)

def joiner_torch():
    import torch.nn as tnn

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.linear = tnn.Linear(8, 10)
            self.activation = tnn.ReLU()

        def forward(self, source, target):
            joint = source.unsqueeze(2) + target.unsqueeze(1)
            return self.linear(self.activation(joint))

    return Net()


def _joiner_ms(separate):
    _, mnn, ops = _ms()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            if separate:
                self.linear = mnn.Dense(8, 10)
                self.activation = mnn.ReLU()
            else:
                self.linear = mnn.Dense(8, 10, activation="relu")
                self.activation = None

        def construct(self, source, target):
            joint = ops.expand_dims(source, 2) + ops.expand_dims(target, 1)
            if self.activation is not None:
                joint = self.activation(joint)
            return self.linear(joint)

    return Net()


# ---------------------------------------------------------------- DeepSpeech2 Lookahead (future-context) conv

def lookahead_torch():
    import torch.nn as tnn
    import torch.nn.functional as F

    class Net(tnn.Module):
        def __init__(self, n=6, context=3):
            super().__init__()
            self.pad = (0, context - 1)
            self.conv = tnn.Conv1d(n, n, kernel_size=context, stride=1, groups=n, padding=0, bias=False)

        def forward(self, x):  # (t, b, h)
            x = x.transpose(0, 1).transpose(1, 2)
            x = F.pad(x, pad=self.pad, value=0)
            x = self.conv(x)
            return x.transpose(1, 2).transpose(0, 1)

    return Net()


def _lookahead_ms(explicit_pad):
    _, mnn, ops = _ms()

    class Net(mnn.Cell):
        def __init__(self, n=6, context=3):
            super().__init__()
            self.context = context
            mode = "valid" if explicit_pad else "same"
            self.conv = mnn.Conv1d(n, n, context, stride=1, group=n, pad_mode=mode)

        def construct(self, x):
            x = ops.transpose(x, (1, 2, 0))
            if explicit_pad:
                x = ops.pad(x, (0, self.context - 1))
            x = self.conv(x)
            return ops.transpose(x, (2, 0, 1))

    return Net()


# ---------------------------------------------------------------- HuBERT positional conv embedding (weight_norm dim=2)

def posconv_torch():
    import torch.nn as tnn

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            conv = tnn.Conv1d(8, 8, 3, padding=1, groups=2)
            self.conv = tnn.utils.weight_norm(conv, name="weight", dim=2)
            self.activation = tnn.GELU()

        def forward(self, x):  # (b, t, c)
            h = self.activation(self.conv(x.transpose(1, 2)))
            return x + h.transpose(1, 2)

    return Net()


def _posconv_ms(norm_axes):
    mindspore, mnn, ops = _ms()

    class WeightNormConv1d(mnn.Cell):
        def __init__(self):
            super().__init__()
            rng = np.random.RandomState(2)
            self.weight_g = mindspore.Parameter(mindspore.Tensor(np.ones((1, 1, 3), np.float32)), name="weight_g")
            self.weight_v = mindspore.Parameter(mindspore.Tensor(rng.randn(8, 4, 3).astype(np.float32)),
                                                name="weight_v")
            self.bias = mindspore.Parameter(mindspore.Tensor(np.zeros(8, np.float32)), name="bias")

        def construct(self, x):
            norm = ops.sqrt((self.weight_v ** 2).sum(axis=norm_axes, keepdims=True))
            weight = self.weight_g * self.weight_v / norm
            return ops.conv1d(x, weight, self.bias, pad_mode="pad", padding=1, groups=2)

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = WeightNormConv1d()
            self.activation = mnn.GELU(approximate=False)

        def construct(self, x):
            h = self.activation(self.conv(ops.transpose(x, (0, 2, 1))))
            return x + ops.transpose(h, (0, 2, 1))

    return Net()



# ---------------------------------------------------------------- Whisper self-attention

def whisper_attn_torch():
    import torch.nn as tnn

    class Net(tnn.Module):
        def __init__(self, d=8, n_head=2):
            super().__init__()
            self.n_head = n_head
            self.query = tnn.Linear(d, d)
            self.key = tnn.Linear(d, d, bias=False)
            self.value = tnn.Linear(d, d)
            self.out = tnn.Linear(d, d)

        def forward(self, x):
            q, k, v = self.query(x), self.key(x), self.value(x)
            b, t, d = q.shape
            scale = (d // self.n_head) ** -0.25
            q = q.view(b, t, self.n_head, -1).permute(0, 2, 1, 3) * scale
            k = k.view(b, t, self.n_head, -1).permute(0, 2, 3, 1) * scale
            v = v.view(b, t, self.n_head, -1).permute(0, 2, 1, 3)
            w = (q @ k).float().softmax(dim=-1)
            return self.out((w @ v).permute(0, 2, 1, 3).flatten(start_dim=2))

    return Net()


def _whisper_attn_ms(manual):
    _, mnn, ops = _ms()

    class Net(mnn.Cell):
        def __init__(self, d=8, n_head=2):
            super().__init__()
            self.n_head = n_head
            self.query = mnn.Dense(d, d)
            self.key = mnn.Dense(d, d, has_bias=False)
            self.value = mnn.Dense(d, d)
            self.out = mnn.Dense(d, d)

        def construct(self, x):
            q, k, v = self.query(x), self.key(x), self.value(x)
            b, t, d = q.shape
            dh = d // self.n_head
            if not manual:
                o = ops.flash_attention_score(q, k, v, self.n_head, scalar_value=dh ** -0.5, input_layout="BSH")
                return self.out(o)
            scale = dh ** -0.25
            q = ops.transpose(q.reshape(b, t, self.n_head, dh), (0, 2, 1, 3)) * scale
            k = ops.transpose(k.reshape(b, t, self.n_head, dh), (0, 2, 3, 1)) * scale
            v = ops.transpose(v.reshape(b, t, self.n_head, dh), (0, 2, 1, 3))
            w = ops.softmax(ops.matmul(q, k), axis=-1)
            o = ops.transpose(ops.matmul(w, v), (0, 2, 1, 3)).reshape(b, t, d)
            return self.out(o)

    return Net()



ENTRIES = [
    entry("h18b_port_speechbrain_xvector_tdnn_leakyrelu_cell_default_slope", PORT,
          "model:speechbrain Xvector TDNNBlock (activation=torch.nn.LeakyReLU) / mindaudio port",
          xvector_torch, lambda: _xvector_ms(None), lambda: _xvector_ms(0.01),
          ("blocks.0.activation",), ("LeakyReLU|alpha|negative_slope|0.01",),
          inputs={"x": uniform(2, 6, 14)},
          cause_pattern=r"\b(alpha|negative_slope|slope)\b[^.]*\b0?\.01\b|\bLeakyReLU\(\s*(alpha\s*=\s*)?0?\.01\b"),
    entry("h18b_port_whisper_residual_block_mlp_gelu_cell_default_approximate", PORT,
          "model:openai whisper ResidualAttentionBlock.mlp / mindnlp whisper port",
          whisper_mlp_torch, lambda: _whisper_mlp_ms(False), lambda: _whisper_mlp_ms(True),
          ("mlp.1",), ("GELU|approximate|tanh|erf",),
          inputs={"x": uniform(2, 5, 8, low=-3.0, high=3.0)},
          cause_pattern=r"\bapproximate\b[^.]*\b(False|none)\b|\bGELU\(\s*approximate\s*=\s*(False|'none'|\"none\")"
                        r"|\b(exact|erf)\b[^.]*\bGELU\b|\bGELU\b[^.]*\b(tanh approximation|erf)\b"),
    entry("h18b_port_deepspeech2_conv_stem_hardtanh_cell_default_range", PORT,
          "model:SeanNaren deepspeech.pytorch MaskConv stem / mindspore-ai/models DeepSpeech2",
          ds2_torch, lambda: _ds2_ms(False), lambda: _ds2_ms(True),
          ("conv.2",), ("Hardtanh|min_val|max_val|20",),
          inputs={"x": uniform(2, 1, 8, 6, low=-4.0, high=4.0)},
          cause_pattern=r"\b(min_val|max_val)\b[^.]*\b20(\.0)?\b|\bHardtanh\(\s*(min_val\s*=\s*)?0(\.0)?\s*,\s*"
                        r"(max_val\s*=\s*)?20\b|\b(range|clip|clamp)\b[^.]*\b0\b[^.]*\b20\b"),
    entry("h18b_port_espnet_conv2d_subsampling_conv2d_default_same_pad_mode", PORT,
          "model:ESPnet Conv2dSubsampling (Conv2d(1, odim, 3, 2), no padding) / mindaudio conformer port",
          subsampling_torch, lambda: _subsampling_ms(False), lambda: _subsampling_ms(True),
          ("conv.0",), ("pad_mode|same|valid",), inputs={"x": uniform(2, 13, 11)}, fails_with="shape",
          cause_pattern=r"\bpad_mode\b[^.]*\bvalid\b|\bvalid\b[^.]*\bpad_mode\b|\bpad_mode\b[^.]*\bsame\b"),
    entry("h18b_port_rnnt_joiner_dense_activation_relu_after_projection", PORT,
          "model:torchaudio RNN-T _Joiner (activation before linear) / mindaudio transducer port",
          joiner_torch, lambda: _joiner_ms(False), lambda: _joiner_ms(True),
          ("activation",), ("Dense activation|relu|before",),
          inputs={"source": uniform(2, 4, 8), "target": uniform(2, 3, 8)},
          cause_pattern=r"\bactivation\b[^.]*\b(Dense|after|before)\b|\bDense\b[^.]*\bactivation\b"),
    entry("h18b_port_deepspeech2_lookahead_conv_default_same_pad_mode_centred", PORT,
          "model:SeanNaren deepspeech.pytorch Lookahead (F.pad(x, (0, context - 1)) + depthwise Conv1d)",
          lookahead_torch, lambda: _lookahead_ms(False), lambda: _lookahead_ms(True),
          ("conv",), ("pad_mode|same|right|lookahead",), inputs={"x": uniform(7, 2, 6)},
          cause_pattern=r"\bpad_mode\b[^.]*\b(same|valid)\b|\b(right|future|trailing|end)\b[^.]*\bpad"
                        r"|\bpad\b[^.]*\(\s*0\s*,\s*2\s*\)"),
    entry("h18b_port_hubert_pos_conv_weight_norm_dim2_as_per_output_channel", PORT,
          "model:fairseq/HF HuBERT pos_conv_embed (weight_norm(conv, name='weight', dim=2))",
          posconv_torch, lambda: _posconv_ms((1, 2)), lambda: _posconv_ms((0, 1)),
          ("conv",), ("weight_norm|dim=2|norm axes",), inputs={"x": uniform(2, 6, 8)},
          cause_pattern=r"\bweight_norm\b[^.]*\bdim\b[^.]*\b2\b|\bdim\s*=\s*2\b"
                        r"|\b(axis|axes|dim)\b[^.]*\(\s*0\s*,\s*1\s*\)|\bkernel (axis|dim)\b"),
    entry("h18b_port_whisper_self_attention_flash_attention_score_no_cpu_kernel_raises", PORT,
          "model:openai whisper MultiHeadAttention.qkv_attention ported with mindspore.ops.flash_attention_score",
          whisper_attn_torch, lambda: _whisper_attn_ms(False), lambda: _whisper_attn_ms(True),
          ("after:query",), ("flash_attention_score|CPU|Ascend",), inputs={"x": uniform(2, 5, 8)},
          fails_with="error",
          cause_pattern=r"\bflash_attention_score\b[^.]*\b(CPU|Ascend|kernel|unsupported|not supported)\b"
                        r"|\b(CPU|kernel)\b[^.]*\bflash_attention_score\b"),
]
