"""The terminal summary: one line per verdict, failures expanded, counts at the end."""
from __future__ import annotations

from collections import Counter
from typing import Sequence

from migcheck.compare import fmt_shape
from migcheck.verdict import STATUSES, Verdict

_COLOURS = {"pass": "32", "xfail": "33", "skip": "36", "fail": "31", "xpass": "31", "error": "35"}


def _paint(text: str, status: str, colour: bool) -> str:
    return f"\x1b[{_COLOURS[status]}m{text}\x1b[0m" if colour else text


def verdict_line(v: Verdict, colour: bool = False) -> str:
    return f"{_paint(v.status.upper().ljust(5), v.status, colour)}  {v.item}  {v.message}"


def failure_details(v: Verdict) -> list[str]:
    """Indented lines that explain a verdict that is not as expected."""
    out = []
    if v.expected != "pass":
        out.append(f"expected: {v.expected}")
    out += [f"weight transfer: {p}" for p in v.structure]
    for t in v.tensors:
        if t.ok:
            continue
        line = f"{t.name}: {t.kind}; torch {fmt_shape(t.torch_shape)} {t.torch_dtype}, mindspore {fmt_shape(t.ms_shape)} {t.ms_dtype}"
        if t.kind in ("value", "nonfinite"):
            line += (f"; max abs {t.max_abs_err:.4g}, max rel {t.max_rel_err:.4g}, {t.mismatched}/{t.total} mismatched,"
                     f" cosine {t.cosine if t.cosine is None else round(t.cosine, 6)}")
        out.append(line)
    if v.error:
        out += v.error.splitlines()[-6:]
    return out


def render(verdicts: Sequence[Verdict], errors: Sequence[str] = (), colour: bool = False,
           include_expected: bool = True) -> str:
    """The summary; include_expected=False when the lines were already streamed during the run."""
    lines = []
    for v in verdicts:
        if include_expected or not v.as_expected:
            lines.append(verdict_line(v, colour))
        if not v.as_expected:
            lines += ["        " + d for d in failure_details(v)]
    for e in errors:
        lines.append(_paint("ERROR", "error", colour) + f"  {e}")
    counts = Counter(v.status for v in verdicts)
    parts = [f"{counts[s]} {s}" for s in STATUSES if counts.get(s)]
    if errors:
        parts.append(f"{len(errors)} collection error(s)")
    unexpected = sum(not v.as_expected for v in verdicts) + len(errors)
    verdict = "all as expected" if not unexpected else f"{unexpected} not as expected"
    lines.append(f"== {', '.join(parts) or 'nothing run'}: {verdict} ==")
    return "\n".join(lines)
