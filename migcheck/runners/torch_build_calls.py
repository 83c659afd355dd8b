"""The torch calls a module's own constructor code makes (e.g. `torch.hann_window(16)`, `2.0 ** torch.linspace(...)`),
recorded through a TorchFunctionMode while the module is built, and a rebuild with one call's argument changed.
A call made inside torch.nn (a layer's own initialisation) is not the module's code and is left out. Parameter
names and defaults come from torch.overrides' signature table or the function's docstring (torch's own
functions have no Python signature)."""
from __future__ import annotations

import functools
import inspect
import os
from typing import Any, Callable, Dict, List, Optional, Tuple

import torch
from torch.overrides import TorchFunctionMode, get_testing_overrides

from migcheck.records.constants import BuildCall, BuildChange
from migcheck.runners.build_calls import plain_pairs
from migcheck.runners.torch_ops import doc_signature


@functools.lru_cache(maxsize=1)
def _signatures() -> Dict[Any, Any]:
    return get_testing_overrides()


def _name(func: Any) -> str:
    owner = getattr(func, "__objclass__", None) or getattr(func, "__self__", None)
    qual = getattr(func, "__qualname__", getattr(func, "__name__", str(func)))
    if owner is torch.Tensor or qual.startswith(("Tensor.", "_TensorBase.", "TensorBase.")):
        return "torch.Tensor." + qual.rpartition(".")[2]
    return f"torch.{getattr(func, '__name__', qual)}"


def _user_site() -> Optional[str]:
    """file:line of the module's code that made the call, or None when a torch.nn layer made it."""
    frame = inspect.currentframe()
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module.startswith("torch.nn") or module.startswith("torch.ao"):
            return None
        if not module.startswith(("torch", "migcheck")):
            return f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno}"
        frame = frame.f_back
    return None


def _signature(func: Any) -> Optional[inspect.Signature]:
    """From torch.overrides' table; for a factory function it leaves out (torch.hann_window), from the
    docstring's first line."""
    lam = _signatures().get(func)
    if lam is not None:
        return inspect.signature(lam)
    first = ((getattr(func, "__doc__", None) or "").strip().splitlines() or [""])[0]
    return doc_signature(first, method=getattr(func, "__objclass__", None) is not None)


def _bound(func: Any, args: tuple, kwargs: dict) -> Tuple[Tuple[Tuple[str, Any], ...], Tuple[str, ...]]:
    try:
        sig = _signature(func)
        bound = sig.bind_partial(*args, **kwargs) if sig is not None else None
    except (TypeError, ValueError):
        bound = None
    if bound is None:
        return plain_pairs([(f"arg{i}", a) for i, a in enumerate(args)] + list(kwargs.items())), ()
    given = dict(bound.arguments)
    bound.apply_defaults()
    defaulted = tuple(k for k in bound.arguments if k not in given)
    return plain_pairs(bound.arguments.items()), defaulted


class _Recorder(TorchFunctionMode):
    def __init__(self, change: Optional[BuildChange] = None, limit: int = 64) -> None:
        super().__init__()
        self.calls: List[BuildCall] = []
        self.counts: Dict[str, int] = {}
        self.change = change
        self.limit = limit

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: Optional[dict] = None) -> Any:
        kwargs = dict(kwargs or {})
        site = _user_site()
        if site is not None:
            name = _name(func)
            ordinal = self.counts.get(name, 0)
            self.counts[name] = ordinal + 1
            if self.change is not None and (name, ordinal) == (self.change.function, self.change.ordinal):
                args, kwargs = _changed(func, args, kwargs, self.change)
            elif self.change is None and len(self.calls) < self.limit:
                arguments, defaulted = _bound(func, args, kwargs)
                self.calls.append(BuildCall(name, ordinal, arguments, defaulted, site))
        return func(*args, **kwargs)


def _changed(func: Any, args: tuple, kwargs: dict, change: BuildChange) -> Tuple[tuple, dict]:
    sig = _signature(func)
    if sig is None:
        return args, {**kwargs, change.argument: change.value}
    bound = sig.bind_partial(*args, **kwargs)
    bound.arguments[change.argument] = change.value
    return bound.args, bound.kwargs


def torch_build_calls(factory: Callable[[], Any]) -> Tuple[Any, List[BuildCall]]:
    """Build the torch module, recording the torch calls its own code makes."""
    recorder = _Recorder()
    with recorder:
        built = factory()
    return built, recorder.calls


def torch_built_with(factory: Callable[[], Any], change: BuildChange) -> Any:
    with _Recorder(change):
        return factory()
