"""A case's torch-side fingerprint: what a golden was recorded from, computed without importing torch.

The fingerprint is a sha256 over named parts, each itself a sha256:

- ``inputs``: every input spec (name, shape, dtype, distribution and its parameters, the bytes of
  given() values) and the loss targets;
- ``weights``: the weight fill ("seeded" or a constant);
- ``torch``, ``loss``, ``optimizer``, ``adapt_torch``: the *source text* of the torch factory, the
  torch half of the loss and optimizer pairs (or the preset name, with ``steps``) and the torch
  output adapter, together with the source of every function and class of your own code that they
  reference through globals, closures or defaults (transitively), and the value of plain constants
  they reference (numbers, strings, tuples, arrays).

The MindSpore side, tolerances, expectations, tags and docs are left out on purpose: editing the
port must not make the torch reference stale (that is the point of recording it). Not covered: code
that a factory imports inside its body (``import mymodels``) and third-party libraries; the manifest
records the torch version, and re-recording with ``--update`` picks such changes up.
Source text (not bytecode) keeps the fingerprint equal across Python versions and machines.
"""
from __future__ import annotations

import ast
import dataclasses
import functools
import hashlib
import inspect
import linecache
import os
import sys
import sysconfig
import types
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from migcheck.case import FrameworkPair, PairedCase
from migcheck.precision import as_precision

PARTS = ("inputs", "weights", "torch", "loss", "optimizer", "adapt_torch")


def case_fingerprint(case: PairedCase) -> Tuple[str, Dict[str, str]]:
    """(fingerprint, {part: sha256}) for the torch side of a case."""
    parts = {name: _sha(text) for name, text in fingerprint_texts(case).items()}
    return combine(parts), parts


def combine(parts: Dict[str, str]) -> str:
    return _sha("\n".join(f"{k}={parts[k]}" for k in sorted(parts)))


def fingerprint_texts(case: PairedCase) -> Dict[str, str]:
    """The text behind each part (useful to see why a golden is stale)."""
    inputs = [f"{name}: {_spec_text(spec)}" for name, spec in case.input_specs]
    optimizer = case.optimizer
    if isinstance(optimizer, FrameworkPair):
        opt_text = source_closure(optimizer.torch)
    else:
        opt_text = repr(optimizer)
    texts = {
        "inputs": "\n".join(inputs + [f"targets={list(case.targets)!r}"]),
        "weights": repr(case.weights),
        "torch": source_closure(case.torch),
        "loss": source_closure(case.loss.torch) if isinstance(case.loss, FrameworkPair) else "none",
        "optimizer": f"{opt_text}\nsteps={case.steps!r}",
        "adapt_torch": source_closure(case.adapt_torch) if case.adapt_torch is not None else "none",
    }
    if case.precision is not None:  # only when set, so float32 cases keep the fingerprints they were recorded with
        texts["precision"] = repr(as_precision(case.precision))
    return texts


def changed_parts(recorded: Dict[str, str], now: Dict[str, str]) -> List[str]:
    return [p for p in sorted(set(recorded) | set(now)) if recorded.get(p) != now.get(p)]


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _spec_text(spec: Any) -> str:
    fields = {f.name: getattr(spec, f.name) for f in dataclasses.fields(spec)}
    values = fields.pop("values", None)
    text = ", ".join(f"{k}={_stable(v)}" for k, v in sorted(fields.items()))
    if values is not None:
        text += f", values={_stable(np.asarray(values))}"
    return text


def source_closure(obj: Any) -> str:
    """The source of obj and of the user code it references, in a stable order."""
    seen: set = set()
    chunks: List[str] = []
    _visit(obj, seen, chunks)
    return "\n\n".join(chunks)


def _visit(obj: Any, seen: set, chunks: List[str]) -> None:
    if obj is None or isinstance(obj, types.ModuleType):
        return  # a module's version is the manifest's business; None carries nothing
    key = id(obj)
    if key in seen:
        return
    seen.add(key)
    if isinstance(obj, functools.partial):
        chunks.append(f"partial(args={_stable(obj.args)}, keywords={_stable(obj.keywords)})")
        _visit(obj.func, seen, chunks)
        return
    if isinstance(obj, (types.MethodType, staticmethod, classmethod)):
        _visit(obj.__func__, seen, chunks)
        return
    if inspect.isfunction(obj):
        if not _is_user_code(obj):
            chunks.append(f"function {obj.__module__}.{obj.__qualname__}")
            return
        chunks.append(_function_source(obj))
        _visit_references(obj, seen, chunks)
        return
    if inspect.isclass(obj):
        if not _is_user_code(obj):
            chunks.append(f"class {obj.__module__}.{obj.__qualname__}")
            return
        chunks.append(_class_source(obj))
        for base in obj.__bases__:
            _visit(base, seen, chunks)
        for value in vars(obj).values():
            if isinstance(value, property):
                for f in (value.fget, value.fset, value.fdel):
                    if f is not None:
                        _visit_references(f, seen, chunks)
            elif inspect.isfunction(value) or isinstance(value, (staticmethod, classmethod)):
                _visit_references(getattr(value, "__func__", value), seen, chunks)
        return
    chunks.append(_stable(obj))


def _visit_references(fn: Any, seen: set, chunks: List[str]) -> None:
    """Globals, closure cells and defaults a function uses: user code recursively, constants by value."""
    code = fn.__code__
    globals_ = fn.__globals__
    for name in sorted(_names(code)):
        # Dunders ('__name__' in a class body) name the module, which differs per path and process.
        if name in globals_ and not (name.startswith("__") and name.endswith("__")):
            _reference(name, globals_[name], seen, chunks)
    for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        _reference(name, value, seen, chunks)
    for i, value in enumerate(fn.__defaults__ or ()):
        _reference(f"default{i}", value, seen, chunks)
    for name, value in sorted((fn.__kwdefaults__ or {}).items()):
        _reference(name, value, seen, chunks)


def _reference(name: str, value: Any, seen: set, chunks: List[str]) -> None:
    if value is None or isinstance(value, types.ModuleType):
        return
    if callable(value) and (inspect.isfunction(value) or inspect.isclass(value)
                            or isinstance(value, (functools.partial, types.MethodType))):
        _visit(value, seen, chunks)
    elif isinstance(value, (PairedCase, FrameworkPair)):
        return  # another case or pair: its own fingerprint covers it
    else:
        chunks.append(f"{name} = {_stable(value)}")


def _names(code: types.CodeType) -> set:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def _stable(value: Any, depth: int = 0) -> str:
    """A representation with no memory addresses, equal across processes and machines."""
    if depth > 6:
        return "..."
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return repr(value)
    if isinstance(value, (np.ndarray, np.generic)):
        arr = np.ascontiguousarray(value)
        return f"array({arr.dtype}, {arr.shape}, sha256={hashlib.sha256(arr.tobytes()).hexdigest()[:16]})"
    if isinstance(value, (tuple, list)):
        inner = ", ".join(_stable(v, depth + 1) for v in value[:256])
        return f"[{inner}{', ...' if len(value) > 256 else ''}]"
    if isinstance(value, dict):
        items = sorted(((_stable(k, depth + 1), _stable(v, depth + 1)) for k, v in value.items()))
        return "{" + ", ".join(f"{k}: {v}" for k, v in items) + "}"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        inner = ", ".join(f"{f.name}={_stable(getattr(value, f.name), depth + 1)}" for f in dataclasses.fields(value))
        return f"{type(value).__qualname__}({inner})"
    return f"<{type(value).__module__}.{type(value).__qualname__}>"


# ---- source text -------------------------------------------------------------------------------

def _function_source(fn: types.FunctionType) -> str:
    code = fn.__code__
    if code.co_name == "<lambda>":
        text = _lambda_source(fn)
        if text is not None:
            return text
    try:
        return _normalise(inspect.getsource(fn))
    except (OSError, TypeError):
        # No source file (exec'd text): the bytecode stands in, equal within one Python version.
        return f"code {code.co_name} {code.co_code.hex()} names={sorted(_names(code))} consts={_stable(_plain_consts(code))}"


def _plain_consts(code: types.CodeType) -> list:
    return [c for c in code.co_consts if not isinstance(c, types.CodeType)]


def _lambda_source(fn: types.FunctionType) -> Optional[str]:
    """Just the lambda expression, not its neighbours on the line (e.g. the MindSpore lambda)."""
    code = fn.__code__
    tree, source = _parsed(code.co_filename, fn.__globals__)
    if tree is None:
        return None
    candidates = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and n.lineno == code.co_firstlineno]
    if len(candidates) > 1:  # e.g. torch=lambda: ..., mindspore=lambda: ... on one line: the one compiled here
        same = [n for n in candidates if _same_code(ast.get_source_segment(source, n), code)]
        candidates = same[:1] or candidates
    if len(candidates) > 1 and hasattr(code, "co_positions"):
        starts = [(line, col) for line, _, col, end_col in code.co_positions()
                  if line is not None and col is not None and (col, end_col) != (0, 0)]
        if starts:
            first = min(starts)
            inside = [n for n in candidates
                      if (n.body.lineno, n.body.col_offset) <= first <= (n.end_lineno, n.end_col_offset)]
            candidates = inside or candidates
            if len(candidates) > 1:  # nested lambdas: the innermost that holds the body
                candidates = [max(candidates, key=lambda n: (n.lineno, n.col_offset))]
    if not candidates:
        return None
    # Several candidates only on Python < 3.11 with lambdas sharing a line: all of them, in order.
    return "\n".join(_normalise(ast.get_source_segment(source, n) or "") for n in candidates)


def _same_code(segment: Optional[str], code: types.CodeType) -> bool:
    """Whether a lambda's source compiles to this code object (same Python: same bytecode)."""
    if not segment:
        return False
    try:
        compiled = compile("(" + segment + ")", code.co_filename, "eval")
    except SyntaxError:
        return False
    lam = next((c for c in compiled.co_consts if isinstance(c, types.CodeType)), None)
    return lam is not None and (lam.co_code, lam.co_names, _plain_consts(lam)) == (
        code.co_code, code.co_names, _plain_consts(code))


_PARSED: Dict[str, Tuple[Optional[ast.AST], str]] = {}


def _parsed(filename: str, module_globals: Dict[str, Any]) -> Tuple[Optional[ast.AST], str]:
    if filename not in _PARSED:
        lines = linecache.getlines(filename, module_globals)
        source = "".join(lines)
        try:
            tree: Optional[ast.AST] = ast.parse(source) if source else None
        except SyntaxError:
            tree = None
        _PARSED[filename] = (tree, source)
    return _PARSED[filename]


def _class_source(cls: type) -> str:
    try:
        return _normalise(inspect.getsource(cls))
    except (OSError, TypeError):
        return f"class {cls.__qualname__} (no source)"


def _normalise(text: str) -> str:
    lines = text.replace("\r\n", "\n").split("\n")
    return "\n".join(line.rstrip() for line in lines).strip("\n")


# ---- whose code is it --------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _library_roots() -> Tuple[str, ...]:
    paths = sysconfig.get_paths()
    roots = {paths.get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    roots |= {p for p in sys.path if p.rstrip(os.sep).endswith(("site-packages", "dist-packages"))}
    return tuple(sorted(os.path.realpath(r) + os.sep for r in roots if r))


def _is_user_code(obj: Any) -> bool:
    """Defined in a file outside the standard library, site-packages and migcheck itself."""
    module = getattr(obj, "__module__", None) or ""
    if module == "migcheck" or module.startswith("migcheck."):
        return False
    mod = sys.modules.get(module)
    path = getattr(mod, "__file__", None)
    if not path:
        return module.startswith("migcheck_cases_")
    real = os.path.realpath(path)
    return not any(real.startswith(root) for root in _library_roots())
