"""Score migcheck's localization and diagnosis on the evaluation corpora.

    python -m evaluation.score [--family layer] [-k NAME] [--cost] [--out evaluation/RESULTS.md]

Runs every entry's naive and correct port (PYNATIVE, CPU) through migcheck.run, then counts:
layer right (every expected layer localized), every cause named, cause confirmed (by a re-run),
wrong findings at high confidence (a high finding that matches no expected cause), and false alarms
(a correct port that does not pass). --cost also runs benchmarks/localization_cost.py.
"""
from __future__ import annotations

import argparse
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


def _texts(verdict: Any) -> List[Tuple[str, str, bool, str, Tuple[str, ...]]]:
    """(rule, cause, confirmed, confidence, layers) of every finding and defect."""
    loc = verdict.localization
    out = []
    if loc is None:
        return [("", f"{verdict.message} {verdict.error}", False, "low", ())]
    for f in loc.findings:
        out.append((f.rule, f"{f.cause} {f.fix}", f.confirmed, f.confidence, tuple(f.layers) + (f.where,)))
    for d in loc.defects:
        out.append((d.rule, f"{d.cause} {d.fix}", d.confirmed, d.confidence,
                    (f"torch '{d.torch_name or '<root>'}'", d.evidence)))
    return out


def matches_cause(expected: str, rule: str, text: str) -> bool:
    keys = [k.strip().lower() for k in expected.split("|") if k.strip()]
    return any(k == rule.lower() or k in text.lower() for k in keys)


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
    layers = causes = confirmed = 0
    wrong: List[str] = []
    said = "passed (defect not detected)" if v is None else (v.localization.summary if v.localization else v.message)
    if v is not None:
        found = _texts(v)
        layers = sum(matches_layer(layer, v) for layer in entry.layers)
        for cause in entry.causes:
            hits = [f for f in found if matches_cause(cause, f[0], f[1])]
            causes += bool(hits)
            confirmed += any(h[2] for h in hits)
        for rule, text, _, confidence, _ in found:
            if confidence == "high" and not any(matches_cause(c, rule, text) for c in entry.causes):
                wrong.append(f"{rule}: {text[:120]}")
    bad = [c for c in correct if c.status not in ("pass", "skip")]
    alarm = f"{bad[0].status}: {bad[0].message[:160]}" if bad else ""
    return Score(entry.name, entry.family, v is not None, layers, causes, confirmed, len(entry.layers),
                 tuple(sorted(set(wrong))), alarm, seconds, said[:300])


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
                  f" confirmed {s.causes_confirmed}/{s.defects}{'  WRONG-HIGH' if s.wrong_high else ''}"
                  f"{'  FALSE-ALARM' if s.false_alarm else ''}", flush=True)
    return scores


def _pct(n: int, d: int) -> str:
    return f"{100.0 * n / d:.0f}% ({n}/{d})" if d else "n/a"


def table(scores: Sequence[Score], title: str) -> List[str]:
    lines = [f"### {title}", "", "| corpus | entries | detected | layer right | every cause named | cause confirmed |"
             " wrong findings [high] | false alarms (correct ports) |", "|---|---|---|---|---|---|---|---|"]
    groups = [("single-API", [s for s in scores if s.family not in ("real-port", "third-party", "blind", "blind-port")]),
              ("real ports", [s for s in scores if s.family == "real-port"]),
              ("blind single-API", [s for s in scores if s.family == "blind"]),
              ("blind ports", [s for s in scores if s.family == "blind-port"]),
              ("third-party ports", [s for s in scores if s.family == "third-party"]), ("all", list(scores))]
    groups = [g for g in groups if g[1] or g[0] == "all"]
    for label, group in groups:
        n = len(group)
        lines.append(f"| {label} | {n} | {_pct(sum(s.detected for s in group), n)} |"
                     f" {_pct(sum(s.layers_right == s.defects for s in group), n)} |"
                     f" {_pct(sum(s.causes_named == s.defects for s in group), n)} |"
                     f" {_pct(sum(s.causes_confirmed == s.defects for s in group), n)} |"
                     f" {sum(len(s.wrong_high) for s in group)} | {sum(bool(s.false_alarm) for s in group)} |")
    fams = sorted({s.family for s in scores})
    lines += ["", "| family | entries | layer right | every cause named | cause confirmed |", "|---|---|---|---|---|"]
    for fam in fams:
        g = [s for s in scores if s.family == fam]
        lines.append(f"| {fam} | {len(g)} | {_pct(sum(s.layers_right == s.defects for s in g), len(g))} |"
                     f" {_pct(sum(s.causes_named == s.defects for s in g), len(g))} |"
                     f" {_pct(sum(s.causes_confirmed == s.defects for s in g), len(g))} |")
    return lines


def details(scores: Sequence[Score]) -> List[str]:
    lines = ["| entry | family | layer | cause | confirmed | what migcheck said (first 300 chars) |",
             "|---|---|---|---|---|---|"]
    for s in scores:
        extra = "".join(f" **wrong [high]:** {w}" for w in s.wrong_high) + (f" **false alarm:** {s.false_alarm}"
                                                                              if s.false_alarm else "")
        said = (s.said + extra).replace("|", "/").replace("\n", " ")
        lines.append(f"| {s.name} | {s.family} | {s.layers_right}/{s.defects} | {s.causes_named}/{s.defects} |"
                     f" {s.causes_confirmed}/{s.defects} | {said} |")
    return lines


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.score", description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", help="only this family (layer, functional, loss, optimizer, real-port, third-party)")
    parser.add_argument("-k", dest="keyword", help="only entries whose name contains this")
    parser.add_argument("--cost", action="store_true", help="also run benchmarks/localization_cost.py (minutes)")
    parser.add_argument("--out", default=str(ROOT / "evaluation" / "RESULTS-latest.md"),
                        help="where to write the tables (default evaluation/RESULTS-latest.md; RESULTS.md is the curated before/after)")
    args = parser.parse_args(argv)
    from evaluation.corpus import entries

    chosen = [e for e in entries() if (not args.family or e.family == args.family)
              and (not args.keyword or args.keyword in e.name)]
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
