import numpy as np
import pytest

from migcheck.transforms import IDENTITY, concat, fits, reorder_blocks, reshape, same_but_singletons, split, transpose

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("transform, torch_shapes, ms_shapes", [
    (IDENTITY, [(3, 4)], [(3, 4)]),
    (reshape(), [(6, 4, 3)], [(6, 4, 1, 3)]),
    (transpose(1, 0), [(3, 5)], [(5, 3)]),
    (transpose(2, 0, 1), [(2, 3, 4)], [(4, 2, 3)]),
    (split(), [(24, 8)], [(8, 8), (8, 8), (8, 8)]),
    (split(axis=1), [(2, 5)], [(2, 2), (2, 3)]),
    (concat(), [(8,), (8,), (8,)], [(24,)]),
    (reorder_blocks(0, 1, 3, 2), [(16, 3)], [(16, 3)]),
])
def test_every_transform_round_trips_exactly(transform, torch_shapes, ms_shapes):
    arrays = [RNG.normal(size=s).astype(np.float32) for s in torch_shapes]
    there = transform.to_ms(arrays, ms_shapes)
    assert [a.shape for a in there] == ms_shapes
    back = transform.to_torch(there, torch_shapes)
    assert all(np.array_equal(a, b) for a, b in zip(arrays, back))
    assert fits(transform, torch_shapes, ms_shapes)


def test_reorder_moves_whole_gate_blocks():
    gates = np.repeat(np.arange(4.0), 2).reshape(8, 1)  # blocks i=0, f=1, g=2, o=3
    (out,) = reorder_blocks(0, 1, 3, 2).to_ms([gates], [(8, 1)])
    assert out[:, 0].tolist() == [0, 0, 1, 1, 3, 3, 2, 2]


def test_split_cuts_at_the_mindspore_shapes():
    packed = np.arange(6.0)
    q, k = split().to_ms([packed], [(2,), (4,)])
    assert q.tolist() == [0, 1] and k.tolist() == [2, 3, 4, 5]


def test_fits_rejects_a_transform_that_cannot_produce_the_shapes():
    assert not fits(transpose(1, 0), [(3, 4)], [(3, 4)])
    assert not fits(split(), [(10,)], [(4,), (4,)])
    assert not fits(reorder_blocks(0, 1, 3, 2), [(6, 2)], [(6, 2)])  # 6 rows are not 4 equal blocks


def test_singleton_reshape_is_recognised_only_when_no_element_moves():
    assert same_but_singletons((6, 4, 3), (6, 4, 1, 3))
    assert not same_but_singletons((6, 4, 3), (6, 4, 3))
    assert not same_but_singletons((4, 6), (6, 4))


def test_descriptions_are_readable():
    assert transpose(1, 0).describe() == "transpose(1, 0)"
    assert split().describe() == "split(axis=0)"
    assert IDENTITY.describe() == ""
