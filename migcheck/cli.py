"""`migcheck compare | list`. Exit codes: 0 all as expected, 1 some verdict not, 2 usage or collection error."""
from __future__ import annotations

import argparse
import os
import sys
from typing import List, Optional, Sequence

from migcheck.case import BACKENDS, CHECKS, MODES

EXIT_OK, EXIT_UNEXPECTED, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    pass


def _csv(allowed: Sequence[str], what: str):
    def parse(text: str) -> tuple:
        values = tuple(v.strip() for v in text.split(",") if v.strip())
        bad = [v for v in values if v not in allowed]
        if bad or not values:
            raise argparse.ArgumentTypeError(f"unknown {what} {', '.join(bad) or text!r}; choose from {', '.join(allowed)}")
        return values
    return parse


def _non_negative(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a non-negative number")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="migcheck", description="Check that a MindSpore port computes what the PyTorch original does.")
    sub = parser.add_subparsers(dest="command", required=True)

    def add_selection(p: argparse.ArgumentParser) -> None:
        p.add_argument("paths", nargs="*", default=["cases"], help="case files or folders (default: cases)")
        p.add_argument("-k", dest="keyword", help="only items whose id or tags match, e.g. 'conv and not graph'")
        p.add_argument("--check", type=_csv(CHECKS, "check"), default=None, help="checks to run (default: each case's own)")
        p.add_argument("--mode", type=_csv(MODES, "mode"), default=MODES, help="MindSpore modes (default: pynative,graph)")
        p.add_argument("--backend", type=_csv(BACKENDS, "backend"), default=("cpu",), help="MindSpore backends (default: cpu)")

    compare = sub.add_parser("compare", help="run paired cases and report verdicts")
    add_selection(compare)
    compare.add_argument("--report", metavar="DIR", help="write summary.json and per-cell JSON/Markdown to DIR")
    compare.add_argument("--atol", type=_non_negative, help="absolute tolerance for every tensor (overrides all rules)")
    compare.add_argument("--rtol", type=_non_negative, help="relative tolerance for every tensor (overrides all rules)")
    compare.add_argument("--color", choices=("auto", "always", "never"), default="auto")

    listing = sub.add_parser("list", help="list the items a compare run would execute")
    add_selection(listing)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    # Case files import MindSpore before any runner does: quiet its C++ warnings from the start.
    os.environ.setdefault("GLOG_v", "3")
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    try:
        return _run(args)
    except UsageError as exc:
        print(f"migcheck: error: {exc}", file=sys.stderr)
        return EXIT_USAGE


def _selected(args: argparse.Namespace):
    from migcheck.discovery import discover, keyword_matcher
    from migcheck.engine import RunOptions, plan

    collection = discover(args.paths)
    options = RunOptions(checks=args.check, modes=args.mode, backends=args.backend,
                         rtol=getattr(args, "rtol", None), atol=getattr(args, "atol", None))
    items = plan(collection.cases, options)
    if args.keyword:
        try:
            match = keyword_matcher(args.keyword)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        items = [i for i in items if match(" ".join((i.id,) + i.case.tags))]
    return collection, options, items


def _run(args: argparse.Namespace) -> int:
    collection, options, items = _selected(args)
    errors = [str(e) for e in collection.errors]
    if args.command == "list":
        for item in items:
            print(item.id)
        for e in errors:
            print(f"ERROR {e}", file=sys.stderr)
        return EXIT_USAGE if errors else EXIT_OK

    from migcheck.engine import run_item
    from migcheck.report import write_report
    from migcheck.report.terminal import render, verdict_line

    colour = args.color == "always" or (args.color == "auto" and sys.stdout.isatty())
    verdicts = []
    for item in items:
        verdict = run_item(item, options)
        verdicts.append(verdict)
        print(verdict_line(verdict, colour), flush=True)
    print()
    print(render(verdicts, errors, colour, include_expected=False))
    if args.report:
        root = write_report(args.report, verdicts, errors)
        print(f"report: {root / 'summary.json'}")
    if errors:
        return EXIT_USAGE
    if not items:
        print("migcheck: no items selected", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK if all(v.as_expected for v in verdicts) else EXIT_UNEXPECTED


if __name__ == "__main__":
    sys.exit(main())
