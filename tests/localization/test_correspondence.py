"""Same-named settings (localization/correspondence.same_named_differences): candidates a re-run must confirm,
read off both objects where the correspondence table has no row for the difference. Pure."""
from migcheck.localization.correspondence import same_named_differences


def test_a_flag_one_side_leaves_unset_and_the_other_sets_is_a_same_named_difference():
    (d,) = same_named_differences("Upsample", {"recompute_scale_factor": None, "mode": "nearest"},
                                  "Upsample", {"recompute_scale_factor": True, "mode": "nearest"})
    assert d.cause.startswith("recompute_scale_factor differs: torch Upsample.recompute_scale_factor is None,"
                              " MindSpore Upsample.recompute_scale_factor is True")
    assert same_named_differences("X", {"size": None}, "X", {"size": 4}) == []  # None vs a number: not a flag
