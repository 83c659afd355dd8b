"""Held-out set 6, half b: model blocks (family h6-port), each a small torch original written after a public
architecture and a MindSpore port in the style of the public ports (mindnlp, mindcv, mindspore-ai/models), with
one realistic porting mistake in the naive port. Written blind to migcheck's localization, mapping, judging and
running code."""
from __future__ import annotations

import math

import numpy as np

from migcheck import given, integers, uniform
from evaluation.corpus.build import entry


# --- GPT-2 attention: HF Conv1D keeps its weight as (in, out); c_proj ported as nn.Dense --------------------

E, HEADS = 8, 2


def _torch_gpt2_attn():
    import torch

    class Conv1D(torch.nn.Module):
        def __init__(self, nf, nx):
            super().__init__()
            self.nf = nf
            self.weight = torch.nn.Parameter(torch.randn(nx, nf) * 0.02)
            self.bias = torch.nn.Parameter(torch.zeros(nf))

        def forward(self, x):
            shape = x.size()[:-1] + (self.nf,)
            return torch.addmm(self.bias, x.reshape(-1, x.size(-1)), self.weight).view(shape)

    class Attention(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = Conv1D(3 * E, E)
            self.c_proj = Conv1D(E, E)

        def _heads(self, t):
            b, n, _ = t.shape
            return t.view(b, n, HEADS, E // HEADS).permute(0, 2, 1, 3)

        def forward(self, x):
            q, k, v = self.c_attn(x).split(E, dim=2)
            q, k, v = self._heads(q), self._heads(k), self._heads(v)
            w = q @ k.transpose(-1, -2) / math.sqrt(E // HEADS)
            n = x.shape[1]
            causal = torch.tril(torch.ones(n, n, dtype=torch.bool))
            w = torch.where(causal, w, torch.tensor(torch.finfo(w.dtype).min, dtype=w.dtype))
            a = torch.softmax(w, dim=-1) @ v
            a = a.permute(0, 2, 1, 3).reshape(x.shape[0], n, E)
            return self.c_proj(a)

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1 = torch.nn.LayerNorm(E)
            self.attn = Attention()

        def forward(self, x):
            return x + self.attn(self.ln_1(x))

    return Block()


def _ms_gpt2_attn(proj_as_dense):
    def make():
        import mindspore as ms
        from mindspore import nn, ops, Parameter, Tensor

        class Conv1D(nn.Cell):
            def __init__(self, nf, nx):
                super().__init__()
                self.weight = Parameter(Tensor(np.random.normal(0, 0.02, (nx, nf)).astype(np.float32)), name="weight")
                self.bias = Parameter(Tensor(np.zeros(nf, np.float32)), name="bias")

            def construct(self, x):
                return ops.matmul(x, self.weight) + self.bias

        class Attention(nn.Cell):
            def __init__(self):
                super().__init__()
                self.c_attn = Conv1D(3 * E, E)
                self.c_proj = nn.Dense(E, E) if proj_as_dense else Conv1D(E, E)
                self.scale = 1.0 / math.sqrt(E // HEADS)

            def _heads(self, t):
                b, n, _ = t.shape
                return t.view(b, n, HEADS, E // HEADS).transpose(0, 2, 1, 3)

            def construct(self, x):
                q, k, v = ops.split(self.c_attn(x), E, axis=2)
                q, k, v = self._heads(q), self._heads(k), self._heads(v)
                w = ops.matmul(q, k.swapaxes(-1, -2)) * self.scale
                n = x.shape[1]
                causal = ops.tril(ops.ones((n, n), ms.float32)).astype(ms.bool_)
                w = ops.where(causal, w, ops.full_like(w, float(np.finfo(np.float32).min)))
                a = ops.matmul(ops.softmax(w, axis=-1), v)
                a = a.transpose(0, 2, 1, 3).reshape(x.shape[0], n, E)
                return self.c_proj(a)

        class Block(nn.Cell):
            def __init__(self):
                super().__init__()
                self.ln_1 = nn.LayerNorm((E,), epsilon=1e-5)
                self.attn = Attention()

            def construct(self, x):
                return x + self.attn(self.ln_1(x))

        return Block()
    return make


# --- YOLOv5 Focus: four strided slices concatenated, ported as SpaceToDepth --------------------------------

def _torch_focus():
    import torch

    class ConvBNSiLU(torch.nn.Module):
        def __init__(self, c1, c2):
            super().__init__()
            self.conv = torch.nn.Conv2d(c1, c2, 1, 1, 0, bias=False)
            self.bn = torch.nn.BatchNorm2d(c2, eps=1e-3, momentum=0.03)
            self.act = torch.nn.SiLU()

        def forward(self, x):
            return self.act(self.bn(self.conv(x)))

    class Focus(torch.nn.Module):
        def __init__(self, c1, c2):
            super().__init__()
            self.conv = ConvBNSiLU(c1 * 4, c2)

        def forward(self, x):
            return self.conv(torch.cat([x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2]], 1))

    class Stem(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.focus = Focus(3, 8)
            self.head = torch.nn.Conv2d(8, 4, 1)

        def forward(self, x):
            return self.head(self.focus(x))

    return Stem()


def _ms_focus(space_to_depth):
    def make():
        from mindspore import nn, ops

        class ConvBNSiLU(nn.Cell):
            def __init__(self, c1, c2):
                super().__init__()
                self.conv = nn.Conv2d(c1, c2, 1, 1, pad_mode="valid", has_bias=False)
                self.bn = nn.BatchNorm2d(c2, eps=1e-3, momentum=0.97)
                self.act = nn.SiLU()

            def construct(self, x):
                return self.act(self.bn(self.conv(x)))

        class Focus(nn.Cell):
            def __init__(self, c1, c2):
                super().__init__()
                self.conv = ConvBNSiLU(c1 * 4, c2)
                self.s2d = ops.SpaceToDepth(2)

            def construct(self, x):
                if space_to_depth:
                    return self.conv(self.s2d(x))
                return self.conv(ops.concat((x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2],
                                             x[..., 1::2, 1::2]), axis=1))

        class Stem(nn.Cell):
            def __init__(self):
                super().__init__()
                self.focus = Focus(3, 8)
                self.head = nn.Conv2d(8, 4, 1, has_bias=True)

            def construct(self, x):
                return self.head(self.focus(x))

        return Stem()
    return make


# --- EfficientNetV2 FusedMBConv (expand ratio 1): BatchNorm eps=1e-3 dropped ------------------------------

def _torch_fused_mbconv():
    import torch

    class FusedMBConv(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.block = torch.nn.Sequential(torch.nn.Conv2d(4, 4, 3, 1, 1, bias=False),
                                             torch.nn.BatchNorm2d(4, eps=1e-3), torch.nn.SiLU())

        def forward(self, x):
            return x + self.block(x)

    return FusedMBConv()


def _ms_fused_mbconv(eps):
    def make():
        from mindspore import nn

        class FusedMBConv(nn.Cell):
            def __init__(self):
                super().__init__()
                norm = nn.BatchNorm2d(4) if eps is None else nn.BatchNorm2d(4, eps=eps)
                self.block = nn.SequentialCell([nn.Conv2d(4, 4, 3, 1, pad_mode="pad", padding=1, has_bias=False),
                                                norm, nn.SiLU()])

            def construct(self, x):
                return x + self.block(x)

        return FusedMBConv()
    return make


# --- Whisper audio encoder front-end: two convs, GELU, sinusoidal positions --------------------------------

def _sinusoids(length, channels, minus_one=True, max_timescale=10000):
    half = channels // 2
    step = np.log(max_timescale) / (half - 1 if minus_one else half)
    inv = np.exp(-step * np.arange(half))
    t = np.arange(length)[:, None] * inv[None, :]
    return np.concatenate([np.sin(t), np.cos(t)], axis=1).astype(np.float32)


def _torch_whisper():
    import torch
    import torch.nn.functional as F

    class AudioFrontEnd(torch.nn.Module):
        def __init__(self, n_mels=4, n_state=8, n_ctx=8):
            super().__init__()
            self.conv1 = torch.nn.Conv1d(n_mels, n_state, kernel_size=3, padding=1)
            self.conv2 = torch.nn.Conv1d(n_state, n_state, kernel_size=3, stride=2, padding=1)
            self.register_buffer("positional_embedding", torch.from_numpy(_sinusoids(n_ctx, n_state)))

        def forward(self, x):
            x = F.gelu(self.conv1(x))
            x = F.gelu(self.conv2(x))
            x = x.permute(0, 2, 1)
            return x + self.positional_embedding[:x.shape[1]]

    return AudioFrontEnd()


def _ms_whisper(minus_one):
    def make():
        from mindspore import nn, ops, Tensor

        class AudioFrontEnd(nn.Cell):
            def __init__(self, n_mels=4, n_state=8, n_ctx=8):
                super().__init__()
                self.conv1 = nn.Conv1d(n_mels, n_state, 3, pad_mode="pad", padding=1, has_bias=True)
                self.conv2 = nn.Conv1d(n_state, n_state, 3, stride=2, pad_mode="pad", padding=1, has_bias=True)
                self.positions = Tensor(_sinusoids(n_ctx, n_state, minus_one=minus_one))

            def construct(self, x):
                x = ops.gelu(self.conv1(x))
                x = ops.gelu(self.conv2(x))
                x = x.transpose(0, 2, 1)
                return x + self.positions[:x.shape[1]]

        return AudioFrontEnd()
    return make



# --- ALBERT embeddings (factorized: E < H): token type ids default to zeros --------------------------------

V, EMB, HID, CTX = 20, 6, 8, 16


def _torch_albert():
    import torch

    class Embeddings(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.word_embeddings = torch.nn.Embedding(V, EMB, padding_idx=0)
            self.position_embeddings = torch.nn.Embedding(CTX, EMB)
            self.token_type_embeddings = torch.nn.Embedding(2, EMB)
            self.LayerNorm = torch.nn.LayerNorm(EMB, eps=1e-12)

        def forward(self, input_ids, token_type_ids=None):
            n = input_ids.shape[1]
            if token_type_ids is None:
                token_type_ids = torch.zeros_like(input_ids)
            positions = torch.arange(n).unsqueeze(0)
            e = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
            return self.LayerNorm(e + self.position_embeddings(positions))

    class Front(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embeddings = Embeddings()
            self.embedding_hidden_mapping_in = torch.nn.Linear(EMB, HID)

        def forward(self, input_ids):
            return self.embedding_hidden_mapping_in(self.embeddings(input_ids))

    return Front()


def _ms_albert(skip_when_none):
    def make():
        import mindspore as ms
        from mindspore import nn, ops

        class Embeddings(nn.Cell):
            def __init__(self):
                super().__init__()
                self.word_embeddings = nn.Embedding(V, EMB, padding_idx=0)
                self.position_embeddings = nn.Embedding(CTX, EMB)
                self.token_type_embeddings = nn.Embedding(2, EMB)
                self.LayerNorm = nn.LayerNorm((EMB,), epsilon=1e-12)

            def construct(self, input_ids, token_type_ids=None):
                n = input_ids.shape[1]
                positions = ops.arange(n, dtype=ms.int32).expand_dims(0)
                e = self.word_embeddings(input_ids)
                if token_type_ids is not None:
                    e = e + self.token_type_embeddings(token_type_ids)
                elif not skip_when_none:
                    e = e + self.token_type_embeddings(ops.zeros_like(input_ids))
                return self.LayerNorm(e + self.position_embeddings(positions))

        class Front(nn.Cell):
            def __init__(self):
                super().__init__()
                self.embeddings = Embeddings()
                self.embedding_hidden_mapping_in = nn.Dense(EMB, HID)

            def construct(self, input_ids):
                return self.embedding_hidden_mapping_in(self.embeddings(input_ids))

        return Front()
    return make


# --- CLIP text encoder tail: pooled feature taken at the end-of-text token (the largest id) -----------------

CLIP_V, CLIP_W, CLIP_CTX, CLIP_OUT = 12, 8, 6, 4
_TEXT = np.array([[3, 5, 7, 11, 0, 0], [4, 11, 0, 0, 0, 0], [2, 9, 6, 8, 1, 11]], dtype=np.int64)


def _torch_clip_text():
    import torch

    class TextTail(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.token_embedding = torch.nn.Embedding(CLIP_V, CLIP_W)
            self.positional_embedding = torch.nn.Parameter(torch.randn(CLIP_CTX, CLIP_W) * 0.01)
            self.mlp = torch.nn.Linear(CLIP_W, CLIP_W)
            self.ln_final = torch.nn.LayerNorm(CLIP_W)
            self.text_projection = torch.nn.Parameter(torch.randn(CLIP_W, CLIP_OUT) * CLIP_W ** -0.5)

        def forward(self, text):
            x = self.token_embedding(text) + self.positional_embedding
            x = x + torch.nn.functional.gelu(self.mlp(x))
            x = self.ln_final(x)
            return x[torch.arange(x.shape[0]), text.argmax(dim=-1)] @ self.text_projection

    return TextTail()


def _ms_clip_text(last_position):
    def make():
        import mindspore as ms
        from mindspore import nn, ops, Parameter, Tensor

        class TextTail(nn.Cell):
            def __init__(self):
                super().__init__()
                self.token_embedding = nn.Embedding(CLIP_V, CLIP_W)
                self.positional_embedding = Parameter(Tensor(np.zeros((CLIP_CTX, CLIP_W), np.float32)),
                                                      name="positional_embedding")
                self.mlp = nn.Dense(CLIP_W, CLIP_W)
                self.ln_final = nn.LayerNorm((CLIP_W,), epsilon=1e-5)
                self.text_projection = Parameter(Tensor(np.zeros((CLIP_W, CLIP_OUT), np.float32)),
                                                 name="text_projection")

            def construct(self, text):
                x = self.token_embedding(text) + self.positional_embedding
                x = x + ops.gelu(self.mlp(x))
                x = self.ln_final(x)
                if last_position:
                    pooled = x[:, -1]
                else:
                    eot = text.argmax(axis=-1).astype(ms.int32)
                    pooled = ops.gather(x, eot, axis=1, batch_dims=1)
                return ops.matmul(pooled, self.text_projection)

        return TextTail()
    return make


# --- BERT intermediate + output (post-LN): the residual goes inside LayerNorm -----------------------------

BH, BI = 8, 16


def _torch_bert_ffn():
    import torch

    class Intermediate(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.dense = torch.nn.Linear(BH, BI)

        def forward(self, h):
            return torch.nn.functional.gelu(self.dense(h))

    class Output(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.dense = torch.nn.Linear(BI, BH)
            self.LayerNorm = torch.nn.LayerNorm(BH, eps=1e-12)
            self.dropout = torch.nn.Dropout(0.1)

        def forward(self, h, input_tensor):
            return self.LayerNorm(self.dropout(self.dense(h)) + input_tensor)

    class FFN(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.intermediate = Intermediate()
            self.output = Output()

        def forward(self, x):
            return self.output(self.intermediate(x), x)

    return FFN()


def _ms_bert_ffn(residual_outside):
    def make():
        from mindspore import nn, ops

        class Intermediate(nn.Cell):
            def __init__(self):
                super().__init__()
                self.dense = nn.Dense(BH, BI)

            def construct(self, h):
                return ops.gelu(self.dense(h), approximate="none")

        class Output(nn.Cell):
            def __init__(self):
                super().__init__()
                self.dense = nn.Dense(BI, BH)
                self.LayerNorm = nn.LayerNorm((BH,), epsilon=1e-12)
                self.dropout = nn.Dropout(p=0.1)

            def construct(self, h, input_tensor):
                h = self.dropout(self.dense(h))
                if residual_outside:
                    return self.LayerNorm(h) + input_tensor
                return self.LayerNorm(h + input_tensor)

        class FFN(nn.Cell):
            def __init__(self):
                super().__init__()
                self.intermediate = Intermediate()
                self.output = Output()

            def construct(self, x):
                return self.output(self.intermediate(x), x)

        return FFN()
    return make


# --- Res2Net Bottle2neck (stype "normal"): each split adds the previous split's output ----------------------

R_WIDTH, R_SCALE = 2, 4


def _torch_res2net():
    import torch

    class Branch(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(R_WIDTH, R_WIDTH, 3, 1, 1, bias=False)
            self.bn = torch.nn.BatchNorm2d(R_WIDTH)
            self.relu = torch.nn.ReLU()

        def forward(self, x):
            return self.relu(self.bn(self.conv(x)))

    class Res2Split(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = torch.nn.Conv2d(4, R_WIDTH * R_SCALE, 1, bias=False)
            self.convs = torch.nn.ModuleList([Branch() for _ in range(R_SCALE - 1)])
            self.conv3 = torch.nn.Conv2d(R_WIDTH * R_SCALE, 4, 1, bias=False)

        def forward(self, x):
            spx = torch.split(self.conv1(x), R_WIDTH, 1)
            outs = []
            for i in range(R_SCALE - 1):
                sp = spx[i] if i == 0 else sp + spx[i]
                sp = self.convs[i](sp)
                outs.append(sp)
            outs.append(spx[R_SCALE - 1])
            return x + self.conv3(torch.cat(outs, 1))

    return Res2Split()


def _ms_res2net(independent):
    def make():
        from mindspore import nn, ops

        class Branch(nn.Cell):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(R_WIDTH, R_WIDTH, 3, 1, pad_mode="pad", padding=1, has_bias=False)
                self.bn = nn.BatchNorm2d(R_WIDTH)
                self.relu = nn.ReLU()

            def construct(self, x):
                return self.relu(self.bn(self.conv(x)))

        class Res2Split(nn.Cell):
            def __init__(self):
                super().__init__()
                self.conv1 = nn.Conv2d(4, R_WIDTH * R_SCALE, 1, has_bias=False)
                self.convs = nn.CellList([Branch() for _ in range(R_SCALE - 1)])
                self.conv3 = nn.Conv2d(R_WIDTH * R_SCALE, 4, 1, has_bias=False)

            def construct(self, x):
                spx = ops.split(self.conv1(x), R_WIDTH, axis=1)
                outs = []
                sp = spx[0]
                for i in range(R_SCALE - 1):
                    if i > 0:
                        sp = spx[i] if independent else sp + spx[i]
                    sp = self.convs[i](sp)
                    outs.append(sp)
                outs.append(spx[R_SCALE - 1])
                return x + self.conv3(ops.concat(outs, axis=1))

        return Res2Split()
    return make


ENTRIES: list = []

ENTRIES += [
    entry("h6b_port_gpt2_attention_c_proj_dense_untransposed", "h6-port",
          "model: GPT-2 attention (HF Conv1D, weight stored (in, out)); MindSpore ports (mindnlp gpt2) keep a Conv1D "
          "cell with ops.matmul(x, weight)",
          _torch_gpt2_attn, _ms_gpt2_attn(True), _ms_gpt2_attn(False),
          ("attn.c_proj",), ("transpose|Conv1D|Dense",), inputs={"x": uniform(2, 5, E)},
          cause_pattern=r"\btranspos\w*\b.{0,160}\b(weight|c_proj|Conv1D|Dense|matmul)\b"
                        r"|\b(weight|c_proj|Conv1D|Dense|matmul)\b.{0,160}\btranspos\w*\b|\bConv1D\b"),
    entry("h6b_port_yolov5_focus_space_to_depth_order", "h6-port",
          "model: YOLOv5 Focus (ultralytics/yolov5 models/common.py); MindSpore ops.SpaceToDepth orders the "
          "channels (row offset, column offset, channel), Focus concatenates (0,0), (1,0), (0,1), (1,1)",
          _torch_focus, _ms_focus(True), _ms_focus(False),
          ("focus",), ("SpaceToDepth|slice order",), inputs={"x": uniform(2, 3, 6, 6)},
          cause_pattern=r"\bspace[_ ]?to[_ ]?depth\b|\bpixel_unshuffle\b"
                        r"|\b(slice|slices|slicing)\b.{0,160}\border\b|\border\b.{0,160}\b(slice|slices|slicing)\b"),
    entry("h6b_port_efficientnetv2_fused_mbconv_bn_eps", "h6-port",
          "model: EfficientNetV2 FusedMBConv (torchvision efficientnet_v2: BatchNorm2d eps=1e-3); "
          "mindspore.nn.BatchNorm2d's eps defaults to 1e-5",
          _torch_fused_mbconv, _ms_fused_mbconv(None), _ms_fused_mbconv(1e-3),
          ("block.1",), ("eps|epsilon",), inputs={"x": uniform(2, 4, 5, 5)},
          cause_pattern=r"\b(eps|epsilon)\b.{0,60}(\b1e-0?3\b|\b0\.001\b)"),
    entry("h6b_port_whisper_frontend_sinusoid_timescale", "h6-port",
          "model: Whisper audio encoder front-end (openai/whisper model.py sinusoids: log(10000) / (channels // 2 - 1)); "
          "the port recomputes the table with the Transformer paper's log(10000) / (channels // 2)",
          _torch_whisper, _ms_whisper(False), _ms_whisper(True),
          ("after:conv2",), ("sinusoid|positional_embedding|timescale",), inputs={"x": uniform(2, 4, 16)},
          weight_map={"positional_embedding": None},
          cause_pattern=r"\b(sinusoids?|sinusoidal|positional[_ ]embeddings?|log_timescale_increment|timescales?"
                        r"|inv_timescales|max_timescale)\b"),
]

ENTRIES += [
    entry("h6b_port_albert_embeddings_token_type_zeros_skipped", "h6-port",
          "model: ALBERT embeddings (HF AlbertEmbeddings: token_type_ids default to zeros and token type 0's "
          "embedding is always added); the port adds token_type_embeddings only when ids are passed",
          _torch_albert, _ms_albert(True), _ms_albert(False),
          ("embeddings.token_type_embeddings",), ("token_type",),
          inputs={"input_ids": integers(2, 5, low=1, high=V)},
          cause_pattern=r"\btoken[_ ]type"),
    entry("h6b_port_clip_text_pool_last_position_not_eot", "h6-port",
          "model: CLIP text encoder (openai/CLIP encode_text: x[arange(B), text.argmax(-1)] @ text_projection); "
          "the port pools the last position as GPT-style ports do",
          _torch_clip_text, _ms_clip_text(True), _ms_clip_text(False),
          ("after:ln_final",), ("argmax|eot|end of text",), inputs={"text": given(_TEXT)},
          cause_pattern=r"\bargmax\b|\b(eot|eos)\b|\bend[- ]of[- ]te?xt\b"),
    entry("h6b_port_bert_output_residual_outside_layernorm", "h6-port",
          "model: BERT intermediate + output (HF BertOutput: LayerNorm(dropout(dense(h)) + input_tensor), post-LN); "
          "the port adds the residual after LayerNorm, pre-LN style",
          _torch_bert_ffn, _ms_bert_ffn(True), _ms_bert_ffn(False),
          ("output.LayerNorm",), ("residual|input_tensor|LayerNorm",), inputs={"x": uniform(2, 3, BH)},
          cause_pattern=r"\b(residual|input_tensor|skip connection|shortcut)\b.{0,160}\b(layernorm|layer_norm|layer norm)\b"
                        r"|\b(layernorm|layer_norm|layer norm)\b.{0,160}\b(residual|input_tensor|skip connection|shortcut)\b"),
    entry("h6b_port_res2net_split_missing_hierarchical_add", "h6-port",
          "model: Res2Net Bottle2neck, stype 'normal' (Res2Net/Res2Net-PretrainedModels res2net.py: sp = sp + spx[i]); "
          "the port runs the splits independently",
          _torch_res2net, _ms_res2net(True), _ms_res2net(False),
          ("after:convs.0",), ("hierarchical|previous split|sp + spx",), inputs={"x": uniform(2, 4, 4, 4)},
          cause_pattern=r"\bsp\s*\+\s*spx\b|\bhierarchical\b"
                        r"|\b(add|adds|added|adding|addition|sum|summed)\b.{0,160}\b(previous|preceding|convs\.0|spx)\b"
                        r"|\b(previous|preceding|convs\.0)\b.{0,160}\b(add|adds|added|adding|addition|sum|summed)\b"),
]
