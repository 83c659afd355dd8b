"""migcheck: prove a MindSpore port of a PyTorch model computes the same thing as the original.

Public API for case files: PairedCase, Tolerance and the input specs.
"""
from migcheck.case import FrameworkPair, PairedCase
from migcheck.specs import InputSpec, given, integers, mask, normal, uniform
from migcheck.tolerance import Tolerance

__version__ = "0.1.0"
__all__ = ["PairedCase", "FrameworkPair", "Tolerance", "InputSpec", "uniform", "normal", "integers", "mask", "given"]
