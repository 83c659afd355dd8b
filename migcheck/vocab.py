"""The one vocabulary: checks, modes, backends, failure kinds and statuses, and the names built from them.

String enums, so a member equals its plain string ("pass" == Status.PASS), prints as it, and
serializes to JSON as it: reports, case files and older code that compare strings keep working.
Pure and light (no numpy): `migcheck --help` and a warm `migcheck list` import it.
"""
from __future__ import annotations

import re
from enum import Enum
from typing import Optional, Tuple


class Word(str, Enum):
    """A str-valued enum whose str() and format() are its value (Python 3.11 made them 'Class.NAME')."""

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return self.value.__format__(spec)

    @classmethod
    def values(cls) -> Tuple[str, ...]:
        return tuple(m.value for m in cls)


class Check(Word):
    FORWARD = "forward"
    BACKWARD = "backward"
    TRAIN = "train"
    STEP = "step"
    INIT = "init"  # opt-in: default initializations compared by distribution (migcheck.running.init_check)


class Mode(Word):
    PYNATIVE = "pynative"
    GRAPH = "graph"


class Backend(Word):
    CPU = "cpu"
    GPU = "gpu"
    ASCEND = "ascend"


class Kind(Word):
    """What a comparison or a run found. Ordered: when several tensors fail, the earliest kind is the verdict's."""

    STRUCTURE = "structure"  # weights cannot be transferred
    TREE = "tree"  # the outputs' nesting or count differ
    SHAPE = "shape"
    DTYPE = "dtype"
    NONFINITE = "nonfinite"  # NaN/Inf in different places
    EMPTY = "empty"  # both sides empty: nothing was compared (unless the case allows it)
    VALUE = "value"
    ERROR = "error"  # a side raised
    GRAPH_COMPILE_ERROR = "graph-compile-error"
    MISSING_GOLDEN = "missing-golden"
    STALE_GOLDEN = "stale-golden"
    TAMPERED_GOLDEN = "tampered-golden"
    CRASHED = "crashed"  # the isolated child died
    TIMEOUT = "timeout"  # the case ran past its time limit


# Kinds found by comparing tensors, most fundamental first (the verdict names the first that failed).
TENSOR_KINDS = (Kind.STRUCTURE, Kind.TREE, Kind.SHAPE, Kind.DTYPE, Kind.NONFINITE, Kind.EMPTY, Kind.VALUE)
# What a known-bad case may name in fails_with: a difference a port can have. Golden, crash and
# timeout kinds describe the run, not the port.
PORT_KINDS = TENSOR_KINDS + (Kind.ERROR, Kind.GRAPH_COMPILE_ERROR)
# Kinds that mean "the run could not judge", shown as status error whatever the case expected.
ERROR_KINDS = (Kind.ERROR, Kind.GRAPH_COMPILE_ERROR)


class Status(Word):
    """A verdict's status, with how every front end shows it (the one place for these).

    symbol: the progress character; colour: its ANSI SGR code; severity: 0 for pass, higher is worse
    (reports list the most severe first); rare: counted in the summary only when some verdict has it;
    unjudged: the run could not judge the port (pytest counts these as errors, not failures).
    """

    symbol: str
    colour: str
    severity: int
    rare: bool
    unjudged: bool

    def __new__(cls, value: str, symbol: str, colour: str, severity: int, rare: bool = False,
                unjudged: bool = False) -> "Status":
        member = str.__new__(cls, value)
        member._value_ = value
        member.symbol, member.colour, member.severity, member.rare, member.unjudged = (
            symbol, colour, severity, rare, unjudged)
        return member

    PASS = ("pass", ".", "32", 0)
    FAIL = ("fail", "F", "31", 4)
    ERROR = ("error", "E", "35", 5, False, True)
    SKIP = ("skip", "s", "36", 1)
    XFAIL = ("xfail", "x", "33", 2)
    XPASS = ("xpass", "X", "31", 3)
    CRASHED = ("crashed", "C", "1;31", 7, True, True)
    TIMEOUT = ("timeout", "T", "1;35", 6, True, True)

    @classmethod
    def of(cls, value: object) -> Optional["Status"]:
        """The member a status value names (a member or its plain string); None for anything else."""
        try:
            return cls(value)
        except ValueError:
            return None


# Statuses that mean "as the case said it would be"; anything else makes the run exit 1.
EXPECTED_STATUSES = (Status.PASS, Status.XFAIL, Status.SKIP)

CHECKS = Check.values()
MODES = Mode.values()
BACKENDS = Backend.values()
STATUSES = Status.values()
FAILURE_KINDS = tuple(k.value for k in PORT_KINDS)


def word(cls: type, value: object) -> object:
    """value as a member of the vocab enum cls when it names one (its plain string or the member); anything
    else (None, a value a newer schema added) as it is."""
    if value is None or isinstance(value, cls):
        return value
    try:
        return cls(value)
    except ValueError:
        return value


def plain(value: object) -> object:
    """A vocab member as its plain str (other values as they are): what leaves the process (JSON, xdist,
    JUnit) must be a str, not a subclass some serializers refuse."""
    return str.__str__(value) if isinstance(value, Word) else value


# ------------------------------------------------------------------------------------------ names
def item_id(case: str, check: str, mode: str, backend: str) -> str:
    """'conv[forward-graph-cpu]': one case x check x mode x backend, in every report and in pytest."""
    return f"{case}[{check}-{mode}-{backend}]"


_ITEM_ID = re.compile(r"^(?P<case>.+)\[(?P<check>[a-z]+)-(?P<mode>[a-z]+)-(?P<backend>[a-z]+)\]$")


def parse_item_id(text: str) -> Optional[Tuple[str, str, str, str]]:
    """Inverse of item_id: (case, check, mode, backend), or None when text is not an item id."""
    m = _ITEM_ID.match(text)
    return (m["case"], m["check"], m["mode"], m["backend"]) if m else None


def output_name() -> str:
    return "out"


def input_grad_name(input_name: str) -> str:
    return f"grad.input.{input_name}"


def param_grad_name(param: str) -> str:
    return f"grad.param.{param}"


def state_name(buffer: str) -> str:
    return f"state.{buffer}"


def step_name(step: int, what: str, param: str = "") -> str:
    """'step2.loss', 'step2.param.fc.weight', 'step2.state.bn.running_mean' (steps count from 1)."""
    return f"step{step}.{what}" + (f".{param}" if param else "")


def torch_name_of(result_name: str) -> str:
    """The torch parameter or buffer a result is about; the result name itself for outputs and losses.

    'state.bn.running_mean' / 'step2.param.fc.weight' / 'grad.param.x' -> the torch name part.
    """
    for marker in (".state.", ".param."):
        if marker in result_name:
            return result_name.split(marker, 1)[1]
    return result_name.split(".", 1)[1] if result_name.startswith("state.") else result_name
