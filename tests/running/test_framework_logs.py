"""Native stderr (MindSpore's C++ logs) is captured per item: never in the terminal, kept on the verdict
and its cell page with the analyze_fail.ir excerpt; --show-framework-logs lets it through live."""
from __future__ import annotations

import pytest

import json
import os
import subprocess
import sys

from migcheck.running.fdcapture import captured_stderr, excerpt

# A GRAPH compile failure that MindSpore logs in C++ ([ERROR] ANALYZER ...) before raising:
# the MindSpore side multiplies x (4,3) by itself, which only a shape inference can reject.
GRAPH_FAILURE = '''
from migcheck import PairedCase, uniform


def torch_net():
    import torch
    return torch.nn.Identity()


def ms_net():
    import mindspore
    from mindspore import ops

    class SelfMatmul(mindspore.nn.Cell):
        def construct(self, x):
            return ops.matmul(x, x)

    return SelfMatmul()


self_matmul = PairedCase(torch=torch_net, mindspore=ms_net, inputs={"x": uniform(4, 3)}, checks=("forward",))
'''


def _compare(tmp_path, *extra):
    (tmp_path / "cases").mkdir(exist_ok=True)
    (tmp_path / "cases" / "graph_fail.py").write_text(GRAPH_FAILURE)
    env = {k: v for k, v in os.environ.items() if k not in ("GLOG_v", "MIGCHECK_REPORT_DIR")}
    return subprocess.run([sys.executable, "-m", "migcheck.cli", "compare", "cases", "--mode", "graph", "--color",
                           "never", *extra], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**env, "PYTHONPATH": os.getcwd()})


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_graph_compile_failure_keeps_mindspore_logs_out_of_the_terminal_and_on_the_cell_page(tmp_path):
    proc = _compare(tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    terminal = proc.stdout + proc.stderr
    assert "[ERROR]" not in terminal and "ANALYZER" not in terminal, terminal
    assert proc.stdout.startswith("cases/graph_fail.py E\n")
    (verdict,) = json.loads((tmp_path / "reports" / "latest" / "summary.json").read_text())["verdicts"]
    # A shape bug, not a GRAPH limit: PYNATIVE fails the same way, so no GRAPH hint (its banner notwithstanding).
    assert verdict["kind"] == "error" and "rejected its input shapes" in verdict["message"]
    assert "[ERROR] ANALYZER" in verdict["framework_log"] and "MatMul" in verdict["framework_log"]
    assert "--- analyze_fail.ir (MindSpore's file, first 80 lines; copied here, then deleted) ---" \
           in verdict["framework_log"]
    assert "Caught exception" in verdict["framework_log"]  # the IR file's own head, copied before deletion
    page = (tmp_path / "reports" / "latest" / "cells" / "self_matmul.html").read_text()
    assert "Framework log (MindSpore/torch stderr during this item)" in page and "[ERROR] ANALYZER" in page
    assert not (tmp_path / "rank_0").exists()


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_show_framework_logs_lets_them_through_live(tmp_path):
    proc = _compare(tmp_path, "--show-framework-logs", "--no-report")
    assert proc.returncode == 1
    assert "[ERROR] ANALYZER" in proc.stderr


def test_captured_stderr_catches_writes_to_the_descriptor_itself():
    with captured_stderr() as captured:
        os.write(2, b"native line\n")  # as C++ code writes: below sys.stderr (which pytest replaces here)
    assert captured.text == "native line\n"
    with captured_stderr(enabled=False) as off:
        pass
    assert off.text == ""


def test_a_long_log_keeps_its_start_and_its_end():
    text = "first error\n" + "x" * 20000 + "\nlast error"
    kept = excerpt(text)
    assert kept.startswith("first error") and kept.endswith("last error") and "characters left out" in kept
    assert len(kept) < 9000
