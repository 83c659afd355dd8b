"""Held-out sets 17-22, each half: the entries load, are well-formed and registered, and one cheap pair behaves as
declared (one table of the halves; the checks are the same for each)."""
import importlib
from dataclasses import dataclass
from typing import Optional, Tuple

import pytest

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]


@dataclass(frozen=True)
class Half:
    set: int
    half: str
    modules: Tuple[str, ...]  # evaluation.corpus modules holding its ENTRIES
    cheap: str  # one entry whose two ports run fast
    count: Optional[int] = None  # exactly this many entries (None: at least 10)
    ports: Optional[int] = None  # exactly this many model blocks
    port_prefix: bool = False  # a block's name starts with h<set><half>_port_, and only a block's
    max_errors: Optional[int] = None  # naive ports that raise

    @property
    def prefix(self) -> str:
        return f"h{self.set}{self.half}_"

    def entries(self) -> list:
        return [e for m in self.modules for e in importlib.import_module(f"evaluation.corpus.{m}").ENTRIES]


HALVES = [
    Half(17, "a", ("heldout17_a", "heldout17_a_ports"), "h17a_graph_euler_step_index_add_alpha_dropped_in_ops_index_add",
         port_prefix=True),
    Half(17, "b", ("heldout17_b",), "h17b_functional_bincount_float32_counts", count=13, ports=8),
    Half(18, "a", ("heldout18_a", "heldout18_a_ports"), "h18a_functional_amax_nan_slot_ignored", port_prefix=True),
    Half(18, "b", ("heldout18_b",), "h18b_functional_avg_pool1d_default_stride_one", count=13, ports=8),
    Half(19, "a", ("heldout19_a", "heldout19_a_ports"), "h19a_functional_lrn_size_passed_as_ops_lrn_depth_radius",
         port_prefix=True),
    Half(19, "b", ("heldout19_b",), "h19b_functional_temporal_avg_pool3d_default_stride_one", count=13, ports=8,
         max_errors=2),
    Half(20, "a", ("heldout20_a", "heldout20_a_ports"), "h20a_huber_loss_delta_left_at_default_one", count=13,
         port_prefix=True),
    Half(20, "b", ("heldout20_b",), "h20b_functional_fftshift_last_dim_as_ops_fftshift_all_dims", count=13, ports=8,
         port_prefix=True, max_errors=2),
    Half(21, "a", ("heldout21_a", "heldout21_a_ops", "heldout21_a_ports"),
         "h21a_functional_centernet_peak_rows_ops_div_rounding_mode_dropped", count=13, ports=2,
         port_prefix=True, max_errors=2),
    Half(21, "b", ("heldout21_b", "heldout21_b_ports"), "h21b_port_dcnv2_cross_layer_ops_matmul_weight_not_transposed",
         count=13, ports=8, port_prefix=True, max_errors=2),
    Half(22, "a", ("heldout22_a", "heldout22_a_more", "heldout22_a_ports"), "h22a_hardshrink_lambda_dropped_hshrink_default",
         count=13, ports=2, port_prefix=True, max_errors=2),
    Half(22, "b", ("heldout22_b", "heldout22_b_ports"),
         "h22b_functional_autocorrelation_odd_window_irfft_length_dropped", count=13, ports=8, port_prefix=True,
         max_errors=2),
]
IDS = [f"{h.set}{h.half}" for h in HALVES]


@pytest.mark.parametrize("half", HALVES, ids=IDS)
def test_entries_are_well_formed(half):
    entries = half.entries()
    assert len(entries) == half.count if half.count is not None else len(entries) >= 10
    family, port = f"h{half.set}", f"h{half.set}-port"
    for e in entries:
        assert e.problems() == [], (e.name, e.problems())
        assert e.name.startswith(half.prefix)
        assert e.family in (family, port)
        assert e.cause_pattern
        if half.port_prefix:
            assert (e.family == port) == e.name.startswith(f"{half.prefix}port_")
    if half.ports is not None:
        assert sum(e.family == port for e in entries) == half.ports
    if half.max_errors is not None:
        assert sum(e.naive.fails_with == "error" for e in entries) <= half.max_errors


def test_names_are_unique_across_the_corpus_and_every_half_is_in_it():
    from evaluation.corpus import entries

    names = [e.name for e in entries(thirdparty=False)]
    assert len(names) == len(set(names))
    for half in HALVES:
        assert {e.name for e in half.entries()} <= set(names)


@pytest.mark.parametrize("half", HALVES, ids=IDS)
def test_registered_in_its_set(half):
    registered = importlib.import_module(f"evaluation.corpus.heldout{half.set}").ENTRIES
    assert {e.name for e in half.entries()} <= {e.name for e in registered}


@pytest.mark.parametrize("half", HALVES, ids=IDS)
def test_one_cheap_pair_behaves_as_declared(half):
    import migcheck

    entry = next(e for e in half.entries() if e.name == half.cheap)
    assert migcheck.run([entry.naive]).ok
    assert migcheck.run([entry.correct]).ok
