"""Shared helpers for migcheck's own tests.

Case files written by these helpers import torch and mindspore inside their factories, so that
discovery, `migcheck list` and pytest collection stay fast; only running an item imports them.
"""
from __future__ import annotations

import atexit
import importlib.util
import os
import shutil
import tempfile
import textwrap
from pathlib import Path

import pytest

# `migcheck list` keeps a discovery cache (migcheck.planning.cache): the tests' runs keep theirs in a
# folder of their own, never in the checkout's .migcheck-cache/.
if "MIGCHECK_CACHE_DIR" not in os.environ:
    os.environ["MIGCHECK_CACHE_DIR"] = tempfile.mkdtemp(prefix="migcheck-test-cache-")
    atexit.register(shutil.rmtree, os.environ["MIGCHECK_CACHE_DIR"], ignore_errors=True)

# Subprocess runs (pytester's, `python -m migcheck.cli` in a temporary folder) import this checkout's migcheck,
# not the one the environment's editable install points at (a git worktree shares its main checkout's .venv).
os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in (str(Path(__file__).resolve().parents[1]), os.environ.get("PYTHONPATH", "")) if p)

# `migcheck compare` writes reports/latest/ unless told otherwise: each test's runs write theirs in a
# folder of the test's own (a report folder is locked while a run writes it; xdist workers share an env).
@pytest.fixture(autouse=True)
def _own_report_folder(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("MIGCHECK_REPORT_DIR", str(tmp_path_factory.mktemp("reports") / "latest"))

# pytester drives the pytest plugin in subprocesses (tests/test_pytest_plugin.py).
pytest_plugins = ["pytester"]

# Tests say what they need: `needs_torch`, `needs_mindspore`. Where that framework is not installed
# they skip with the reason, so a run without the frameworks tells "needs torch" from "broken".
FRAMEWORKS = {"torch": "torch", "mindspore": "MindSpore"}
MISSING = {name for name in FRAMEWORKS if importlib.util.find_spec(name) is None}


def pytest_configure(config):
    for name, label in FRAMEWORKS.items():
        config.addinivalue_line("markers", f"needs_{name}: the test runs {label}; skipped where it is not installed")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    for name in sorted(MISSING):
        if item.get_closest_marker(f"needs_{name}"):
            pytest.skip(f"needs {FRAMEWORKS[name]}, which is not installed here")
    if item.get_closest_marker("needs_mindspore") and "mindspore" not in MISSING:
        # the engine configures MindSpore before any kernel runs (launch_blocking: a kernel error raises at its
        # own op); a test that runs a kernel directly first would leave it unset for every later test in the worker
        from migcheck.runners.mindspore_context import configure

        configure("pynative", "cpu")


REPO = Path(__file__).resolve().parents[1]

# Tiny real layers: torch.nn.Linear(3, 2) and its MindSpore ports, right and wrong.
CASE_PRELUDE = '''
from migcheck import PairedCase, Tolerance, given, integers, mask, uniform


def torch_linear():
    import torch
    return torch.nn.Linear(3, 2)


def ms_dense():
    import mindspore
    return mindspore.nn.Dense(3, 2)


def ms_dense_relu():
    # Wrong port: MindSpore's Dense takes an activation, torch's Linear has none.
    import mindspore
    return mindspore.nn.Dense(3, 2, activation="relu")


def ms_dense_shifted():
    # Off by 0.01 everywhere: fails the float32 default, passes with atol=0.02 (weights under 'fc.').
    import mindspore

    class Shifted(mindspore.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = mindspore.nn.Dense(3, 2)

        def construct(self, x):
            return self.fc(x) + 0.01

    return Shifted()


SHIFTED_MAP = {"weight": "fc.weight", "bias": "fc.bias"}


def ms_dense_no_bias():
    # Wrong port: the bias is dropped, so torch's 'bias' has no MindSpore counterpart.
    import mindspore
    return mindspore.nn.Dense(3, 2, has_bias=False)


def torch_layer_norm():
    import torch
    return torch.nn.LayerNorm(4)  # eps=1e-5


def ms_layer_norm():
    # Wrong port: MindSpore's LayerNorm defaults to epsilon=1e-7.
    import mindspore
    return mindspore.nn.LayerNorm((4,))


def ms_dense_scaled():
    # Wrong port: every output is 1% too large (weights live under 'dense.').
    import mindspore

    class Scaled(mindspore.nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = mindspore.nn.Dense(3, 2)

        def construct(self, x):
            return self.dense(x) * 1.01

    return Scaled()


X = {"x": uniform(4, 3)}
FORWARD = ("forward",)
'''


def case_source(body: str) -> str:
    """A case file: the prelude above followed by the given case definitions."""
    return CASE_PRELUDE + "\n" + textwrap.dedent(body)


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


@pytest.fixture
def case_text():
    """case_text(body) -> the source of a case file (prelude + body), for pytester projects."""
    return case_source


@pytest.fixture
def write_case_file(tmp_path: Path):
    """write_case_file(relative_path, body, prelude=True) -> Path of the written file."""

    def write(relative: str, body: str, prelude: bool = True) -> Path:
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(case_source(body) if prelude else textwrap.dedent(body))
        return path

    return write
