"""The third-party corpus (diffusers torch blocks vs mindone's MindSpore ports) loads where both are installed,
and the CPU reroute of mindone's Ascend-only mint ops computes what torch computes. CI installs neither package:
the corpus test then skips with the reason."""
import numpy as np
import pytest

from evaluation.corpus import thirdparty_missing

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]


def test_the_thirdparty_entries_load_with_real_blocks_on_both_sides():
    if thirdparty_missing():
        pytest.skip(thirdparty_missing())
    from evaluation.corpus import entries
    from migcheck.case import case_problems

    found = [e for e in entries() if e.family == "third-party"]
    assert len(found) >= 6
    for e in found:
        assert e.problems() == [] and case_problems(e.naive) == [] and case_problems(e.correct) == [], e.name
        torch_block, ms_block = e.correct.torch(), e.correct.mindspore()
        assert type(ms_block).__module__.startswith(("mindone.", "evaluation.")), e.name
        assert any(type(m).__module__.startswith("diffusers.") for m in torch_block.modules()), e.name


def test_without_the_packages_the_corpus_leaves_the_family_out():
    from evaluation.corpus import entries

    assert not any(e.family == "third-party" for e in entries(thirdparty=False))


def _torch(fn, *args, **kwargs):
    import torch

    return fn(*[torch.from_numpy(a) if isinstance(a, np.ndarray) else a for a in args], **kwargs).numpy()


def test_the_rerouted_mint_ops_compute_what_torch_computes():
    import mindspore as ms
    import torch.nn.functional as F

    from evaluation.corpus import mint_cpu

    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4, 6, 6)).astype(np.float32)
    w = rng.standard_normal((3, 4, 3, 3)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    t = ms.Tensor

    for stride, padding in ((1, 1), (2, (1, 0)), (1, "same"), (2, 0)):
        got = mint_cpu._conv2d(t(x), t(w), t(b), stride, padding).asnumpy()
        np.testing.assert_allclose(got, _torch(F.conv2d, x, w, b, stride=stride, padding=padding), atol=1e-4)
    g, beta = rng.standard_normal(6).astype(np.float32), rng.standard_normal(6).astype(np.float32)
    np.testing.assert_allclose(mint_cpu._layer_norm(t(x), (6,), t(g), t(beta), 1e-6).asnumpy(),
                               _torch(F.layer_norm, x, (6,), g, beta, eps=1e-6), atol=1e-5)
    np.testing.assert_allclose(mint_cpu._layer_norm(t(x), 6).asnumpy(), _torch(F.layer_norm, x, (6,)), atol=1e-5)
    for approximate in ("none", "tanh"):
        np.testing.assert_allclose(mint_cpu._gelu(t(x), approximate).asnumpy(),
                                   _torch(F.gelu, x, approximate=approximate), atol=1e-5)
    np.testing.assert_array_equal(mint_cpu._pad(t(x), (0, 1, 0, 1)).asnumpy(), _torch(F.pad, x, pad=(0, 1, 0, 1)))
    np.testing.assert_allclose(mint_cpu._avg_pool2d(t(x), 2, 2).asnumpy(), _torch(F.avg_pool2d, x, 2, 2), atol=1e-6)
    np.testing.assert_array_equal(mint_cpu._arange(0, 4, dtype=ms.float32).asnumpy(), np.arange(4, dtype=np.float32))
    assert mint_cpu._arange(5).dtype == ms.int64
    a, m1, m2 = (rng.standard_normal(s).astype(np.float32) for s in ((2, 3, 3), (2, 3, 4), (2, 4, 3)))
    np.testing.assert_allclose(mint_cpu._baddbmm(t(a), t(m1), t(m2), beta=0.5, alpha=2.0).asnumpy(),
                               0.5 * a + 2.0 * (m1 @ m2), atol=1e-5)
