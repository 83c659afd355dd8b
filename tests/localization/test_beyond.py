"""Confirmation beyond the case's own inputs (localization/beyond.py), each claim on a bad port and its correct
twin: a change that makes only the case's input agree is not [high] (meshgrid's results swapped on a square map);
a function put in the call's place must also agree with torch's op at edge values (ops.fmax for torch.max(a, b));
a change of the port's own call comes before another call (a cast of ReduceSum's bool input, explicit pads in
MindSpore's order rather than pad_mode='same')."""
import numpy as np
import pytest

from migcheck import PairedCase, given, uniform
from migcheck.localization.beyond import _variants, edge_sets
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")
ops = ms.ops


def _verdict(torch_net, ms_net, inputs):
    case = PairedCase(name="net", torch=torch_net, mindspore=ms_net, inputs=inputs, checks=("forward",))
    v = run_item(Item(case, "forward", "pynative", "cpu"))
    return v, (v.localization.defects if v.localization else ())


# --- pure numpy: what the second inputs and the edge values are ------------------------------------------------

def test_second_inputs_are_fresh_values_a_longer_last_axis_and_another_batch_size():
    x, labels = np.linspace(-1, 1, 2 * 3 * 4 * 4, dtype=np.float32).reshape(2, 3, 4, 4), np.array([1, 0], np.int64)
    (w1, fresh), (w2, wide), (w3, batch) = _variants([x, labels], np.random.default_rng(0))
    assert fresh[0].shape == x.shape and not np.array_equal(fresh[0], x) and fresh[0].min() >= -1
    assert fresh[1] is labels  # integer inputs (labels, lengths, masks) keep their values
    assert wide[0].shape == (2, 3, 4, 6) and "last axis longer" in w2
    assert batch[0].shape == (3, 3, 4, 4) and list(batch[1]) == [1, 0, 1] and "another batch size" in w3


def test_edge_values_are_written_into_each_float_input_and_ties_make_them_equal():
    a, b = np.ones((2, 2), np.float32), np.zeros((2, 2), np.float32)
    sets = dict(edge_sets([a, b]))
    assert np.isnan(sets["NaN in input 1"][1][0, 0]) and not np.isnan(sets["NaN in input 1"][0]).any()
    assert np.signbit(sets["-0.0 in input 0"][0][0, 0])
    assert np.array_equal(*sets["ties (equal inputs)"]) and a[0, 0] == 1  # the recorded inputs are not touched


# --- meshgrid: swapping the results fixes a square map only ------------------------------------------------------

class _CoordPt(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Conv2d(2, 3, 1)
        self.conv = torch.nn.Conv2d(5, 4, 1)

    def forward(self, x):
        h = self.stem(x)
        yy, xx = torch.meshgrid(torch.linspace(-1.0, 1.0, h.shape[2]), torch.linspace(-1.0, 1.0, h.shape[3]),
                                indexing="ij")
        return self.conv(torch.cat([h, torch.stack([yy, xx]).unsqueeze(0).expand(h.shape[0], -1, -1, -1)], dim=1))


def _coord_ms(indexing):
    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.stem = ms.nn.Conv2d(2, 3, 1, has_bias=True)
            self.conv = ms.nn.Conv2d(5, 4, 1, has_bias=True)

        def construct(self, x):
            h = self.stem(x)
            n, _, height, width = h.shape
            yy, xx = ops.meshgrid(ops.linspace(-1.0, 1.0, height), ops.linspace(-1.0, 1.0, width), indexing=indexing)
            coords = ops.broadcast_to(ops.stack([yy, xx]).expand_dims(0), (n, 2, height, width))
            return self.conv(ops.cat([h, coords], axis=1))
    return M


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_swap_that_fixes_only_a_square_map_is_rejected_and_indexing_ij_confirmed():
    v, (d,) = _verdict(_CoordPt, _coord_ms("xy"), {"x": uniform(2, 2, 4, 4)})
    assert d.confirmed and d.confidence == "high" and d.fix == "meshgrid(..., indexing='xy') -> meshgrid(..., indexing='ij')"
    assert "confirmed beyond the case's input" in d.cause and "(2, 2, 4, 6)" in d.cause
    swap = next(t for t in d.search_tried if "results in the other order" in t)
    assert "rejected: it agrees on the case's input but raises on an input of shape (2, 2, 4, 6)" in swap


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_the_meshgrid_ij_twin_passes():
    assert _verdict(_CoordPt, _coord_ms("ij"), {"x": uniform(2, 2, 4, 4)})[0].status == "pass"


# --- torch.max(a, b): where every function the library has differs from torch's op at NaN, the closest is the fix,
# --- with that said (the correct twin calling it passes the very check)

def _elementwise(construct):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 6)

        def forward(self, x):
            h = self.fc(x)
            return torch.max(h[:, :3], h[:, 3:])

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 6)

        def construct(self, x):
            h = self.fc(x)
            return construct(h[:, :3], h[:, 3:])
    return T, M


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_replacement_that_differs_from_torch_only_at_nan_is_the_fix_with_that_said():
    v, ds = _verdict(*_elementwise(lambda a, b: ops.max(a, b)), {"x": uniform(4, 4)})
    (d,) = [d for d in ds if d.rule == "op-argument-search"]
    # MindSpore 2.10's CPU maximum returns the other input where its first is NaN: closer than fmax (NaN in both)
    assert d.confirmed and d.fix.startswith("use ops.maximum(input, other) in place of max"), d.fix
    assert d.fix.endswith("(it differs from torch's op only where an input is NaN)")
    assert "except where an input is NaN (ops.maximum differs from torch's op at NaN in input 0" in d.cause
    assert "ops.fmax differs from torch's op at NaN in input 0, NaN in input 1" in " ".join(d.search_tried)


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_the_maximum_twin_passes():
    assert _verdict(*_elementwise(lambda a, b: ops.maximum(a, b)), {"x": uniform(4, 4)})[0].status == "pass"


# --- ReduceSum of a bool mask: the port's own call with its input cast ----------------------------------------------

_MASK = np.array([[1, 1, 0, 1, 0], [1, 0, 0, 0, 0], [1, 1, 1, 1, 1]], bool)


def _masked_mean(count):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 4)

        def forward(self, x, mask):
            h = self.fc(x)
            return (h * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True)

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 4)

        def construct(self, x, mask):
            h = self.fc(x)
            return (h * mask.expand_dims(-1)).sum(1) / count(mask)
    return T, M


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_bool_reduce_sum_is_fixed_by_casting_its_input_not_by_another_call():
    v, (d,) = _verdict(*_masked_mean(lambda m: ops.ReduceSum(keep_dims=True)(m, 1)),
                       {"x": uniform(3, 5, 4), "mask": given(_MASK)})
    assert d.confirmed and d.confidence == "high"
    assert d.fix.startswith("ReduceSum(..., x=x.astype(mindspore.int64), ...)")
    assert "torch's 'sum' returns int64 where the port's call returns bool" in d.cause
    assert not any("in its place" in t for t in d.search_tried)  # the port's own call came first


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_the_float_mask_twin_passes():
    twin = _masked_mean(lambda m: ops.ReduceSum(keep_dims=True)(m.astype(ms.float32), 1))
    assert _verdict(*twin, {"x": uniform(3, 5, 4), "mask": given(_MASK)})[0].status == "pass"


# --- a 1x3 conv's pads in F.pad's order: explicit pads in MindSpore's order, not pad_mode='same' -------------------

def _factorized(pads):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(2, 2, (1, 3), padding=(0, 1))

        def forward(self, x):
            return self.conv(x)

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = ms.nn.Conv2d(2, 2, (1, 3), pad_mode="pad", padding=pads, has_bias=True)

        def construct(self, x):
            return self.conv(x)
    return T, M


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_pads_in_the_wrong_order_get_the_port_s_own_padding_reordered():
    v, _ = _verdict(*_factorized((1, 1, 0, 0)), {"x": uniform(1, 2, 6, 6)})
    (f,) = [f for f in v.localization.findings if f.rule == "pad-mode"]
    assert (f.confirmed, f.fix) == (True, "pad_mode='pad', padding=(0, 0, 1, 1)")


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_the_reordered_pads_twin_passes():
    assert _verdict(*_factorized((0, 0, 1, 1)), {"x": uniform(1, 2, 6, 6)})[0].status == "pass"


@pytest.mark.needs_mindspore
def test_functions_named_like_torch_s_op_take_a_few_more_letters_but_not_another_op():
    from migcheck.runners.mindspore_functions import functions_like

    assert "maximum" in [name for name, _ in functions_like("max", ("input", "other"))]
    # ops.multinomial fed a float tensor as num_samples crashed the process (a float16 RMSNorm's search)
    assert "multinomial" not in [name for name, _ in functions_like("mul", ("input", "other"))]
