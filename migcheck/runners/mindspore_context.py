"""MindSpore's process-wide context: mode and backend, threads, the scratch folder GRAPH failures write into
(its analyze_fail.ir kept as an excerpt), PYNATIVE for a block, and errors still queued in the runtime."""
from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import tempfile
from typing import Dict, Iterator, List, Optional

os.environ.setdefault("GLOG_v", "3")  # MindSpore's C++ logger: errors only unless the user chose

import mindspore as ms  # noqa: E402

_MODES = {"pynative": ms.PYNATIVE_MODE, "graph": ms.GRAPH_MODE}
_TARGETS = {"cpu": "CPU", "gpu": "GPU", "ascend": "Ascend"}
_configured: Dict[str, Optional[str]] = {"backend": None}
GRAPH_ERROR_MARKER = "The Traceback of Net Construct Code"


def backend_unavailable(backend: str, device_id: Optional[int] = None) -> Optional[str]:
    """None when the backend (and device id) can run here, else the reason (public API: mindspore.hal)."""
    target = _TARGETS.get(backend)
    if target is None:
        return f"unknown backend {backend!r}; use one of {', '.join(_TARGETS)}"
    try:
        available = ms.hal.is_available(target)
    except Exception as exc:  # a broken plugin must read as "not here", not crash the run
        return f"MindSpore cannot probe {target}: {exc}"
    if not available:  # said first: it holds whatever this process ran before
        return (f"MindSpore {target} backend is not available on this machine (mindspore.hal.is_available({target!r})"
                f" is False); use --backend cpu, or --backend auto for what is here")
    if _configured["backend"] not in (None, backend):
        return f"this process already runs MindSpore on {_configured['backend']}; run {backend} in its own process"
    if device_id is not None and backend != "cpu":
        try:
            count = ms.hal.device_count(target)
        except Exception as exc:
            return f"MindSpore cannot count {target} devices: {exc}"
        if not 0 <= device_id < count:
            return f"MindSpore sees {count} {target} device(s) here; device id {device_id} does not exist"
    return None


def set_threads(count: int) -> bool:
    """Threads for MindSpore's CPU kernels (public mindspore.device_context.cpu.op_tuning.threads_num; its
    default is 25). Only before the first kernel runs, once per process: False when it can no longer be set."""
    try:
        ms.device_context.cpu.op_tuning.threads_num(count)
    except (RuntimeError, AttributeError):
        return False
    return True


def auto_backend() -> str:
    """The backend --backend auto means: Ascend, else GPU, else CPU, whichever mindspore.hal reports first."""
    for backend in ("ascend", "gpu", "cpu"):
        try:
            if ms.hal.is_available(_TARGETS[backend]):
                return backend
        except Exception:  # a broken plugin reads as "not here"
            continue
    return "cpu"


def configure(mode: str, backend: str, device_id: Optional[int] = None) -> None:
    if _configured["backend"] is None:
        try:
            if device_id is None:
                ms.set_device(_TARGETS[backend])
            else:
                ms.set_device(_TARGETS[backend], device_id)
            # Without this, a CPU kernel error can surface on a later, unrelated op.
            ms.runtime.launch_blocking()
        except RuntimeError:
            # The runtime already started (kernels ran before migcheck was asked): fine on the same target.
            if ms.get_context("device_target") != _TARGETS[backend]:
                raise
        _configured["backend"] = backend
    ms.set_context(mode=_MODES[mode])
    _configured["mode"] = mode


def context_changes() -> List[str]:
    """What a case changed in MindSpore's context since configure() (its factory set another mode): put back."""
    mode = _configured.get("mode")
    if mode is None or ms.get_context("mode") == _MODES[mode]:
        return []
    now = next((name for name, value in _MODES.items() if value == ms.get_context("mode")), ms.get_context("mode"))
    ms.set_context(mode=_MODES[mode])
    return [f"MindSpore context mode {mode} -> {now}"]


@contextlib.contextmanager
def scratch_cwd(mode: str) -> Iterator[None]:
    """GRAPH-mode failures write rank_0/ into the working directory: keep it out of the user's tree."""
    if mode != "graph":
        yield
        return
    here = os.getcwd()
    os.chdir(_scratch_dir())
    try:
        yield
    finally:
        os.chdir(here)


_SCRATCH: Dict[str, str] = {}


def _scratch_dir() -> str:
    if "dir" not in _SCRATCH:
        _SCRATCH["dir"] = tempfile.mkdtemp(prefix="migcheck-ms-")
        atexit.register(shutil.rmtree, _SCRATCH["dir"], ignore_errors=True)
    return _SCRATCH["dir"]


IR_LINES = 80  # of an analyze_fail.ir: its head names the exception and the failing node


def take_ir_dumps() -> str:
    """The analyze_fail*.ir files MindSpore wrote during the last item (GRAPH compile failures), as an
    excerpt, and remove them: the scratch folder is deleted at exit, so the logs' "See file
    '.../analyze_fail.ir'" would otherwise point at nothing. "" when there are none."""
    root = _SCRATCH.get("dir")
    if not root or not os.path.isdir(root):
        return ""
    parts = []
    for dirpath, _, names in sorted(os.walk(root)):
        for name in sorted(names):
            if not (name.startswith("analyze_fail") and name.endswith(".ir")):
                continue
            path = os.path.join(dirpath, name)
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    lines = [next(f, "") for _ in range(IR_LINES)]
                os.unlink(path)
            except OSError:
                continue
            text = "".join(lines).rstrip("\n")
            parts.append(f"--- {name} (MindSpore's file, first {IR_LINES} lines; copied here, then deleted) ---\n{text}")
    return "\n".join(parts)


@contextlib.contextmanager
def pynative() -> Iterator[None]:
    """Run a block in PYNATIVE mode (forward hooks work only there), then restore the mode."""
    before = ms.get_context("mode")
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        yield
    finally:
        ms.set_context(mode=before)


def flush_pending_errors() -> None:
    """Wait for MindSpore's queued kernels and drop what they raise: after a failing item, so that an error
    still in flight surfaces there, not on the next item's first op (PYNATIVE launches asynchronously)."""
    try:
        ms.runtime.synchronize()
    except Exception:  # the failure already reported
        pass


def is_graph_compile_error(exc: BaseException) -> bool:
    return GRAPH_ERROR_MARKER in str(exc)
