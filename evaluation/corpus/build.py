"""Helpers that turn (torch factory, naive MindSpore factory, correct MindSpore factory) into an Entry."""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Optional, Sequence, Tuple

from migcheck.case import PairedCase
from evaluation.corpus import Entry

PAGES = "docs/mindspore/source_en/note/api_mapping/pytorch_diff/"


def entry(name: str, family: str, source: str, torch: Callable[[], Any], naive: Callable[[], Any],
          correct: Callable[[], Any], layers: Sequence[str], causes: Sequence[str], *, inputs: Any,
          checks: Tuple[str, ...] = ("forward",), fails_with: str = "value", diagnosis: Optional[str] = None,
          cause_pattern: str = "", **case_fields: Any) -> Entry:
    """One Entry whose two cases differ only in the MindSpore factory."""
    base = PairedCase(torch=torch, mindspore=correct, inputs=inputs, checks=checks, modes=("pynative",),
                      name=f"{name}_correct", doc=f"correct port ({source})", tags=("corpus", family), **case_fields)
    bad = dataclasses.replace(base, mindspore=naive, name=f"{name}_naive", doc=f"naive port ({source})",
                              expect="fail", fails_with=fails_with, diagnosis=diagnosis)
    src = source if "/" in source or source.startswith("model:") else PAGES + source + ".md"
    return Entry(name, family, src, bad, base, tuple(layers), tuple(causes), cause_pattern)


NORM_LEAVES = {"weight": "gamma", "bias": "beta", "running_mean": "moving_mean", "running_var": "moving_variance"}


def renamer(prefixes: Sequence[Tuple[str, str]], norms: Sequence[str] = ()) -> Callable[[str], Optional[str]]:
    """A porter's weight map: torch module prefix -> MindSpore cell prefix; norm layers' leaves renamed."""
    def rename(name: str) -> Optional[str]:
        for torch_prefix, ms_prefix in prefixes:
            if name.startswith(torch_prefix + "."):
                leaf = name[len(torch_prefix) + 1:]
                if leaf == "num_batches_tracked":
                    return None
                return f"{ms_prefix}.{NORM_LEAVES.get(leaf, leaf) if torch_prefix in norms else leaf}"
        return None
    return rename
