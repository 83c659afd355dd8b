"""A stand-in for torchvision where it cannot import (this machine's torch build has no torchvision).

timm imports torchvision at module level for its data pipeline and FrozenBatchNorm2d; the models the zoo
corpus builds never call it. install() registers a finder that answers any `torchvision.*` import with
an empty package whose names are placeholders that refuse to be instantiated, so a code path that did
need torchvision fails loudly instead of computing something else. Scoring process only.
"""
from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types


class _Absent(type):
    def __getattr__(cls, name: str) -> str:
        if name.startswith("__"):
            raise AttributeError(name)
        return f"{cls.__name__}.{name}"  # enum members used as dict keys at import time (InterpolationMode.NEAREST)


class _Placeholder(metaclass=_Absent):
    def __init__(self, *args, **kwargs):
        raise RuntimeError(f"{type(self).__name__}: torchvision is not importable here (stand-in only)")


class _Package(types.ModuleType):
    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return type(name, (_Placeholder,), {})


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        if fullname == "torchvision" or fullname.startswith("torchvision."):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        module = _Package(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass


def install() -> None:
    """Only when the real torchvision is absent (a real one, if it imports, is always used)."""
    if "torchvision" in sys.modules or any(isinstance(f, _Finder) for f in sys.meta_path):
        return
    try:
        import torchvision  # noqa: F401
        return
    except Exception:
        sys.modules.pop("torchvision", None)
    sys.meta_path.insert(0, _Finder())
