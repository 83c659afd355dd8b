"""A MindSpore op less accurate than torch's on the same inputs: where the op search finds no change that agrees
and the diverging op is the same operation on both sides, fed values that agree, torch's op is re-run in float64
on each side's own inputs as the reference. MindSpore's error well beyond torch's, on a minority of elements
(erfinv near +/-1), is the measured cause: a kernel's float32 accuracy, not an argument. No fix is printed (none
was re-run)."""
from __future__ import annotations

from typing import Optional

import numpy as np

from migcheck.localization.op_align import OpDivergence
from migcheck.localization.raising_op import same_operation
from migcheck.runners.probes import TorchProbe

WORSE = 10.0  # MindSpore's error against float64 must be this many times torch's, and beyond float32's noise
NEAR = 0.05  # ... yet within this fraction of the values' scale: an inaccurate kernel, not another computation
MINORITY = 0.5  # ... and off on at most this share of the elements (a weak region: near +/-1, a tail, large inputs)


def compared_to_float64(name: str, torch_name: str, torch_out: np.ndarray, ms_out: np.ndarray, reference: np.ndarray,
                        x: Optional[np.ndarray]) -> str:
    """The sentence for a MindSpore result well less accurate than torch's against a float64 reference, or ''."""
    ref = np.asarray(reference, np.float64)
    if ref.shape != torch_out.shape or ms_out.shape != ref.shape:
        return ""
    broken = np.isfinite(ref) & np.isfinite(torch_out) & ~np.isfinite(ms_out)
    if broken.mean() > MINORITY:
        return ""
    if broken.any():  # the kernel breaks down where torch's computes: at which inputs
        kinds = "/".join(sorted({"NaN" if np.isnan(v) else "inf" for v in ms_out[broken].tolist()}))
        span = ""
        if x is not None and x.shape == ms_out.shape:
            lo, hi = float(x[broken].min()), float(x[broken].max())
            span = f" at inputs {lo:.6g}" + (f" to {hi:.6g}" if hi != lo else "")
        return (f"MindSpore's {name} returns {kinds} where torch's {torch_name} is finite: {int(broken.sum())} of"
                f" {broken.size} elements{span}, where torch's re-run in float64 is finite too (no argument tried"
                f" changes that)")
    with np.errstate(invalid="ignore"):
        err_t = np.abs(torch_out.astype(np.float64) - ref)
        err_m = np.abs(ms_out.astype(np.float64) - ref)
    finite = np.isfinite(ref) & np.isfinite(err_t) & np.isfinite(err_m)
    if not finite.any():
        return ""
    worst_t, worst_m = float(err_t[finite].max()), float(err_m[finite].max())
    noise = float(np.finfo(np.float32).eps) * max(1.0, float(np.abs(ref[finite]).max()))
    scale = float(np.abs(ref[finite]).max())
    if worst_m <= WORSE * worst_t + 4 * noise or worst_m > NEAR * max(scale, 1e-30):
        return ""  # as accurate as torch's, or another computation altogether (an argument no candidate found)
    ulp = np.finfo(np.float32).eps * np.maximum(np.abs(ref[finite]), np.finfo(np.float32).tiny)
    off = err_m[finite] > WORSE * (err_t[finite] + 4 * ulp)  # each element against its own float32 spacing
    if off.mean() > MINORITY:  # every value off a little is another constant (an eps), not a kernel's weak region
        return ""
    at = np.unravel_index(int(np.argmax(np.where(finite, err_m, -1.0))), err_m.shape)
    where = f", the largest at input {float(x[at]):.6g}" if x is not None and x.shape == err_m.shape else ""
    return (f"MindSpore's {name} is less accurate than torch's {torch_name} on these inputs: against torch's re-run"
            f" in float64 on the same values, MindSpore's max error is {worst_m:.3g} and torch's {worst_t:.3g}"
            f" ({worst_m / max(worst_t, 1e-30):.3g}x){where}; no argument tried changes that (a kernel's float32"
            f" accuracy)")


def layer_less_accurate(module: TorchProbe, torch_name: str, ms_kind: str, inputs: list, torch_out: object,
                        ms_out: object) -> str:
    """The same for a whole layer of one float32 input and output: torch's layer re-run in float64."""
    if not isinstance(torch_out, np.ndarray) or not isinstance(ms_out, np.ndarray) or torch_out.dtype != np.float32:
        return ""
    if not inputs or not all(isinstance(x, np.ndarray) and x.dtype == np.float32 for x in inputs):
        return ""
    try:
        torch_kind = module.config(torch_name)[0]
        reference = module.rerun_patched(torch_name, inputs, {}, float64=True)
    except Exception:  # no float64 re-run of torch's layer: nothing measured
        return ""
    if not same_operation(ms_kind, torch_kind) or not isinstance(reference, np.ndarray):
        return ""
    return compared_to_float64(ms_kind, torch_kind, torch_out, ms_out, reference, inputs[0])


def less_accurate(module: TorchProbe, torch_owner: str, div: Optional[OpDivergence]) -> str:
    """'MindSpore's erfinv is less accurate than torch's on these inputs: ...', or '' where it is not measured so."""
    t = div.torch if div is not None else None
    if t is None or not same_operation(div.ms.name, t.name) or not t.inputs or not t.outputs or not div.ms.outputs:
        return ""
    if len(t.inputs) != 1 or t.inputs[0].dtype != np.float32 or t.outputs[0].shape != div.ms.outputs[0].shape:
        return ""  # one input: a function of its values (several inputs: op_elements.py says where they part)
    if len(div.ms.inputs) != 1 or div.ms.inputs[0].shape != t.inputs[0].shape:
        return ""
    try:  # each side against torch's op in float64 on its own inputs: inputs that agree only within tolerance
        # (a tiny softplus tail fed to log) would otherwise charge the op with its inputs' error
        ref_t = module.rerun_op(torch_owner, t.index, [t.inputs[0].astype(np.float64)])[0]
        ref_m = module.rerun_op(torch_owner, t.index, [div.ms.inputs[0].astype(np.float64)])[0]
    except Exception:  # torch's op cannot be re-run alone in float64: nothing measured
        return ""
    # MindSpore's output shifted by its own reference's offset from torch's: both judged against one reference
    ms_as_if = div.ms.outputs[0].astype(np.float64) - (np.asarray(ref_m, np.float64) - np.asarray(ref_t, np.float64))
    return compared_to_float64(div.ms.name.rsplit(".", 1)[-1], t.name, t.outputs[0], ms_as_if, ref_t, t.inputs[0])
