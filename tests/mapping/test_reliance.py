"""A finding that rests on a medium-confidence pairing is never [high]; one on a sure pairing is untouched."""
from migcheck.localization.locate import Localization
from migcheck.localization.rules import Finding
from migcheck.localization.reliance import capped
from migcheck.mapping.structure import Inference
from migcheck.mapping.transfer import WeightMapping


def _mapping(confidence):
    inferred = (Inference("s4.b1.conv1.conv", "stages.3.blocks.0.proj", "aligned call position", confidence),)
    return WeightMapping((), (), (), (), (), (), (), inferred=inferred)


def _localization():
    finding = Finding("conv-stride", "torch 's4.b1.conv1.conv' / MindSpore 'stages.3.blocks.0.proj' (Conv2d / Conv2d)",
                      "Conv2d stride differs", "stride=(1, 1)", "high", confirmed=True)
    return Localization(rows=(), first_divergence="s4.b1.conv1.conv", first_divergence_ms="stages.3.blocks.0.proj",
                        findings=(finding,), summary="likely cause: Conv2d stride differs -> fix: stride=(1, 1) [high]")


def test_a_finding_on_a_medium_pairing_is_capped_and_names_the_pairing():
    found = capped(_localization(), _mapping("medium"))
    (finding,) = found.findings
    assert finding.confidence == "medium"
    assert "torch 's4.b1.conv1.conv' -> MindSpore 'stages.3.blocks.0.proj' (aligned call position" in finding.evidence
    assert found.summary.endswith("[medium, pairing unconfirmed]")


def test_a_finding_on_a_sure_pairing_keeps_its_confidence():
    found = capped(_localization(), _mapping("high"))
    assert found.findings[0].confidence == "high" and found.summary.endswith("[high]")
