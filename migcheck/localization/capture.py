"""After a failing verdict: re-run the pair with sub-cell capture, find the first divergence, explain it.

Cost: one extra forward per side (hooks on every sub-cell), plus the isolated pass, which calls each paired *leaf*
sub-cell once on torch's recorded inputs (about one more MindSpore forward)."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from migcheck.judging.compare import TensorComparison
from migcheck.localization.confirm import explain, first_array
from migcheck.localization.activation_order import activation_moved
from migcheck.localization.pad_fold import pad_folded
from migcheck.localization.dataflow import Dataflow, as_handed, descendants, pair_calls
from migcheck.localization.functional_ops import torch_called
from migcheck.localization.defect_findings import findings_of, unique_findings
from migcheck.localization.owners import (diagnose_pair as _diagnose_pair, first_in_backward_order as _first_in_backward_order,
                                          hidden_confirmer as _hidden_confirmer, owners_of as _owners_of, state_fix_checker as _state_fix_checker)
from migcheck.localization.loaded import loaded_torch
from migcheck.localization.locate import Defect, Localization, SubcellRow, module_pairs, rows_from_flow, summarize
from migcheck.localization.rules import Finding, diagnose_precision, diagnose_update_pattern
from migcheck.localization.op_replay import port_passes_torchs_value
from migcheck.localization.container_search import search_container as _search_ops
from migcheck.localization.replay_fix import replay_fix
from migcheck.mapping.transfer import WeightMapping, to_mindspore, to_torch
from migcheck.precision import as_precision
from migcheck.runners.probes import MindSporeProbe, TorchProbe
from migcheck.tolerance import Tolerance

LOCALIZABLE = ("value", "shape", "nonfinite", "dtype")
ToleranceFor = Callable[[str, str], Tuple[Tolerance, str]]


def locate(case: Any, check: str, ref: Any, cell: MindSporeProbe, mapping: WeightMapping,
           tensors: Sequence[TensorComparison], tolerance_for: ToleranceFor) -> Localization:
    module, n_net = loaded_torch(case, ref)
    train = check in ("train", "step")
    t_calls, t_ops = module.capture_with_ops(ref.inputs[:n_net], ref.input_dtypes, train=train)
    m_calls = cell.capture(ref.inputs[:n_net], ref.input_dtypes, train=train)
    if not train:  # an eval forward that wrote its weights in place (Embedding's max_norm, a BatchNorm on batch
        module.load(ref.weights)  # statistics updating its moving mean): re-runs start as loaded, on both sides
        cell.load(to_mindspore(ref.weights, mapping))
    ms_state = to_torch(cell.state(), mapping) if check == "train" else {}  # one train forward from the initial weights
    hints = module_pairs([(r.torch_name, r.ms_name) for r in mapping.pairs],
                         [c.name for c in t_calls], [c.name for c in m_calls])
    tol = _tol(tolerance_for)
    flow = pair_calls(t_calls, m_calls, hints, tol, ref.inputs[:n_net],
                      judge_root=check in ("forward", "train") and getattr(case, "adapt_mindspore", None) is None)
    isolated = _isolated_pass(cell, t_calls, m_calls, flow)
    if not train:  # the isolated runs may write state in place too (a BatchNorm on batch statistics)
        cell.load(to_mindspore(ref.weights, mapping))
    rows = rows_from_flow(t_calls, m_calls, flow, tolerance_for, isolated)
    first = next((r for r in rows if flow.first is not None and r.order == flow.first), None)
    if {t.kind for t in tensors if not t.ok} == {"dtype"} and flow.first is None:  # values agree: where do dtypes part?
        from migcheck.localization.dtype_origin import dtype_origin

        origin = dtype_origin(module, cell, t_calls, m_calls, flow, tol)
        if origin is not None:
            return Localization(rows, origin.torch_name, origin.ms_name, tuple(findings_of([origin])),
                                f"first dtype difference: {origin.cause}", (origin,))
    between = ""
    if flow.between is not None:
        a, b = flow.between
        between = (f"inside torch '{first.torch_name or '<root>'}': between '{a}' output and '{b}' input"
                   " (a functional op in forward/construct; every sub-cell before agrees)")
        ops = _ops_between(t_ops, t_calls, flow.first, a, b)
        if ops:
            between += f"; torch calls there: {', '.join(ops)}"
    op_values = _between_values(flow, t_calls, m_calls) if flow.between is not None else None
    region = _region(t_calls, flow) if flow.between is not None else None
    # the op-level search re-runs the port's construct in eval mode: only where torch's values are eval's too
    defects = _defects(module, cell, rows, t_calls, m_calls, isolated, tol, between, op_values, region,
                       ops=not train)
    if not train and defects:  # defects in later containers' own construct
        from migcheck.localization.container_defects import container_defects

        done = {d.torch_name for d in defects} | {first.torch_name if first else ""} | {""}
        defects = sorted(defects + container_defects(module, cell, rows, t_calls, tol, done), key=lambda d: d.order)
    bw_defects = []
    # Forward agrees (or its only divergence is a call MindSpore never showed: a cell with its own bprop runs
    # no forward hook): where does backward go wrong?
    if check == "backward" and (flow.first is None or flow.pair_of(flow.first) is None):
        from migcheck.localization.backward import backward_defects

        bw_defects = backward_defects(module, cell, ref, case.loss.torch if case.loss else None, t_calls, m_calls,
                                      flow, tol)
        if not any(d.confirmed for d in bw_defects):  # no sub-cell explains it: an op inside construct may
            from migcheck.localization.backward_ops import op_backward_defects

            ops = op_backward_defects(module, cell, ref, case.loss.torch if case.loss else None, n_net, t_calls,
                                      m_calls, tol)
            owners = {d.torch_name for d in ops}
            bw_defects = sorted(ops + [d for d in bw_defects if d.torch_name not in owners], key=lambda d: d.order)
        # a path torch detaches and the port does not (also behind a NaN gradient's origin: torch may cut the very
        # path whose gradient is not finite)
        if not any(d.confirmed and d.rule != "nonfinite-gradient" for d in bw_defects):
            from migcheck.localization.detach_search import detach_defects

            bw_defects = detach_defects(module, cell, ref, case.loss.torch if case.loss else None, t_calls, m_calls,
                                        flow, tol) or bw_defects
        defects = bw_defects or defects
    findings: List[Finding] = findings_of(defects)
    failing = [t.name for t in tensors if not t.ok]
    confirm = _hidden_confirmer(case, check, ref, module, cell, mapping, t_calls, ms_state, tol)
    check_fix = _state_fix_checker(check, ref, module, cell, mapping, t_calls, tol)
    for torch_owner, ms_owner in _owners_of(failing, mapping):
        findings += _diagnose_pair(module, cell, torch_owner, ms_owner, t_calls, confirm, check_fix)
    if check in ("backward", "step") and flow.first is None and not any(f.confirmed for f in findings):
        from migcheck.localization.grad_options import gradient_option_findings

        findings += gradient_option_findings(case, ref, module, cell, mapping, _owners_of(failing, mapping), tol)
    findings += diagnose_update_pattern(check, failing, {p.name: p.owner_kind for p in ref.params})
    precision = as_precision(case.precision)
    if precision is not None:  # the first diverging layer's class and peak input feed the float16 rule
        layer = cell.config(first.ms_name)[0] if first is not None and first.ms_name and "+" not in first.ms_name else ""
        peak = _peak(t_calls[first.order].inputs) if first is not None else 0.0
        findings += diagnose_precision(precision.dtype, cell.mode, [t.kind for t in tensors if not t.ok], layer, peak)
    findings = unique_findings(findings)
    summary = summarize(first, findings, rows)
    if between:
        summary = f"{summary.split(';')[0]}; {between}" + summary[len(summary.split(';')[0]):]
    if len(defects) > 1 and not bw_defects:
        summary += f"; {len(defects)} independent defects: " + ", ".join(
            f"'{d.torch_name or '<root>'}'" for d in defects)
    arrival = _first_in_backward_order(failing, t_calls) if check in ("backward", "step") else None
    names = (first.torch_name, first.ms_name) if first else (None, None)
    if bw_defects:
        from migcheck.localization.backward import backward_summary

        summary = backward_summary(bw_defects) + (f"; {arrival}" if arrival else "")
        if bw_defects[0].rule == "op-backward":
            from migcheck.localization.backward_ops import op_backward_summary

            summary = op_backward_summary(bw_defects) + (f"; {arrival}" if arrival else "")
        names = (bw_defects[0].torch_name, bw_defects[0].ms_name)
    elif arrival:
        summary = f"{arrival}; {summary}"
    return Localization(rows, names[0], names[1], tuple(findings), summary, tuple(defects), between)


def _ops_between(ops: Sequence[Any], t_calls: Sequence[Any], first: int, a: str, b: str) -> List[str]:
    """The functional calls the diverging container's own forward made between child a's end and child b's
    start (its own start and end for '<input>' and '<output>')."""
    from migcheck.localization.op_trace import ops_between, span_of

    parent = t_calls[first]
    if parent.start < 0:
        return []
    after = parent.start if a == "<input>" else (span_of(t_calls, a, before=parent.end, last=True) or (-1, -1))[1]
    before = parent.end if b == "<output>" else (span_of(t_calls, b, after=after) or (parent.end, parent.end))[0]
    return ops_between(ops, parent.name, after, before) if after >= 0 else []


def _tol(tolerance_for: ToleranceFor) -> Callable[[str], Tuple[float, float]]:
    cache: Dict[str, Tuple[float, float]] = {}

    def tol(dtype: str) -> Tuple[float, float]:
        if dtype not in cache:
            t, _ = tolerance_for("activation", dtype)
            cache[dtype] = (t.rtol, t.atol)
        return cache[dtype]

    return tol


def _isolated_pass(cell: MindSporeProbe, t_calls: Sequence[Any], m_calls: Sequence[Any], flow: Dataflow) -> Dict[int, Any]:
    """Each paired torch leaf's MindSpore counterpart (a cell or a fused chain) fed torch's recorded inputs."""
    names, m_names, out = [c.name for c in t_calls], [c.name for c in m_calls], {}
    for pair in flow.pairs:
        call = t_calls[pair.torch_index]
        if descendants(names, call.name) or not call.inputs or flow.output_matched[pair.torch_index] and descendants(
                m_names, m_calls[pair.ms_indices[0]].name):  # torch's output is computed inside the port's cell
            continue
        try:  # torch's values in the dtypes the port hands its cell (int64 labels it casts to int32 itself)
            value: Any = cell.run_subcell(m_calls[pair.ms_indices[0]].name,
                                          as_handed(call.inputs, m_calls[pair.ms_indices[0]].inputs))
            for j in pair.ms_indices[1:]:
                value = cell.run_subcell(m_calls[j].name, [value])
        except Exception:  # a sub-cell that needs more than its tensor arguments cannot run alone
            continue
        out[pair.torch_index] = value
    return out


def _between_signature(rows: Sequence[SubcellRow], t_calls: Sequence[Any], m_calls: Sequence[Any],
                       between: str) -> Tuple[str, str]:
    """The functional op's effect, read off the input of the first sub-cell fed a wrong value."""
    target = between.split("and '", 1)[1].split("' input", 1)[0] if "and '" in between else ""
    row = next((r for r in rows if r.torch_name == target and r.ms_name and "+" not in r.ms_name), None)
    ms_call = next((c for c in m_calls if row is not None and c.name == row.ms_name), None)
    if row is None or ms_call is None or not t_calls[row.order].inputs or not ms_call.inputs:
        return "", ""
    cause, rule = _signature_cause(t_calls[row.order].inputs[0], ms_call.inputs[0])
    return (f"the value reaching '{target}': {cause}" if cause else ""), rule


def _defects(module: TorchProbe, cell: MindSporeProbe, rows: Sequence[SubcellRow], t_calls: Sequence[Any], m_calls: Sequence[Any],
             isolated: Mapping[int, Any],
             tol: Callable[[str], Tuple[float, float]], between: str,
             op_values: Optional[Tuple[str, Any, Any, Any]] = None,
             region: Optional[Tuple[str, int, int, str]] = None, ops: bool = True) -> List[Defect]:
    """Every layer wrong on its own, ranked by position; inherited drift is not a defect."""
    out = []
    for row in rows:
        if row.isolated_ok is not False:
            continue
        call = t_calls[row.order]
        fed = [[np.size(x) for x in c.inputs] for c in m_calls if c.name == row.ms_name]  # each call of a shared layer
        if fed and all(f != [np.size(x) for x in call.inputs] for f in fed):
            continue  # the port's layer never sees torch's input (it folds an unpaired torch op in: ZeroPad2d)
        t_shape, m_shape = np.shape(first_array(call.output)), np.shape(first_array(isolated[row.order]))
        how = (f"output shape {t_shape} vs {m_shape}" if t_shape != m_shape
               else f"max abs err {row.isolated_max_abs_err:.3g}")
        evidence = f"fed torch's recorded inputs, MindSpore '{row.ms_name}' still differs ({how})"
        cause = fix = rule = ""
        confirmed = False
        searched = None
        if "+" not in row.ms_name:
            explained = []
            for ms_name in [row.ms_name] * bool(row.ms_kind) + _inner_counterpart(row, m_calls):  # an unpaired
                explained = explain(module, cell, row.torch_name, ms_name, call.inputs, call.output,
                                    isolated[row.order], tol)
                if explained:
                    break
            if explained:
                diff, confirmed, fix, how = explained[0]
                cause, rule = diff.cause, diff.rule
                evidence += "; " + _confirmation(how, "torch's layer")
            if not confirmed or not fix:  # a change to the port's own call that makes it agree (arg_search.py)
                searched = _search(module, cell, row.torch_name, row.ms_name, call.inputs, call.output,
                                   isolated[row.order], tol, not ops)
                if searched.confirmed and searched.fix or not confirmed and (searched.confirmed or searched.cause
                                                                            and not cause):
                    cause, fix, rule, confirmed = searched.cause, searched.fix, searched.rule, searched.confirmed
                    evidence += f"; argument search: {len(searched.tried)} candidates in {searched.seconds:.2f} s"
            moved = None if confirmed else activation_moved(cell, row, rows, t_calls, m_calls, tol)
            if moved is not None:  # torch's activation module before it, ported as the layer's own activation=
                out.append(moved)  # placed at that activation module
                continue
            if not cause and call.start >= 0:  # a module of the port's own: its calls, replayed with one setting changed
                replayed = _replay(module, call.name, call.start, call.end, call.output, isolated[row.order], tol)
                if replayed is not None and port_passes_torchs_value(cell, row.ms_name, call.inputs, replayed):
                    replayed = None
                fixed = replay_fix(cell, row.ms_name, call.inputs, call.output, replayed, tol) if replayed else ""
                if replayed is not None:  # a dropped mask (it correlates with much else): high only once fixed
                    cause, fix, rule = replayed.cause(f"in '{call.name or '<root>'}'"), fixed, replayed.rule
                    confirmed = bool(fixed) or not replayed.drops_mask
                    evidence += "; the replay with MindSpore's setting reproduces MindSpore's output"
            if not cause and searched is not None and searched.located:  # the op inside it, not its cause
                cause, rule = searched.located, searched.rule
            if not cause:
                cause, rule = _signature_cause(call.output, isolated[row.order], f"the port's {row.ms_kind} against torch's {row.torch_kind}: ")
        workaround = searched is not None and searched.workaround and cause == searched.cause
        confidence = "high" if confirmed and not workaround else ("medium" if cause else "low")
        cost = dict(search_s=searched.seconds, search_tried=searched.tried) if searched is not None else {}
        out.append(Defect(row.order, row.torch_name, row.torch_kind, row.ms_name, row.ms_kind, evidence, cause, fix,
                          confidence, confirmed, rule, **cost))
    if not out and not between:  # the first divergence could not be fed torch's inputs (another form: a packed
        row = next((r for r in rows if r.inputs_ok and r.outputs_ok is False and r.isolated_ok is None), None)
        if row is not None and not row.ms_kind and ops:  # no cell of the port's computes it: its ops, searched
            from migcheck.localization.unpaired_search import search_unpaired

            found = search_unpaired(module, cell, row, rows, t_calls, m_calls, tol)
            if found is not None:
                return [found]
        if row is not None:  # sequence), so whether it is wrong on its own is unknown: named, at low confidence
            out.append(_unfed(cell, row, t_calls, m_calls, tol))
    if between and not out:
        first = next(r for r in rows if between.startswith(f"inside torch '{r.torch_name or '<root>'}'"))
        match = _identify_op(op_values, tol)
        if match is not None and torch_called(match.op, between):
            where, evidence = f"'{op_values[0]}' output", f"{between}; {match.cause(f'{op_values[0]!r} output')}"
            out.append(Defect(first.order, first.torch_name, first.torch_kind, first.ms_name, first.ms_kind, evidence,
                              match.cause(where), match.fix, "high", True, match.rule))
            return out
        setting = _container_setting(module, cell, first, t_calls, m_calls, tol)
        if setting is not None:
            diff, fix, how = setting
            evidence = f"{between}; " + _confirmation(how, f"torch's '{first.torch_name or '<root>'}'")
            out.append(Defect(first.order, first.torch_name, first.torch_kind, first.ms_name, first.ms_kind, evidence,
                              diff.cause, fix, "high", True, diff.rule))
            return out
        replayed = _replay(module, *region[:3], op_values[2], op_values[3], tol) if region and op_values else None
        if replayed is not None and port_passes_torchs_value(cell, first.ms_name, t_calls[first.order].inputs, replayed):
            replayed = None
        if replayed is not None:  # confirmed on torch's side; a fix only where a MindSpore call re-ran to agreement
            where, searched = f"in '{region[0] or '<root>'}' up to {region[3]}", _search_ops(module, cell, first, t_calls, tol) if ops else None
            cost = dict(search_s=searched.seconds, search_tried=searched.tried) if searched is not None else {}
            op_words = f"; {searched.cause}" if searched is not None and searched.confirmed else ""  # the port's op
            fix = searched.fix if searched is not None and searched.confirmed else replay_fix(
                cell, first.ms_name, t_calls[first.order].inputs, t_calls[first.order].output, replayed, tol)
            sure = bool(fix) or not replayed.drops_mask  # a dropped mask: high only once fixed
            out.append(Defect(first.order, first.torch_name, first.torch_kind, first.ms_name, first.ms_kind, f"{between}; {replayed.cause(where)}{op_words}",
                              replayed.cause(where), fix, "high" if sure else "medium", sure, replayed.rule, **cost))
            return out
        searched = _search_ops(module, cell, first, t_calls, tol) if ops else None
        cost = dict(search_s=searched.seconds, search_tried=searched.tried) if searched is not None else {}
        folded = None if searched and searched.confirmed else pad_folded(module, cell, first, rows, t_calls, m_calls, tol)
        if folded is not None:  # torch's F.pad before a layer, folded into the port's layer's own padding
            return out + [folded]
        if searched is not None and searched.confirmed:
            out.append(Defect(first.order, first.torch_name, first.torch_kind, first.ms_name, first.ms_kind,
                              f"{between}; {searched.cause}", searched.cause, searched.fix, "high", True, searched.rule,
                              **cost))
            return out
        cause, rule = _between_signature(rows, t_calls, m_calls, between)
        if searched is not None and (searched.located or not cause) and searched.cause:  # the op located first
            cause, rule = searched.cause + (f"; {cause}" if cause else ""), searched.rule
        out.append(Defect(first.order, first.torch_name, first.torch_kind, first.ms_name, first.ms_kind, between + (
            f"; op-level: {searched.located}" if searched is not None and searched.located else ""),  # where it ran
            cause, "", "medium" if cause else "low", False, rule or "functional-op", **cost))
    return out


def _unfed(cell: MindSporeProbe, row: SubcellRow, t_calls: Sequence[Any], m_calls: Sequence[Any], tol: Any) -> Defect:
    """A layer torch's inputs cannot be fed to: an optional argument the port left out, found by re-running its
    layer with it (call_fill.py); else named at low confidence."""
    from migcheck.localization.call_fill import fill_optional

    evidence = ("inputs agree, outputs differ; the isolated re-run could not feed it torch's inputs, so whether it"
                " is wrong on its own is not known")
    m_call = next((c for c in m_calls if c.name == row.ms_name), None)
    root = next((c for c in m_calls if c.name == ""), None)
    found = (fill_optional(cell, row.ms_name, m_call.inputs, t_calls[row.order].output, m_call.output, root.inputs, tol)
             if m_call is not None and root is not None and "+" not in row.ms_name else None)
    if found is None:
        return Defect(row.order, row.torch_name, row.torch_kind, row.ms_name, row.ms_kind, evidence, "", "", "low",
                      False, "")
    cause, fix, tried, seconds = found
    return Defect(row.order, row.torch_name, row.torch_kind, row.ms_name, row.ms_kind, f"{evidence}; {cause}", cause,
                  fix, "high", True, "call-argument", search_s=seconds, search_tried=tried)


def _search(module: TorchProbe, cell: MindSporeProbe, torch_name: str, ms_name: str, inputs: Sequence[Any], torch_out: Any,
            ms_out: Any, tol: Callable[[str], Tuple[float, float]], train: bool) -> Any:
    from migcheck.localization.cell_search import search_layer

    return search_layer(module, cell, torch_name, ms_name, inputs, torch_out, ms_out, tol, train=train)


def _region(t_calls: Sequence[Any], flow: Dataflow) -> Optional[Tuple[str, int, int, str]]:
    """(container, its start, where B starts, "'B' input") on the op counter: the calls to replay, from the
    container's start (attention's softmax runs before the value projection that ends the agreeing part)."""
    from migcheck.localization.op_trace import span_of

    parent = t_calls[flow.first]
    a, b = flow.between
    if parent.start < 0:
        return None
    if b == "<output>":
        return parent.name, parent.start, parent.end, "its output"
    after = parent.start if a == "<input>" else (span_of(t_calls, a, before=parent.end, last=True) or (-1, -1))[1]
    span = span_of(t_calls, b, after=after)
    return (parent.name, parent.start, span[0], f"'{b}' input") if span and after >= 0 else None


def _replay(module: TorchProbe, owner: str, after: int, before: int, torch_value: Any, ms_value: Any,
            tol: Callable[[str], Tuple[float, float]]) -> Any:
    from migcheck.localization.op_replay import find_setting
    from migcheck.runners.torch_replay import Replayer

    t, m = first_array(torch_value), first_array(ms_value)
    if t is None or m is None:
        return None
    rtol, atol = tol(str(t.dtype)) if t.dtype.kind == "f" else tol("float32")
    return find_setting(Replayer(module), owner, after, before, t, m, rtol, atol)


def _container_setting(module: TorchProbe, cell: MindSporeProbe, first: SubcellRow, t_calls: Sequence[Any], m_calls: Sequence[Any],
                       tol: Callable[[str], Tuple[float, float]]) -> Optional[Tuple[Any, str, str]]:
    """(difference, checked fix, how confirmed) for a container whose own forward diverges, when a counterfactual
    re-run of one of its own settings confirms it (see confirm.explain); None otherwise."""
    ms = [c for c in m_calls if c.name == first.ms_name]
    call = t_calls[first.order]
    if len(ms) != 1 or "+" in first.ms_name or not call.inputs:
        return None
    confirmed = [(d, fix, how) for d, ok, fix, how in explain(module, cell, first.torch_name, first.ms_name,
                                                               call.inputs, call.output, ms[0].output, tol) if ok]
    return confirmed[0] if confirmed else None


def _confirmation(how: str, torch_side: str) -> str:
    return {"torch": f"re-running {torch_side} with MindSpore's setting reproduces MindSpore's output",
            "port": "re-running the port's cell with torch's setting makes it agree with torch"}.get(
        how, f"re-running {torch_side} with MindSpore's setting does not reproduce it")


def _inner_counterpart(row: SubcellRow, m_calls: Sequence[Any]) -> List[str]:
    """A port that wraps the torch layer's counterpart (a cell casting labels, then nn.CrossEntropyLoss): the one
    inner sub-cell of a corresponding class, whose settings are then compared instead of the wrapper's."""
    from migcheck.localization.correspondence import corresponds

    if corresponds(row.torch_kind, row.ms_kind):
        return []
    prefix = f"{row.ms_name}." if row.ms_name else ""
    inner = sorted({c.name for c in m_calls if c.name.startswith(prefix) and c.name != row.ms_name
                    and corresponds(row.torch_kind, c.kind)})
    return inner if len(inner) == 1 else []


def _between_values(flow: Dataflow, t_calls: Sequence[Any], m_calls: Sequence[Any]) -> Optional[Tuple[str, Any, Any, Any]]:
    """(A, A's output, torch's value at B, MindSpore's value at B) around a functional op between A and B."""
    a, b = flow.between
    first = flow.first
    before = [i for i in range(first) if t_calls[i].name == a]
    if not before:
        return None
    start = before[-1]
    if b == "<output>":
        at, out_of = first, True
    else:
        at = next((i for i in range(start + 1, first) if t_calls[i].name == b), None)
        out_of = False
    pair = flow.pair_of(at) if at is not None else None
    if pair is None:
        return None
    ms_call = m_calls[pair.ms_indices[-1] if out_of else pair.ms_indices[0]]
    t_val = t_calls[at].output if out_of else (t_calls[at].inputs[0] if t_calls[at].inputs else None)
    m_val = ms_call.output if out_of else (ms_call.inputs[0] if ms_call.inputs else None)
    x = t_calls[start].output
    if not all(isinstance(v, np.ndarray) for v in (x, t_val, m_val)):
        return None
    return a, x, t_val, m_val


def _identify_op(values: Optional[Tuple[str, Any, Any, Any]], tol: Callable[[str], Tuple[float, float]]) -> Any:
    from migcheck.localization.functional_ops import identify

    if values is None:
        return None
    _, x, t_val, m_val = values
    rtol, atol = tol(str(np.asarray(t_val).dtype)) if np.asarray(t_val).dtype.kind == "f" else tol("float32")
    return identify(x, t_val, m_val, rtol, atol)


def _signature_cause(torch_out: Any, ms_out: Any, who: str = "") -> Tuple[str, str]:
    """The output's numeric signature (signatures.py), after `who`: which two layers it compares."""
    from migcheck.localization.signatures import describe

    found = describe(torch_out, ms_out)
    return (who + found.cause, found.rule) if found else ("", "")


def _peak(inputs: Sequence[Any]) -> float:
    """The largest finite |value| among a call's float inputs (0 when there are none)."""
    peaks = [float(np.max(np.abs(x[np.isfinite(x)]), initial=0.0)) for x in inputs
             if isinstance(x, np.ndarray) and x.dtype.kind == "f" and x.size]
    return max(peaks, default=0.0)
