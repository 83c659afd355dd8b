"""Held-out set 5, half c (prefix h5c_, family h5-port): 10 real-port model blocks, written blind.

Vision blocks in heldout5_c_vision.py, text blocks in heldout5_c_text.py; each names the public MindSpore port
(mindcv, mindnlp) and the torch original it follows in `source`.
"""
from evaluation.corpus import heldout5_c_text, heldout5_c_vision

ENTRIES = heldout5_c_vision.ENTRIES + heldout5_c_text.ENTRIES
