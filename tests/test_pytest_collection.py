"""Which files the pytest plugin collects: explicit files, ini patterns, and the hint for a file it skipped."""
from __future__ import annotations

import pytest

from migcheck.planning.patterns import defines_cases, matches

pytestmark = pytest.mark.timeout(300)

PLUGIN = ("-p", "migcheck.pytest_plugin")
ONLY_OK = '''
dense_ok = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X, checks=FORWARD)
'''


def ids(result) -> list:
    return [line for line in result.outlines if "::" in line]


def test_a_file_named_on_the_command_line_is_collected_whatever_its_folder_and_name(pytester, case_text):
    pytester.mkdir("my_cases")
    (pytester.path / "my_cases" / "tiny.py").write_text(case_text(ONLY_OK))
    result = pytester.runpytest_subprocess(*PLUGIN, "my_cases/tiny.py", "--collect-only", "-q", "--migcheck-mode", "pynative")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert ids(result) == ["my_cases/tiny.py::dense_ok[forward-pynative-cpu]"]


def test_a_named_file_without_cases_is_not_a_case_file(pytester):
    (pytester.path / "helper.py").write_text("X = 1\n")
    result = pytester.runpytest_subprocess(*PLUGIN, "helper.py", "--collect-only", "-q")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    assert ids(result) == [] and "defines PairedCases" not in result.stdout.str()


def test_default_patterns_collect_cases_folders_and_cases_file_names(pytester, case_text):
    pytester.mkdir("cases")
    pytester.mkdir("ports")
    (pytester.path / "cases" / "a.py").write_text(case_text(ONLY_OK.replace("dense_ok", "in_folder")))
    (pytester.path / "ports" / "dense_cases.py").write_text(case_text(ONLY_OK.replace("dense_ok", "suffix")))
    (pytester.path / "ports" / "cases_conv.py").write_text(case_text(ONLY_OK.replace("dense_ok", "prefix")))
    (pytester.path / "ports" / "other.py").write_text(case_text(ONLY_OK.replace("dense_ok", "not_matched")))
    result = pytester.runpytest_subprocess(*PLUGIN, "--collect-only", "-q", "--migcheck-mode", "pynative")
    assert sorted(ids(result)) == ["cases/a.py::in_folder[forward-pynative-cpu]",
                                   "ports/cases_conv.py::prefix[forward-pynative-cpu]",
                                   "ports/dense_cases.py::suffix[forward-pynative-cpu]"]


def test_the_patterns_ini_option_replaces_the_defaults(pytester, case_text):
    pytester.makeini("[pytest]\nmigcheck_case_patterns = ports/ check_*.py\n")
    pytester.mkdir("cases")
    pytester.mkdir("ports")
    (pytester.path / "cases" / "a.py").write_text(case_text(ONLY_OK.replace("dense_ok", "old_folder")))
    (pytester.path / "ports" / "p.py").write_text(case_text(ONLY_OK.replace("dense_ok", "in_ports")))
    (pytester.path / "check_dense.py").write_text(case_text(ONLY_OK.replace("dense_ok", "by_glob")))
    result = pytester.runpytest_subprocess(*PLUGIN, "--collect-only", "-q", "--migcheck-mode", "graph")
    assert sorted(ids(result)) == ["check_dense.py::by_glob[forward-graph-cpu]", "ports/p.py::in_ports[forward-graph-cpu]"]


def test_a_hint_names_a_file_in_a_named_folder_that_defines_cases_but_was_not_collected(pytester, case_text):
    pytester.mkdir("my_cases")
    (pytester.path / "my_cases" / "tiny.py").write_text(case_text(ONLY_OK))
    result = pytester.runpytest_subprocess(*PLUGIN, "my_cases", "-q", "--migcheck-mode", "pynative")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines(["migcheck: my_cases/tiny.py defines PairedCases but was not collected:*"
                                 "Name the file on the command line*migcheck_case_patterns*"])


def test_defines_cases_reads_the_syntax_tree_not_the_text(tmp_path):
    mentions = tmp_path / "mentions.py"
    mentions.write_text('TEXT = """\\nx = PairedCase(torch=a, mindspore=b)\\n"""\n')
    defines = tmp_path / "defines.py"
    defines.write_text("import migcheck\nx = migcheck.PairedCase(torch=a, mindspore=b)\n")
    assert not defines_cases(mentions) and defines_cases(defines)


@pytest.mark.parametrize("name, folders, expected", [
    ("conv.py", ("root", "cases"), True), ("conv.py", ("root", "src"), False), ("conv_cases.py", ("root",), True),
    ("cases_conv.py", ("root",), True), ("_helpers.py", ("root", "cases"), False), ("test_x.py", ("root", "cases"), False),
])
def test_pattern_matching(tmp_path, name, folders, expected):
    assert matches(tmp_path / name, folders, ("cases/", "*_cases.py", "cases_*.py")) is expected
