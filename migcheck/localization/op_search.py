"""The argument search at op level: inside a container whose own construct diverges, the first op whose inputs
agree with torch's values and whose output does not (op_align.py), then a change to that call (op_candidates.py:
from the call's own arguments and torch's counterpart call), re-run through the whole construct on torch's
recorded inputs. A change that makes the container's output agree with torch's is the confirmed cause and its
fix. No framework import: `module` and `cell` are the runners' objects.
"""
from __future__ import annotations

import time
from dataclasses import replace
from typing import Any, Callable, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from migcheck.localization.arg_search import MAX_SECONDS, SearchOutcome
from migcheck.localization.beyond import Beyond, SecondInputs, edge_check
from migcheck.localization.confirm import agree_all, first_array
from migcheck.localization.op_compose import output_size_candidates, parameter_namer, reduction_candidates
from migcheck.localization.op_align import (OpDivergence, computed_from, counterpart, differing_outputs, diverging_ops,
                                            outputs_differ, said_outputs, same_value)
from migcheck.localization.op_elements import differed_at, divergence_elements
from migcheck.localization.op_precision import less_accurate
from migcheck.localization.raising_op import same_operation
from migcheck.localization.op_chain import through_chain
from migcheck.localization.op_candidates import api_candidates, base_name, candidates
from migcheck.localization.op_fix_text import change_fix
from migcheck.localization.op_empty import empty_candidates
from migcheck.localization.op_nan import nan_candidates
from migcheck.localization.op_order import order_candidates
from migcheck.localization.op_ties import ties_only
from migcheck.records.ops import UNCHANGED, OpChange, OpRecord
from migcheck.runners.probes import MindSporeProbe, TorchProbe

TolFor = Callable[[str], Tuple[float, float]]
RULE = "op-argument-search"
MAX_OPS = 3  # diverging ops searched, in order
OP_CANDIDATES = 60  # a construct has more calls than a layer has settings (the seconds budget still holds)


def search_ops(module: TorchProbe, cell: MindSporeProbe, torch_owner: str, ms_name: str, inputs: Sequence[np.ndarray],
               torch_out: Any, torch_values: Sequence[np.ndarray], tol_for: TolFor,
               max_count: int = OP_CANDIDATES, max_seconds: float = MAX_SECONDS,
               torch_names: Mapping[str, str] = {}, inline: Sequence[str] = ()) -> Optional[SearchOutcome]:
    """The first change to one op call of the port's construct that makes the container agree with torch;
    None when the container, run alone on torch's inputs, already agrees (nothing to search). `inline`: torch
    sub-modules the port computes with ops in this construct (no cell of its own): their calls count as torch's."""
    started = time.monotonic()
    tried: List[str] = []
    try:
        torch_ops = module.op_records(torch_owner, inline)
        traced, base = _traced(cell, ms_name, inputs)
    except Exception:  # nothing recorded
        return None
    ms_ops = [r for r in traced if r.index >= 0]
    if base is not None and agree_all(torch_out, base, tol_for):
        return None
    named = parameter_namer(cell, ms_name)
    rtol, atol = tol_for("float32")
    same = same_value(rtol, atol)
    known = list(torch_values) + list(inputs)
    computed = list(inputs) + [a for r in traced for a in r.outputs]
    divergences = diverging_ops(ms_ops, torch_ops, known, same, computed)
    # first the ops that raised, returned another shape or kind than torch's op, or did nothing in place
    first = [d for d in differing_outputs(ms_ops, torch_ops, known, same, computed)
             if base is None or d.ms.unchanged_self]
    divergences = first + [d for d in divergences if d.ms.index not in {f.ms.index for f in first}]
    # then every other call of the construct in turn: where torch computes the region in fewer calls (one fused
    # scaled_dot_product_attention), no value places the difference, and only a re-run can
    placed = {d.ms.index for d in divergences[:MAX_OPS]}
    sites = [(d, False) for d in divergences[:MAX_OPS]] + [
        (OpDivergence(r, counterpart(r, torch_ops, same), ()), True) for r in ms_ops
        if r.index not in placed and not r.raised and r.outputs]
    second = SecondInputs(module, torch_owner, inputs, torch_out, tol_for)

    def _unexplained() -> SearchOutcome:
        """No change agreed: a function differing only at NaN, else an op differing only at exact ties, else the
        located op unconfirmed."""
        first_div = divergences[0] if divergences else None
        ties = ties_only(module, cell, torch_owner, ms_name, inputs, first_div, same)
        if ties:
            ties = SearchOutcome(ties + between_children(traced, first_div, ms_name, torch_names), "", True,
                                 tuple(tried), round(time.monotonic() - started, 3), "op-ties")
        return _nan_only(nan_only, ms_name, tried, started, base is None, traced, torch_names, ms_ops) or ties or \
            _located(_none(first_div, tried, started, base is None, rejected), traced, divergences, ms_name,
                     torch_names)

    rejected: List[Tuple[int, str]] = []  # candidates that agreed on the case's input only
    nan_only: List[Tuple[int, Any, OpChange, str, str]] = []  # ... that differ from torch's op only at NaN
    searched: set = set()  # a call made again with the same arguments (a helper per projection) is searched once
    for div, swept in sites:
        key = (div.ms.name, repr(div.ms.positional), repr(div.ms.keywords))
        if key in searched:
            continue
        searched.add(key)
        alternatives = []
        if div.torch is not None and not swept:
            try:
                wanted = tuple(div.ms.names) + tuple(k for k, _ in div.ms.keywords + div.torch.keywords)
                alternatives = api_candidates(div, cell.functions_like(base_name(div.torch.name), wanted), same)
                alternatives += through_chain(div, ms_ops, alternatives)
            except Exception:  # no function list on this side
                alternatives = []
            alternatives += order_candidates(div) + nan_candidates(div) + empty_candidates(div)
        target = div.torch.outputs[0] if div.torch is not None and div.torch.outputs and not swept else \
            first_array(torch_out)  # torch's counterpart's result, else the container's (the op's may be its last)
        sized = output_size_candidates(div.ms, target) + reduction_candidates(div.ms, target)
        if base is not None and div.ms.outputs and first_array(base) is not None and np.array_equal(
                div.ms.outputs[0], first_array(base)):  # the construct's own result: torch's, one axis fewer?
            sized += reduction_candidates(div.ms, first_array(torch_out))
        for change, words in _at_every_call(div, ms_ops, candidates(div, ms_ops, named, torch_ops) + alternatives
                                            + sized):
            if len(tried) >= max_count or time.monotonic() - started > max_seconds:
                return _unexplained()
            tried.append(f"op {div.ms.index} '{div.ms.name}': {words}")
            if change.drop and _near_identity(ms_ops, change.index):  # expm1 of tiny values: dropping it "agrees"
                tried[-1] += " (skipped: on these values the op's output is within 1e-3 of its input)"
                continue
            try:
                changed, got = cell.trace_ops(ms_name, inputs, change)
            except Exception:  # a change the op refuses
                continue
            whole = agree_all(torch_out, got, tol_for)
            # another function agreeing with torch's counterpart at the op alone counts only where that counterpart
            # is the same operation (torch may compute the port's fused L2Normalize in several calls: its first, a
            # pow, is no stand-in for it); otherwise the whole construct must agree
            alike = not change.replace or (div.torch is not None and not change.drops
                                           and same_operation(div.ms.name, div.torch.name))
            if whole or (not swept and alike and _op_agrees(div, changed, same)
                         and closer(torch_out, got, base, rtol, atol)):
                held = _beyond(second, module, cell, torch_owner, ms_name, div, change, whole, same)
                if not held.ok:  # agrees on the case's input only: not the cause; the search goes on
                    tried[-1] += f" (rejected: {held.words})"
                    rejected.append((held.failed, f"{words} ({held.words})"))
                    if whole and held.failed_at and all(w.startswith("NaN") for w in held.failed_at):
                        nan_only.append((held.failed, div, change, words, held.words))
                    continue
                return SearchOutcome(_cause(div, ms_name, words + _scale_words(div, change), len(tried), whole,
                                             base is None, swept)
                                     + between_children(traced, div, ms_name, torch_names) + differed_at(div)
                                     + (f"; {held.words}" if held.words else ""), change_fix(div, change, ms_ops), True,
                                     tuple(tried), round(time.monotonic() - started, 3), RULE)
    precision = less_accurate(module, torch_owner, divergences[0] if divergences else None)
    if precision:  # measured against torch's op in float64: the cause, with no fix to show
        return SearchOutcome(precision + between_children(traced, divergences[0], ms_name, torch_names), "", True,
                             tuple(tried), round(time.monotonic() - started, 3), "kernel-precision")
    return _unexplained()


def _near_identity(ms_ops: Sequence[OpRecord], index: int) -> bool:
    """Whether the op's recorded output is within 1e-3 of its first input: dropping such an op can make the
    construct agree by the values alone, which says nothing of the port's mistake."""
    r = next((r for r in ms_ops if r.index == index), None)
    if r is None or not r.inputs or not r.outputs or r.inputs[0].shape != r.outputs[0].shape:
        return False
    a, b = r.inputs[0], r.outputs[0]
    return a.dtype.kind == "f" and b.dtype.kind == "f" and bool(np.allclose(b, a, rtol=1e-3, atol=1e-6))


def _at_every_call(div: OpDivergence, ms_ops: Sequence[OpRecord], changes: Sequence[Tuple[OpChange, str]]
                   ) -> List[Tuple[OpChange, str]]:
    """Each change, then, where the construct makes the same call again (the same op with the same plain
    arguments: a helper it calls for keys and for values), the change at every such call."""
    twins = tuple(r.index for r in ms_ops if r.index != div.ms.index and r.name == div.ms.name
                  and r.positional == div.ms.positional and r.keywords == div.ms.keywords and r.init == div.ms.init)
    if twins:
        widen, said = {"also": twins}, f"at each of its {len(twins) + 1} calls with these arguments"
    elif div.ms.raised:  # the calls after a raise were never recorded: every call made the same way
        widen, said = {"like": (div.ms.name, tuple(div.ms.positional))}, "at every call made with these arguments"
    else:
        return list(changes)
    return [pair for change, words in changes
            for pair in ((change, words), (replace(change, **widen), f"{words}, {said}"))]


def _nan_only(nan_only: Sequence[Tuple[int, Any, OpChange, str, str]], ms_name: str, tried: List[str], started: float,
              raised: bool, traced: Sequence[OpRecord], torch_names: Mapping[str, str], ms_ops: Sequence[OpRecord]
              ) -> Optional[SearchOutcome]:
    """Where no change held everywhere and the library's functions differ from torch's op only where an input is
    NaN: the closest (fewest such edges), confirmed on every other input, with that difference said."""
    if not nan_only:
        return None
    _, div, change, words, edges = min(nan_only, key=lambda n: n[0])
    return SearchOutcome(_cause(div, ms_name, words, len(tried), True, raised, False)
                         + between_children(traced, div, ms_name, torch_names)
                         + f"; it agrees on every input tried except where an input is NaN ({edges})",
                         change_fix(div, change, ms_ops) + " (it differs from torch's op only where an input is NaN)",
                         True, tuple(tried), round(time.monotonic() - started, 3), RULE)


def _beyond(second: SecondInputs, module: TorchProbe, cell: MindSporeProbe, torch_owner: str, ms_name: str,
            div: OpDivergence, change: OpChange, whole: bool, same: Any) -> Beyond:
    """A candidate that agreed on the case's input, measured beyond it (beyond.py): the construct on second
    inputs (where the whole construct agreed), and a function put in the call's place at edge values."""
    held = second.check(cell, ms_name, change) if whole else Beyond(
        True, "confirmed at the op on the case's input only (a later difference keeps the construct apart)")
    # the port's own function called with other arguments (ops.clamp(x, max=...) for ops.clamp(x, min=...)): how
    # it treats NaN or ties is that function's, shared by every port that calls it, not evidence against the fix
    own_function = change.replace == base_name(div.ms.name)
    # torch's counterpart is judged against only where it computes what the replaced call does (its output's
    # shape): the first of several torch calls for one of the port's (x[:, :, None] of an expand) is no reference
    same_role = div.torch is not None and (not div.ms.outputs or not div.torch.outputs  # a call that raised: the
                                           or div.torch.outputs[0].shape == div.ms.outputs[0].shape)  # torch call on its inputs
    if held.ok and change.replace and div.torch is not None and not own_function and same_role:
        edges = edge_check(module, cell, torch_owner, div.torch.index, div.torch.inputs, div.ms.inputs, change, same)
        if not edges.ok:
            return edges
        held = Beyond(True, "; ".join(w for w in (held.words, edges.words) if w))
    return held


def _located(none: SearchOutcome, traced: Sequence[OpRecord], divergences: Sequence[OpDivergence], ms_name: str,
             torch_names: Mapping[str, str]) -> SearchOutcome:
    """The unconfirmed outcome, with where the first diverging op sits among the construct's children."""
    if divergences and none.cause:
        where = between_children(traced, divergences[0], ms_name, torch_names)
        return replace(none, cause=none.cause + where, located=none.located and none.located + where)
    return none


def _traced(cell: MindSporeProbe, ms_name: str, inputs: Sequence[np.ndarray]) -> Tuple[List[OpRecord], Any]:
    """(the construct's op records, its output); a construct that raises: the records up to the call that
    raised (that one included, records/ops.OpRecord.raised) and None."""
    try:
        return cell.trace_ops(ms_name, inputs)
    except Exception:  # the port raises on torch's inputs too
        return cell.trace_ops(ms_name, inputs, UNCHANGED)


def between_children(traced: Sequence[OpRecord], div: OpDivergence, ms_name: str,
                      torch_names: Mapping[str, str]) -> str:
    """Where the op sits among the children the construct called, in torch's names where they are paired."""
    position = next((i for i, r in enumerate(traced) if r.index == div.ms.index), None)
    if position is None:
        return ""

    def named(r: OpRecord) -> str:
        full = f"{ms_name}.{r.name[len('cell:'):]}" if ms_name else r.name[len("cell:"):]
        return torch_names.get(full, full)

    before = [named(r) for r in traced[:position] if r.index < 0]
    after = [named(r) for r in traced[position:] if r.index < 0]
    if not before and not after:
        return ""
    # which child's output it reads (the last child called before it need not be the one: an FPN's upsampling
    # of the coarser level runs after the finer level's lateral conv)
    fed = [named(r) for r in computed_from(div.ms.inputs, traced[:position], lambda r: r.index < 0)[1]]
    if len(fed) > 1:  # values computed from several children (ops.diag(fa @ fb.T)): each is named
        takes = "; it takes values computed from " + " and ".join(f"'{f}' output" for f in fed)
    else:
        takes = f"; it takes '{fed[-1]}' output" if fed and fed[-1] != (before[-1] if before else "") else ""
    return (f"; the op sits between '{before[-1] if before else '<input>'}' output and "
            f"'{after[0] if after else '<output>'}' input{takes}")


_SCALING = ("mul", "rmul", "truediv", "rtruediv", "div", "multiply", "divide")


def number_words(v: Any) -> str:
    """A constant in words where it is a familiar one: 0.3536 -> '1/sqrt(8)'."""
    if not isinstance(v, float) or v <= 0:
        return ""
    for n in range(2, 4097):
        for shown, value in ((f"1/sqrt({n})", n ** -0.5), (f"sqrt({n})", n ** 0.5), (f"1/{n}", 1.0 / n)):
            if abs(v - value) <= 1e-6 * value:
                return shown
    return ""


def _scale_words(div: OpDivergence, change: OpChange) -> str:
    if base_name(div.ms.name) not in _SCALING or len(change.arguments) + len(change.positions) != 1:
        return ""
    key, new = (list(change.arguments) + list(change.positions))[0]
    old = dict(zip(div.ms.names, div.ms.positional)).get(key) if isinstance(key, str) else div.ms.positional[key]
    if not isinstance(old, (int, float)) or not isinstance(new, (int, float)):
        old = next((v for v in div.ms.positional if isinstance(v, float)), None)
    if not isinstance(old, (int, float)):
        return ""
    said = [f"{x:.6g}" + (f" = {number_words(float(x))}" if number_words(float(x)) else "") for x in (old, new)]
    return f" (a scale: the port scales by {said[0]} where torch's values need {said[1]})"


def _op_agrees(div: OpDivergence, changed: Sequence[OpRecord], same: Any) -> bool:
    """The changed op, fed the same inputs as torch's counterpart (all of them), now gives its outputs: the
    op-level counterfactual, which holds even where a later defect keeps the container's output apart."""
    t = div.torch
    if t is None or not div.ms.inputs or not all(any(same(x, y) for y in t.inputs) for x in div.ms.inputs):
        return False
    now = next((r for r in changed if r.index == div.ms.index), None)
    if now is None or len(now.outputs) != len(t.outputs) or not now.outputs:
        return False
    return all(same(a, b) for a, b in zip(now.outputs, t.outputs))


def closer(torch_out: Any, got: Any, base: Any, rtol: float, atol: float) -> bool:
    """The change matters downstream: the changed run has torch's shape and its output moved from the port's own
    (or no longer raises). An op that agrees with torch's counterpart only because the port splits torch's call
    in two (x / 2 then floor, for torch's floor division) leaves the output as it was and is no cause; a later
    defect may still keep the output apart from torch's, so nearness to torch's is not asked."""
    from migcheck.localization.confirm import first_array
    from migcheck.util.closeness import close

    want, now, was = first_array(torch_out), first_array(got), first_array(base)
    if want is None or now is None or now.shape != want.shape:
        return False
    return was is None or not close(now, was, rtol, atol)


def _none(div: Optional[OpDivergence], tried: List[str], started: float, raised: bool = False,
          rejected: Sequence[Tuple[int, str]] = ()) -> SearchOutcome:
    said = ""
    if div is not None and raised and outputs_differ(div.ms, div.torch):
        said = f"op '{div.ms.name}' is the first whose inputs agree with torch's values and that {_differs(div)}"
    elif div is not None:
        said = (f"op '{div.ms.name}' is the first whose inputs agree with torch's values and whose output does not"
                + (f" (torch's counterpart: '{div.torch.name}')" if div.torch is not None else ""))
        at = divergence_elements(div)
        if at:  # measured on the two recorded outputs: at which inputs the conventions part
            said += f": {base_name(div.ms.name)} output differs {at}"
    if said and rejected:  # the closest first: fewest edge values where it differs from torch's op
        said += "; not confirmed (each agreed on the case's input only): " + "; ".join(
            w for _, w in sorted(rejected, key=lambda r: r[0]))
    # said as the cause of a layer (cell_search.py) only where the op has a counterpart torch computed: an op of a
    # region torch computes in one fused call differs from every torch value without being wrong itself
    located = said if div is not None and div.torch is not None else ""
    return SearchOutcome(said, "", False, tuple(tried), round(time.monotonic() - started, 3), RULE, located=located)


def _differs(div: OpDivergence) -> str:
    """How the op's results differ from its counterpart's where their shapes or kinds differ, or it raised."""
    torch_side = (f"torch's '{div.torch.name}' returned {said_outputs(div.torch.outputs)} from the same inputs"
                  if div.torch is not None else "torch made no counterpart call")
    if div.ms.raised:
        return f"raised where {torch_side}"
    return f"returned {said_outputs(div.ms.outputs)} where {torch_side}"


def _cause(div: OpDivergence, ms_name: str, words: str, count: int, whole: bool, raised: bool = False,
           swept: bool = False) -> str:
    torch_side = f" (torch's counterpart: '{div.torch.name}')" if div.torch is not None else ""
    how = ("no value torch computed places the difference (torch's calls there do not compute the port's"
           f" intermediate values{', ' + repr(div.torch.name) + ' computes them in one call' if div.torch else ''}),"
           " so each call was changed in turn" if swept
           else _differs(div) if raised and outputs_differ(div.ms, div.torch)
           else f"an in-place call that returned its result but left its tensor as it was, so later ops see the old"
                f" value{torch_side}" if div.ms.unchanged_self
           else f"inputs agree with torch's, output does not{torch_side}")
    what = (f"'{ms_name or '<root>'}' agrees with torch" if whole
            else f"the op's output equals torch's '{div.torch.name}' output on the same inputs")
    return (f"op '{div.ms.name}' inside '{ms_name or '<root>'}': {how}; with {words}, re-run through the construct"
            f" on torch's recorded inputs, {what} ({count} candidates tried)")
