"""Held-out set 20, half a: small probabilistic model blocks (mixture density head, actor-critic head)."""
from __future__ import annotations

import math

import numpy as np

from evaluation.corpus.build import entry
from migcheck.specs import given, integers, uniform

FAM = "h20-port"
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


def _ms():
    import mindspore
    import mindspore.nn as mnn
    import mindspore.ops as mops

    return mindspore, mnn, mops


# ---------------------------------------------------------------- mixture density network head (Bishop 1994)

def _mdn_torch():
    import torch
    import torch.nn as tnn

    class MDNHead(tnn.Module):
        def __init__(self, k=5):
            super().__init__()
            self.hidden = tnn.Linear(3, 8)
            self.pi = tnn.Linear(8, k)
            self.mu = tnn.Linear(8, k)
            self.log_sigma = tnn.Linear(8, k)

        def forward(self, x, y):
            h = torch.tanh(self.hidden(x))
            logits = self.pi(h)
            log_pi = logits - torch.logsumexp(logits, dim=1, keepdim=True)
            sigma = self.log_sigma(h).exp()
            comp = torch.distributions.Normal(self.mu(h), sigma).log_prob(y)
            return -torch.logsumexp(log_pi + comp, dim=1).mean()

    return MDNHead()


def _mdn_ms(naive):
    def make():
        _, mnn, mops = _ms()

        class MDNHead(mnn.Cell):
            def __init__(self, k=5):
                super().__init__()
                self.hidden = mnn.Dense(3, 8)
                self.pi = mnn.Dense(8, k)
                self.mu = mnn.Dense(8, k)
                self.log_sigma = mnn.Dense(8, k)

            def construct(self, x, y):
                h = mops.tanh(self.hidden(x))
                logits = self.pi(h)
                if naive:
                    log_pi = logits - mops.logsumexp(logits, 1)
                else:
                    log_pi = logits - mops.logsumexp(logits, 1, keepdim=True)
                log_sigma = self.log_sigma(h)
                z = (y - self.mu(h)) / mops.exp(log_sigma)
                comp = -0.5 * z * z - log_sigma - _HALF_LOG_2PI
                return -mops.logsumexp(log_pi + comp, 1).mean()

        return MDNHead()
    return make


# ---------------------------------------------------------------- actor-critic (A2C) loss head, sharp policy

def _a2c_torch():
    import torch
    import torch.nn as tnn

    class A2CHead(tnn.Module):
        def __init__(self):
            super().__init__()
            self.body = tnn.Linear(4, 16)
            self.actor = tnn.Linear(16, 4)
            self.critic = tnn.Linear(16, 1)

        def forward(self, obs, action, ret):
            h = torch.relu(self.body(obs))
            dist = torch.distributions.Categorical(logits=self.actor(h) / 0.005)
            value = self.critic(h).squeeze(-1)
            adv = ret - value.detach()
            policy = -(dist.log_prob(action) * adv).mean()
            return policy + 0.5 * ((ret - value) ** 2).mean() - 0.01 * dist.entropy().mean()

    return A2CHead()


def _a2c_ms(naive):
    def make():
        mindspore, mnn, mops = _ms()
        import mindspore.nn.probability.distribution as msd

        class A2CHead(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.body = mnn.Dense(4, 16)
                self.actor = mnn.Dense(16, 4)
                self.critic = mnn.Dense(16, 1)
                self.cat = msd.Categorical()

            def construct(self, obs, action, ret):
                h = mops.relu(self.body(obs))
                logits = self.actor(h) / 0.005
                logp_all = mops.log_softmax(logits, -1)
                value = self.critic(h).squeeze(-1)
                adv = ret - mops.stop_gradient(value)
                logp = mops.gather_elements(logp_all, 1, action.astype(mindspore.int64).reshape(-1, 1)).reshape(-1)
                policy = -(logp * adv).mean()
                if naive:
                    entropy = self.cat.entropy(mops.softmax(logits, -1))
                else:
                    entropy = -(mops.exp(logp_all) * logp_all).sum(-1)
                return policy + 0.5 * ((ret - value) ** 2).mean() - 0.01 * entropy.mean()

        return A2CHead()
    return make


ENTRIES = [
    entry("h20a_port_mdn_head_mixture_log_weights_logsumexp_keepdim_default", FAM,
          "probe:ops.logsumexp keepdim default (torch.logsumexp keepdim=True)", _mdn_torch, _mdn_ms(True),
          _mdn_ms(False), ("after:pi",), ("logsumexp|keepdim",),
          inputs={"x": uniform(5, 3), "y": uniform(5, 1, low=-2.0, high=2.0)},
          cause_pattern=r"\bkeep_?dims?\b[^.]*\btrue\b|\bkeepdim\b|\blog_softmax\b"),
    entry("h20a_port_a2c_head_sharp_policy_entropy_from_softmax_probs_nan", FAM,
          "probe:distribution.Categorical entropy from probs vs torch Categorical(logits=)", _a2c_torch,
          _a2c_ms(True), _a2c_ms(False), ("after:actor",), ("Categorical|entropy|logits|log_softmax",),
          inputs={"obs": uniform(6, 4, low=-3.0, high=3.0), "action": integers(6, high=4),
                  "ret": uniform(6, low=-1.0, high=1.0)},
          fails_with="nonfinite",
          cause_pattern=r"\bentropy\b[^.]*\b(logits|log_softmax|nan|underflow\w*|0\s*\*\s*log|xlogy)\b|"
                        r"\blog_softmax\b|\blogits\b[^.]*\b(softmax|probs)\b|\b(softmax|probs)\b[^.]*\bunderflow\w*\b"),
]
