"""Held-out set 20, half a: losses and probabilistic code (layers, functional ops, gradients)."""
from __future__ import annotations

import numpy as np

from evaluation.corpus.build import entry
from migcheck.specs import given, integers, uniform

FAM = "h20"


def _ms():
    import mindspore
    import mindspore.nn as mnn
    import mindspore.ops as mops

    return mindspore, mnn, mops


# ---------------------------------------------------------------- loss layers inside a small net

def _torch_loss_net(make_loss, n_in=4, n_out=3):
    import torch.nn as tnn

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc = tnn.Linear(n_in, n_out)
            self.crit = make_loss()

        def forward(self, x, y):
            return self.crit(self.fc(x), y)

    return Net()


def _ms_loss_net(make_loss, n_in=4, n_out=3, cast=None):
    _, mnn, _ = _ms()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = mnn.Dense(n_in, n_out)
            self.crit = make_loss()

        def construct(self, x, y):
            if cast is not None:
                y = y.astype(cast)
            return self.crit(self.fc(x), y)

    return Net()


def _poisson_torch():
    import torch.nn as tnn

    return _torch_loss_net(lambda: tnn.PoissonNLLLoss(log_input=True, full=True))


def _poisson_ms(full):
    def make():
        _, mnn, _ = _ms()
        return _ms_loss_net(lambda: mnn.PoissonNLLLoss(log_input=True, full=full) if full else mnn.PoissonNLLLoss())
    return make


def _huber_torch():
    import torch.nn as tnn

    return _torch_loss_net(lambda: tnn.HuberLoss(delta=0.25))


def _huber_ms(delta):
    def make():
        _, mnn, _ = _ms()
        return _ms_loss_net(lambda: mnn.HuberLoss(delta=delta) if delta is not None else mnn.HuberLoss())
    return make


def _mm_torch():
    import torch.nn as tnn

    return _torch_loss_net(lambda: tnn.MultiMarginLoss(margin=0.3), n_out=5)


def _mm_ms(margin):
    def make():
        _, mnn, _ = _ms()
        return _ms_loss_net(lambda: mnn.MultiMarginLoss(margin=margin) if margin is not None else mnn.MultiMarginLoss(),
                            n_out=5)
    return make


# CTC: 3 samples, 6 frames; sample 1's target needs more frames than it has (repeated labels need blanks between).
_CTC_TARGETS = np.array([[1, 2, 3, 0], [2, 2, 2, 2], [3, 1, 0, 0]], dtype=np.int64)
_CTC_IN_LENS = np.array([6, 5, 4], dtype=np.int64)
_CTC_TGT_LENS = np.array([3, 4, 2], dtype=np.int64)


def _ctc_torch():
    import torch.nn as tnn

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc = tnn.Linear(4, 5)
            self.crit = tnn.CTCLoss(blank=0, reduction="mean", zero_infinity=True)

        def forward(self, x, targets, input_lengths, target_lengths):
            lp = self.fc(x).log_softmax(2)
            return self.crit(lp, targets, input_lengths, target_lengths)

    return Net()


def _ctc_ms_naive():
    mindspore, mnn, mops = _ms()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = mnn.Dense(4, 5)
            self.crit = mnn.CTCLoss(blank=0, reduction="mean", zero_infinity=True)

        def construct(self, x, targets, input_lengths, target_lengths):
            lp = mops.log_softmax(self.fc(x), 2)
            return self.crit(lp, targets.astype(mindspore.int32), input_lengths.astype(mindspore.int32),
                             target_lengths.astype(mindspore.int32))

    return Net()


def _ctc_ms_correct():
    mindspore, mnn, mops = _ms()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = mnn.Dense(4, 5)
            self.per_sample_ctc = mnn.CTCLoss(blank=0, reduction="none")

        def construct(self, x, targets, input_lengths, target_lengths):
            lp = mops.log_softmax(self.fc(x), 2)
            per = self.per_sample_ctc(lp, targets.astype(mindspore.int32), input_lengths.astype(mindspore.int32),
                            target_lengths.astype(mindspore.int32))
            per = mops.where(mops.isinf(per), mops.zeros_like(per), per)
            lens = mops.clamp(target_lengths.astype(mindspore.float32), min=1.0)
            return (per / lens).mean()

    return Net()


# soft-target (distillation) cross entropy between two trainable heads; gradient must reach the teacher.
def _soft_ce_torch():
    import torch.nn as tnn

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.student = tnn.Linear(4, 3)
            self.teacher = tnn.Linear(4, 3)
            self.crit = tnn.CrossEntropyLoss()

        def forward(self, x):
            return self.crit(self.student(x), self.teacher(x).softmax(-1))

    return Net()


def _soft_ce_ms(naive):
    def make():
        _, mnn, mops = _ms()

        class Net(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.student = mnn.Dense(4, 3)
                self.teacher = mnn.Dense(4, 3)
                self.crit = (mnn.SoftmaxCrossEntropyWithLogits(sparse=False, reduction="mean") if naive
                             else mnn.CrossEntropyLoss())

            def construct(self, x):
                return self.crit(self.student(x), mops.softmax(self.teacher(x), -1))

        return Net()
    return make


# ---------------------------------------------------------------- probabilistic ops in forward/construct

def _bern_logits_torch():
    import torch
    import torch.nn as tnn

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc = tnn.Linear(4, 3)

        def forward(self, x, y):
            logits = self.fc(x) * 40.0
            return torch.distributions.Bernoulli(logits=logits).log_prob(y)

    return Net()


def _bern_logits_ms(naive):
    def make():
        mindspore, mnn, mops = _ms()
        import mindspore.nn.probability.distribution as msd

        class Net(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = mnn.Dense(4, 3)
                self.dist = msd.Bernoulli(dtype=mindspore.float32)

            def construct(self, x, y):
                logits = self.fc(x) * 40.0
                if naive:
                    return self.dist.log_prob(y, mops.sigmoid(logits))
                return -mops.binary_cross_entropy_with_logits(logits, y, reduction="none")

        return Net()
    return make


def _indep_torch():
    import torch
    import torch.nn as tnn
    import torch.distributions as D

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.mu = tnn.Linear(4, 3)
            self.log_sigma = tnn.Linear(4, 3)

        def forward(self, x, y):
            dist = D.Independent(D.Normal(self.mu(x), self.log_sigma(x).exp()), 1)
            return dist.log_prob(y)

    return Net()


def _indep_ms(naive):
    def make():
        _, mnn, mops = _ms()
        import mindspore.nn.probability.distribution as msd

        class Net(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.mu = mnn.Dense(4, 3)
                self.log_sigma = mnn.Dense(4, 3)
                self.normal = msd.Normal()

            def construct(self, x, y):
                lp = self.normal.log_prob(y, self.mu(x), mops.exp(self.log_sigma(x)))
                return lp if naive else lp.sum(-1)

        return Net()
    return make


def _kl_torch():
    import torch
    import torch.nn as tnn
    import torch.distributions as D

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc = tnn.Linear(4, 6)

        def forward(self, x):
            h = self.fc(x)
            mu, log_sigma = h[:, :3], h[:, 3:]
            q = D.Normal(mu, log_sigma.exp())
            prior = D.Normal(torch.zeros_like(mu), torch.ones_like(mu))
            return D.kl_divergence(q, prior).sum(-1)

    return Net()


def _kl_ms(naive):
    def make():
        _, mnn, mops = _ms()
        import mindspore.nn.probability.distribution as msd

        class Net(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = mnn.Dense(4, 6)
                self.normal = msd.Normal()

            def construct(self, x):
                h = self.fc(x)
                mu, log_sigma = h[:, :3], h[:, 3:]
                sigma = mops.exp(log_sigma)
                zeros, ones = mops.zeros_like(mu), mops.ones_like(mu)
                if naive:
                    kl = self.normal.kl_loss("Normal", mu, sigma, zeros, ones)
                else:
                    kl = self.normal.kl_loss("Normal", zeros, ones, mu, sigma)
                return kl.sum(-1)

        return Net()
    return make


def _cat_torch():
    import torch
    import torch.nn as tnn

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc = tnn.Linear(4, 5)

        def forward(self, x, a):
            logits = self.fc(x) * 400.0
            return torch.distributions.Categorical(logits=logits).log_prob(a)

    return Net()


def _cat_ms(naive):
    def make():
        mindspore, mnn, mops = _ms()
        import mindspore.nn.probability.distribution as msd

        class Net(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = mnn.Dense(4, 5)
                self.dist = msd.Categorical()

            def construct(self, x, a):
                logits = self.fc(x) * 400.0
                if naive:
                    return self.dist.log_prob(a.astype(mindspore.int32), mops.softmax(logits, -1))
                logp = mops.log_softmax(logits, -1)
                return mops.gather_elements(logp, 1, a.astype(mindspore.int64).reshape(-1, 1)).reshape(-1)

        return Net()
    return make


def _sce_label_torch():
    import torch.nn as tnn
    import torch.nn.functional as F

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.student = tnn.Linear(4, 3)
            self.teacher = tnn.Linear(4, 3)

        def forward(self, x):
            return F.binary_cross_entropy_with_logits(self.student(x), self.teacher(x).sigmoid())

    return Net()


def _sce_label_ms(naive):
    def make():
        _, mnn, mops = _ms()

        class Net(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.student = mnn.Dense(4, 3)
                self.teacher = mnn.Dense(4, 3)
                self.sce = mops.SigmoidCrossEntropyWithLogits()

            def construct(self, x):
                soft = mops.sigmoid(self.teacher(x))
                if naive:
                    return self.sce(self.student(x), soft).mean()
                return mops.binary_cross_entropy_with_logits(self.student(x), soft, reduction="mean")

        return Net()
    return make


def _censored_torch():
    import torch
    import torch.nn as tnn

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc = tnn.Linear(4, 1)

        def forward(self, x):
            # log P(y <= 0) of a sharp Gaussian (sigma 0.05) around the predicted mean: the censored term of a Tobit fit
            mu = self.fc(x).squeeze(-1)
            return torch.special.log_ndtr((0.0 - mu) / 0.05)

    return Net()


def _censored_ms(naive):
    def make():
        _, mnn, mops = _ms()
        import mindspore.nn.probability.distribution as msd

        half_log_2pi = 0.5 * float(np.log(2.0 * np.pi))

        def log_ndtr(z):
            # log of the standard normal CDF, stable in the lower tail (asymptotic series below -10)
            z_mid = mops.clamp(z, min=-10.0)
            root2 = float(np.sqrt(2.0))
            mid = mops.where(z_mid > 0.0, mops.log1p(-0.5 * mops.erfc(z_mid / root2)),
                             mops.log(0.5 * mops.erfc(-z_mid / root2)))
            z_t = mops.clamp(z, max=-10.0)
            r = 1.0 / (z_t * z_t)
            series = 1.0 - r + 3.0 * r * r - 15.0 * r * r * r + 105.0 * r * r * r * r
            tail = -0.5 * z_t * z_t - mops.log(-z_t) - half_log_2pi + mops.log(series)
            return mops.where(z > -10.0, mid, tail)

        class Net(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = mnn.Dense(4, 1)
                self.normal = msd.Normal()

            def construct(self, x):
                mu = self.fc(x).squeeze(-1)
                if naive:
                    return self.normal.log_cdf(mops.zeros_like(mu), mu, mops.ones_like(mu) * 0.05)
                return log_ndtr((0.0 - mu) / 0.05)

        return Net()
    return make


_Y01 = given(np.array([[1, 0, 1], [0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 0, 0], [0, 1, 1]], dtype=np.float32))

ENTRIES = [
    entry("h20a_poisson_nll_loss_full_stirling_term_dropped", FAM, "PoissonNLLLoss", _poisson_torch,
          _poisson_ms(False), _poisson_ms(True), ("crit",), ("full|stirling approximation term",),
          inputs={"x": uniform(6, 4), "y": given(np.array([[0, 2, 5], [1, 3, 0], [4, 1, 2], [7, 0, 1], [2, 2, 9],
                                                            [0, 6, 3]], dtype=np.float32))},
          cause_pattern=r"\bfull\b[^.]*\btrue\b|\bstirling\b"),
    entry("h20a_huber_loss_delta_left_at_default_one", FAM, "HuberLoss", _huber_torch, _huber_ms(None),
          _huber_ms(0.25), ("crit",), ("delta|0.25",),
          inputs={"x": uniform(6, 4, low=-2.0, high=2.0), "y": uniform(6, 3, low=-1.0, high=1.0)},
          cause_pattern=r"\bdelta\b[^.]*\b0?\.25\b"),
    entry("h20a_multi_margin_loss_margin_left_at_default_one", FAM, "MultiMarginLoss", _mm_torch, _mm_ms(None),
          _mm_ms(0.3), ("crit",), ("margin|0.3",),
          inputs={"x": uniform(8, 4), "y": integers(8, high=5)},
          cause_pattern=r"\bmargin\b[^.]*\b0?\.3\b"),
    entry("h20a_ctc_loss_zero_infinity_flag_leaves_infeasible_sample_inf", FAM, "probe:CTCLoss zero_infinity",
          _ctc_torch, _ctc_ms_naive, _ctc_ms_correct, ("crit",), ("zero_infinity|infinite loss not zeroed",),
          inputs={"x": uniform(6, 3, 4), "targets": given(_CTC_TARGETS), "input_lengths": given(_CTC_IN_LENS),
                  "target_lengths": given(_CTC_TGT_LENS)},
          fails_with="nonfinite",
          cause_pattern=r"\bzero_infinity\b|\b(zero|mask|replace)\w*\b[^.]*\binf(inite|inity)?\b|"
                        r"\binf(inite|inity)?\b[^.]*\b(zero(ed)?|mask(ed)?|isinf)\b"),
    entry("h20a_soft_target_cross_entropy_softmax_ce_with_logits_no_label_gradient", FAM,
          "probe:SoftmaxCrossEntropyWithLogits label gradient", _soft_ce_torch, _soft_ce_ms(True), _soft_ce_ms(False),
          ("crit",), ("SoftmaxCrossEntropyWithLogits|label gradient|CrossEntropyLoss",),
          inputs={"x": uniform(6, 4)}, checks=("forward", "backward"), fails_on=("backward",),
          cause_pattern=r"\bSoftmaxCrossEntropyWithLogits\b[^.]*\b(label|labels|target|teacher)\b|"
                        r"\b(label|labels|target|teacher)\b[^.]*\b(no|zero|stop(ped)?)\b[^.]*\bgradient|"
                        r"\b(ops\.cross_entropy|nn\.CrossEntropyLoss)\b"),
    entry("h20a_bernoulli_logits_log_prob_via_sigmoid_probs_saturates", FAM,
          "probe:distribution.Bernoulli probs vs torch Bernoulli logits", _bern_logits_torch, _bern_logits_ms(True),
          _bern_logits_ms(False), ("after:fc",), ("Bernoulli|logits|binary_cross_entropy_with_logits",),
          inputs={"x": uniform(6, 4), "y": _Y01},
          cause_pattern=r"\bbinary_cross_entropy_with_logits\b|\blogits\b[^.]*\b(sigmoid|probs|saturat\w*|clamp\w*)\b|"
                        r"\b(sigmoid|probs)\b[^.]*\b(saturat\w*|clamp\w*)\b"),
    entry("h20a_independent_normal_log_prob_event_dim_not_summed", FAM,
          "probe:torch.distributions.Independent vs distribution.Normal", _indep_torch, _indep_ms(True), _indep_ms(False),
          ("after:mu",), ("Independent|reinterpreted_batch_ndims|sum over event dimension",),
          inputs={"x": uniform(5, 4), "y": uniform(5, 3)}, fails_with="shape",
          cause_pattern=r"\bIndependent\b|\breinterpreted_batch_ndims\b|\bsum\w*\b[^.]*\b(last|event)\b[^.]*\b(axis|dim\w*)\b|"
                        r"\bsum\(\s*-1\s*\)|\bsum\w*\b[^.]*\b(axis|dim)\s*=\s*-1\b"),
    entry("h20a_normal_kl_loss_arguments_read_as_other_distribution", FAM,
          "probe:distribution.Normal.kl_loss argument order", _kl_torch, _kl_ms(True), _kl_ms(False),
          ("after:fc",), ("kl_loss|KL direction|reversed KL",),
          inputs={"x": uniform(5, 4)},
          cause_pattern=r"\bkl_loss\b[^.]*\b(mean_a|sd_a|order|direction|revers\w*|swap\w*|other)\b|"
                        r"\b(revers\w*|swap\w*)\b[^.]*\bKL\b|\bKL\b[^.]*\b(revers\w*|swap\w*|direction)\b"),
    entry("h20a_categorical_logits_log_prob_via_softmax_probs_underflow", FAM,
          "probe:distribution.Categorical probs vs torch Categorical logits", _cat_torch, _cat_ms(True),
          _cat_ms(False), ("after:fc",), ("Categorical|logits|log_softmax",),
          inputs={"x": uniform(6, 4), "a": integers(6, high=5)}, fails_with="nonfinite",
          cause_pattern=r"\blog_softmax\b|\blogits\b[^.]*\b(softmax|probs|underflow\w*)\b|"
                        r"\b(softmax|probs)\b[^.]*\bunderflow\w*\b"),
    entry("h20a_soft_multilabel_distillation_sigmoid_ce_primitive_no_label_gradient", FAM,
          "probe:ops.SigmoidCrossEntropyWithLogits label gradient", _sce_label_torch, _sce_label_ms(True),
          _sce_label_ms(False), ("after:teacher",), ("SigmoidCrossEntropyWithLogits|label gradient",),
          inputs={"x": uniform(6, 4)}, checks=("forward", "backward"), fails_on=("backward",),
          cause_pattern=r"\bSigmoidCrossEntropyWithLogits\b[^.]*\b(label|labels|target|teacher)\b|"
                        r"\b(label|labels|target|teacher)\b[^.]*\b(no|zero|stop(ped)?)\b[^.]*\bgradient|"
                        r"\bbinary_cross_entropy_with_logits\b|\bBCEWithLogitsLoss\b"),    entry("h20a_censored_likelihood_log_ndtr_as_normal_log_cdf_tail_underflow", FAM,
          "probe:torch.special.log_ndtr vs distribution.Normal.log_cdf", _censored_torch, _censored_ms(True),
          _censored_ms(False), ("after:fc",), ("log_ndtr|log_cdf underflow",),
          inputs={"x": uniform(8, 4, low=-2.0, high=2.0)}, fails_with="nonfinite",
          cause_pattern=r"\blog_ndtr\b|\blog_cdf\b[^.]*\b(underflow\w*|tail|-?inf\w*|stable|asymptotic)\b|"
                        r"\b(underflow\w*|tail)\b[^.]*\b(cdf|log_cdf)\b"),
]
