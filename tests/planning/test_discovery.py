"""Finding cases in files (migcheck.planning.discovery): broken files and cases become errors, the rest still load."""
from __future__ import annotations

import pytest

from migcheck.planning.discovery import LoadError, case_files, discover, load_file
from migcheck.planning.keyword import keyword_matcher

GOOD = '''
dense = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X, checks=FORWARD, doc="Linear(3, 2) port")
'''


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_case_is_named_after_its_variable_unless_named(write_case_file):
    path = write_case_file("cases/named.py", '''
        dense = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X, checks=FORWARD, doc="Linear(3, 2)")
        other = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X, checks=FORWARD, name="custom")
        NOT_A_CASE = {"torch": torch_linear}
    ''')
    loaded = load_file(path)
    assert loaded.errors == ()
    assert [c.name for c in loaded.cases] == ["dense", "custom"]
    assert {c.file for c in loaded.cases} == {str(path.resolve())}
    assert loaded.cases[0].doc == "Linear(3, 2)"
    # The factories are the real ones: they build a torch.nn.Linear(3, 2).
    module = loaded.cases[0].torch()
    assert type(module).__name__ == "Linear" and tuple(module.weight.shape) == (2, 3)


def test_syntax_error_names_file_and_line_and_other_files_still_load(write_case_file, tmp_path):
    write_case_file("cases/a_good.py", GOOD)
    bad = write_case_file("cases/b_bad.py", "ok = 1\nbroken = PairedCase(\n", prelude=False)
    collection = discover([str(tmp_path / "cases")])
    assert [c.name for c in collection.cases] == ["dense"]
    [error] = collection.errors
    assert (error.path, error.case) == (str(bad), "")
    assert error.problem.startswith("syntax error at line 2: ")
    assert error.problem.endswith("; fix the case file")
    assert str(error) == f"{bad}: {error.problem}"


def test_import_error_is_reported_with_the_exception(write_case_file):
    path = write_case_file("cases/imports.py", "import not_a_real_module_xyz\n", prelude=False)
    [error] = load_file(path).errors
    assert error.problem == "importing it raised ModuleNotFoundError: No module named 'not_a_real_module_xyz' (line 1)"


def test_a_file_that_failed_to_import_is_retried_after_the_fix(write_case_file):
    path = write_case_file("cases/flaky.py", "raise RuntimeError('boom')\n", prelude=False)
    assert load_file(path).errors[0].problem == "importing it raised RuntimeError: boom (line 1); fix the case file"
    write_case_file("cases/flaky.py", GOOD)
    fixed = load_file(path)
    assert fixed.errors == () and [c.name for c in fixed.cases] == ["dense"]


@pytest.mark.parametrize("spec, problem", [
    ("uniform(4, -3)", "input 'x': shape (4, -3) must be a tuple of non-negative integers (fix: correct the input spec)"),
    ("uniform(4, 3, dtype='float8')", "input 'x': unknown dtype 'float8'; use one of"),
    ("uniform(4, 3, low=1.0, high=-1.0)", "input 'x': low (1.0) must be below high (-1.0) (fix: correct the input spec)"),
])
def test_invalid_spec_fails_its_case_only(write_case_file, spec, problem):
    path = write_case_file("cases/specs.py", GOOD + f'''
bad_spec = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs={{"x": {spec}}}, checks=FORWARD)
''')
    loaded = load_file(path)
    assert [c.name for c in loaded.cases] == ["dense"]
    [error] = loaded.errors
    assert (error.path, error.case) == (str(path), "bad_spec")
    assert error.problem.startswith(problem)
    assert str(error).startswith(f"{path}::bad_spec: input 'x': ")


def test_non_number_tolerance(write_case_file):
    path = write_case_file("cases/tol.py", '''
        loose = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X, checks=FORWARD,
                           tolerance=Tolerance(rtol="1e-4", atol=1e-5))
    ''')
    [error] = load_file(path).errors
    assert error.case == "loose"
    assert error.problem == ("tolerance: rtol='1e-4' is not a number; give a float such as 1e-5"
                             " (fix: use migcheck.Tolerance(rtol=..., atol=...))")


def test_every_problem_of_a_case_is_its_own_error(write_case_file):
    path = write_case_file("cases/many.py", '''
        many = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs={"x": uniform(-1)}, checks=FORWARD,
                          expect="fail")
    ''')
    errors = load_file(path).errors
    assert [e.case for e in errors] == ["many", "many"]
    assert errors[0].problem.startswith("input 'x': shape (-1,)")
    assert errors[1].problem.startswith("fails_with=None")


def test_duplicate_names_across_files(write_case_file, tmp_path):
    first = write_case_file("cases/a.py", GOOD)
    second = write_case_file("cases/b.py", GOOD)
    collection = discover([str(tmp_path / "cases")])
    assert [(c.name, c.file) for c in collection.cases] == [("dense", str(first.resolve()))]
    assert collection.errors == (LoadError(str(second), "dense",
                                           f"duplicate case name, also defined in {first}; give one of them another name"),)


def test_explicit_name_collides_with_a_variable_name(write_case_file):
    path = write_case_file("cases/one.py", GOOD + '''
other = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X, checks=FORWARD, name="dense")
''')
    collection = discover([str(path)])
    assert [c.name for c in collection.cases] == ["dense"]
    assert collection.errors[0].problem.startswith("duplicate case name")


def test_case_files_skips_private_files_and_reports_missing_paths(write_case_file, tmp_path):
    write_case_file("cases/sub/deep.py", GOOD)
    write_case_file("cases/_helpers.py", "raise RuntimeError('must not be imported')\n", prelude=False)
    (tmp_path / "cases" / "notes.txt").write_text("not python")
    files, errors = case_files([str(tmp_path / "cases"), str(tmp_path / "missing.py")])
    assert [p.relative_to(tmp_path).as_posix() for p in files] == ["cases/sub/deep.py"]
    assert errors == [LoadError(str(tmp_path / "missing.py"), "",
                                "no such case file or folder; pass a .py file or a folder of them")]


# --- -k expressions -------------------------------------------------------------------------------

ITEMS = {
    "conv_relu[forward-pynative-cpu] conv guide",
    "conv_relu[forward-graph-cpu] conv guide",
    "dense_2_1[forward-pynative-cpu] linear guide",
    "dense_2_1[forward-graph-cpu] linear guide",
    "conv_relu_default_pad[forward-pynative-cpu] conv guide known-bad",
}


def selected(expr: str) -> set:
    match = keyword_matcher(expr)
    return {item.split()[0] for item in ITEMS if match(item)}


def test_keyword_and_not():
    assert selected("conv and not graph") == {"conv_relu[forward-pynative-cpu]", "conv_relu_default_pad[forward-pynative-cpu]"}


def test_keyword_parentheses_and_or():
    assert selected("(dense or known-bad) and pynative") == {
        "dense_2_1[forward-pynative-cpu]", "conv_relu_default_pad[forward-pynative-cpu]"}
    assert selected("not (conv or linear)") == set()


def test_keyword_matches_substrings_case_insensitively():
    assert selected("DENSE_2") == {"dense_2_1[forward-pynative-cpu]", "dense_2_1[forward-graph-cpu]"}
    assert selected("[forward-graph") == {"conv_relu[forward-graph-cpu]", "dense_2_1[forward-graph-cpu]"}


@pytest.mark.parametrize("expr", ["", "   ", "conv and", "(conv", "conv)", "conv dense", "not", "conv (graph)", "()"])
def test_bad_keyword_expression_raises_value_error(expr):
    with pytest.raises(ValueError):
        keyword_matcher(expr)
