"""A short text for one functional call the torch runner records ("F.softmax(dim=-1)", "Tensor * 0.3536"):
pure, so localization's op trace shows the same names the recorder wrote."""
from __future__ import annotations

from typing import Any, Sequence, Tuple

import numpy as np

# Reads of metadata and conversions: never the cause, only noise in the list (the capture hooks convert outputs
# with cpu, numpy and resolve_conj/resolve_neg).
_QUIET = frozenset({"size", "dim", "numel", "shape", "dtype", "device", "is_floating_point", "is_contiguous",
                    "contiguous", "item", "tolist", "detach", "requires_grad_", "__get__", "__len__", "__repr__",
                    "__format__", "__bool__", "__index__", "__iter__", "__hash__", "__eq__", "__ne__", "stride",
                    "data_ptr", "element_size", "__setstate__", "__reduce_ex__", "__deepcopy__", "get_device",
                    "cpu", "numpy", "resolve_conj", "resolve_neg", "is_conj", "is_neg"})
_OPERATORS = {"__add__": "+", "__radd__": "+", "__iadd__": "+=", "__sub__": "-", "__rsub__": "-", "__mul__": "*",
              "__rmul__": "*", "__imul__": "*=", "__truediv__": "/", "__rtruediv__": "/", "__itruediv__": "/=",
              "__matmul__": "@", "__rmatmul__": "@", "__pow__": "**", "__rpow__": "**", "__floordiv__": "//",
              "__mod__": "%", "__neg__": "-", "__lt__": "<", "__gt__": ">", "__le__": "<=", "__ge__": ">=",
              "__and__": "&", "__or__": "|", "__invert__": "~", "__getitem__": "[]"}



def describe(name: str, qualname: str, module: str, scalars: Sequence[Any], keywords: Sequence[Tuple[str, Any]]
             ) -> str:
    """A short name for one call, with its non-tensor arguments; "" for calls that only read metadata."""
    if not name or name in _QUIET:
        return ""
    shown = [_value(v) for v in scalars] + [f"{k}={_value(v)}" for k, v in keywords]
    if name in _OPERATORS:
        return f"Tensor {_OPERATORS[name]} {', '.join(shown)}".rstrip()
    owner = ("Tensor." if qualname.startswith(("Tensor.", "TensorBase.", "_TensorBase.")) else
             "F." if module.endswith("nn.functional") else "torch.")
    return f"{owner}{name}({', '.join(shown)})"


def _value(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, (tuple, list)):
        return "(" + ", ".join(_value(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    return repr(v)


def float_text(v: float) -> str:
    """A float as 4 significant digits that still reads as a float (10.0, not 10: a raising call's argument
    types matter)."""
    text = f"{v:.4g}"
    return text if any(c in text for c in ".eni") else text + ".0"


def written_back(sliced: Tuple[Any, Any, Any], out: Any) -> bool:
    """The base of an index result holds the in-place call's result at that index (a view, or written back)."""
    _, base, index = sliced
    if not hasattr(out, "asnumpy"):  # no tensor result
        return True
    try:
        return bool(np.array_equal(base[index].asnumpy(), out.asnumpy(), equal_nan=True))
    except Exception:  # an index the base no longer takes: no claim
        return True


def index_text(index: Any) -> str:
    """An index as the port wrote it: (slice(None), slice(2, None)) -> "[:, 2:]"."""
    def one(i: Any) -> str:
        if isinstance(i, slice):
            text = f"{'' if i.start is None else i.start}:{'' if i.stop is None else i.stop}"
            return text + (f":{i.step}" if i.step is not None else "")
        return "..." if i is Ellipsis else "None" if i is None else repr(i) if isinstance(i, (int, bool)) else "idx"
    return "[" + ", ".join(one(i) for i in (index if isinstance(index, tuple) else (index,))) + "]"
