"""The op-level search's other ways of changing one call (op_search.py), each on a bad port and its correct twin:
an in-place call that left its tensor unchanged (re-run with its result written back), a primitive fed a
constant tensor the port built (MirrorPad's paddings: still searched, its mode enumeration tried), and another
mindspore.ops function named like torch's op called with the port's own arguments (norm -> vector_norm)."""
import numpy as np
import pytest

from migcheck import PairedCase, uniform
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")
F = torch.nn.functional
ops = ms.ops


def _run(forward, construct, width=4):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 4)
            self.out = torch.nn.Linear(width, 3)

        def forward(self, x):
            return self.out(forward(self.fc(x)))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 4)
            self.out = ms.nn.Dense(width, 3)

        def construct(self, x):
            return self.out(construct(self.fc(x)))

    case = PairedCase(name="net", torch=T, mindspore=M, inputs={"x": uniform(2, 4)}, checks=("forward",))
    v = run_item(Item(case, "forward", "pynative", "cpu"))
    return v, (v.localization.defects if v.localization else ())


def _t_mul_(h):
    h.mul_(2.0)
    return h


def _m_mul_(h):
    h.mul_(2.0)  # MindSpore 2.10 PYNATIVE: returns h * 2, leaves h as it was
    return h


def test_an_in_place_call_that_left_its_tensor_unchanged_is_written_back():
    v, (d,) = _run(_t_mul_, _m_mul_)
    assert v.status == "fail" and d.confirmed and d.confidence == "high"
    assert "op 'Tensor.mul_' inside '<root>': an in-place call that returned its result but left its tensor" in d.cause
    assert d.fix.startswith("x = x.mul(2.0) in place of x.mul_(2.0): assign the out-of-place form")


def _t_slice_exp_(h):
    h[:, 2:].exp_()  # torch: a view, so h itself changes
    return h


def _m_slice_exp_(h):
    h[:, 2:].exp_()  # MindSpore: the index result is a copy; h keeps its values
    return h


def _m_slice_assigned(h):
    h[:, 2:] = h[:, 2:].exp()
    return h


def test_an_in_place_call_on_an_index_result_is_written_back_through_the_index():
    v, (d,) = _run(_t_slice_exp_, _m_slice_exp_)
    assert v.status == "fail" and d.confirmed and d.confidence == "high"
    assert "'Tensor.exp_' writing its result back through the index [:, 2:] it was applied to" in d.cause
    assert d.fix.startswith("x[:, 2:] = x[:, 2:].exp() in place of x[:, 2:].exp_(): MindSpore's indexing returns a"
                            " copy")


def test_the_twin_that_assigns_through_the_index_passes():
    assert _run(_t_slice_exp_, _m_slice_assigned)[0].status == "pass"


def test_the_out_of_place_twin_passes():
    assert _run(_t_mul_, lambda h: h.mul(2.0))[0].status == "pass"


_PADS = ms.Tensor(np.array([[0, 0], [0, 0], [2, 2]], np.int64))


def _t_pad(h):
    return F.pad(h.view(-1, 1, 4), (2, 2), mode="reflect").flatten(1)


def _m_pad(mode):
    return lambda h: ops.flatten(ops.MirrorPad(mode=mode)(ops.reshape(h, (-1, 1, 4)), _PADS))


def test_a_primitive_fed_a_constant_tensor_is_searched_through_its_mode():
    v, (d,) = _run(_t_pad, _m_pad("SYMMETRIC"), 8)
    assert d.confirmed and "op 'MirrorPad' inside '<root>'" in d.cause
    assert d.fix == "ops.MirrorPad(mode='SYMMETRIC') -> ops.MirrorPad(mode='REFLECT')"


def test_the_reflect_twin_passes():
    assert _run(_t_pad, _m_pad("REFLECT"), 8)[0].status == "pass"


def test_a_matrix_norm_where_torch_takes_the_vector_norm_gets_the_function_named_like_it():
    v, (d,) = _run(lambda h: h / torch.norm(h, p=1), lambda h: h / ops.norm(h, ord=1))
    assert d.confirmed
    assert d.fix == "use ops.vector_norm(x, ord=1, keepdims=False) in place of norm"


def test_the_vector_norm_twin_passes():
    assert _run(lambda h: h / torch.norm(h, p=1), lambda h: h / ops.norm(ops.reshape(h, (-1,)), ord=1))[0].status == "pass"


def test_a_call_returning_fewer_results_than_torchs_says_which_of_torchs_it_equals():
    import numpy as np

    from migcheck.localization.op_candidates import fewer_results
    from migcheck.records.ops import OpRecord

    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    values, indices = x.max(axis=1), np.array([2, 2], np.int64)
    torch_max = OpRecord(3, "max", inputs=(x,), outputs=(values, indices), result_names=("values", "indices"))
    ms_max = OpRecord(0, "Tensor.max", inputs=(x,), outputs=(values,))
    words = fewer_results(ms_max, [torch_max])
    assert "returned the values only, not the indices (torch's max returns values, indices)" in words
    # the twin: a call that returns what torch's does (both results) says nothing
    assert fewer_results(OpRecord(0, "ops.max", inputs=(x,), outputs=(values, indices)), [torch_max]) == ""


class _TopDown(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lat0 = torch.nn.Conv2d(2, 2, 1)
        self.lat1 = torch.nn.Conv2d(3, 2, 1)
        self.smooth = torch.nn.Conv2d(2, 2, 1)

    def forward(self, c3, c4):
        p4 = self.lat1(c4)
        p3 = self.lat0(c3) + torch.nn.functional.interpolate(p4, size=c3.shape[-2:], mode="bilinear", align_corners=False)
        return self.smooth(p3)


def _top_down(align):
    class TopDown(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.lat0 = ms.nn.Conv2d(2, 2, 1, has_bias=True)
            self.lat1 = ms.nn.Conv2d(3, 2, 1, has_bias=True)
            self.smooth = ms.nn.Conv2d(2, 2, 1, has_bias=True)

        def construct(self, c3, c4):
            p4 = self.lat1(c4)
            fine = self.lat0(c3)  # the lateral conv of the finer level runs between lat1 and the upsampling
            return self.smooth(fine + ms.ops.interpolate(p4, size=c3.shape[-2:], mode="bilinear", align_corners=align))
    return TopDown


def _fpn(align):
    case = PairedCase(name="fpn", torch=_TopDown, mindspore=_top_down(align),
                      inputs={"c3": uniform(1, 2, 4, 4), "c4": uniform(1, 3, 2, 2)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_the_op_says_which_childs_output_it_takes_where_another_child_ran_last():
    (d,) = _fpn(True).localization.defects
    assert d.confirmed and "align_corners=False" in d.fix
    assert "the op sits between 'lat0' output and 'smooth' input; it takes 'lat1' output" in d.evidence, d.evidence


def test_the_upsampling_with_torchs_corners_passes():
    assert _fpn(False).status == "pass"


def _slice_run(end_as_size):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 6)

        def forward(self, x):
            return torch.tanh(self.fc(x))[:, 1:4]

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 6)

        def construct(self, x):
            h = ops.tanh(self.fc(x))
            return ops.slice(h, (0, 1), (h.shape[0], 4 if end_as_size else 3))  # begin, *size*

    case = PairedCase(name="slice", torch=T, mindspore=M, inputs={"x": uniform(2, 4)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_an_end_given_where_the_op_takes_a_size_is_read_as_end_minus_begin_on_every_input():
    (d,) = _slice_run(True).localization.defects
    assert d.confidence == "high" and "read as an end: size - begin = (2, 3)" in d.cause, d.cause
    assert d.fix.startswith("slice(..., size=<your size> - begin) in place of slice(..., size=(2, 4))"), d.fix


def test_the_slice_given_its_size_passes():
    assert _slice_run(False).status == "pass"


def _two_results(global_argmax):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.score = torch.nn.Linear(4, 5)

        def forward(self, x):
            s = self.score(x)
            return s, torch.argmax(s)

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.score = ms.nn.Dense(4, 5)
            self.argmax = ops.Argmax(output_type=ms.int64)  # axis=-1 by default

        def construct(self, x):
            s = self.score(x)
            return s, (ops.argmax(s) if global_argmax else self.argmax(s))

    case = PairedCase(name="two", torch=T, mindspore=M, inputs={"x": uniform(3, 4)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_a_container_returning_two_results_is_searched_on_both_not_the_first_alone():
    (d,) = _two_results(False).localization.defects
    assert d.confidence == "high" and "flattened to 1-D" in d.cause and "reshape(-1)" in d.fix, d


def test_the_global_argmax_passes():
    assert _two_results(True).status == "pass"



class _Gqa(torch.nn.Module):
    """Grouped-query heads: each key/value head repeated in place for the query heads it serves (repeat_kv)."""

    def __init__(self):
        super().__init__()
        self.k = torch.nn.Linear(4, 4)
        self.v = torch.nn.Linear(4, 4)

    def forward(self, x):
        def repeat_kv(t):  # (b, 2 heads, s, 2) -> (b, 4 heads, s, 2), as transformers does
            b, h, s, d = t.shape
            return t[:, :, None].expand(b, h, 2, s, d).reshape(b, h * 2, s, d)
        k = repeat_kv(self.k(x).view(2, 3, 2, 2).transpose(1, 2))
        v = repeat_kv(self.v(x).view(2, 3, 2, 2).transpose(1, 2))
        return k * v.flip(1)


def _gqa(tiled):
    class Gqa(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.k = ms.nn.Dense(4, 4)
            self.v = ms.nn.Dense(4, 4)

        def repeat_kv(self, t):
            return ops.tile(t, (1, 2, 1, 1)) if tiled else ops.repeat_interleave(t, 2, 1)

        def construct(self, x):
            k = self.repeat_kv(self.k(x).view(2, 3, 2, 2).swapaxes(1, 2))
            v = self.repeat_kv(self.v(x).view(2, 3, 2, 2).swapaxes(1, 2))
            return k * v.flip((1,))
    case = PairedCase(name="gqa", torch=_Gqa, mindspore=Gqa, inputs={"x": uniform(2, 3, 4)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_a_helper_called_twice_is_changed_at_every_call_and_tiling_is_told_from_repeating_in_place():
    (d,) = _gqa(True).localization.defects
    assert d.confidence == "high" and d.fix == "use ops.repeat_interleave(x, 2, 1) in place of tile (at each of its 2 calls)", d.fix


def test_the_heads_repeated_in_place_pass():
    assert _gqa(False).status == "pass"


class _LowRank(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(5, 6)

    def forward(self, x):
        u, s, vh = torch.linalg.svd(self.fc1(x), full_matrices=False)
        return (u[:, :2] * s[:2]) @ vh[:2]


def _low_rank(transpose_v):
    class LowRank(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = ms.nn.Dense(5, 6)

        def construct(self, x):
            s, u, v = ops.svd(self.fc1(x), full_matrices=False)  # MindSpore returns v, not vh
            vh = v.T if transpose_v else v
            return ops.matmul(u[:, :2] * s[:2], vh[:2])
    case = PairedCase(name="svd", torch=_LowRank, mindspore=LowRank, inputs={"x": uniform(8, 5)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_a_square_result_of_a_multi_result_op_is_tried_transposed():
    (d,) = _low_rank(False).localization.defects
    assert d.confidence == "high" and d.fix.startswith("take svd's result 2 transposed (.swapaxes(-2, -1))"), d.fix


def test_the_svd_with_v_transposed_passes():
    assert _low_rank(True).status == "pass"


class _Mixer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.token = torch.nn.Linear(3, 3)

    def forward(self, x):  # (b, tokens, channels): mix along the tokens
        return self.token(x.transpose(1, 2)).transpose(1, 2)


def _mixer(permutation):
    class Mixer(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.token = ms.nn.Dense(3, 3)

        def t(self, x):
            return ops.transpose(x, (0, 2, 1)) if permutation else ops.transpose(x, (1, 2))  # a pair: it raises

        def construct(self, x):
            return self.t(self.token(self.t(x)))
    case = PairedCase(name="mixer", torch=_Mixer, mindspore=Mixer, inputs={"x": uniform(2, 3, 4)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_a_pair_of_axes_given_for_a_permutation_is_fixed_at_every_call_even_those_after_the_raise():
    v = _mixer(False)
    assert v.status == "error"
    (d,) = v.localization.defects
    assert d.confirmed and "dims=(0, 2, 1)" in d.fix and d.fix.endswith("(at every call made with these arguments)"), d.fix


def test_the_full_permutation_passes():
    assert _mixer(True).status == "pass"


LAM = 1e-4  # Box-Cox with a small lambda: expm1 of tiny values, where MindSpore 2.10's CPU kernel loses precision


def _t_boxcox(h):
    return torch.expm1(LAM * torch.log(F.softplus(h) + 0.5)) / LAM


def _m_boxcox(h):
    return ops.expm1(LAM * ops.log(ops.softplus(h) + 0.5)) / LAM


def _m_boxcox_float64(h):
    z = LAM * ops.log(ops.softplus(h) + 0.5)
    return (ops.expm1(z.astype(ms.float64)) / LAM).astype(ms.float32)


def test_an_op_less_precise_than_torchs_is_computed_in_float64_and_never_dropped_for_being_near_identity():
    v, (d,) = _run(_t_boxcox, _m_boxcox)
    assert d.confidence == "high" and d.fix.startswith("expm1(x.astype(mindspore.float64)).astype(mindspore.float32)"), d.fix
    assert any("skipped: on these values the op's output is within 1e-3 of its input" in t for t in d.search_tried)


def test_the_expm1_in_float64_passes():
    assert _run(_t_boxcox, _m_boxcox_float64)[0].status == "pass"


def _t_logsumexp(h):
    return torch.logsumexp(h * 1000.0, dim=1, keepdim=True)  # exp of values this large overflows float32


def _m_log_sum_exp(h):
    return ops.log(ops.exp(h * 1000.0).sum(1, keepdims=True))


def _m_logsumexp(h):
    return ops.logsumexp(h * 1000.0, 1, True)


def test_torchs_one_call_for_the_ports_chain_of_ops_replaces_the_whole_chain():
    v, (d,) = _run(_t_logsumexp, _m_log_sum_exp, width=1)
    assert v.status == "fail" and d.confirmed and d.confidence == "high", d.cause
    assert "with the port's Tensor.sum, log after it handed on (torch's logsumexp computes them in its one call)" \
        in d.cause
    assert d.fix.startswith("use ops.logsumexp(") and d.fix.endswith(" in place of exp -> Tensor.sum -> log"), d.fix


def test_the_logsumexp_twin_passes():
    assert _run(_t_logsumexp, _m_logsumexp, width=1)[0].status == "pass"


def test_a_name_inside_another_is_the_same_operation_only_as_more_than_half_of_it():
    from migcheck.localization.raising_op import same_operation

    assert same_operation("primitive L2Normalize", "normalize") and same_operation("ops.max", "max")
    assert not same_operation("exp", "logsumexp") and not same_operation("ops.sum", "cumsum")


def _t_gate(h):
    return h * torch.full((1, 4), 0.75)


def _m_full_default(h):  # MindSpore 2.10 infers int64 from... the fill is truncated to 0
    return h * ops.full((1, 4), 0.75)


def _m_full_float32(h):
    return h * ops.full((1, 4), 0.75, dtype=ms.float32)


def test_a_call_returning_another_dtype_is_given_torchs_dtype():
    v, (d,) = _run(_t_gate, _m_full_default)
    assert d.confirmed and "full(..., dtype=mindspore.float32) (torch's 'full' returns float32" in d.cause, d.cause
    assert d.fix.startswith("full(..., dtype=mindspore.float32): give the call torch's result dtype"), d.fix


def test_the_float32_full_twin_passes():
    assert _run(_t_gate, _m_full_float32)[0].status == "pass"


def _t_half_cumsum(h):
    return torch.sigmoid(h * 50).repeat(1, 64).half().cumsum(1).float()


def _m_half_cumsum(h):  # accumulates in float16
    return ops.cumsum(ops.sigmoid(h * 50).tile((1, 64)).astype(ms.float16), 1).astype(ms.float32)


def _m_wide_cumsum(h):
    half = ops.sigmoid(h * 50).tile((1, 64)).astype(ms.float16)
    return ops.cumsum(half.astype(ms.float32), 1).astype(ms.float16).astype(ms.float32)


def test_a_float16_kernel_is_re_run_in_float64_and_handed_back_in_float16():
    v, (d,) = _run(_t_half_cumsum, _m_half_cumsum, width=256)
    assert d.confirmed and "'cumsum' computed in float64 (its float16 inputs widened" in d.cause, d.cause
    assert d.fix.startswith("cumsum(x.astype(mindspore.float64)).astype(mindspore.float16)"), d.fix


def test_the_twin_that_accumulates_in_float32_passes():
    assert _run(_t_half_cumsum, _m_wide_cumsum, width=256)[0].status == "pass"


MASK = np.array([False, True, False, True])  # two of four classes masked out with -inf


def _t_masked_nll(h):
    logp = torch.log_softmax(h.masked_fill(torch.tensor(MASK), float("-inf")), -1)
    return torch.nn.functional.nll_loss(logp, logp.argmax(-1), reduction="none").unsqueeze(-1)


def _m_masked_nll(h):
    logp = ops.log_softmax(ops.masked_fill(h, ms.Tensor(MASK), float("-inf")), -1)
    return ops.nll_loss(logp, logp.argmax(-1), reduction="none").unsqueeze(-1)


def _m_masked_gather(h):
    logp = ops.log_softmax(ops.masked_fill(h, ms.Tensor(MASK), float("-inf")), -1)
    return -ops.gather_elements(logp, 1, logp.argmax(-1).unsqueeze(1))


def test_an_op_that_makes_nan_of_a_masked_inf_gets_its_inputs_clamped():
    v, (d,) = _run(_t_masked_nll, _m_masked_nll, width=1)
    assert d.confirmed and "its -inf/inf inputs clamped to large finite values ('nll_loss' returns NaN" in d.cause
    assert d.fix.startswith("nll_loss(ops.clamp(x, -"), d.fix


def test_the_gathered_log_probability_twin_passes():
    assert _run(_t_masked_nll, _m_masked_gather, width=1)[0].status == "pass"


def _projections(transpose_b):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 4)
            self.w = torch.nn.Parameter(torch.randn(12, 4))

        def forward(self, x):
            h = self.fc(x)
            wq, wk, wv = self.w.chunk(3, dim=0)
            return F.linear(h, wq) * F.linear(h, wk) + F.linear(h, wv)

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 4)
            self.w = ms.Parameter(ms.Tensor(np.zeros((12, 4), np.float32)), name="w")
            self.matmul = ops.MatMul(transpose_b=transpose_b)

        def _proj(self, h, w):  # one helper per projection: three calls alike
            return self.matmul(h.reshape(-1, 4), w).reshape(h.shape[0], h.shape[1], 4)

        def construct(self, x):
            h = self.fc(x)
            wq, wk, wv = ops.chunk(self.w, 3, 0)
            return self._proj(h, wq) * self._proj(h, wk) + self._proj(h, wv)

    case = PairedCase(name="proj", torch=T, mindspore=M, inputs={"x": uniform(2, 3, 4)}, checks=("forward",))
    v = run_item(Item(case, "forward", "pynative", "cpu"))
    return v, (v.localization.defects if v.localization else ())


def test_a_weight_taken_untransposed_in_a_helper_called_per_projection_gets_transpose_b_at_every_call():
    v, (d,) = _projections(False)
    assert d.confirmed and d.fix == "ops.MatMul(transpose_b=False) -> ops.MatMul(transpose_b=True) (at each of its 3 calls)", d.fix


def test_the_transpose_b_twin_passes():
    assert _projections(True)[0].status == "pass"


IDX = np.array([1, 1], np.int64)


def _t_index_add(h):
    return h.index_add(0, torch.tensor(IDX), h[:2] * 2, alpha=0.25)


def _m_index_add(h):  # ops.index_add takes no alpha
    return ops.index_add(h, ms.Tensor(IDX.astype(np.int32)), h[:2] * 2, 0)


def _m_index_add_scaled(h):
    return ops.index_add(h, ms.Tensor(IDX.astype(np.int32)), h[:2] * 2 * 0.25, 0)


def test_a_torch_keyword_the_function_lacks_is_applied_to_an_input():
    v, (d,) = _run(_t_index_add, _m_index_add)
    assert d.confirmed and "torch's alpha=0.25 applied to its y argument (the port's call takes no alpha)" in d.cause
    assert d.fix.startswith("index_add(..., y=y * 0.25, ...)"), d.fix


def test_the_scaled_source_twin_passes():
    assert _run(_t_index_add, _m_index_add_scaled)[0].status == "pass"


def _t_fill_diagonal(h):
    mask = torch.zeros(h.shape[-1], h.shape[-1])
    mask.fill_diagonal_(-2.0)
    return h @ mask + h


def _m_fill_diagonal(h):  # MindSpore's fill_diagonal returns a new tensor: its result dropped
    mask = ops.zeros((h.shape[-1], h.shape[-1]), ms.float32)
    mask.fill_diagonal(-2.0)
    return ops.matmul(h, mask) + h


def _m_fill_diagonal_kept(h):
    mask = ops.zeros((h.shape[-1], h.shape[-1]), ms.float32)
    mask = mask.fill_diagonal(-2.0)
    return ops.matmul(h, mask) + h


def test_an_out_of_place_method_whose_result_is_dropped_is_written_back_and_confirmed():
    v, (d,) = _run(_t_fill_diagonal, _m_fill_diagonal)
    assert d.confirmed and "'Tensor.fill_diagonal' result written back into its tensor" in d.cause
    assert d.fix.startswith("x = x.fill_diagonal(-2.0) in place of a bare x.fill_diagonal(-2.0)"), d.fix


def test_the_kept_fill_diagonal_twin_passes():
    assert _run(_t_fill_diagonal, _m_fill_diagonal_kept)[0].status == "pass"
