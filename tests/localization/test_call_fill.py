"""A layer that cannot be fed torch's inputs (torch's LSTM takes a packed sequence) and that the port calls without
an optional argument (nn.LSTM's seq_length): localization/call_fill.py gives each optional construct parameter
each integer input of the network and re-runs the layer on its own recorded input; the one with which its result
agrees with torch's where both have the same form (h, c) is the confirmed cause. The twin passing seq_length
passes."""
import numpy as np
import pytest

from migcheck import PairedCase, given, uniform
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")


class TorchEncoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(3, 4, batch_first=True)
        self.head = torch.nn.Linear(4, 2)

    def forward(self, x, lengths):
        packed = torch.nn.utils.rnn.pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
        _, (h, _) = self.lstm(packed)
        return self.head(h[-1])


def _run(with_lengths):
    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.lstm = ms.nn.LSTM(3, 4, batch_first=True)
            self.head = ms.nn.Dense(4, 2)

        def construct(self, x, lengths):
            if with_lengths:
                _, (h, _) = self.lstm(x, seq_length=lengths.astype(ms.int32))
            else:
                _, (h, _) = self.lstm(x)
            return self.head(h[-1])

    case = PairedCase(name="lstm", torch=TorchEncoder, mindspore=M, checks=("forward",),
                      inputs={"x": uniform(3, 5, 3), "lengths": given(np.array([5, 2, 3], dtype=np.int64))})
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_an_lstm_called_without_seq_length_gets_the_networks_lengths_and_agrees():
    v = _run(False)
    assert v.status == "fail"
    (d,) = [d for d in v.localization.defects if d.torch_name == "lstm"]
    assert d.confirmed and d.confidence == "high" and d.rule == "call-argument"
    assert "without seq_length= (left at None)" in d.cause and "[5, 2, 3]" in d.cause
    assert d.fix.startswith("pass seq_length= (network input 1, as int32) when calling 'lstm' in construct")


def test_the_lstm_given_seq_length_passes():
    assert _run(True).status == "pass"
