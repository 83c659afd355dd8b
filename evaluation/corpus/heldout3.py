"""Held-out set 3 (issue 22): a blind set of single-difference ports, families "h3" and "h3-port".

Written without reading migcheck's localization, mapping or judging code, the bundled cases or the other
corpus entries' causes. Each pitfall comes from MindSpore's documented PyTorch API differences or from
probing torch 2.13 / MindSpore 2.10 on CPU; every naive port was checked to give different numbers (or
raise) and every correct twin to agree. Each entry carries a `cause_pattern` that only the finding's
cause/fix fields may match.

heldout3_ops: functional ops in construct; heldout3_layers: layers and Embedding gradient options;
heldout3_grads: backward-only kinks and learning-rate schedules; heldout3_ports: small model blocks.
"""
from __future__ import annotations

from evaluation.corpus import heldout3_grads, heldout3_layers, heldout3_ops, heldout3_ports

ENTRIES = (list(heldout3_ops.ENTRIES) + list(heldout3_layers.ENTRIES) + list(heldout3_grads.ENTRIES)
           + list(heldout3_ports.ENTRIES))
