"""Input specs (migcheck.specs) and case validation (migcheck.case.case_problems)."""
from __future__ import annotations

import pytest

from migcheck import PairedCase, Tolerance, given, integers, mask, normal, uniform
from migcheck.case import case_problems, normalize_inputs
from migcheck.specs import InputSpec


def make_torch():  # never called: validation does not build modules
    raise AssertionError("case_problems must not build the module")


def make_ms():
    raise AssertionError("case_problems must not build the cell")


def case(**overrides) -> PairedCase:
    fields = dict(torch=make_torch, mindspore=make_ms, inputs={"x": uniform(2, 3)}, checks=("forward",), name="c")
    fields.update(overrides)
    return PairedCase(**fields)


def problems(**overrides):
    return case_problems(case(**overrides))


# --- specs ----------------------------------------------------------------------------------------

def test_spec_constructors():
    assert uniform(2, 3, low=0.0, high=2.0) == InputSpec((2, 3), "float32", "uniform", 0.0, 2.0)
    assert normal(4, std=0.5, dtype="float64") == InputSpec((4,), "float64", "normal", std=0.5)
    assert integers(5, high=9) == InputSpec((5,), "int64", "integers", 0, 9)
    assert mask(2, 2, p=0.1) == InputSpec((2, 2), "bool", "mask", p=0.1)
    assert (given([1.5, 2.5]).shape, given([1.5, 2.5]).dtype) == ((2,), "float64")


@pytest.mark.parametrize("spec", [uniform(2, 3), normal(1), integers(3, high=2), mask(4, p=0.0), mask(4, p=1.0),
                                  uniform(0, 3), given([1, 2])])
def test_valid_specs_have_no_problems(spec):
    assert spec.problems() == []


@pytest.mark.parametrize("spec, message", [
    (uniform(2, -1), "shape (2, -1) must be a tuple of non-negative integers"),
    (uniform(2.5), "shape (2.5,) must be a tuple of non-negative integers"),
    (uniform(2, low=1.0, high=0.0), "low (1.0) must be below high (0.0)"),
    (uniform(2, low=1.0, high=1.0), "low (1.0) must be below high (1.0)"),
    (integers(2, low=5, high=5), "low (5) must be below high (5)"),
    (normal(2, std=0.0), "std (0.0) must be positive"),
    (mask(2, p=1.5), "mask probability p=1.5 must be within [0, 1]"),
    (InputSpec((2,), kind="poisson"), "unknown input kind 'poisson'; use one of uniform, normal, integers, mask, given"),
    (InputSpec((2,), kind="given"), "given input has no values"),
])
def test_spec_problems(spec, message):
    assert spec.problems() == [message]


def test_unknown_dtype_lists_the_known_ones():
    [message] = uniform(2, dtype="float8").problems()
    assert message.startswith("unknown dtype 'float8'; use one of float16, bfloat16, float32, float64, int8,")
    assert message.endswith("uint8, bool")


# --- normalize_inputs -----------------------------------------------------------------------------

def test_inputs_as_dict_keep_their_order():
    specs = normalize_inputs({"b": uniform(1), "a": integers(2, high=3)})
    assert [name for name, _ in specs] == ["b", "a"]
    assert specs[1][1].kind == "integers"


def test_inputs_as_list_of_shapes_become_uniform_float32():
    assert normalize_inputs([(2, 3)]) == (("x", uniform(2, 3)),)
    assert normalize_inputs([(2,), uniform(4)]) == (("x0", uniform(2)), ("x1", uniform(4)))


@pytest.mark.parametrize("inputs, message", [
    (5, "inputs must be a dict of name -> spec or a list of specs/shapes, got int"),
    ("x", "inputs must be a dict of name -> spec or a list of specs/shapes, got str"),
    ({"x": 3}, "input 'x' must be a spec such as migcheck.uniform(2, 3) or a shape tuple, got 3"),
])
def test_bad_inputs_raise_type_error(inputs, message):
    with pytest.raises(TypeError) as info:
        normalize_inputs(inputs)
    assert str(info.value) == message


# --- case_problems --------------------------------------------------------------------------------

def test_a_well_formed_case_has_no_problems():
    assert problems() == []
    assert problems(expect="fail", fails_with="shape") == []
    assert problems(weights=0.1) == []
    assert problems(tolerance=Tolerance(1e-4, 1e-5), tolerances={"out[0]": Tolerance(0, 0)}) == []


def test_factories_must_be_callable():
    assert problems(torch=None, mindspore="Dense") == [
        ("'torch' is not callable", "pass a function or class that returns a torch.nn.Module"),
        ("'mindspore' is not callable", "pass a function or class that returns a mindspore.nn.Cell"),
    ]


def test_bad_inputs_are_reported_not_raised():
    assert problems(inputs=7) == [
        ("inputs must be a dict of name -> spec or a list of specs/shapes, got int", "see migcheck.uniform / integers / mask / given")]
    assert problems(inputs={"x": uniform(2, -3), "y": uniform(1, low=2.0, high=1.0)}) == [
        ("input 'x': shape (2, -3) must be a tuple of non-negative integers", "correct the input spec"),
        ("input 'y': low (2.0) must be below high (1.0)", "correct the input spec"),
    ]


def test_tolerance_must_be_a_tolerance_of_numbers():
    fix = "use migcheck.Tolerance(rtol=..., atol=...)"
    assert problems(tolerance=1e-5) == [("tolerance is 1e-05", fix)]
    assert problems(tolerance=Tolerance("tight", 1e-5)) == [
        ("tolerance: rtol='tight' is not a number; give a float such as 1e-5", fix)]
    assert problems(tolerances={"out[0]": Tolerance(1e-5, -1.0), "out[1]": (1e-5, 1e-5)}) == [
        ("tolerances['out[0]']: atol=-1.0 must be a non-negative number", fix),
        ("tolerances['out[1]'] is (1e-05, 1e-05)", fix),
    ]


def test_expectation_fields():
    assert problems(expect="maybe") == [("expect='maybe'", "use expect='pass' or expect='fail'")]
    [(problem, fix)] = problems(expect="fail")
    assert problem == "fails_with=None"
    assert fix.startswith("a known-bad case names its failure: one of structure, tree, shape,")
    assert problems(expect="fail", fails_with="nan")[0][0] == "fails_with='nan'"


def test_checks_modes_and_weights():
    assert problems(checks=("forwards",)) == [("unknown check 'forwards'", "use some of forward, backward, train, step, init")]
    [(problem, fix)] = problems(fails_on=("backward",), expect="fail", fails_with="value")
    assert problem == "fails_on names 'backward', which the case does not run" and fix
    assert problems(modes=("eager",)) == [("unknown mode 'eager'", "use some of pynative, graph")]
    assert problems(weights="zeros") == [("weights='zeros'", "use 'seeded' or a number such as 0.1")]


def test_several_problems_are_all_reported():
    found = [p for p, _ in problems(torch=1, expect="maybe", modes=("eager",))]
    assert found == ["'torch' is not callable", "expect='maybe'", "unknown mode 'eager'"]
