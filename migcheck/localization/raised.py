"""Where a MindSpore forward that raises raises, and what in that sub-cell's settings makes it raise.

The port is re-run in PYNATIVE with a pre- and post-hook on every sub-cell: the innermost one that started
and never finished is where the exception arose. torch's counterpart (by the weight mapping, by name, or
the one module whose class corresponds) ran fine on the same inputs; its recorded input and output are the
test bench. A setting that differs between the two (the correspondence table, or same-named settings of a
port's own classes) is named as the cause only when the MindSpore sub-cell, rebuilt with torch's value,
runs on torch's recorded input and agrees with torch's output: that re-run is also the checked fix.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Sequence, Tuple

from migcheck.localization.confirm import _fix_text, agree
from migcheck.localization.correspondence import corresponds, differences, same_named_differences
from migcheck.localization.locate import Defect, Localization, module_pairs
from migcheck.localization.raise_search import RaiseSearch, search_raise
from migcheck.localization.loaded import is_library, loaded_torch
from migcheck.localization.exceptions import ErrorCause
from migcheck.localization.raising_op import explain_raise, raising_call_site, squashed_name, torch_names
from migcheck.localization.rules import Finding
from migcheck.runners.probes import MindSporeProbe, TorchProbe

TolFor = Callable[[str], Tuple[float, float]]


@dataclass(frozen=True)
class RaiseSite:
    ms_name: str  # "" is the network's own construct
    ms_kind: str
    torch_name: Optional[str] = None  # its torch counterpart, when one could be told
    torch_kind: str = ""
    cause: str = ""  # only when the rebuilt sub-cell ran and agreed with torch
    fix: str = ""
    rule: str = ""
    call: str = ""  # the raising call beside torch's corresponding call (localization/raising_op.py)
    confirmed: bool = True  # a cause from a re-run that ran and agreed; False: an op located, its fix not found
    checked: str = "the rebuilt sub-cell runs and agrees with torch"  # what the fix's re-run showed
    search_s: float = 0.0  # the op-level search's cost (raise_search.py)
    search_tried: Tuple[str, ...] = ()
    refused: str = ""  # the setting MindSpore's error refuses, read off both calls (not re-run: [medium])
    raised_op: str = ""  # the public call that raised when launched alone ("ops.triplet_margin_loss")

    def describe(self) -> str:
        where = (f"raised inside MindSpore sub-cell '{self.ms_name}' ({self.ms_kind})" if self.ms_name
                 else f"raised in MindSpore's {self.ms_kind} itself (the network; no sub-cell of it was running)")
        if self.torch_name is not None:
            where += f", torch's '{self.torch_name or '<root>'}' ({self.torch_kind}) ran on the same inputs"
        if self.cause and self.rule == "no-kernel":
            where += f"; cause: {self.cause}"
        elif self.cause and self.fix:
            where += f"; cause: {self.cause} -> fix: {self.fix} (re-run: {self.checked})"
        elif self.cause:
            where += f"; {self.cause} -> fix: none shown (no candidate fix re-ran to agreement)"
        elif self.refused:
            where += f"; likely cause: {self.refused} [medium]"
        return where + (f"; {self.call}" if self.call else "")


    def as_localization(self) -> Localization:
        """The site as a localization (the report and a case's diagnosis= read it like any other)."""
        where = (f"torch '{self.torch_name or '<root>'}' / MindSpore '{self.ms_name or '<root>'}'"
                 f" ({self.torch_kind} / {self.ms_kind})" if self.torch_name is not None
                 else f"MindSpore '{self.ms_name or '<root>'}' ({self.ms_kind})")
        evidence = "the sub-cell that started and never finished in a PYNATIVE forward with hooks" + (
            f"; {self.call}" if self.call else "") + (f"; {self.cause}" if self.search_tried else "")
        # a refused argument is read off the two calls and MindSpore's message, not re-run: never confirmed
        cause, rule = self.cause or self.refused, self.rule or ("refused-argument" if self.refused else "")
        confirmed = bool(self.cause) and self.confirmed
        confidence = ("high" if confirmed else "medium") if cause else "low"
        findings = ((Finding(rule, where, cause, self.fix, confidence, confirmed, confirmed and bool(self.fix), (where,),
                             evidence),) if cause else ())
        cost = dict(search_s=self.search_s, search_tried=self.search_tried) if self.search_tried else {}
        defect = Defect(0, self.torch_name or "", self.torch_kind, self.ms_name, self.ms_kind, evidence, cause,
                        self.fix, confidence, confirmed, rule, **cost)
        return Localization((), self.torch_name, self.ms_name, findings, self.describe(), (defect,))


def locate_raise(case: Any, ref: Any, cell: MindSporeProbe, mapping: Any, tolerance_for: Any,
                 why: Optional[ErrorCause] = None) -> Optional[RaiseSite]:
    """For a case whose MindSpore forward raised: cell is its MindSpore runner with the weights loaded, ref
    the torch reference, `why` what MindSpore's message says (localization/exceptions.py). None when a
    PYNATIVE forward runs through (the failure lies elsewhere)."""
    from migcheck.localization.capture import _tol
    module, n_net = loaded_torch(case, ref)
    site = _locate(module, cell, ref.inputs[:n_net], ref.input_dtypes, [(r.torch_name, r.ms_name) for r in mapping.pairs],
                   _tol(tolerance_for))
    return with_missing_kernel(site, why) if site is not None else None


def with_missing_kernel(site: RaiseSite, why: Optional[ErrorCause]) -> RaiseSite:
    """A site whose error names a kernel this device lacks, where the raising call (launched alone, the queue
    drained before it) is that kernel's op: the missing kernel leads the cause, confirmed by that launch. A
    fix is kept only when the search re-ran one (another function with a kernel here); none is made up."""
    if why is None or why.rule != "no-kernel" or not site.raised_op:
        return site
    kernel = squashed_name(why.op)
    # a primitive shown by no name of its own (Primitive[...]) is the raising cell's kernel: InstanceNorm3d runs
    # InstanceNorm
    by_cell = site.raised_op.split()[-1:] == ["Primitive"] and squashed_name(site.ms_kind).startswith(kernel)
    if kernel not in {squashed_name(n) for n in torch_names(site.raised_op)} | {squashed_name(site.raised_op)} \
            and not by_cell:
        return site  # the kernel belongs to another op than the call that raised: not said as the cause
    caller = f"{site.ms_kind} '{site.ms_name}'" if by_cell else site.raised_op
    said = (f"the port's {caller} has no kernel on this device ({why.cause}); it raised when launched alone"
            f" (the device queue drained before it)")  # the call the user wrote first, then the kernel it runs
    if site.cause and site.confirmed and site.fix:
        return dataclasses.replace(site, cause=f"{said}; {site.cause}")
    if site.cause and site.confirmed:  # a confirmed cause of its own stands
        return site
    return dataclasses.replace(site, cause=f"{said}, where torch's corresponding call ran on the same inputs",
                               fix="", rule="no-kernel", confirmed=True,
                               checked=f"{site.raised_op} launched alone raises on this device")


def _locate(module: TorchProbe, cell: MindSporeProbe, inputs: Sequence[Any], dtypes: Sequence[str],
            mapping_pairs: Sequence[Tuple[str, str]], tol: TolFor) -> Optional[RaiseSite]:
    found = cell.raising_subcell(inputs, dtypes)
    if found is None:
        return None
    op = raising_call_site(cell, inputs, dtypes)
    site = _site(module, cell, inputs, dtypes, mapping_pairs, tol, found, op)
    return dataclasses.replace(site, raised_op=op[0].name) if op is not None else site


def _site(module: TorchProbe, cell: MindSporeProbe, inputs: Sequence[Any], dtypes: Sequence[str],
          mapping_pairs: Sequence[Tuple[str, str]], tol: TolFor, found: Tuple[str, str], op: Any) -> RaiseSite:
    ms_name, ms_kind = found
    if op is not None and op[0].owner != ms_name:  # drained after every call: the op's own cell raised
        ms_name, ms_kind = op[0].owner, cell.subcell_kind(op[0].owner)
    try:
        t_calls = module.capture_with_ops(inputs, dtypes)[0]
    except Exception:  # torch cannot run it either: nothing to compare against
        return RaiseSite(ms_name, ms_kind)
    torch_name = _counterpart(ms_name, ms_kind, t_calls, mapping_pairs)
    shown, earlier, refused = "", None, ""
    if op is not None:
        def torch_owner_of(owner: str) -> Optional[str]:
            return _counterpart(owner, cell.subcell_kind(owner), t_calls, mapping_pairs)

        earlier, shown, refused = explain_raise(module, inputs, dtypes, op, torch_name or "", torch_owner_of)
        if earlier is not None:  # the wrong call is upstream: its cell is the place, not the one that raised
            ms_name, ms_kind = earlier.owner, cell.subcell_kind(earlier.owner)
            torch_name = torch_owner_of(earlier.owner)
    if torch_name is not None:  # a setting of the sub-cell whose fix re-runs clean
        call = next(c for c in t_calls if c.name == torch_name)
        for diff, fix in _checked_fixes(module, cell, torch_name, ms_name, call, tol):
            return RaiseSite(ms_name, ms_kind, torch_name, call.kind, diff.cause, fix, diff.rule, shown)
    if torch_name is not None and is_library(cell, ms_name, unreadable=False):  # the library layer's own call, changed and re-run
        from migcheck.localization.raise_layer import raising_layer_fix

        call = next(c for c in t_calls if c.name == torch_name)
        fixed = raising_layer_fix(module, cell, torch_name, ms_name, call, tol)
        if fixed is not None:
            return RaiseSite(ms_name, ms_kind, torch_name, call.kind,
                             f"{refused}; {fixed.cause}" if refused else fixed.cause, fixed.fix, fixed.rule, shown,
                             True, "the changed layer runs on torch's recorded input and agrees with torch",
                             fixed.seconds, fixed.tried)
    if torch_name is not None and refused:  # a refused number worked around outside the layer (op_compose.py)
        from migcheck.localization.op_compose import layer_scale_workaround

        call = next(c for c in t_calls if c.name == torch_name)
        cause, fix = layer_scale_workaround(cell, ms_name, list(call.inputs), call.output, refused, tol)
        if cause:
            return RaiseSite(ms_name, ms_kind, torch_name, call.kind, cause, fix, "refused-argument", shown,
                             checked="the rebuilt layer with the scale outside it runs and agrees with torch")
    if op is not None:  # else the call that went wrong, searched in the port's own constructs (raise_search.py)
        searched = _search(module, cell, t_calls, op[0].owner if earlier is None else earlier.owner, torch_owner_of,
                           tol, mapping_pairs)
        if searched is not None:
            found = searched.outcome
            # an op located but no change confirmed: the argument MindSpore's message refuses leads the cause
            cause = f"{refused}; {found.cause}" if refused and not found.confirmed else found.cause
            return RaiseSite(searched.ms_name, cell.subcell_kind(searched.ms_name), searched.torch_name,
                             next(c.kind for c in t_calls if c.name == searched.torch_name), cause, found.fix,
                             found.rule, shown, found.confirmed, "the construct runs and agrees with torch",
                             found.seconds, found.tried or ("(none)",))
    if op is None:  # no public call raised: a Python error in the port's own code, at its line
        line = _raising_line(module, cell, inputs)
        if line:
            return RaiseSite(ms_name, ms_kind, torch_name, next((c.kind for c in t_calls if c.name == torch_name), ""),
                             line, "", "raising-line", shown, False)
    if torch_name is None:
        return RaiseSite(ms_name, ms_kind, call=shown, refused=refused)
    return RaiseSite(ms_name, ms_kind, torch_name, next(c.kind for c in t_calls if c.name == torch_name), call=shown,
                     refused=refused)


def _search(module: TorchProbe, cell: MindSporeProbe, t_calls: Sequence[Any], ms_owner: str,
            torch_owner_of: Callable[[str], Optional[str]], tol: TolFor, mapping_pairs: Sequence[Tuple[str, str]]
            ) -> Optional[RaiseSearch]:
    """The op-level search from the raising call's construct outwards (raise_search.py); None when it fails."""
    def library(ms_name: str) -> bool:
        return bool(cell.constructor(ms_name).library)

    try:
        # paired parameters name their owners too ('patch.weight' ~ 'proj.weight': the layer 'patch' is torch's 'proj')
        owners = {m.rpartition(".")[0]: t.rpartition(".")[0] for t, m in mapping_pairs if "." in t and "." in m}
        return search_raise(module, cell, t_calls, ms_owner, torch_owner_of, tol,
                            {**owners, **{m: t for t, m in mapping_pairs}}, library)
    except Exception:  # a construct that cannot be traced: the call-level location stands alone
        return None


def _raising_line(module: TorchProbe, cell: MindSporeProbe, inputs: Sequence[Any]) -> str:
    """'raised at line N of FILE in Class.construct: `code` (TypeError: ...)', with the attributes that line calls
    that MindSpore's Tensor holds as values where torch's Tensor has methods; '' when no line of the port's own."""
    try:
        line = cell.raising_line(list(inputs))
    except Exception:  # the forward cannot be re-run here: the sub-cell stays the place
        return ""
    if line is None:
        return ""
    said = f"raised at line {line.line} of {line.file} in {line.function}: `{line.code}` ({line.error})"
    for attr in line.properties:
        if module.tensor_method(attr):
            said += (f"; MindSpore's Tensor.{attr} is a property (a value, not callable), where torch's Tensor.{attr}"
                     f" is a method: the line calls it as torch does")
    return said


def _counterpart(ms_name: str, ms_kind: str, t_calls: Sequence[Any], mapping_pairs: Sequence[Tuple[str, str]]
                 ) -> Optional[str]:
    names = [c.name for c in t_calls]
    by_mapping = {ms: t for t, ms in module_pairs(mapping_pairs, names, [ms_name]).items()}
    if ms_name in by_mapping:
        return by_mapping[ms_name]
    kinds = {c.name: c.kind for c in t_calls}
    same_class = [n for n in dict.fromkeys(names) if corresponds(kinds[n], ms_kind) or kinds[n] == ms_kind]
    return same_class[0] if len(same_class) == 1 else None  # two candidates: say nothing rather than guess


def _checked_fixes(module: TorchProbe, cell: MindSporeProbe, torch_name: str, ms_name: str, call: Any, tol: TolFor) -> List[Any]:
    t_kind, t_cfg = module.config(torch_name)
    m_kind, m_cfg = cell.config(ms_name)
    shape = tuple(getattr(call.inputs[0], "shape", ())) if call.inputs else ()
    diffs = differences(t_kind, t_cfg, m_kind, m_cfg, shape)
    if not diffs and not corresponds(t_kind, m_kind):
        diffs = same_named_differences(t_kind, t_cfg, m_kind, m_cfg)
    out = []
    for diff in diffs:
        override = diff.ms_fix if isinstance(diff.ms_fix, dict) else {diff.ms_attr: diff.ms_fix}
        try:
            got = cell.rerun_rebuilt(ms_name, list(call.inputs), override)
        except Exception:  # still raises, or cannot be rebuilt: not this setting
            continue
        if agree(got, call.output, tol):
            out.append((diff, _fix_text(diff)))
    return out
