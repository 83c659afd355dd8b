"""Score migcheck's localization and diagnosis on the evaluation corpora.

    python -m evaluation.score [--family layer] [-k NAME] [--cost] [--out evaluation/RESULTS.md]

Runs every entry's naive and correct port (PYNATIVE, CPU) through migcheck.run, then counts:
layer right (every expected layer localized), every cause named, cause confirmed (by a re-run),
wrong findings at high confidence (a high finding that matches no expected cause), and false alarms
(a correct port that does not pass); per entry also fix printed, fix checked and the localization cost
where the verdict carries them. An entry with a `cause_pattern` is matched by that regex against the
findings' cause and fix fields only; other entries by their keywords as whole words.
--cost also runs benchmarks/localization_cost.py.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Score:
    name: str
    family: str
    detected: bool
    layers_right: int
    causes_named: int
    causes_confirmed: int
    defects: int
    wrong_high: Tuple[str, ...]
    false_alarm: str  # "" when the correct port passes
    seconds: float
    said: str  # what migcheck said, one line
    fixes_printed: int = 0  # defects whose matching finding prints a non-empty fix
    fixes_checked: Optional[int] = None  # ... and marks it fix_checked (None: the verdict has no such field)
    search_seconds: Optional[float] = None  # localization's own cost, when the verdict carries it
    candidates: Optional[int] = None


@dataclass(frozen=True)
class Said:
    """One finding or defect of a verdict, as the scorer reads it."""

    rule: str
    cause: str
    fix: str
    confirmed: bool
    confidence: str
    fix_checked: Optional[bool]  # None: not exposed by this kind of record
    free: bool = False  # the verdict's free message (no localization): read by keyword entries only


def _said(verdict: Any) -> List[Said]:
    loc = verdict.localization
    if loc is None:
        return [Said("", f"{verdict.message} {verdict.error}", "", False, "low", None, free=True)]
    out = []
    for f in list(loc.findings) + list(loc.defects):
        out.append(Said(f.rule or "", f.cause or "", f.fix or "", bool(f.confirmed), f.confidence or "",
                        getattr(f, "fix_checked", None)))
    return out


def matches_cause(expected: str, rule: str, text: str) -> bool:
    """A rule id, or one of the '|'-separated keywords as a whole word of the text ("eps" is not in "steps")."""
    keys = [k.strip().lower() for k in expected.split("|") if k.strip()]
    return any(k == rule.lower() or re.search(r"(?<!\w)" + re.escape(k) + r"(?!\w)", text.lower()) for k in keys)


def matches_pattern(pattern: str, said: Said) -> bool:
    """An entry's cause_pattern against the cause and fix fields only (never the rule id or free message)."""
    return re.search(pattern, f"{said.cause}\n{said.fix}", re.IGNORECASE) is not None


def is_fix(text: str) -> bool:
    """A printed fix, not a placeholder such as "none shown (no candidate fix re-ran to agreement)"."""
    return bool(text.strip()) and re.match(r"\s*(none|no)\b", text, re.IGNORECASE) is None


def _hit(entry: Any, cause: str, said: Said) -> bool:
    pattern = getattr(entry, "cause_pattern", "")
    if pattern:
        return not said.free and matches_pattern(pattern, said)
    return matches_cause(cause, said.rule, f"{said.cause} {said.fix}")


def _cost(verdict: Any) -> Tuple[Optional[float], Optional[int]]:
    """Localization seconds and candidates tried, where the verdict carries them (names vary; None otherwise)."""
    loc = verdict.localization
    seconds = candidates = None
    for name in ("search_seconds", "seconds", "search_s", "duration_s", "cost_s"):
        value = getattr(loc, name, None)
        if isinstance(value, (int, float)):
            seconds = float(value)
            break
    for name in ("candidates_tried", "candidates", "tried"):
        value = getattr(loc, name, None)
        if isinstance(value, int) or isinstance(value, (list, tuple)):
            candidates = value if isinstance(value, int) else len(value)
            break
    searched = [d for d in getattr(loc, "defects", ()) if getattr(d, "search_tried", ())]
    if seconds is None and candidates is None and searched:  # the argument/op search's cost sits on each Defect
        seconds = sum(d.search_s for d in searched)
        candidates = sum(len(d.search_tried) for d in searched)
    return seconds, candidates


def matches_layer(expected: str, verdict: Any) -> bool:
    loc = verdict.localization
    if loc is None:
        return False
    if expected == "optimizer":
        return any(f.where.startswith("optimizer") for f in loc.findings)
    if expected.startswith("after:"):
        return f"'{expected[6:]}' output" in (loc.between or "") or any(
            f"'{expected[6:]}' output" in d.evidence for d in loc.defects)
    name = "" if expected == "<root>" else expected
    if any(d.torch_name == name for d in loc.defects):
        return True
    return any(f"torch '{expected}'" in layer for f in loc.findings for layer in (f.layers or (f.where,)))


def score_entry(entry: Any, naive: Sequence[Any], correct: Sequence[Any], seconds: float) -> Score:
    failing = [v for v in naive if v.status in ("xfail", "fail", "error")]
    v = next((x for x in failing if x.localization is not None), failing[0] if failing else None)
    layers = causes = confirmed = printed = 0
    checked: Optional[int] = None
    wrong: List[str] = []
    search_s = candidates = None
    said = "passed (defect not detected)" if v is None else (v.localization.summary if v.localization else v.message)
    crashed = next((n for x in naive for n in getattr(x, "notes", ()) if n.startswith("localization failed")), "")
    if crashed:  # said out loud: a localization that raised scores as a miss, never silently
        said = f"[{crashed[:120]}] {said}"
    if v is not None:
        found = _said(v)
        layers = sum(matches_layer(layer, v) for layer in entry.layers)
        if any(f.fix_checked is not None for f in found):
            checked = 0
        for cause in entry.causes:
            hits = [f for f in found if _hit(entry, cause, f)]
            causes += bool(hits)
            confirmed += any(h.confirmed for h in hits)
            printed += any(is_fix(h.fix) for h in hits)
            if checked is not None:
                checked += any(is_fix(h.fix) and h.fix_checked for h in hits)
        for f in found:
            if f.confidence == "high" and not any(_hit(entry, c, f) for c in entry.causes):
                wrong.append(f"{f.rule}: {f.cause[:100]} {f.fix[:40]}".strip())
        if v.localization is not None:
            search_s, candidates = _cost(v)
    bad = [c for c in correct if c.status not in ("pass", "skip")]
    alarm = f"{bad[0].status}: {bad[0].message[:160]}" if bad else ""
    return Score(entry.name, entry.family, v is not None, layers, causes, confirmed, len(entry.layers),
                 tuple(sorted(set(wrong))), alarm, seconds, said[:300], printed, checked, search_s, candidates)


def run_all(entries: Sequence[Any], progress: bool = True) -> List[Score]:
    from migcheck import run

    scores = []
    for entry in entries:
        started = time.monotonic()
        result = run([entry.naive, entry.correct], modes=("pynative",))
        seconds = time.monotonic() - started
        naive = [v for v in result.verdicts if v.case == entry.naive.name]
        correct = [v for v in result.verdicts if v.case == entry.correct.name]
        s = score_entry(entry, naive, correct, seconds)
        scores.append(s)
        if progress:
            print(f"{s.name:38s} layer {s.layers_right}/{s.defects} cause {s.causes_named}/{s.defects}"
                  f" confirmed {s.causes_confirmed}/{s.defects} fix {s.fixes_printed}/{s.defects}"
                  f"{'  WRONG-HIGH' if s.wrong_high else ''}{'  LOCALIZATION-FAILED' if s.said.startswith('[localization failed') else ''}"
                  f"{'  FALSE-ALARM' if s.false_alarm else ''}", flush=True)
    return scores


def _pct(n: int, d: int) -> str:
    return f"{100.0 * n / d:.0f}% ({n}/{d})" if d else "n/a"


PORT_FAMILIES = ("real-port", "third-party", "blind", "blind-port", "h3", "h3-port", "h4", "h4-port", "h5-port",
                 "h6-port", "h7-port", "h8-port", "h9-port", "h10-port", "h11-port", "h12-port",
                 "h13-port", "h14-port", "h15-port", "h16-port", "h17-port", "h18-port", "h19-port", "h20-port",
                 "h21-port", "h22-port")


def _opt(value: Optional[float], fmt: str) -> str:
    return "n/a" if value is None else format(value, fmt)


def table(scores: Sequence[Score], title: str) -> List[str]:
    lines = [f"### {title}", "", "| corpus | entries | detected | layer right | every cause named | cause confirmed |"
             " fix printed | fix checked | wrong findings [high] | false alarms (correct ports) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    groups = [("single-API", [s for s in scores if s.family not in PORT_FAMILIES]),
              ("real ports", [s for s in scores if s.family == "real-port"]),
              ("blind single-API", [s for s in scores if s.family == "blind"]),
              ("blind ports", [s for s in scores if s.family == "blind-port"]),
              ("held-out 3 single-API (h3)", [s for s in scores if s.family == "h3"]),
              ("held-out 3 ports (h3-port)", [s for s in scores if s.family == "h3-port"]),
              ("third-party ports", [s for s in scores if s.family == "third-party"]), ("all", list(scores))]
    groups = [g for g in groups if g[1] or g[0] == "all"]
    for label, group in groups:
        n = len(group)
        exposed = [s for s in group if s.fixes_checked is not None]
        checked = _pct(sum(s.fixes_checked == s.defects for s in exposed), n) if exposed else "n/a"
        lines.append(f"| {label} | {n} | {_pct(sum(s.detected for s in group), n)} |"
                     f" {_pct(sum(s.layers_right == s.defects for s in group), n)} |"
                     f" {_pct(sum(s.causes_named == s.defects for s in group), n)} |"
                     f" {_pct(sum(s.causes_confirmed == s.defects for s in group), n)} |"
                     f" {_pct(sum(s.fixes_printed == s.defects for s in group), n)} | {checked} |"
                     f" {sum(len(s.wrong_high) for s in group)} | {sum(bool(s.false_alarm) for s in group)} |")
    fams = sorted({s.family for s in scores})
    lines += ["", "| family | entries | layer right | every cause named | cause confirmed | fix printed |",
              "|---|---|---|---|---|---|"]
    for fam in fams:
        g = [s for s in scores if s.family == fam]
        lines.append(f"| {fam} | {len(g)} | {_pct(sum(s.layers_right == s.defects for s in g), len(g))} |"
                     f" {_pct(sum(s.causes_named == s.defects for s in g), len(g))} |"
                     f" {_pct(sum(s.causes_confirmed == s.defects for s in g), len(g))} |"
                     f" {_pct(sum(s.fixes_printed == s.defects for s in g), len(g))} |")
    return lines


def details(scores: Sequence[Score]) -> List[str]:
    lines = ["| entry | family | layer | cause | confirmed | fix printed | fix checked | wrong [high] | false alarm |"
             " search s | candidates | run s | what migcheck said (first 300 chars) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for s in scores:
        extra = "".join(f" **wrong [high]:** {w}" for w in s.wrong_high) + (f" **false alarm:** {s.false_alarm}"
                                                                              if s.false_alarm else "")
        said = (s.said + extra).replace("|", "/").replace("\n", " ")
        checked = "n/a" if s.fixes_checked is None else f"{s.fixes_checked}/{s.defects}"
        lines.append(f"| {s.name} | {s.family} | {s.layers_right}/{s.defects} | {s.causes_named}/{s.defects} |"
                     f" {s.causes_confirmed}/{s.defects} | {s.fixes_printed}/{s.defects} | {checked} |"
                     f" {len(s.wrong_high)} | {'yes' if s.false_alarm else 'no'} | {_opt(s.search_seconds, '.2f')} |"
                     f" {_opt(s.candidates, 'd')} | {s.seconds:.1f} | {said} |")
    return lines


def select(all_entries: Sequence[Any], family: Optional[str] = None, keywords: Sequence[str] = (),
           exclude: Sequence[str] = ()) -> List[Any]:
    """The entries of one family (all when None) whose name contains any keyword (all when none) and no excluded
    word (a held-out set not yet scored stays unseen)."""
    return [e for e in all_entries if (not family or e.family == family)
            and (not keywords or any(k in e.name for k in keywords)) and not any(x in e.name for x in exclude)]


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.score", description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", help="only this family (layer, functional, loss, optimizer, real-port,"
                        " third-party, blind, blind-port, h3, h3-port)")
    parser.add_argument("-k", dest="keyword", action="append",
                        help="only entries whose name contains this (repeat: any of them)")
    parser.add_argument("--exclude", action="append", default=[],
                        help="leave out entries whose name contains this (repeatable): a held-out set not yet scored")
    parser.add_argument("--cost", action="store_true", help="also run benchmarks/localization_cost.py (minutes)")
    parser.add_argument("--out", default=str(ROOT / "evaluation" / "RESULTS-latest.md"),
                        help="where to write the tables (default evaluation/RESULTS-latest.md; RESULTS.md is the curated before/after)")
    args = parser.parse_args(argv)
    from evaluation.corpus import entries

    chosen = select(entries(), args.family, args.keyword or (), args.exclude)
    scores = run_all(chosen)
    lines = table(scores, f"{len(chosen)} entries, PYNATIVE on CPU") + ["", "#### Per entry", ""] + details(scores)
    if args.cost:
        proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "localization_cost.py")], cwd=ROOT,
                              capture_output=True, text=True)
        lines += ["", "#### Localization cost (benchmarks/localization_cost.py)", "", "```", proc.stdout.strip(), "```"]
    text = "\n".join(lines) + "\n"
    Path(args.out).write_text(text)
    print("\n".join(table(scores, "summary")))
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
