"""Held-out set 11, half b: small speech / language / sequence blocks in the style of their MindSpore ports."""
from __future__ import annotations

import numpy as np

from evaluation.corpus.build import entry
from migcheck.specs import given, uniform


def _tnn():
    import torch.nn as tnn

    return tnn


def _ms():
    import mindspore
    import mindspore.nn as mnn
    import mindspore.ops as ops

    return mindspore, mnn, ops


# FastSpeech2 variance predictor (duration / pitch / energy): conv-relu-LN x2, linear to one value per frame.
def _vp_torch():
    tnn = _tnn()

    class VariancePredictor(tnn.Module):
        def __init__(self, hidden=4, filt=6):
            super().__init__()
            self.conv1 = tnn.Conv1d(hidden, filt, 3, padding=1)
            self.ln1 = tnn.LayerNorm(filt)
            self.conv2 = tnn.Conv1d(filt, filt, 3, padding=1)
            self.ln2 = tnn.LayerNorm(filt)
            self.linear = tnn.Linear(filt, 1)
            self.relu = tnn.ReLU()

        def forward(self, x):  # (B, T, hidden)
            h = self.ln1(self.relu(self.conv1(x.transpose(1, 2))).transpose(1, 2))
            h = self.ln2(self.relu(self.conv2(h.transpose(1, 2))).transpose(1, 2))
            return self.linear(h).squeeze(-1)  # (B, T)

    return VariancePredictor()


def _vp_ms(right: bool):
    def make():
        _, mnn, ops = _ms()

        class VariancePredictor(mnn.Cell):
            def __init__(self, hidden=4, filt=6):
                super().__init__()
                self.conv1 = mnn.Conv1d(hidden, filt, 3, pad_mode="pad", padding=1, has_bias=True)
                self.ln1 = mnn.LayerNorm((filt,), epsilon=1e-5)
                self.conv2 = mnn.Conv1d(filt, filt, 3, pad_mode="pad", padding=1, has_bias=True)
                self.ln2 = mnn.LayerNorm((filt,), epsilon=1e-5)
                self.linear = mnn.Dense(filt, 1)
                self.relu = mnn.ReLU()
                self.squeeze = ops.Squeeze(-1) if right else ops.Squeeze()

            def construct(self, x):
                h = self.ln1(self.relu(self.conv1(x.swapaxes(1, 2))).swapaxes(1, 2))
                h = self.ln2(self.relu(self.conv2(h.swapaxes(1, 2))).swapaxes(1, 2))
                return self.squeeze(self.linear(h))

        return VariancePredictor()
    return make


# ESPnet-style BLSTM encoder over padded utterances with their lengths, then a projection.
def _blstm_torch():
    import torch
    from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

    tnn = _tnn()

    class RNNEncoder(tnn.Module):
        def __init__(self):
            super().__init__()
            self.blstm = tnn.LSTM(3, 4, batch_first=True, bidirectional=True)
            self.proj = tnn.Linear(8, 3)

        def forward(self, xs, ilens):
            packed = pack_padded_sequence(xs, ilens.cpu(), batch_first=True, enforce_sorted=False)
            out, _ = self.blstm(packed)
            out, _ = pad_packed_sequence(out, batch_first=True, total_length=xs.shape[1])
            return torch.tanh(self.proj(out))

    return RNNEncoder()


def _blstm_ms(right: bool):
    def make():
        mindspore, mnn, ops = _ms()

        class RNNEncoder(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.blstm = mnn.LSTM(3, 4, batch_first=True, bidirectional=True)
                self.proj = mnn.Dense(8, 3)

            def construct(self, xs, ilens):
                if right:
                    out, _ = self.blstm(xs, seq_length=ilens.astype(mindspore.int32))
                else:
                    out, _ = self.blstm(xs)
                return ops.tanh(self.proj(out))

        return RNNEncoder()
    return make


# NSF / so-vits style sine source: frame-level F0 projected from features, linearly upsampled to the sample rate.
def _sine_torch():
    import torch
    import torch.nn.functional as F

    tnn = _tnn()

    class SineSource(tnn.Module):
        def __init__(self, upp=3):
            super().__init__()
            self.upp = upp
            self.f0_proj = tnn.Linear(4, 1)
            self.out = tnn.Linear(2, 2)

        def forward(self, x):  # (B, T, 4)
            f0 = self.f0_proj(x).transpose(1, 2)  # (B, 1, T)
            f0 = F.interpolate(f0, size=x.shape[1] * self.upp, mode="linear").transpose(1, 2)
            return self.out(torch.cat([torch.sin(3.0 * f0), torch.cos(3.0 * f0)], dim=-1))

    return SineSource()


def _sine_ms(right: bool):
    def make():
        mindspore, mnn, ops = _ms()

        class SineSource(mnn.Cell):
            def __init__(self, upp=3):
                super().__init__()
                self.upp = upp
                self.f0_proj = mnn.Dense(4, 1)
                self.out = mnn.Dense(2, 2)
                self.resize = ops.ResizeLinear1D()

            def construct(self, x):
                f0 = self.f0_proj(x).swapaxes(1, 2)
                size = x.shape[1] * self.upp
                if right:
                    f0 = ops.interpolate(f0, size=size, mode="linear")
                else:
                    f0 = self.resize(f0, mindspore.Tensor([size], mindspore.int64))
                f0 = f0.swapaxes(1, 2)
                return self.out(ops.cat([ops.sin(3.0 * f0), ops.cos(3.0 * f0)], axis=-1))

        return SineSource()
    return make


# Whisper audio encoder stem: conv (stride 1) + GELU, conv (stride 2) + GELU, to (B, T/2, d).
def _whisper_torch():
    import torch.nn.functional as F

    tnn = _tnn()

    class AudioStem(tnn.Module):
        def __init__(self, n_mels=4, d=6):
            super().__init__()
            self.conv1 = tnn.Conv1d(n_mels, d, 3, padding=1)
            self.conv2 = tnn.Conv1d(d, d, 3, stride=2, padding=1)

        def forward(self, mel):
            x = F.gelu(self.conv1(mel))
            x = F.gelu(self.conv2(x))
            return x.permute(0, 2, 1)

    return AudioStem()


def _whisper_ms(right: bool):
    def make():
        _, mnn, ops = _ms()

        class AudioStem(mnn.Cell):
            def __init__(self, n_mels=4, d=6):
                super().__init__()
                self.conv1 = mnn.Conv1d(n_mels, d, 3, pad_mode="pad", padding=1, has_bias=True)
                if right:
                    self.conv2 = mnn.Conv1d(d, d, 3, stride=2, pad_mode="pad", padding=1, has_bias=True)
                else:
                    self.conv2 = mnn.Conv1d(d, d, 3, stride=2, pad_mode="same", has_bias=True)

            def construct(self, mel):
                x = ops.gelu(self.conv1(mel))
                x = ops.gelu(self.conv2(x))
                return x.transpose(0, 2, 1)

        return AudioStem()
    return make


# x-vector statistics pooling: frame-level TDNN, then mean and standard deviation over time.
def _xvec_torch():
    import torch

    tnn = _tnn()

    class StatsPoolHead(tnn.Module):
        def __init__(self):
            super().__init__()
            self.tdnn = tnn.Conv1d(3, 4, 3)
            self.act = tnn.ReLU()
            self.segment = tnn.Linear(8, 2)

        def forward(self, x):  # (B, 3, T)
            h = self.act(self.tdnn(x))
            stats = torch.cat([h.mean(dim=2), h.std(dim=2)], dim=1)
            return self.segment(stats)

    return StatsPoolHead()


def _xvec_ms(right: bool):
    def make():
        _, mnn, ops = _ms()

        class StatsPoolHead(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.tdnn = mnn.Conv1d(3, 4, 3, pad_mode="valid", has_bias=True)
                self.act = mnn.ReLU()
                self.segment = mnn.Dense(8, 2)

            def construct(self, x):
                h = self.act(self.tdnn(x))
                std = h.std(axis=2, ddof=1) if right else h.std(axis=2)
                return self.segment(ops.cat([h.mean(axis=2), std], axis=1))

        return StatsPoolHead()
    return make


# wav2vec2 feature encoder, first two layers: conv (no bias, no padding) + per-channel GroupNorm + GELU.
def _w2v_torch():
    tnn = _tnn()

    class FeatureEncoder(tnn.Module):
        def __init__(self, c=4):
            super().__init__()
            self.conv0 = tnn.Conv1d(1, c, 10, stride=5, bias=False)
            self.norm0 = tnn.GroupNorm(c, c)
            self.conv1 = tnn.Conv1d(c, c, 3, stride=2, bias=False)
            self.act = tnn.GELU()

        def forward(self, wav):  # (B, L)
            x = self.act(self.norm0(self.conv0(wav[:, None])))
            return self.act(self.conv1(x))

    return FeatureEncoder()


def _w2v_ms(right: bool):
    def make():
        _, mnn, ops = _ms()

        class FeatureEncoder(mnn.Cell):
            def __init__(self, c=4):
                super().__init__()
                if right:
                    self.conv0 = mnn.Conv1d(1, c, 10, stride=5, pad_mode="valid")
                else:
                    self.conv0 = mnn.Conv1d(1, c, 10, stride=5)
                self.norm0 = mnn.GroupNorm(c, c)
                self.conv1 = mnn.Conv1d(c, c, 3, stride=2, pad_mode="valid")
                self.act = mnn.GELU(approximate=False)

            def construct(self, wav):
                x = self.act(self.norm0(self.conv0(wav.expand_dims(1))))
                return self.act(self.conv1(x))

        return FeatureEncoder()
    return make


# Transformer-XL relative attention scores (content term) written with einsum over (qlen, bsz, heads, d).
def _txl_torch():
    import torch

    tnn = _tnn()

    class RelAttnScore(tnn.Module):
        def __init__(self, d=4, heads=2):
            super().__init__()
            self.heads, self.dh = heads, d // heads
            self.q_net = tnn.Linear(d, d, bias=False)
            self.kv_net = tnn.Linear(d, 2 * d, bias=False)
            self.r_w_bias = tnn.Parameter(torch.zeros(heads, d // heads))
            self.o_net = tnn.Linear(d, d, bias=False)

        def forward(self, w):  # (qlen, bsz, d)
            qlen, bsz, _ = w.shape
            q = self.q_net(w).view(qlen, bsz, self.heads, self.dh)
            k, v = self.kv_net(w).view(qlen, bsz, 2, self.heads, self.dh).unbind(2)
            score = torch.einsum("ibnd,jbnd->ijbn", q + self.r_w_bias, k) * self.dh ** -0.5
            prob = torch.softmax(score, dim=1)
            vec = torch.einsum("ijbn,jbnd->ibnd", prob, v).reshape(qlen, bsz, -1)
            return self.o_net(vec)

    return RelAttnScore()


def _txl_ms(right: bool):
    def make():
        mindspore, mnn, ops = _ms()

        class RelAttnScore(mnn.Cell):
            def __init__(self, d=4, heads=2):
                super().__init__()
                self.heads, self.dh = heads, d // heads
                self.q_net = mnn.Dense(d, d, has_bias=False)
                self.kv_net = mnn.Dense(d, 2 * d, has_bias=False)
                self.r_w_bias = mindspore.Parameter(ops.zeros((heads, d // heads), mindspore.float32), name="r_w_bias")
                self.o_net = mnn.Dense(d, d, has_bias=False)

            def construct(self, w):
                qlen, bsz, _ = w.shape
                q = self.q_net(w).view(qlen, bsz, self.heads, self.dh)
                kv = self.kv_net(w).view(qlen, bsz, 2, self.heads, self.dh)
                k, v = kv[:, :, 0], kv[:, :, 1]
                scale = self.dh ** -0.5
                if right:
                    qh = (q + self.r_w_bias).transpose(1, 2, 0, 3)  # (b, n, i, d)
                    kh = k.transpose(1, 2, 3, 0)  # (b, n, d, j)
                    score = ops.matmul(qh, kh) * scale  # (b, n, i, j)
                    prob = ops.softmax(score, axis=-1)
                    vec = ops.matmul(prob, v.transpose(1, 2, 0, 3))  # (b, n, i, d)
                    vec = vec.transpose(2, 0, 1, 3).reshape(qlen, bsz, -1)
                else:
                    score = ops.einsum("ibnd,jbnd->ijbn", q + self.r_w_bias, k) * scale
                    prob = ops.softmax(score, axis=1)
                    vec = ops.einsum("ijbn,jbnd->ibnd", prob, v).reshape(qlen, bsz, -1)
                return self.o_net(vec)

        return RelAttnScore()
    return make


# ELECTRA generator prediction head: dense -> GELU (erf) -> LayerNorm.
def _electra_torch():
    tnn = _tnn()

    class GeneratorPredictions(tnn.Module):
        def __init__(self, hidden=6, emb=4):
            super().__init__()
            self.dense = tnn.Linear(hidden, emb)
            self.activation = tnn.GELU()
            self.LayerNorm = tnn.LayerNorm(emb, eps=1e-12)

        def forward(self, h):
            return self.LayerNorm(self.activation(self.dense(h)))

    return GeneratorPredictions()


def _electra_ms(right: bool):
    def make():
        _, mnn, _ops = _ms()

        class GeneratorPredictions(mnn.Cell):
            def __init__(self, hidden=6, emb=4):
                super().__init__()
                self.dense = mnn.Dense(hidden, emb)
                self.activation = mnn.GELU(approximate=False) if right else mnn.GELU()
                self.LayerNorm = mnn.LayerNorm((emb,), epsilon=1e-12)

            def construct(self, h):
                return self.LayerNorm(self.activation(self.dense(h)))

        return GeneratorPredictions()
    return make


ILENS = given(np.array([5, 3], dtype=np.int64))

PORTS = [
    entry("h11b_port_fastspeech2_variance_predictor_squeeze_all_axes", "h11-port",
          "model:FastSpeech2 VariancePredictor (ming024/FastSpeech2 -> mindaudio)", _vp_torch, _vp_ms(False),
          _vp_ms(True), ["after:linear"], ["squeeze|axis|Squeeze"], inputs={"x": uniform(1, 5, 4)},
          fails_with="shape",
          cause_pattern=r"\bsqueeze\b[^.]*(\baxis\s*=\s*-1\b|\(\s*-1\s*\)|\blast (axis|dim\w*)\b)"
                        r"|\bSqueeze\b[^.]*\b(all|every)\b[^.]*\b(axes|dim\w*|size-?1)\b"),
    entry("h11b_port_espnet_blstm_encoder_lengths_not_passed", "h11-port",
          "model:ESPnet RNN encoder BLSTM over packed sequences (espnet -> mindspore LSTM seq_length)",
          _blstm_torch, _blstm_ms(False), _blstm_ms(True), ["blstm"], ["seq_length|lengths|pack_padded_sequence"],
          inputs={"xs": uniform(2, 5, 3), "ilens": ILENS},
          cause_pattern=r"\bseq_length\b|\bpack(ed)?_padded_sequence\b[^.]*\blengths?\b"
                        r"|\b(ilens|lengths)\b[^.]*\b(not passed|ignored|dropped|missing|omitted)\b"),
    entry("h11b_port_nsf_sine_source_f0_upsample_resize_linear1d", "h11-port",
          "model:NSF-HiFiGAN / so-vits SineGen f0 upsampling (F.interpolate linear -> ops.ResizeLinear1D)",
          _sine_torch, _sine_ms(False), _sine_ms(True), ["after:f0_proj"],
          ["ResizeLinear1D|align_corners|half_pixel|coordinate_transformation_mode"], inputs={"x": uniform(2, 4, 4)},
          cause_pattern=r"\balign_corners\b|\bhalf_pixel\b|\bcoordinate_transformation_mode\b"),
    entry("h11b_port_whisper_conv_stem_stride2_same_pad_mode", "h11-port",
          "model:Whisper AudioEncoder conv1/conv2 (openai/whisper -> mindnlp)", _whisper_torch, _whisper_ms(False),
          _whisper_ms(True), ["conv2"], ["pad_mode|same|padding"], inputs={"mel": uniform(2, 4, 8)},
          cause_pattern=r"\bpad_mode\b[^.]*['\"]?\b(pad|same)\b|\bpadding\s*=\s*1\b"
                        r"|\basymmetric\w*\b[^.]*\bpad\w*|\bpad\w*\b[^.]*\basymmetric\w*"),
    entry("h11b_port_xvector_stats_pooling_tensor_std_ddof", "h11-port",
          "model:x-vector statistics pooling (speechbrain/kaldi TDNN -> mindaudio)", _xvec_torch, _xvec_ms(False),
          _xvec_ms(True), ["after:act"], ["std|ddof|unbiased"], inputs={"x": uniform(2, 3, 7)},
          cause_pattern=r"\bddof\s*=?\s*1\b|\bunbiased\b|\bbessel\b|\bN\s*-\s*1\b"),
    entry("h11b_port_wav2vec2_feature_encoder_conv0_default_pad_mode", "h11-port",
          "model:wav2vec2 feature encoder GroupNorm conv layer (transformers -> mindnlp)", _w2v_torch,
          _w2v_ms(False), _w2v_ms(True), ["conv0"], ["pad_mode|valid|same"], inputs={"wav": uniform(2, 40)},
          cause_pattern=r"\bpad_mode\b[^.]*\bvalid\b|\bvalid\b[^.]*\bpad_mode\b|\bpadding\s*=\s*0\b"),
    entry("h11b_port_transfo_xl_rel_attention_einsum_raises_on_cpu", "h11-port",
          "model:Transformer-XL RelPartialLearnableMultiHeadAttn (transformers -> mindnlp)", _txl_torch,
          _txl_ms(False), _txl_ms(True), ["after:q_net"], ["einsum|matmul|cpu"], inputs={"w": uniform(3, 2, 4)},
          fails_with="error",
          cause_pattern=r"\beinsum\b[^.]*\b(matmul|BatchMatMul|bmm|cpu|CPU)\b"
                        r"|\b(ops\.)?(matmul|BatchMatMul|bmm)\b[^.]*\beinsum\b"),
    entry("h11b_port_electra_generator_head_gelu_approximate_default", "h11-port",
          "model:ELECTRA ElectraGeneratorPredictions (transformers -> mindnlp)", _electra_torch,
          _electra_ms(False), _electra_ms(True), ["activation"], ["GELU|approximate|tanh"],
          inputs={"h": uniform(2, 3, 6, low=-3.0, high=3.0)},
          cause_pattern=r"\bapproximate\s*=\s*(False|['\"]none['\"])|\bapproximate\b[^.]*\b(False|none|exact|erf)\b"
                        r"|\btanh\b[^.]*\bapprox\w*|\bapprox\w*\b[^.]*\btanh\b"),
]
