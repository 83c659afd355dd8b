"""One Markdown page per case: verdicts, failing tensors with metrics, mapping problems, weight pairs."""
from __future__ import annotations

from pathlib import Path
from typing import List, Sequence

from migcheck.util.atomic import atomic_write_text
from migcheck.judging.compare import TensorComparison, fmt_shape
from migcheck.report.condense import FOLD_FROM, Fold, detailed, folded_rows, layer_of, pair_groups, renamed_suffix, same_table_as
from migcheck.report.jsonfile import by_case, safe_name
from migcheck.judging.verdict import Verdict
from migcheck.localization.locate import row_error


def _g(x: object) -> str:
    return f"{x:.3g}" if isinstance(x, float) else ("-" if x is None else str(x))


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def tensor_table(tensors: Sequence[TensorComparison]) -> List[str]:
    lines = ["| tensor | ok | torch | mindspore | max abs err | max rel err | mismatched | cosine | min atol | min rtol | tolerance |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for t in tensors:
        lines.append(
            f"| `{t.name}` | {'yes' if t.ok else '**no**: ' + str(t.kind)} | {fmt_shape(t.torch_shape)} {t.torch_dtype}"
            f" | {fmt_shape(t.ms_shape)} {t.ms_dtype} | {_g(t.max_abs_err)} | {_g(t.max_rel_err)}"
            f" | {t.mismatched}/{t.total} | {_g(t.cosine)} | {_g(t.min_atol)} | {_g(t.min_rtol)}"
            f" | {_cell(judge_cell(t))} |")
    return lines


def judge_cell(t: TensorComparison) -> str:
    """The tensor's judge and its numbers: both errors against float64, or the rtol/atol that decided."""
    if t.oracle_err_ms is not None and t.tolerance_source.startswith(("error budget", "conditioning")):
        return (f"mindspore err {t.oracle_err_ms:.3g} vs torch float32 err {t.oracle_err_pt:.3g} (limit"
                f" {t.budget_limit:.3g}; rtol/atol {'pass' if t.standard_ok else 'fail'}) ({t.tolerance_source})")
    return f"rtol {t.rtol:g}, atol {t.atol:g} ({t.tolerance_source})"


def _table_tensors(tensors: Sequence[TensorComparison]) -> List[TensorComparison]:
    """All tensors of a small verdict; of a big one (FOLD_FROM or more), the telling failing ones and the first
    FOLD_FROM (outputs come first), in the verdict's order."""
    if len(tensors) < FOLD_FROM:
        return list(tensors)
    shown, _ = detailed(tensors)
    keep = {id(t) for t in shown} | {id(t) for t in tensors[:FOLD_FROM]}
    return [t for t in tensors if id(t) in keep]


def render_case(case: str, verdicts: Sequence[Verdict]) -> str:
    lines = [f"# {_cell(case)}", "", f"File: `{verdicts[0].file}`", "",
             "| check | mode | backend | status | expected | message |", "|---|---|---|---|---|---|"]
    for v in verdicts:
        lines.append(f"| {v.check} | {v.mode} | {v.backend} | **{v.status}** | {v.expected} | {_cell(v.message)} |")
    for v in verdicts:
        if v.status == "skip":
            continue
        lines += ["", f"## {v.check} / {v.mode} / {v.backend}: {v.status}", "", _cell(v.message)]
        if v.judged_by:
            lines += ["", f"Judged by: {_cell(v.judged_by)}"]
        if v.structure:
            lines += ["", "Weight transfer problems:", ""] + [f"- {p}" for p in v.structure]
        if v.error:
            lines += ["", "```", v.error, "```"]
        same = same_table_as(v, verdicts) if v.localization is not None else None
        if same is not None:
            lines += ["", "Where it first diverges: " + _cell(v.localization.summary), "",
                      f"Sub-cell table: as under {same.check} / {same.mode} / {same.backend} above."]
        elif v.localization is not None:
            lines += ["", "Where it first diverges: " + _cell(v.localization.summary), ""]
            lines += [f"Argument search on `{d.torch_name or '<root>'}`: {len(d.search_tried)} candidates in "
                      f"{d.search_s:.2f} s ({_cell('; '.join(d.search_tried))})" for d in v.localization.defects
                      if d.search_tried] + ([""] if any(d.search_tried for d in v.localization.defects) else [])
            lines += ["| # | torch sub-cell | MindSpore sub-cell | inputs | outputs | alone | max abs err |",
                      "|---|---|---|---|---|---|---|"]
            word = {None: "-", True: "agree", False: "**differ**"}
            for r in folded_rows(v.localization):
                if isinstance(r, Fold):
                    lo, hi = r.error_range
                    lines.append(f"| {r.first.order}-{r.last.order} | {len(r.rows)} sub-cells, `{r.first.torch_name or '<root>'}`"
                                 f" ... `{r.last.torch_name or '<root>'}` | {r.what} | | | | {_g(lo)}"
                                 + (f"-{_g(hi)}" if hi != lo else "") + " |")
                    continue
                mark = " **<- first divergence**" if r.torch_name == v.localization.first_divergence and r.ms_name else ""
                lines.append(f"| {r.order} | `{r.torch_name or '<root>'}` ({r.torch_kind}){mark}"
                             f" | {('`' + (r.ms_name or '<root>') + '` (' + r.ms_kind + ')') if r.ms_kind else _cell(r.message)}"
                             f" | {word[r.inputs_ok]} | {word[r.outputs_ok]} | {word[r.isolated_ok]} | {row_error(r) if r.ms_kind else '-'} |")
        if v.tensors:
            lines += [""] + tensor_table(_table_tensors(v.tensors))
            if len(_table_tensors(v.tensors)) < len(v.tensors):
                failing = sum(not t.ok for t in v.tensors)
                lines += ["", f"The table lists the {len(_table_tensors(v.tensors))} most telling of {len(v.tensors)}"
                          f" tensors ({failing} failing); every tensor's metrics are on the HTML page and in the cell's JSON."]
        for t in v.tensors:
            if t.first_mismatches:
                lines += ["", f"First mismatches in `{t.name}`:", ""]
                lines += [f"- at {s.index}: torch {s.torch:.6g}, mindspore {s.mindspore:.6g}" for s in t.first_mismatches]
        if v.notes:
            lines += ["", "Notes:", ""] + [f"- {n}" for n in sorted(set(v.notes))]
    mapped = next((v for v in verdicts if v.mapping or v.skipped_params), None)
    if mapped is not None:
        lines += ["", "## Weight mapping", "", "| torch | shape | mindspore | shape | how |", "|---|---|---|---|---|"]
        table_pairs, groups = pair_groups(mapped.mapping)
        for p in table_pairs:
            lines.append(f"| `{p.torch_name}` | {fmt_shape(p.torch_shape)} | `{p.ms_name}` | {fmt_shape(p.ms_shape)} | {p.how} |")
        for s in mapped.skipped_params:
            lines.append(f"| `{s.torch_name}` | | (not transferred) | | {_cell(s.reason)} |")
        for how, pairs in groups:
            suffix = renamed_suffix(pairs)
            if suffix:  # `bn1.running_mean` -> `bn1.moving_mean` for 53 layers: the suffixes once, each layer once
                lines += ["", f"{how}: {len(pairs)} more pairs, same shape on both sides, no transform, each torch"
                          f" `LAYER.{suffix[0]}` -> MindSpore `LAYER.{suffix[1]}`, for LAYER (shape): "
                          + ", ".join(f"`{layer_of(p.torch_name)}` {fmt_shape(p.torch_shape)}" for p in pairs)]
                continue
            lines += ["", f"{how}: {len(pairs)} more pairs, same shape on both sides, no transform: "
                      + ", ".join(f"`{p.torch_name}`" + (f" -> `{p.ms_name}`" if p.ms_name != p.torch_name else "")
                                  + f" {fmt_shape(p.torch_shape)}" for p in pairs)]
    return "\n".join(lines) + "\n"


def write_markdown(root: Path, verdicts: Sequence[Verdict]) -> None:
    cells = root / "cells"
    cells.mkdir(parents=True, exist_ok=True)
    for case, items in by_case(verdicts).items():
        atomic_write_text(cells / f"{safe_name(case)}.md", render_case(case, items))
