"""An op whose result has torch's rank but not its trailing sizes, with a size argument it left None: that argument
set to torch's trailing sizes (op_compose.output_size_candidates; the re-run, on other shapes too, decides)."""
import numpy as np

from migcheck.localization.op_compose import output_size_candidates
from migcheck.records.ops import OpRecord


def test_an_irfft2_left_without_s_gets_torchs_trailing_sizes():
    r = OpRecord(4, "irfft2", positional=("<tensor>",), names=("input",), keywords=(("s", None), ("norm", None)),
                 inputs=(np.zeros((2, 2, 6, 4), np.complex64),), outputs=(np.zeros((2, 2, 6, 6), np.float32),))
    changes = [c.arguments for c, _ in output_size_candidates(r, np.zeros((2, 2, 6, 7)))]
    assert (("s", (6, 7)),) in changes and (("s", (7,)),) in changes


def test_an_op_already_of_torchs_shape_or_given_a_size_gets_none():
    same = OpRecord(4, "irfft2", keywords=(("s", None),), outputs=(np.zeros((2, 6, 7)),))
    assert output_size_candidates(same, np.zeros((2, 6, 7))) == []
    given = OpRecord(4, "irfft2", keywords=(("s", (6, 6)),), outputs=(np.zeros((2, 6, 6)),))
    assert output_size_candidates(given, np.zeros((2, 6, 7))) == []
