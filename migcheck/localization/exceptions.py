"""What a MindSpore exception says, in plain words: no kernel for this device, an argument combination an op
refuses, input shapes or dtypes an op rejects. Pure: reads the message text only.

MindSpore's messages carry the operator's name ("For 'Conv2D', ...", "Unsupported op [GeluExt] on CPU",
"The kernel GeluExt unregistered"); the classification names that operator and the device, and quotes the
operator's own sentence as the evidence. GRAPH-only failures are told apart by a PYNATIVE re-run
(migcheck.running.failures), not by the text: a shape error inside construct carries GRAPH's traceback
banner too, and moving code out of construct would not fix it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class ErrorCause:
    rule: str  # "no-kernel" | "op-arguments" | "op-shapes" | "op-dtypes"
    op: str  # the operator MindSpore names ("" when it names none)
    cause: str  # one short sentence for the verdict (the message itself is quoted beside it)
    said: str = ""  # the operator's own sentence: the evidence


_NO_KERNEL = (re.compile(r"Unsupported op \[(?P<op>\w+)\] on (?P<device>\w+)"),
              re.compile(r"The kernel (?P<op>\w+) unregistered"),
              re.compile(r"kernel (?:for )?'?(?P<op>\w+)'? (?:is )?not (?:found|registered|supported)", re.I))
_FOR_OP = re.compile(r"For '(?P<op>[\w.]+)'(?: op)?,\s*(?P<said>[^\n]+)")
_SHAPE = re.compile(r"shape|rank|dimension|size", re.I)
_DTYPE = re.compile(r"dtype|data type|type of|must be (?:a )?(?:float|int|bool|number)", re.I)
_ARGUMENT = re.compile(r"the '(?P<arg>\w+)' must|when '(?P<when>\w+)'|should be|must be|not support", re.I)


def classify(text: str, backend: str) -> Optional[ErrorCause]:
    """The cause MindSpore's message states, or None when it states none this module can read."""
    for pattern in _NO_KERNEL:
        m = pattern.search(text)
        if m:
            device = (m.groupdict().get("device") or backend).upper()
            return ErrorCause("no-kernel", m["op"], f"MindSpore has no {m['op']} kernel on {device}: the port calls an"
                              f" operator this device does not implement (run it on a device that has one, or use"
                              f" an operator that {device} supports)")
    m = _FOR_OP.search(text)
    if m is None:
        return None
    op, said = m["op"], _sentence(m["said"])
    if _SHAPE.search(said):
        return ErrorCause("op-shapes", op, f"MindSpore's {op} rejected its input shapes", said)
    if _DTYPE.search(said):
        return ErrorCause("op-dtypes", op, f"MindSpore's {op} rejected an input's dtype", said)
    if _ARGUMENT.search(said):
        return ErrorCause("op-arguments", op, f"MindSpore's {op} refuses this combination of arguments", said)
    return None


def _sentence(text: str) -> str:
    text = text.strip()
    return text if len(text) <= 240 else text[:237] + "..."
