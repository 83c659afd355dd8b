"""`migcheck compare | list`. Exit codes: 0 all as expected, 1 some verdict not, 2 usage or collection error,
130 interrupted (Ctrl-C), 143 terminated (SIGTERM); compare writes a partial report for both."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, List, Optional, Sequence

from migcheck.options import OPTIONS, SELECTION, OptionError, add_cli_arguments, positive
from migcheck.util.cli_process import leave, never_raise_on_encoding

EXIT_OK, EXIT_UNEXPECTED, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report a Ctrl-C
DEFAULT_REPORT = os.path.join("reports", "latest")
REPORT_ENV = "MIGCHECK_REPORT_DIR"  # the default report folder, e.g. for CI or a test suite


class UsageError(Exception):
    pass


def _shard(text: str) -> tuple:
    from migcheck.planning.items import parse_shard

    try:
        return parse_shard(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _seconds(text: str) -> float:
    try:
        return positive(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="migcheck", description="Check that a MindSpore port computes what the PyTorch original does.")
    sub = parser.add_subparsers(dest="command", required=True)

    def add_selection(p: argparse.ArgumentParser) -> None:
        p.add_argument("paths", nargs="*", default=["cases"], help="case files or folders (default: cases)")
        p.add_argument("-k", dest="keyword", help="only items whose id or tags match, e.g. 'conv and not graph'")
        add_cli_arguments(p, SELECTION)
        p.add_argument("--shard", type=_shard, default=None, metavar="I/N",
                       help="only the I-th of N shards (1-based): cases split by a stable hash of their name, all"
                            " items of a case in one shard; merge the shards' reports with `migcheck merge`")

    compare = sub.add_parser("compare", help="run paired cases and report verdicts")
    add_selection(compare)
    compare.add_argument("--report", metavar="DIR", default=None,
                         help="where summary.json, index.html and the per-case pages go (default: reports/latest, or"
                              f" ${REPORT_ENV}); the folder is replaced whole when the run ends")
    compare.add_argument("--no-report", action="store_true", help="write no report")
    compare.add_argument("--lf", "--last-failed", dest="last_failed", action="store_true",
                         help="run only the items that were not as expected in the last report (the --report folder,"
                              " default reports/latest); all of them when it has none")
    compare.add_argument("--no-torch-cache", action="store_true",
                         help="run torch for every item (default: torch-side results are kept in"
                              " .migcheck-cache/torch/, keyed by the case's torch fingerprint)")
    compare.add_argument("--show-framework-logs", action="store_true",
                         help="let MindSpore's and torch's native stderr through live (default: captured per item"
                              " and attached to its verdict and cell page)")
    compare.add_argument("-v", "--verbose", action="count", default=0, help="one line per item")
    compare.add_argument("-q", "--quiet", action="count", default=0,
                         help="no progress: only what is not as expected and the final line")
    add_cli_arguments(compare, tuple(o.name for o in OPTIONS if o.name not in SELECTION))
    compare.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    compare.add_argument("--isolate", action="store_true",
                         help="run each case in its own child process: a crash (segfault, abort) becomes a `crashed`"
                              " verdict and the run goes on")
    compare.add_argument("--timeout", type=_seconds, default=None, metavar="SECONDS",
                         help="time limit per case (all its items); a case past it becomes a `timeout` verdict."
                              " Implies --isolate (the child process is killed). A case's own timeout= wins")

    listing = sub.add_parser("list", help="list the items a compare run would execute")
    add_selection(listing)
    listing.add_argument("--no-cache", action="store_true",
                         help="import every case file (default: unchanged files are read from .migcheck-cache/)")

    report = sub.add_parser("report", help="re-render a report's HTML from its JSON (no torch or MindSpore needed)")
    report.add_argument("directory", metavar="DIR", help="a folder written by --report (or its summary.json)")
    report.add_argument("--baseline", metavar="OLD_DIR",
                        help="an earlier report: list and show what got better, worse, newly failing or newly passing")
    report.add_argument("--allow-worse", action="store_true",
                        help="with --baseline, exit 0 even when something got worse (default: exit 1, for CI gates)")
    report.add_argument("--color", choices=("auto", "always", "never"), default="auto")

    merge = sub.add_parser("merge", help="join shard reports (compare --shard, pytest --migcheck-shard) into one report")
    merge.add_argument("output", metavar="OUT", help="folder for the merged report")
    merge.add_argument("inputs", metavar="DIR", nargs="+", help="the shards' report folders (or their summary.json)")

    record = sub.add_parser("record", help="run only the torch side and store golden fixtures for compare --golden")
    record.add_argument("paths", nargs="*", default=["cases"], help="case files or folders (default: cases)")
    record.add_argument("-k", dest="keyword", help="only case[check] ids or tags that match, e.g. 'conv and forward'")
    add_cli_arguments(record, ("checks",))
    record.add_argument("--fixtures", metavar="DIR", default="fixtures", help="golden folder (default: fixtures)")
    record.add_argument("--update", action="store_true", help="replace goldens that exist (otherwise they are kept)")
    record.add_argument("--torch-device", choices=("cpu", "cuda", "auto"), default="cpu",
                        help="where torch computes the reference (default: cpu)")
    record.add_argument("--no-oracle", action="store_true", help="leave out the float64 oracle (error-budget mode needs it)")

    mapping = sub.add_parser("map", help="show how a case's torch weights map onto its MindSpore cell")
    mapping.add_argument("case", help="case name")
    mapping.add_argument("paths", nargs="*", default=["cases"], help="case files or folders (default: cases)")
    mapping.add_argument("--suggest", action="store_true",
                         help="print a ready-to-paste weight_map for what no name or rule pairs (inferred or ambiguous)")
    mapping.add_argument("--no-activations", action="store_true", help="settle no ambiguity by a forward pass")

    conv = sub.add_parser("convert", help="convert a checkpoint between torch and MindSpore through a case's mapping")
    conv.add_argument("case", help="case whose torch module and MindSpore cell define the mapping")
    conv.add_argument("src", help="torch state_dict (.pt/.pth/.bin/.safetensors) or MindSpore .ckpt")
    conv.add_argument("dst", help="output file; the direction follows the suffixes")
    conv.add_argument("--cases", nargs="*", default=["cases"], dest="paths", help="case files or folders (default: cases)")
    conv.add_argument("--allow-partial", action="store_true", help="convert what matches instead of failing on unmatched keys")
    conv.add_argument("--key", default=None, help="the state_dict's entry in a training checkpoint, e.g. model for"
                      " {'model': state_dict, 'epoch': 3} (dots go deeper: model.net)")
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    # Case files import MindSpore before any runner does: quiet its C++ warnings from the start.
    os.environ.setdefault("GLOG_v", "3")
    never_raise_on_encoding()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return leave(_run(args))
    except UsageError as exc:
        print(f"migcheck: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as exc:  # outside a run (whose results are written by now): no traceback, 130 or 143
        from migcheck.util import signals

        print(f"migcheck: {signals.describe(exc)}", file=sys.stderr)
        return leave(signals.exit_code(exc))


def _selected(args: argparse.Namespace):
    """`migcheck list`: plan from the discovery cache, without the engine (numpy, comparator, frameworks)."""
    from migcheck.options import from_cli
    from migcheck.runners import auto_backend
    from migcheck.planning.cache import DiscoveryCache
    from migcheck.planning.discovery import discover
    from migcheck.planning.keyword import keyword_matcher
    from migcheck.planning.items import in_shard, plan

    if args.no_cache:
        collection = discover(args.paths)
    else:
        cache = DiscoveryCache()
        collection = discover(args.paths, load=cache.load)
        cache.save()
    try:
        options = from_cli(args, SELECTION, auto_backend=auto_backend)
    except OptionError as exc:
        raise UsageError(str(exc)) from None
    items = plan(collection.cases, options)
    if args.keyword:
        try:
            match = keyword_matcher(args.keyword)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        items = [i for i in items if match(" ".join((i.id,) + i.case.tags))]
    if args.shard:
        items = [i for i in items if in_shard(i.case.name, args.shard)]
    return collection, options, items


def report_dir(args: argparse.Namespace) -> str:
    return args.report or os.environ.get(REPORT_ENV) or DEFAULT_REPORT


def _last_failed(items: list, directory: str) -> list:
    """The items the last report found not as expected; all items (and a note) when there are none."""
    from migcheck.report.jsonfile import read_run

    try:
        run = read_run(Path(directory))
    except (OSError, ValueError) as exc:
        print(f"migcheck: --lf: no last report to read ({exc}); running all {len(items)} item(s)")
        return items
    failed = {v.item for v in run.verdicts if not v.as_expected}
    chosen = [i for i in items if i.id in failed]
    if not chosen:
        print(f"migcheck: --lf: nothing failed in {directory} among the selected items; running all {len(items)} item(s)")
        return items
    print(f"migcheck: --lf: running the {len(chosen)} item(s) not as expected in {directory}"
          f" ({len(items) - len(chosen)} deselected)")
    return chosen



def _map(args: argparse.Namespace) -> int:
    """Exit 0 when the mapping is complete, 1 when it has problems, 2 when the case is not found."""
    from migcheck.mapping.suggest import evidence, suggest
    from migcheck.report.mapping_table import render_mapping
    from migcheck.running.pipeline import mapping_for

    case = _find_case(args)
    mapping = mapping_for(case, resolve=not args.no_activations)
    text, complete = suggest(mapping) if args.suggest else (render_mapping(case.name, mapping) + evidence(mapping), True)
    print(text)
    return EXIT_OK if (complete if args.suggest else mapping.ok) else EXIT_UNEXPECTED


def _find_case(args: argparse.Namespace):
    from migcheck.planning.discovery import discover

    collection = discover(args.paths)
    case = next((c for c in collection.cases if c.name == args.case), None)
    if case is None:
        raise UsageError(f"no case named {args.case!r} under {', '.join(args.paths)}; `migcheck list` shows the names")
    return case


def _convert(args: argparse.Namespace) -> int:
    """Exit 0 when converted, 1 on unmatched keys or a mapping with problems, 2 on usage errors."""
    from pathlib import Path

    from migcheck.running.pipeline import mapping_for
    from migcheck.mapping.convert import UnmatchedKeys, convert

    case = _find_case(args)
    src = Path(args.src)
    if not src.is_file():
        raise UsageError(f"no such checkpoint: {src}")
    mapping = mapping_for(case)
    if mapping.problems() and not args.allow_partial:
        print("\n".join(["the case's mapping has problems (`migcheck map` shows them):"] + mapping.problems()), file=sys.stderr)
        return EXIT_UNEXPECTED
    try:
        result = convert(src, Path(args.dst), mapping, allow_partial=args.allow_partial, key=args.key)
    except UnmatchedKeys as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_UNEXPECTED
    except (ValueError, RuntimeError) as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"cannot write {args.dst}: {exc.strerror or exc}") from None
    print(f"wrote {result.written}: {result.converted} tensor(s)"
          + (f"; left out {len(result.missing) + len(result.unexpected)} unmatched" if result.missing or result.unexpected else ""))
    return EXIT_OK


def command_line(argv: Sequence[str]) -> str:
    """The command as a user would retype it, for the report's header."""
    import shlex

    return "migcheck " + " ".join(shlex.quote(a) for a in argv)


def _record(args: argparse.Namespace) -> int:
    """Exit 0 when every golden was recorded (or exists, up to date), 1 on errors, 2 on usage/collection errors."""
    from migcheck.planning.discovery import discover
    from migcheck.planning.keyword import keyword_matcher
    from migcheck.planning.items import effective_checks
    from migcheck.running.record import line, record_case, summary

    match = None
    if args.keyword:
        try:
            match = keyword_matcher(args.keyword)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    from migcheck.options import from_cli

    try:
        wanted = from_cli(args, ("checks",)).checks
    except OptionError as exc:
        raise UsageError(str(exc)) from None
    collection = discover(args.paths)
    errors = [str(e) for e in collection.errors]
    results = []
    for case in collection.cases:
        checks = [c for c in effective_checks(case) if wanted is None or c in wanted]
        if match is not None:
            checks = [c for c in checks if match(" ".join((f"{case.name}[{c}]",) + tuple(case.tags)))]
        if not checks:
            continue
        for result in record_case(case, checks, args.fixtures, update=args.update, torch_device=args.torch_device,
                                  oracle=not args.no_oracle):
            results.append(result)
            print(line(result), flush=True)
    for e in errors:
        print(f"ERROR  {e}")
    print(summary(results, errors))
    if errors:
        return EXIT_USAGE
    if not results:
        print("migcheck: no items selected", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK if all(r.ok for r in results) else EXIT_UNEXPECTED


def _report(args: argparse.Namespace) -> int:
    """`migcheck report DIR [--baseline OLD]`: HTML from the JSON record alone. Exit 0; 1 when --baseline finds
    something newly failing or worse (unless --allow-worse); 2 when a report cannot be read."""
    from migcheck.report import ReportWriteError, journal, render_report
    from migcheck.report.baseline import render_terminal

    if os.path.isdir(args.directory):  # a run still writing there holds the lock: do not render under it
        from migcheck.report.outdir import OutputError, lock

        try:
            lock(Path(args.directory))
        except OutputError as exc:
            raise UsageError(f"{args.directory}: {exc}") from None
        except OSError:
            pass  # a read-only report can still be read (and its HTML written elsewhere fails below, named)
    try:
        index, run, diff = render_report(args.directory, args.baseline)
    except (OSError, ValueError) as exc:
        raise UsageError(exc.strerror if isinstance(exc, ReportWriteError) else f"cannot read the report: {exc.strerror + ': ' + str(exc.filename) if isinstance(exc, OSError) and exc.filename else exc}") from None
    colour = args.color == "always" or (args.color == "auto" and sys.stdout.isatty())
    journal.warn_skipped(run.errors)  # damaged journal lines, each named: the rest was rendered
    if diff is not None:
        print(render_terminal(diff, colour))
    print(f"report: {index} ({len(run.verdicts)} verdict(s), schema {run.schema_version})"
          + (f"; partial: {len(run.not_run)} planned item(s) never ran" if run.not_run
             else "; partial (the run was stopped)" if run.partial else ""))
    worse = len(diff.of("newly-failing")) + len(diff.of("worse")) if diff is not None else 0
    if worse and not args.allow_worse:
        print(f"migcheck: {worse} item(s) got worse than the baseline (--allow-worse accepts that)", file=sys.stderr)
        return EXIT_UNEXPECTED
    return EXIT_OK


def _merge(args: argparse.Namespace) -> int:
    """`migcheck merge OUT DIR...`: exit 0 when the merged run is all as expected, 1 when not, 2 when a
    report cannot be read or two reports hold the same item."""
    from migcheck.report.merge import merge_reports

    try:
        root, verdicts, errors, partial = merge_reports(args.output, args.inputs)
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot merge: {exc}") from None
    print(f"merged {len(args.inputs)} report(s): {len(verdicts)} verdict(s), {len(errors)} collection error(s)"
          + (", partial (a shard was interrupted)" if partial else "") + f"; report: {root / 'index.html'}")
    return EXIT_OK if all(v.as_expected for v in verdicts) and not errors and not partial else EXIT_UNEXPECTED


def _run(args: argparse.Namespace) -> int:
    if args.command == "report":
        return _report(args)
    if args.command == "merge":
        return _merge(args)
    if args.command == "record":
        return _record(args)
    if args.command == "map":
        return _map(args)
    if args.command == "convert":
        return _convert(args)
    if args.command == "list":
        collection, options, items = _selected(args)
        errors = [str(e) for e in collection.errors]
        for item in items:
            print(item.id)
        for e in errors:
            print(f"ERROR {e}", file=sys.stderr)
        return EXIT_USAGE if errors else EXIT_OK
    return _compare(args)


def _compare(args: argparse.Namespace) -> int:
    from migcheck.options import from_cli
    from migcheck.runners import auto_backend
    from migcheck.report.console import NORMAL, QUIET, VERBOSE, Console
    from migcheck.report.terminal import summary_table
    from migcheck.report.outdir import OutputError
    from migcheck.running.api import run
    from migcheck.running.session import with_torch_cache

    try:
        options = from_cli(args, execution={"capture_logs": not args.show_framework_logs}, auto_backend=auto_backend)
    except OptionError as exc:
        raise UsageError(str(exc)) from None
    if not args.no_torch_cache:
        options = with_torch_cache(options)
    if args.keyword:
        from migcheck.planning.keyword import keyword_matcher

        try:
            keyword_matcher(args.keyword)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    tty = sys.stdout.isatty()
    colour = args.color == "always" or (args.color == "auto" and tty)
    verbosity = VERBOSE if args.verbose > args.quiet else QUIET if args.quiet > args.verbose else NORMAL
    console: List[Console] = []  # made once the items are planned (it shows how many)

    def planned(items: Sequence[Any]) -> List[Any]:
        if args.last_failed:
            items = _last_failed(list(items), report_dir(args))
        console.append(Console(sys.stdout, len(items), verbosity, colour, live=tty))
        return list(items)

    try:
        result = run(args.paths, keyword=args.keyword, shard=args.shard, isolate=args.isolate, timeout=args.timeout,
                     options=options, report=None if args.no_report else report_dir(args),
                     run_info={"command": command_line(args.argv)},
                     on_plan=planned, on_start=lambda item: console[0].start(item.id, item.case.file),
                     on_verdict=lambda verdict: console[0].finish(verdict))
    except OutputError as exc:
        raise UsageError(f"--report {exc}") from None
    verdicts, errors, items = list(result.verdicts), list(result.collection_errors), result.items
    out = console[0] if console else Console(sys.stdout, 0, verbosity, colour, live=tty)
    out.close()
    if result.reuse_note:
        print(f"migcheck: {result.reuse_note}")
    elapsed = out.elapsed()
    if not items and not errors and not args.shard and not result.interrupted:  # nothing run, no report touched
        print("migcheck: no items selected" + (f" (-k {args.keyword!r} matched nothing)" if args.keyword else ""),
              file=sys.stderr)
        return EXIT_USAGE
    if verbosity == VERBOSE and tty and verdicts:
        print()
        print(summary_table(verdicts, colour))
    index = None if args.no_report else "none written (an earlier one is left as it was)"
    if result.report is not None:
        index = str(result.report / "index.html") + (" (partial)" if result.interrupted or result.write_error else "")
        if result.report_size and verbosity == VERBOSE:  # what the report weighs, by kind of file (the last
            from migcheck.report.size import size_line  # line stays as scripts read it)

            print(f"report size: {size_line(result.report_size)}")
    print(out.summary(verdicts, errors, index, elapsed=elapsed,
                      interrupted=f"{result.stopped_by} after {len(verdicts)} of {len(items)} item(s), partial results"
                      if result.interrupted else f"stopped: {result.write_error}" if result.write_error else ""))
    if result.signal_exit is not None:
        return result.signal_exit
    if errors or result.write_error:  # a report folder that cannot be written: an error of the run (exit 2)
        return EXIT_USAGE
    if not items:  # a hash split can leave a shard empty: not an error (its empty report still merges)
        print(f"migcheck: shard {args.shard[0]}/{args.shard[1]} holds no items", file=sys.stderr)
        return EXIT_OK
    return EXIT_OK if all(v.as_expected for v in verdicts) else EXIT_UNEXPECTED


if __name__ == "__main__":
    sys.exit(main())
