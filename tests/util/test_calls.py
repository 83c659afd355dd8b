"""How inputs are fed: by keyword when the callable names them all, by position otherwise, refused when mixed."""
import collections
import dataclasses

import pytest

from migcheck.util.calls import CallStyleError, keyword_names, split_call
from migcheck.util.tree import flatten, index_paths, record_fields


def gpt2(input_ids, past_key_values=None, attention_mask=None):
    return input_ids


def plain(x, y):
    return x


def test_every_name_a_parameter_means_keywords_even_past_a_positional_gap():
    assert keyword_names(gpt2, ["input_ids", "attention_mask"], "gpt2") == ("input_ids", "attention_mask")
    assert split_call([1, 2], ("input_ids", "attention_mask")) == ((), {"input_ids": 1, "attention_mask": 2})


def test_unnamed_or_default_names_stay_positional():
    assert keyword_names(plain, ["x0", "x1"], "plain") == ()
    assert keyword_names(plain, ["x", "y"], "plain") == ()  # the leading parameters in order: same meaning
    assert keyword_names(plain, ["y", "x"], "plain") == ("y", "x")  # named out of order: by keyword
    assert keyword_names(plain, [], "plain") == ()
    assert split_call([1, 2], ()) == ((1, 2), {})


def test_a_name_matching_another_position_is_refused_with_the_fix():
    with pytest.raises(CallStyleError) as err:
        keyword_names(gpt2, ["ids", "attention_mask"], "the torch Decoder.forward")
    text = str(err.value)
    assert "'attention_mask' names parameter 3" in text and "argument 2" in text
    assert "rename input(s) 'ids'" in text


def test_a_name_matching_its_own_position_is_fine_positionally():
    assert keyword_names(gpt2, ["input_ids", "mask"], "gpt2") == ()


@dataclasses.dataclass
class Out:
    logits: object
    hidden_states: object
    past: object = None


def test_model_outputs_flatten_by_field_name_and_drop_none():
    Named = collections.namedtuple("Named", "logits aux")
    assert record_fields(Out(1, (2, 3))) == [("logits", 1), ("hidden_states", (2, 3))]
    assert [n for n, _ in flatten(Out(1, (2, 3)))] == ["out.logits", "out.hidden_states[0]", "out.hidden_states[1]"]
    assert [n for n, _ in flatten(Named(1, 2))] == ["out.logits", "out.aux"]
    assert index_paths({"logits": 1, "hidden_states": (2, 3)}) == [("logits",), ("hidden_states", 0), ("hidden_states", 1)]
    assert record_fields((1, 2)) is None and record_fields(Out) is None
