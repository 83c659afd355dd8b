"""Under pytest-xdist each worker caps torch's and MindSpore's CPU threads at cores / workers."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from migcheck.pytest_plugin import THREADS_ENV, worker_threads


def config(workers=None):
    return SimpleNamespace() if workers is None else SimpleNamespace(workerinput={"workercount": workers})


@pytest.fixture
def cores(monkeypatch):
    def set_cores(n):
        monkeypatch.setattr("os.sched_getaffinity", lambda pid: set(range(n)), raising=False)
        monkeypatch.setattr("os.cpu_count", lambda: n)
    return set_cores


def test_no_limit_outside_xdist(monkeypatch):
    monkeypatch.delenv(THREADS_ENV, raising=False)
    assert worker_threads(config()) is None


@pytest.mark.parametrize("n_cores, workers, threads", [(2, 2, 1), (16, 4, 4), (2, 4, 1), (8, 3, 2)])
def test_cores_divided_among_workers(monkeypatch, cores, n_cores, workers, threads):
    monkeypatch.delenv(THREADS_ENV, raising=False)
    cores(n_cores)
    assert worker_threads(config(workers)) == threads


def test_the_environment_variable_sets_or_turns_off_the_limit(monkeypatch, cores):
    cores(8)
    monkeypatch.setenv(THREADS_ENV, "3")
    assert worker_threads(config(2)) == 3
    monkeypatch.setenv(THREADS_ENV, "0")
    assert worker_threads(config(2)) is None
