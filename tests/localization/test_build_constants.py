"""Constants built in a constructor (localization/build_constants.py, pure): pairing both sides' constants, the
arguments a rebuild tries (implicit ones first, the other side's own numbers, an enumeration's other members), and
how a found argument is worded."""
import enum

import numpy as np

from migcheck.localization.build_constants import (agrees, candidates, differing_constants, port_call_defect,
                                                   torch_call_defect)
from migcheck.records.constants import BuildCall, BuildChange


class Norm(enum.Enum):
    NONE = "none"
    ORTHO = "ortho"


def test_constants_pair_by_path_and_only_differing_values_are_reported():
    bands = np.array([1.0, 2.0, 4.0, 8.0])
    diffs = differing_constants({"freq": bands, "enc.window": np.ones(3)},
                                {"freq": bands * 1.0000001, "enc.window": np.array([1.0, 0.5, 1.0])})
    assert [(d.owner, d.torch_attr, d.ms_attr) for d in diffs] == [("enc", "window", "window")]
    assert diffs[0].detail == "max abs err 0.5 at (1,)"


def test_a_renamed_constant_pairs_by_a_shape_unique_in_its_layer_and_an_ambiguous_one_does_not():
    diffs = differing_constants({"window": np.ones(4)}, {"win": np.zeros(4)})
    assert [(d.torch_attr, d.ms_attr) for d in diffs] == [("window", "win")]
    assert differing_constants({"window": np.ones(4)}, {"a": np.zeros(4), "b": np.zeros(4)}) == []


def test_float32_rounding_of_a_constant_built_two_ways_agrees_and_a_shape_change_does_not():
    x = np.linspace(0, 1, 7)
    assert agrees(x, x.astype(np.float32))
    assert not agrees(x, x[:-1])
    assert not agrees(x, x + 1e-3)


def test_implicit_arguments_are_tried_first_with_the_other_sides_numbers_and_enumeration_members():
    port = [BuildCall("mindspore.ops.logspace", 0, (("start", "<tensor>"), ("steps", 4), ("base", 10.0)), ("base",),
                      "m.py:3"),
            BuildCall("audio.create_dct", 0, (("n_mfcc", 4), ("norm", Norm.NONE)), ("norm",), "m.py:4")]
    torch_side = [BuildCall("torch.linspace", 0, (("start", 0.0), ("end", 3.0), ("steps", 4)), (), "t.py:1"),
                  BuildCall("torch.Tensor.__rpow__", 0, (("input", "<tensor>"), ("exponent", 2.0)), (), "t.py:1")]
    tried = [(c.function, c.argument, c.value) for c in candidates(port, torch_side)]
    assert tried[:5] == [("mindspore.ops.logspace", "base", v) for v in (0.0, 3.0, 4.0, 2.0)] + [
        ("audio.create_dct", "norm", Norm.ORTHO)]
    assert ("mindspore.ops.logspace", "steps", 3) in tried and ("mindspore.ops.logspace", "steps", 4) not in tried


def test_a_found_argument_is_worded_with_its_call_and_a_fix_only_when_the_rerun_agreed():
    (diff,) = differing_constants({"freq": np.array([1.0, 2.0])}, {"freq": np.array([1.0, 10.0])})
    calls = [BuildCall("mindspore.ops.logspace", 0, (("base", 10.0),), ("base",), "m.py:3")]
    change = BuildChange("mindspore.ops.logspace", 0, "base", 2.0)
    confirmed = port_call_defect([diff], calls, change, ("Net", "Net"), True, (0.1, ("a",)))
    assert "its call to logspace leaves base=10.0 (its default), and with base=2.0 it builds torch's" in confirmed.cause
    assert confirmed.fix.startswith("mindspore.ops.logspace(..., base=2.0) at m.py:3")
    assert confirmed.confidence == "high"
    unconfirmed = port_call_defect([diff], calls, change, ("Net", "Net"), False, (0.1, ("a",)))
    assert unconfirmed.fix == "" and unconfirmed.confidence == "medium"
    window = torch_call_defect([diff], [BuildCall("torch.hann_window", 0, (("periodic", True),), ("periodic",), "t:1")],
                               BuildChange("torch.hann_window", 0, "periodic", False), ("Net", "Net"), True, (0.1, ()))
    assert window.cause.startswith("the port's 'freq' of '<root>' holds the values hann_window gives with"
                                   " periodic=False: torch's call builds it with periodic=True (its default)")


def test_equal_values_in_another_float_width_are_a_dtype_difference():
    table = np.linspace(0, 1, 6)
    (d,) = differing_constants({"pe": table.astype(np.float32)}, {"pe": table})
    assert (d.dtypes, d.detail) == (("float32", "float64"), "dtype float32 vs float64")
    assert differing_constants({"pe": table.astype(np.float32)}, {"pe": table.astype(np.float32)}) == []
