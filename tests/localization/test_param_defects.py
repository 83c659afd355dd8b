"""A parameter trainable on one side only, worded as its layer's defect: a fix only when the re-run agreed."""
from migcheck.localization.param_defects import trainable_defect, with_trainable_defects
from migcheck.runners.base import ParamInfo


def _param(name, trainable):
    return ParamInfo(name=name, shape=(4,), dtype="float32", owner_kind="Gain", trainable=trainable,
                     is_buffer=not trainable)


def test_without_an_agreeing_rerun_the_difference_is_said_at_medium_with_no_fix():
    d = trainable_defect(_param("gain.weight", False), _param("gain.weight", True), fixed=False)
    assert (d.torch_name, d.confidence, d.confirmed, d.fix) == ("gain", "medium", False, "")
    assert "requires_grad=True where torch's 'gain.weight' has requires_grad=False" in d.cause


def test_a_parameter_trainable_only_in_torch_is_said_the_other_way_round():
    d = trainable_defect(_param("gain.weight", True), _param("gain.weight", False), fixed=True)
    assert "the port's is never updated, where torch's is trained" in d.cause
    assert "requires_grad=True) for 'gain.weight'" in d.fix and d.confirmed


def test_a_localization_is_made_where_there_was_none():
    loc = with_trainable_defects(None, [(_param("gain.weight", False), _param("gain.weight", True))], fixed=True)
    assert loc.first_divergence == "gain" and loc.findings[0].fix_checked
    assert loc.summary == "parameter flags differ: 'gain.weight' trainable on one side only"
