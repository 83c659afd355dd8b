"""Held-out set 5, half b: functional ops in forward/construct whose port computes other values (h5b_*).

Written blind (without reading migcheck's localization, mapping, judging or running code, the bundled cases or
the other corpora's causes). Each naive port makes one porting mistake in one functional op; its correct twin
differs from it only there. Sources: probes of torch 2.13 / MindSpore 2.10 on CPU. This module also gathers the
half's other files: errors and gradient-only entries (heldout5_b_errors.py) and model blocks (heldout5_b_ports.py).
"""
from __future__ import annotations

from evaluation.corpus.build import entry
from evaluation.corpus.heldout5_b_nets import PROBE, X, _ms_net, _torch_net
from migcheck.specs import uniform

# --- functional ops whose port computes something else -------------------------------------------------------


def _remainder_torch():
    import torch
    return _torch_net(lambda h: torch.remainder(h * 3.0, 1.0))


def _remainder_naive():
    from mindspore import ops
    return _ms_net(lambda h: ops.fmod(h * 3.0, 1.0))


def _remainder_correct():
    from mindspore import ops
    return _ms_net(lambda h: ops.remainder(h * 3.0, 1.0))


def _median_torch():
    return _torch_net(lambda h: h - h.median(), n_mid=6)


def _median_naive():
    from mindspore import ops
    return _ms_net(lambda h: h - ops.median(h)[0], n_mid=6)


def _median_correct():
    from mindspore import ops
    return _ms_net(lambda h: h - ops.median(h.reshape(-1))[0], n_mid=6)


def _kth_torch():
    import torch
    return _torch_net(lambda h: torch.relu(h - torch.kthvalue(h, 3, dim=1).values.unsqueeze(1)), n_mid=8)


def _kth_naive():
    from mindspore import ops
    return _ms_net(lambda h: ops.relu(h - ops.topk(h, 3, dim=1)[0][:, -1:]), n_mid=8)


def _kth_correct():
    from mindspore import ops
    return _ms_net(lambda h: ops.relu(h - ops.topk(h, 3, dim=1, largest=False)[0][:, -1:]), n_mid=8)


def _minmax_torch():
    import torch

    def scale(h):
        lo, hi = torch.aminmax(h)
        return (h - lo) / (hi - lo)
    return _torch_net(scale)


def _minmax_naive():
    from mindspore import ops

    def scale(h):
        lo, hi = ops.aminmax(h)
        return (h - lo) / (hi - lo)
    return _ms_net(scale)


def _minmax_correct():
    from mindspore import ops

    def scale(h):
        lo, hi = ops.aminmax(h.reshape(-1), axis=0)
        return (h - lo) / (hi - lo)
    return _ms_net(scale)


def _stdmean_torch():
    import torch

    def standardize(h):
        s, m = torch.std_mean(h, dim=1, keepdim=True)
        return (h - m) / (s + 1e-5)
    return _torch_net(standardize)


def _stdmean_naive():
    from mindspore import ops

    def standardize(h):
        s, m = ops.std_mean(h, axis=1, keepdims=True)
        return (h - m) / (s + 1e-5)
    return _ms_net(standardize)


def _stdmean_correct():
    from mindspore import ops

    def standardize(h):
        s, m = ops.std_mean(h, axis=1, ddof=1, keepdims=True)
        return (h - m) / (s + 1e-5)
    return _ms_net(standardize)


def _intmean_torch():
    import torch
    # the share of active units per sample gates the features
    return _torch_net(lambda h: h * torch.mean((h > 0).long(), dim=1, keepdim=True, dtype=torch.float32))


def _intmean_naive():
    import mindspore as ms
    from mindspore import ops
    return _ms_net(lambda h: h * ops.mean((h > 0).astype(ms.int64), 1, True))


def _intmean_correct():
    import mindspore as ms
    from mindspore import ops
    return _ms_net(lambda h: h * ops.mean((h > 0).astype(ms.float32), 1, True))



ENTRIES = [
    entry("h5b_remainder_ported_as_fmod", "h5", PROBE + "torch.remainder vs ops.fmod on negative inputs",
          _remainder_torch, _remainder_naive, _remainder_correct, ("after:fc1",),
          ("remainder|fmod|sign of the divisor",), inputs=X,
          cause_pattern=r"\b(ops\.|mindspore\.ops\.)?remainder\s*\(|\bops\.remainder\b|\bfloor_?mod\b"
                        r"|\bfmod\b[^\n]*\bsign\b|\bsign\b[^\n]*\bfmod\b"
                        r"|\bsign of the (divisor|dividend)\b"),
    entry("h5b_median_global_as_last_axis", "h5", PROBE + "torch.Tensor.median() (all elements) vs ops.median's"
          " axis=-1 default", _median_torch, _median_naive, _median_correct, ("after:fc1",),
          ("median|axis",), inputs={"x": uniform(6, 5)},
          cause_pattern=r"\bmedian\b[^\n]*\b(axis|dim|flatten(ed)?|reshape|ravel|global|all elements|whole tensor)\b"
                        r"|\b(axis|dim)\s*=\s*-1\b[^\n]*\bmedian\b"),
    entry("h5b_kthvalue_via_topk_largest", "h5", PROBE + "torch.kthvalue (k-th smallest) ported with ops.topk,"
          " largest=True by default (Tensor.kthvalue raises on CPU)", _kth_torch, _kth_naive, _kth_correct,
          ("after:fc1",), ("topk|largest|kthvalue",), inputs=X,
          cause_pattern=r"\blargest\s*=\s*False\b|\blargest\b[^\n]*\b(false|smallest)\b"
                        r"|\bk-?th (smallest|largest)\b|\bsmallest\b[^\n]*\btopk\b|\btopk\b[^\n]*\bsmallest\b"),
    entry("h5b_aminmax_default_axis0", "h5", PROBE + "torch.aminmax (all elements) vs ops.aminmax's axis=0"
          " default", _minmax_torch, _minmax_naive, _minmax_correct, ("after:fc1",), ("aminmax|axis",), inputs=X,
          cause_pattern=r"\baminmax\b[^\n]*\b(axis|dim|flatten(ed)?|reshape|ravel|global|all elements|whole)\b"
                        r"|\b(axis|dim)\s*=\s*0\b[^\n]*\baminmax\b|\bamin\b[^\n]*\bamax\b"),
    entry("h5b_std_mean_default_ddof", "h5", PROBE + "torch.std_mean (unbiased) vs ops.std_mean's ddof=0 default",
          _stdmean_torch, _stdmean_naive, _stdmean_correct, ("after:fc1",), ("ddof|unbiased",), inputs=X,
          cause_pattern=r"\bddof\b[^\n]*\b1\b|\bunbiased\b|\bcorrection\s*=\s*1\b|\bbessel\b|\bN\s*-\s*1\b"),
    entry("h5b_int_mean_truncated", "h5", PROBE + "torch.mean(..., dtype=float32) of an integer mask ported as"
          " ops.mean on int64 (integer result, truncated)", _intmean_torch, _intmean_naive, _intmean_correct,
          ("after:fc1",), ("mean|int64|dtype",), inputs=X,
          cause_pattern=r"\b(mean|reduce_?mean)\b[^\n]*\b(int(32|64)?|integer|trunc\w*)\b"
                        r"|\b(int(32|64)?|integer|trunc\w*)\b[^\n]*\b(mean|average)\b"
                        r"|\bastype\(\s*(ms\.|mindspore\.)?float32\s*\)[^\n]*\bmean\b"
                        r"|\bmean\b[^\n]*\bastype\(\s*(ms\.|mindspore\.)?float32\s*\)"),
]

from evaluation.corpus import heldout5_b_errors, heldout5_b_ports  # noqa: E402

ENTRIES += heldout5_b_errors.ENTRIES + heldout5_b_ports.ENTRIES
