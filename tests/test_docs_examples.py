"""The docs say only what is true: every page under docs/, README.md and CONTRIBUTING.md.

- the case examples of README.md and cases/README.md run as printed;
- every relative link resolves, anchors included;
- every ```python block parses, and one that defines cases is collected (a deliberate fragment is
  marked `<!-- docs-test: fragment ... -->` on the line before its fence);
- every command shown (shell blocks and inline code) is a real subcommand with real flags, checked
  against `migcheck <cmd> --help` and `pytest --help`;
- docs/cli.md lists every flag of every subcommand and holds the exit codes; docs/ci-and-pytest.md lists
  every --migcheck-* pytest option; README.md stays within 250 lines.
"""
from __future__ import annotations

import ast
import contextlib
import io
import re
import shlex
import subprocess
import sys
import unicodedata
from functools import lru_cache
from pathlib import Path
from typing import Dict, Iterator, List, NamedTuple, Set, Tuple

import pytest

from migcheck.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md"] + sorted((ROOT / "docs").glob("*.md"))
PAGE_IDS = [str(p.relative_to(ROOT)) for p in PAGES]
FRAGMENT = "<!-- docs-test: fragment"
SHELL = {"bash", "sh", "shell", "console"}


def _first_python_block(path: Path, marker: str) -> str:
    text = path.read_text()
    start = text.index("```python", text.index(marker) if marker else 0) + len("```python")
    return text[start:text.index("```", start)]


@pytest.mark.parametrize("doc, marker, expected", [
    ("README.md", "## A paired case in a few lines", "== 6 pass: all as expected =="),
    ("cases/README.md", "## Adding a case", "== 10 pass, 2 xfail: all as expected =="),
])
@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_documented_case_runs_as_printed(doc, marker, expected, tmp_path, capsys):
    case_file = tmp_path / "cases" / "example.py"
    case_file.parent.mkdir()
    case_file.write_text(_first_python_block(ROOT / doc, marker))
    assert main(["compare", str(case_file), "--color", "never"]) == 0
    assert expected in capsys.readouterr().out


# ------------------------------------------------------------------------------------ reading pages
class Block(NamedTuple):
    lang: str
    text: str
    line: int  # of the opening fence
    fragment: bool


def _blocks(path: Path) -> List[Block]:
    lines = path.read_text().splitlines()
    out, i = [], 0
    while i < len(lines):
        match = re.match(r"\s*```(\w*)", lines[i])
        if match:
            end = next(j for j in range(i + 1, len(lines)) if lines[j].strip().startswith("```"))
            fragment = i > 0 and lines[i - 1].strip().startswith(FRAGMENT)
            out.append(Block(match.group(1), "\n".join(lines[i + 1:end]), i + 1, fragment))
            i = end
        i += 1
    return out


def _prose(path: Path) -> str:
    """The page without its fenced blocks (links and inline code are read from prose only)."""
    return re.sub(r"(?ms)^\s*```.*?^\s*```[^\n]*$", "", path.read_text())


def _inline_code(path: Path) -> List[str]:
    return re.findall(r"`([^`\n]+)`", _prose(path))


def _slug(heading: str) -> str:
    """Python-Markdown's toc slug (what MkDocs uses; GitHub's agrees for these pages)."""
    text = re.sub(r"[`*]", "", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


@lru_cache(maxsize=None)
def _anchors(path: Path) -> Set[str]:
    return {_slug(m) for m in re.findall(r"(?m)^#{1,6}\s+(.+?)\s*$", _prose(path))}


# ------------------------------------------------------------------------------------------ links
@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_relative_links_resolve(page):
    bad = []
    for target in re.findall(r"\]\(([^)\s]+)\)", _prose(page)):
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        dest = (page.parent / file_part).resolve() if file_part else page
        if not dest.exists():
            bad.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            bad.append(f"{target}: {dest.name} has no heading with anchor #{anchor}")
    assert not bad, bad


def test_the_link_checker_reads_headings_as_mkdocs_does(tmp_path):
    assert _slug("From Python: `migcheck.run()`") == "from-python-migcheckrun"
    assert _slug("Signals: Ctrl-C and SIGTERM") == "signals-ctrl-c-and-sigterm"
    page = tmp_path / "a.md"
    page.write_text("# A\n\n## The journal: `journal.jsonl`\n\n[ok](#the-journal-journaljsonl)\n"
                    "```text\n## not a heading\n```\n")
    assert _anchors(page) == {"a", "the-journal-journaljsonl"}


# ------------------------------------------------------------------------------------ python blocks
@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_python_blocks_parse(page):
    for block in _blocks(page):
        if block.lang == "python":
            try:
                ast.parse(block.text)
            except SyntaxError as exc:
                pytest.fail(f"{page.name}:{block.line + (exc.lineno or 0)}: {exc.msg}")


def _case_blocks() -> List[Tuple[str, Block]]:
    return [(f"{p.relative_to(ROOT)}:{b.line}", b) for p in PAGES for b in _blocks(p)
            if b.lang == "python" and not b.fragment and re.search(r"(?m)^\w+ = PairedCase\(", b.text)]


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
@pytest.mark.parametrize("where, block", _case_blocks(), ids=[w for w, _ in _case_blocks()])
def test_python_blocks_that_define_cases_are_collected(where, block, tmp_path):
    from migcheck.planning.discovery import discover

    path = tmp_path / "cases" / "doc_example.py"
    path.parent.mkdir()
    path.write_text(block.text)
    found = discover([str(path)])
    assert not found.errors, f"{where}: {[str(e) for e in found.errors]}"
    assert found.cases, f"{where}: defines no case"


def test_every_case_block_is_collected_or_marked_a_fragment():
    """A block that uses PairedCase without defining a loadable module-level case must say it is a fragment."""
    loose = [f"{p.relative_to(ROOT)}:{b.line}" for p in PAGES for b in _blocks(p)
             if b.lang == "python" and "PairedCase(" in b.text and not b.fragment
             and not re.search(r"(?m)^\w+ = PairedCase\(", b.text)]
    assert not loose, loose


# ----------------------------------------------------------------------------------------- commands
def _flags_in_help(text: str) -> Set[str]:
    """The option strings of an argparse/pytest help text: lines that start with a flag."""
    flags = set()
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("-"):
            head = re.split(r"\s{2,}", stripped)[0]
            for part in head.split(", "):
                flags.add(re.split(r"[\s=]", part)[0])
    return flags


@lru_cache(maxsize=None)
def _migcheck_flags() -> Dict[str, Set[str]]:
    parser = build_parser()
    out = {}
    for command in ("compare", "list", "record", "report", "merge", "map", "convert"):
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer), pytest.raises(SystemExit):
            parser.parse_args([command, "--help"])
        out[command] = _flags_in_help(buffer.getvalue())
    return out


@lru_cache(maxsize=None)
def _pytest_flags() -> Set[str]:
    done = subprocess.run([sys.executable, "-m", "pytest", "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return _flags_in_help(done.stdout)


def _commands(page: Path) -> Iterator[Tuple[str, List[str]]]:
    """(where, tokens) of every command shown: shell blocks, `run:` lines of YAML blocks, inline code."""
    texts = []
    for block in _blocks(page):
        for k, line in enumerate(block.text.splitlines()):
            where = f"{page.name}:{block.line + 1 + k}"
            if block.lang in SHELL:
                texts.append((where, line[2:] if line.startswith("$ ") else "" if block.lang == "console" else line))
            elif block.lang == "yaml" and "run: " in line:
                texts.append((where, line.split("run: ", 1)[1]))
    texts += [(f"{page.name} `{code}`", code) for code in _inline_code(page)]
    for where, text in texts:
        text = re.sub(r"\s+#\s.*$", "", text)  # a trailing comment
        for part in re.split(r"&&|\|\||;", text):
            try:
                tokens = shlex.split(part.replace("[", " ").replace("]", " "))
            except ValueError:
                continue
            if tokens:
                yield where, tokens


def _check(where: str, tokens: List[str]) -> List[str]:
    migcheck, pytest_flags = _migcheck_flags(), _pytest_flags()
    every = set().union(*migcheck.values()) | pytest_flags
    head = tokens[0].rsplit("/", 1)[-1]
    if tokens[:2] in (["bash", "scripts/dev.sh"], ["scripts/dev.sh"]) or head == "dev.sh":
        rest = tokens[2:] if tokens[0] == "bash" else tokens[1:]
        if not rest:  # the script named, not run
            return []
        if rest[0] not in ("compare", "test", "setup"):
            return [f"{where}: scripts/dev.sh has no job {rest[:1]}"]
        flags = migcheck["compare"] if rest[0] == "compare" else pytest_flags
        return [f"{where}: {t} is not a flag of dev.sh {rest[0]}" for t in _flag_tokens(rest[1:]) if t not in flags]
    if head == "migcheck":
        if len(tokens) < 2 or tokens[1] in ("-h", "--help"):
            return []
        if tokens[1].startswith("<"):  # a placeholder: `migcheck <command> --help`
            return []
        if tokens[1] not in migcheck:
            return [f"{where}: migcheck has no subcommand {tokens[1]!r}"]
        return [f"{where}: migcheck {tokens[1]} has no flag {t}" for t in _flag_tokens(tokens[2:])
                if t not in migcheck[tokens[1]]]
    if head == "pytest" or tokens[:3] == ["python", "-m", "pytest"]:
        return [f"{where}: pytest has no option {t}" for t in _flag_tokens(tokens[1:]) if t not in pytest_flags]
    if re.fullmatch(r"--?[A-Za-z][\w-]*", tokens[0].split("=")[0]) and re.search(r" `-", where):
        flag = tokens[0].split("=")[0]  # inline code that is a bare flag: some front end must have it
        return [] if flag in every else [f"{where}: no command has the flag {flag}"]
    return []


def _flag_tokens(tokens: List[str]) -> List[str]:
    return [t.split("=")[0] for t in tokens if re.fullmatch(r"--?[A-Za-z][\w-]*(=.*)?", t)]


@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_every_command_shown_is_real(page):
    bad = [problem for where, tokens in _commands(page) for problem in _check(where, tokens)]
    assert not bad, "\n".join(bad)


def test_the_command_checker_catches_a_made_up_flag():
    assert _check("x", ["migcheck", "compare", "--atoll", "1"]) == ["x: migcheck compare has no flag --atoll"]
    assert _check("x", ["migcheck", "frobnicate"]) == ["x: migcheck has no subcommand 'frobnicate'"]
    assert _check("x", ["pytest", "cases", "--migcheck-atoll", "1"]) == ["x: pytest has no option --migcheck-atoll"]
    assert _check("x", ["bash", "scripts/dev.sh", "compare", "--lf", "--mode", "graph"]) == []
    assert _check("x `--no-such-flag`", ["--no-such-flag"]) == ["x `--no-such-flag`: no command has the flag --no-such-flag"]


# ------------------------------------------------------------------------------------- completeness
def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    return text[start:end if end >= 0 else len(text)]


def test_the_cli_reference_lists_every_flag_of_every_subcommand():
    text = (ROOT / "docs" / "cli.md").read_text()
    missing = [f"migcheck {command} {flag}" for command, flags in _migcheck_flags().items()
               for flag in sorted(flags - {"-h", "--help"})
               if not re.search(rf"`{re.escape(flag)}[` ]", _section(text, f"## `migcheck {command}`"))]
    assert not missing, missing


def test_the_exit_codes_are_in_one_place():
    from migcheck.cli import EXIT_OK, EXIT_UNEXPECTED, EXIT_USAGE
    from migcheck.util.signals import EXIT_INTERRUPTED, EXIT_TERMINATED

    table = _section((ROOT / "docs" / "cli.md").read_text(), "## Exit codes")
    for code in (EXIT_OK, EXIT_UNEXPECTED, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_TERMINATED):
        assert f"| **{code}** |" in table
    elsewhere = [str(p.relative_to(ROOT)) for p in PAGES if p.name != "cli.md"
                 and re.search(r"(?mi)^#+ .*exit code", p.read_text())]
    assert not elsewhere, f"exit codes belong in docs/cli.md, not in a section of {elsewhere}"


def test_the_pytest_page_lists_every_migcheck_option():
    text = (ROOT / "docs" / "ci-and-pytest.md").read_text()
    options = sorted(f for f in _pytest_flags() if f.startswith("--migcheck-"))
    assert len(options) >= 13
    assert [o for o in options if f"`{o}" not in text] == []


def test_the_readme_stays_short():
    assert len((ROOT / "README.md").read_text().splitlines()) <= 250
