"""The docs site (mkdocs.yml over docs/) builds with `mkdocs build --strict`: a broken link or anchor, or a
page left out of the nav, fails the build and so this test."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MISSING = [name for name in ("mkdocs", "material") if importlib.util.find_spec(name) is None]


@pytest.mark.skipif(bool(MISSING), reason="needs mkdocs and mkdocs-material (the `docs` extra; scripts/dev.sh"
                                          " installs them), which are not installed here")
def test_the_site_builds_strictly(tmp_path):
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    pages = sorted(p.stem for p in (ROOT / "docs").glob("*.md"))
    built = [p for p in pages if (tmp_path / "site" / ("" if p == "index" else p) / "index.html").is_file()]
    assert built == pages
