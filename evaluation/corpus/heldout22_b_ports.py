"""Held-out set 22, half b, model blocks: small time-series forecasting and reinforcement-learning blocks.

Written blind (without reading migcheck's localization, mapping, judging or running code). Each entry pairs a
naive MindSpore port with one porting mistake (an API difference) and a correct port of the same torch module.
"""
from __future__ import annotations

from evaluation.corpus.build import entry
from migcheck.specs import uniform

ENTRIES: list = []


def _ms():
    import mindspore
    import mindspore.nn as mnn
    import mindspore.ops as ops
    return mindspore, mnn, ops


def _torch():
    import torch
    import torch.nn as tnn
    return torch, tnn


# --------------------------------------------------------------------------------------------------------------
# 1. PatchTST patching: ReplicationPad1d((0, stride)) at the end of the series, then patches -> W_P.
# --------------------------------------------------------------------------------------------------------------
_PATCH_LEN, _STRIDE, _SEQ = 4, 2, 10
_N_PATCH = (_SEQ + _STRIDE - _PATCH_LEN) // _STRIDE + 1


def _patchtst_torch():
    torch, tnn = _torch()

    class PatchEmbed(tnn.Module):
        def __init__(self):
            super().__init__()
            self.padding_patch_layer = tnn.ReplicationPad1d((0, _STRIDE))
            self.W_P = tnn.Linear(_PATCH_LEN, 8)

        def forward(self, x):  # x: (B, L, C)
            x = x.permute(0, 2, 1)
            x = self.padding_patch_layer(x)
            x = x.unfold(dimension=-1, size=_PATCH_LEN, step=_STRIDE)  # (B, C, N, P)
            return self.W_P(x)

    return PatchEmbed()


def _patchtst_ms(replicate: bool):
    ms, mnn, ops = _ms()

    class PatchEmbed(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.W_P = mnn.Dense(_PATCH_LEN, 8)

        def construct(self, x):
            x = ops.transpose(x, (0, 2, 1))
            if replicate:
                x = ops.pad(x, (0, _STRIDE), mode="replicate")
            else:
                x = ops.pad(x, (0, _STRIDE))
            patches = [x[:, :, i * _STRIDE:i * _STRIDE + _PATCH_LEN] for i in range(_N_PATCH)]
            x = ops.stack(patches, axis=2)
            return self.W_P(x)

    return PatchEmbed()


ENTRIES.append(entry(
    "h22b_port_patchtst_end_padding_replication_as_ops_pad_constant_zeros", "h22-port",
    "model:PatchTST (yuqinie98/PatchTST padding_patch='end') ported to MindSpore; ops.pad default mode",
    _patchtst_torch, lambda: _patchtst_ms(False), lambda: _patchtst_ms(True),
    ("padding_patch_layer",), ("replicate|constant|ops.pad mode|ReplicationPad1d",),
    inputs={"x": uniform(2, _SEQ, 3, low=0.5, high=1.5)},
    cause_pattern=r"\breplicat\w*\b|\bReplicationPad1d\b|\bedge\b[^.]*\b(value|pad\w*)\b",
))


# --------------------------------------------------------------------------------------------------------------
# 2. Informer distilling ConvLayer: circular conv -> BatchNorm1d -> ELU -> MaxPool1d(3, 2, padding=1).
# --------------------------------------------------------------------------------------------------------------
def _informer_torch():
    torch, tnn = _torch()

    class ConvLayer(tnn.Module):
        def __init__(self, c_in=4):
            super().__init__()
            self.downConv = tnn.Conv1d(c_in, c_in, kernel_size=3, padding=1, padding_mode="circular")
            self.norm = tnn.BatchNorm1d(c_in)
            self.activation = tnn.ELU()
            self.maxPool = tnn.MaxPool1d(kernel_size=3, stride=2, padding=1)

        def forward(self, x):  # (B, L, C)
            x = self.downConv(x.permute(0, 2, 1))
            x = self.norm(x)
            x = self.activation(x)
            x = self.maxPool(x)
            return x.transpose(1, 2)

    return ConvLayer()


def _informer_ms(padded: bool):
    ms, mnn, ops = _ms()

    class ConvLayer(mnn.Cell):
        def __init__(self, c_in=4):
            super().__init__()
            self.downConv = mnn.Conv1d(c_in, c_in, kernel_size=3, pad_mode="valid", has_bias=True)
            self.norm = mnn.BatchNorm1d(c_in)
            self.activation = mnn.ELU()
            if padded:
                self.maxPool = mnn.MaxPool1d(kernel_size=3, stride=2, pad_mode="pad", padding=1)
            else:
                self.maxPool = mnn.MaxPool1d(kernel_size=3, stride=2)

        def construct(self, x):
            x = ops.transpose(x, (0, 2, 1))
            x = self.downConv(ops.pad(x, (1, 1), mode="circular"))
            x = self.norm(x)
            x = self.activation(x)
            x = self.maxPool(x)
            return ops.transpose(x, (0, 2, 1))

    return ConvLayer()


ENTRIES.append(entry(
    "h22b_port_informer_distil_maxpool1d_padding_one_dropped", "h22-port",
    "model:Informer (zhouhaoyi/Informer2020 ConvLayer) ported to MindSpore; MaxPool1d pad_mode/padding",
    _informer_torch, lambda: _informer_ms(False), lambda: _informer_ms(True),
    ("maxPool",), ("MaxPool1d padding=1|pad_mode='pad'",),
    inputs={"x": uniform(2, 8, 4)}, fails_with="shape",
    cause_pattern=r"\bpadding\s*=\s*1\b|\bpad_mode\s*=\s*['\"]pad['\"]|\bpadding\b[^.]*\b(of\s+)?1\b|\bpad\w*\b[^.]*\b(dropped|missing|omitted|valid)\b",
))


# --------------------------------------------------------------------------------------------------------------
# 3. DLinear series decomposition: moving average with the ends replicated, then AvgPool1d(k, stride=1).
# --------------------------------------------------------------------------------------------------------------
_DL_SEQ, _DL_PRED, _DL_K = 10, 4, 5


def _dlinear_torch():
    torch, tnn = _torch()

    class MovingAvg(tnn.Module):
        def __init__(self, kernel_size, stride):
            super().__init__()
            self.kernel_size = kernel_size
            self.avg = tnn.AvgPool1d(kernel_size=kernel_size, stride=stride, padding=0)

        def forward(self, x):
            front = x[:, 0:1, :].repeat(1, (self.kernel_size - 1) // 2, 1)
            end = x[:, -1:, :].repeat(1, (self.kernel_size - 1) // 2, 1)
            x = torch.cat([front, x, end], dim=1)
            return self.avg(x.permute(0, 2, 1)).permute(0, 2, 1)

    class SeriesDecomp(tnn.Module):
        def __init__(self, kernel_size):
            super().__init__()
            self.moving_avg = MovingAvg(kernel_size, stride=1)

        def forward(self, x):
            mean = self.moving_avg(x)
            return x - mean, mean

    class DLinear(tnn.Module):
        def __init__(self):
            super().__init__()
            self.decompsition = SeriesDecomp(_DL_K)
            self.Linear_Seasonal = tnn.Linear(_DL_SEQ, _DL_PRED)
            self.Linear_Trend = tnn.Linear(_DL_SEQ, _DL_PRED)

        def forward(self, x):  # (B, L, C)
            seasonal, trend = self.decompsition(x)
            seasonal = self.Linear_Seasonal(seasonal.permute(0, 2, 1))
            trend = self.Linear_Trend(trend.permute(0, 2, 1))
            return (seasonal + trend).permute(0, 2, 1)

    return DLinear()


def _dlinear_ms(replicate: bool):
    ms, mnn, ops = _ms()
    half = (_DL_K - 1) // 2

    class MovingAvg(mnn.Cell):
        def __init__(self):
            super().__init__()
            if replicate:
                self.avg = mnn.AvgPool1d(kernel_size=_DL_K, stride=1)
            else:
                self.avg = mnn.AvgPool1d(kernel_size=_DL_K, stride=1, pad_mode="pad", padding=half)

        def construct(self, x):
            if replicate:
                front = ops.tile(x[:, 0:1, :], (1, half, 1))
                end = ops.tile(x[:, -1:, :], (1, half, 1))
                x = ops.cat((front, x, end), axis=1)
            return ops.transpose(self.avg(ops.transpose(x, (0, 2, 1))), (0, 2, 1))

    class SeriesDecomp(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.moving_avg = MovingAvg()

        def construct(self, x):
            mean = self.moving_avg(x)
            return x - mean, mean

    class DLinear(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.decompsition = SeriesDecomp()
            self.Linear_Seasonal = mnn.Dense(_DL_SEQ, _DL_PRED)
            self.Linear_Trend = mnn.Dense(_DL_SEQ, _DL_PRED)

        def construct(self, x):
            seasonal, trend = self.decompsition(x)
            seasonal = self.Linear_Seasonal(ops.transpose(seasonal, (0, 2, 1)))
            trend = self.Linear_Trend(ops.transpose(trend, (0, 2, 1)))
            return ops.transpose(seasonal + trend, (0, 2, 1))

    return DLinear()


ENTRIES.append(entry(
    "h22b_port_dlinear_moving_avg_edges_zero_padded_by_avgpool1d", "h22-port",
    "model:DLinear (cure-lab/LTSF-Linear moving_avg) ported to MindSpore; nn.AvgPool1d pad_mode='pad' zero padding",
    _dlinear_torch, lambda: _dlinear_ms(False), lambda: _dlinear_ms(True),
    ("decompsition.moving_avg",), ("replicate ends|zero padding|AvgPool1d padding",),
    inputs={"x": uniform(2, _DL_SEQ, 2, low=1.0, high=2.0)},
    cause_pattern=r"\breplicat\w*\b|\brepeat\w*\b[^.]*\b(first|last|edge|end)\w*|\b(first|last|edge|end)\w*\b[^.]*\brepeat\w*|\bzero[- ]?pad\w*\b",
))


# --------------------------------------------------------------------------------------------------------------
# 4. TCN TemporalBlock: dilated causal convs with Chomp1d; the 1x1 downsample conv carries a bias.
# --------------------------------------------------------------------------------------------------------------
def _tcn_torch():
    torch, tnn = _torch()

    class Chomp1d(tnn.Module):
        def __init__(self, chomp_size):
            super().__init__()
            self.chomp_size = chomp_size

        def forward(self, x):
            return x[:, :, :-self.chomp_size].contiguous()

    class TemporalBlock(tnn.Module):
        def __init__(self, n_in=2, n_out=4, k=3, dilation=2):
            super().__init__()
            pad = (k - 1) * dilation
            self.conv1 = tnn.Conv1d(n_in, n_out, k, padding=pad, dilation=dilation)
            self.chomp1 = Chomp1d(pad)
            self.relu1 = tnn.ReLU()
            self.conv2 = tnn.Conv1d(n_out, n_out, k, padding=pad, dilation=dilation)
            self.chomp2 = Chomp1d(pad)
            self.relu2 = tnn.ReLU()
            self.downsample = tnn.Conv1d(n_in, n_out, 1)
            self.relu = tnn.ReLU()

        def forward(self, x):
            out = self.relu1(self.chomp1(self.conv1(x)))
            out = self.relu2(self.chomp2(self.conv2(out)))
            return self.relu(out + self.downsample(x))

    return TemporalBlock()


def _tcn_ms(bias: bool):
    ms, mnn, ops = _ms()

    class TemporalBlock(mnn.Cell):
        def __init__(self, n_in=2, n_out=4, k=3, dilation=2):
            super().__init__()
            self.pad = (k - 1) * dilation
            self.conv1 = mnn.Conv1d(n_in, n_out, k, pad_mode="pad", padding=self.pad, dilation=dilation, has_bias=True)
            self.relu1 = mnn.ReLU()
            self.conv2 = mnn.Conv1d(n_out, n_out, k, pad_mode="pad", padding=self.pad, dilation=dilation,
                                    has_bias=True)
            self.relu2 = mnn.ReLU()
            if bias:
                self.downsample = mnn.Conv1d(n_in, n_out, 1, has_bias=True)
            else:
                self.downsample = mnn.Conv1d(n_in, n_out, 1)
            self.relu = mnn.ReLU()

        def construct(self, x):
            out = self.relu1(self.conv1(x)[:, :, :-self.pad])
            out = self.relu2(self.conv2(out)[:, :, :-self.pad])
            return self.relu(out + self.downsample(x))

    return TemporalBlock()


ENTRIES.append(entry(
    "h22b_port_tcn_temporal_block_downsample_conv1d_has_bias_default", "h22-port",
    "Conv1d",
    _tcn_torch, lambda: _tcn_ms(False), lambda: _tcn_ms(True),
    ("downsample",), ("has_bias|bias default False",),
    inputs={"x": uniform(2, 2, 8)}, fails_with="structure",
    cause_pattern=r"\bhas_bias\s*=\s*True\b|\bhas_bias\b[^.]*\b(True|False|default)\b|\bbias\b[^.]*\b(missing|dropped|absent|omitted|not (copied|loaded|mapped))\b",
))


# --------------------------------------------------------------------------------------------------------------
# 5. DQN conv head: flatten with x.view(x.size(0), -1) — Tensor.size is an element count in MindSpore.
# --------------------------------------------------------------------------------------------------------------
def _dqn_torch():
    torch, tnn = _torch()

    class QNetwork(tnn.Module):
        def __init__(self, n_actions=3):
            super().__init__()
            self.conv1 = tnn.Conv2d(2, 4, 3, stride=2)
            self.conv2 = tnn.Conv2d(4, 4, 3, stride=1)
            self.fc1 = tnn.Linear(4 * 2 * 2, 8)
            self.fc2 = tnn.Linear(8, n_actions)

        def forward(self, x):
            x = torch.relu(self.conv1(x))
            x = torch.relu(self.conv2(x))
            x = x.view(x.size(0), -1)
            return self.fc2(torch.relu(self.fc1(x)))

    return QNetwork()


def _dqn_ms(shape: bool):
    ms, mnn, ops = _ms()

    class QNetwork(mnn.Cell):
        def __init__(self, n_actions=3):
            super().__init__()
            self.conv1 = mnn.Conv2d(2, 4, 3, stride=2, pad_mode="valid", has_bias=True)
            self.conv2 = mnn.Conv2d(4, 4, 3, stride=1, pad_mode="valid", has_bias=True)
            self.fc1 = mnn.Dense(4 * 2 * 2, 8)
            self.fc2 = mnn.Dense(8, n_actions)

        def construct(self, x):
            x = ops.relu(self.conv1(x))
            x = ops.relu(self.conv2(x))
            if shape:
                x = x.view(x.shape[0], -1)
            else:
                x = x.view(x.size(0), -1)
            return self.fc2(ops.relu(self.fc1(x)))

    return QNetwork()


ENTRIES.append(entry(
    "h22b_port_dqn_conv_head_flatten_tensor_size_call_raises", "h22-port",
    "probe:mindspore.Tensor.size is the element count (an int), not torch's size(dim) method",
    _dqn_torch, lambda: _dqn_ms(False), lambda: _dqn_ms(True),
    ("after:conv2",), ("Tensor.size|shape[0]",),
    inputs={"x": uniform(2, 2, 9, 9, low=0.0, high=1.0)}, fails_with="error",
    cause_pattern=r"\bshape\s*\[\s*0\s*\]|\bTensor\.size\b|\.size\s*\(\s*0\s*\)|\bsize\b[^.]*\b(property|attribute|not callable|element count|number of elements)\b",
))


# --------------------------------------------------------------------------------------------------------------
# 6. LSTNet: Conv2d over (window, variables) -> GRU -> linear, plus the autoregressive highway.
# --------------------------------------------------------------------------------------------------------------
_LST_P, _LST_M, _LST_CK, _LST_HIDC, _LST_HIDR, _LST_HW = 8, 3, 3, 4, 5, 2


def _lstnet_torch():
    torch, tnn = _torch()

    class LSTNet(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = tnn.Conv2d(1, _LST_HIDC, kernel_size=(_LST_CK, _LST_M))
            self.GRU1 = tnn.GRU(_LST_HIDC, _LST_HIDR)
            self.linear1 = tnn.Linear(_LST_HIDR, _LST_M)
            self.highway = tnn.Linear(_LST_HW, 1)

        def forward(self, x):  # (B, P, m)
            batch = x.shape[0]
            c = x.view(-1, 1, _LST_P, _LST_M)
            c = torch.relu(self.conv1(c))
            c = torch.squeeze(c, 3)
            r = c.permute(2, 0, 1).contiguous()
            _, r = self.GRU1(r)
            res = self.linear1(torch.squeeze(r, 0))
            z = x[:, -_LST_HW:, :].permute(0, 2, 1).contiguous().view(-1, _LST_HW)
            z = self.highway(z).view(batch, _LST_M)
            return res + z

    return LSTNet()


def _lstnet_ms(bias: bool):
    ms, mnn, ops = _ms()

    class LSTNet(mnn.Cell):
        def __init__(self):
            super().__init__()
            if bias:
                self.conv1 = mnn.Conv2d(1, _LST_HIDC, kernel_size=(_LST_CK, _LST_M), pad_mode="valid", has_bias=True)
            else:
                self.conv1 = mnn.Conv2d(1, _LST_HIDC, kernel_size=(_LST_CK, _LST_M), pad_mode="valid")
            self.GRU1 = mnn.GRU(_LST_HIDC, _LST_HIDR)
            self.linear1 = mnn.Dense(_LST_HIDR, _LST_M)
            self.highway = mnn.Dense(_LST_HW, 1)

        def construct(self, x):
            batch = x.shape[0]
            c = x.view(-1, 1, _LST_P, _LST_M)
            c = ops.relu(self.conv1(c))
            c = ops.squeeze(c, 3)
            r = ops.transpose(c, (2, 0, 1))
            _, r = self.GRU1(r)
            res = self.linear1(ops.squeeze(r, 0))
            z = ops.transpose(x[:, -_LST_HW:, :], (0, 2, 1)).reshape(-1, _LST_HW)
            z = self.highway(z).view(batch, _LST_M)
            return res + z

    return LSTNet()


ENTRIES.append(entry(
    "h22b_port_lstnet_conv2d_window_kernel_has_bias_default", "h22-port",
    "Conv2d",
    _lstnet_torch, lambda: _lstnet_ms(False), lambda: _lstnet_ms(True),
    ("conv1",), ("has_bias|bias default False",),
    inputs={"x": uniform(2, _LST_P, _LST_M)}, fails_with="structure",
    cause_pattern=r"\bhas_bias\s*=\s*True\b|\bhas_bias\b[^.]*\b(True|False|default)\b|\bbias\b[^.]*\b(missing|dropped|absent|omitted|not (copied|loaded|mapped))\b",
))


# --------------------------------------------------------------------------------------------------------------
# 7. TimesNet FFT_for_Period: amplitude spectrum along time (dim=1), averaged over channels.
# --------------------------------------------------------------------------------------------------------------
def _timesnet_torch():
    torch, tnn = _torch()

    class PeriodScores(tnn.Module):
        def __init__(self):
            super().__init__()
            self.embed = tnn.Linear(3, 6)

        def forward(self, x):  # (B, T, C)
            x = self.embed(x)
            xf = torch.fft.rfft(x, dim=1)
            amplitude = torch.abs(xf).mean(-1)
            return torch.softmax(amplitude, dim=1)

    return PeriodScores()


def _timesnet_ms(axis: bool):
    ms, mnn, ops = _ms()

    class PeriodScores(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.embed = mnn.Dense(3, 6)

        def construct(self, x):
            x = self.embed(x)
            xf = ops.rfft(x, dim=1) if axis else ops.rfft(x)
            amplitude = ops.sqrt(ops.real(xf) ** 2 + ops.imag(xf) ** 2).mean(-1)
            return ops.softmax(amplitude, axis=1)

    return PeriodScores()


ENTRIES.append(entry(
    "h22b_port_timesnet_fft_period_ops_rfft_default_last_dim", "h22-port",
    "model:TimesNet (thuml Time-Series-Library FFT_for_Period) ported to MindSpore; ops.rfft dim default -1",
    _timesnet_torch, lambda: _timesnet_ms(False), lambda: _timesnet_ms(True),
    ("after:embed",), ("rfft dim|axis|time axis",),
    inputs={"x": uniform(2, 8, 3)}, fails_with="shape",
    cause_pattern=r"\bdim\s*=\s*1\b|\brfft\b[^.]*\b(dim|axis)\b|\b(dim|axis)\b[^.]*\brfft\b",
))


# --------------------------------------------------------------------------------------------------------------
# 8. SCINet interactor branch: ReplicationPad1d -> Conv1d -> LeakyReLU(0.01) -> Conv1d -> Tanh on the even half.
# --------------------------------------------------------------------------------------------------------------
def _scinet_torch():
    torch, tnn = _torch()

    class Interactor(tnn.Module):
        def __init__(self, c=2, hidden=4):
            super().__init__()
            self.phi = tnn.Sequential(
                tnn.ReplicationPad1d((3, 3)),
                tnn.Conv1d(c, hidden, kernel_size=5),
                tnn.LeakyReLU(negative_slope=0.01),
                tnn.Conv1d(hidden, c, kernel_size=3),
                tnn.Tanh(),
            )

        def forward(self, x):  # (B, L, C)
            x_even = x[:, ::2, :].permute(0, 2, 1)
            x_odd = x[:, 1::2, :].permute(0, 2, 1)
            d = x_odd * torch.exp(self.phi(x_even))
            return d.permute(0, 2, 1)

    return Interactor()


def _scinet_ms(replicate: bool):
    ms, mnn, ops = _ms()

    class Interactor(mnn.Cell):
        def __init__(self, c=2, hidden=4):
            super().__init__()
            pad = mnn.ReplicationPad1d((3, 3)) if replicate else mnn.Pad(((0, 0), (0, 0), (3, 3)), mode="SYMMETRIC")
            self.phi = mnn.SequentialCell([
                pad,
                mnn.Conv1d(c, hidden, kernel_size=5, pad_mode="valid", has_bias=True),
                mnn.LeakyReLU(alpha=0.01),
                mnn.Conv1d(hidden, c, kernel_size=3, pad_mode="valid", has_bias=True),
                mnn.Tanh(),
            ])

        def construct(self, x):
            x_even = ops.transpose(x[:, ::2, :], (0, 2, 1))
            x_odd = ops.transpose(x[:, 1::2, :], (0, 2, 1))
            d = x_odd * ops.exp(self.phi(x_even))
            return ops.transpose(d, (0, 2, 1))

    return Interactor()


ENTRIES.append(entry(
    "h22b_port_scinet_interactor_replication_pad_as_nn_pad_symmetric", "h22-port",
    "model:SCINet (cure-lab/SCINet Interactor) ported to MindSpore; nn.Pad SYMMETRIC vs ReplicationPad1d",
    _scinet_torch, lambda: _scinet_ms(False), lambda: _scinet_ms(True),
    ("phi.0",), ("replicate|symmetric|ReplicationPad1d",),
    inputs={"x": uniform(2, 8, 2)},
    cause_pattern=r"\breplicat\w*\b|\bReplicationPad1d\b|\bedge\b[^.]*\b(value|pad\w*)\b",
))
