"""A port whose MindSpore factory raises while it builds the network: which constructor call, which argument,
and a change to that call that constructs and computes what torch's layer computes.

The call is read off the factory's own run (runners/mindspore_construction.py): the layer's class, the
arguments as the port wrote them (positional ones included) and the attribute it was going to be assigned to.
torch's counterpart is the module of that name (or the one module whose class corresponds). Candidates come
from the two calls, never from a list of known answers:

- a value passed positionally that MindSpore binds to another parameter than torch does (`nn.Dropout(0.0)`:
  torch's first parameter is `p`, MindSpore's `keep_prob`), moved to the MindSpore parameter that aligns with
  torch's;
- torch's value for each argument of matching meaning, enumerations, flips (arg_candidates.py);
- the same numbers in another form of the argument: a pair (one per axis) as one value per side, each
  repeated (`padding=(0, 1)` -> `(0, 0, 1, 1)`), an int as a pair, equal values as one int;
- the nearest value MindSpore's message says it accepts (a closed end of the range it names).

Each is confirmed by constructing the layer and running it on torch's recorded input, in eval mode and in
train mode (a random output compared by its distribution), then, where the caller can, by building the whole
network with that call changed and running the check. Only then is it the cause, [high], with the fix.
"""
from __future__ import annotations

import dataclasses
import re
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from migcheck.judging.randomness import differs, same_distribution
from migcheck.localization.arg_candidates import align, setting_candidates, similarity
from migcheck.localization.confirm import agree, own_error
from migcheck.localization.correspondence import corresponds
from migcheck.localization.locate import Defect, Localization
from migcheck.localization.rules import Finding
from migcheck.runners.base import Constructor
from migcheck.runners.probes import TorchProbe

TolFor = Callable[[str], Tuple[float, float]]
RULE = "constructor-argument"
MAX_CANDIDATES = 24
_RANGE = re.compile(r"'(?P<arg>\w+)'[^'\n]*?range\s*(?P<lo_b>[\(\[])\s*(?P<lo>-?[\d.e+-]+)\s*,\s*(?P<hi>-?[\d.e+-]+)"
                    r"\s*(?P<hi_b>[\)\]])")


@dataclass(frozen=True)
class ConstructionSite:
    ms_path: str  # the attribute the raising layer was going to be ("" unknown or the network itself)
    ms_kind: str
    call: str  # the port's call as written: nn.Dropout(0.0)
    message: str  # MindSpore's message
    torch_name: Optional[str] = None
    torch_kind: str = ""
    torch_call: str = ""
    cause: str = ""
    fix: str = ""
    confirmed: bool = False
    checked: str = ""
    tried: Tuple[str, ...] = ()
    seconds: float = 0.0
    changed: Tuple[Tuple[str, Any], ...] = ()  # the confirmed call's arguments, by keyword
    further: Tuple["ConstructionSite", ...] = ()  # calls that raised once this one was changed, each searched

    def describe(self) -> str:
        text = self._describe()
        for site in self.further:
            text += f"; once that call is changed, the factory raises again: {site._describe()}"
        return text

    def _describe(self) -> str:
        where = (f"raised while building the port: constructing MindSpore's '{self.ms_path or '<root>'}' as "
                 f"{self.call} ({self.message})")
        if self.torch_name is not None:
            where += f"; torch's '{self.torch_name or '<root>'}' is {self.torch_call}"
        if self.cause and self.fix:
            return where + f"; cause: {self.cause} -> fix: {self.fix} (re-run: {self.checked})"
        return where + (f"; {self.cause}" if self.cause else "") + " -> fix: none shown (no changed call constructed"\
            " and agreed with torch)"

    def as_localization(self) -> Localization:
        sites = [self._parts()] + [s._parts() for s in self.further]
        return Localization((), self.torch_name, self.ms_path, tuple(f for f, _ in sites), self.describe(),
                            tuple(d for _, d in sites))

    def _parts(self) -> Tuple[Finding, Defect]:
        where = f"torch '{self.torch_name or '<root>'}' / MindSpore '{self.ms_path or '<root>'}' ({self.torch_kind or '?'} / {self.ms_kind})"
        cause = self.cause or (f"MindSpore's {self.ms_kind} constructor refuses the port's call {self.call}: "
                               f"{self.message}")
        confidence = "high" if self.confirmed else "medium"
        evidence = (f"the constructor call that raised while the factory built the port ({self.call}); "
                    f"candidates re-run: {len(self.tried)}")
        finding = Finding(RULE, where, cause, self.fix, confidence, self.confirmed, self.confirmed and bool(self.fix),
                          (where,), evidence)
        cost = dict(search_s=self.seconds, search_tried=self.tried) if self.tried else {}
        defect = Defect(0, self.torch_name or "", self.torch_kind, self.ms_path, self.ms_kind, evidence, cause,
                        self.fix, confidence, self.confirmed, RULE, **cost)
        return finding, defect


@dataclass(frozen=True)
class Change:
    kwargs: Tuple[Tuple[str, Any], ...]  # the whole call, by keyword
    why: str

    def label(self) -> str:
        return ", ".join(f"{k}={v!r}" for k, v in self.kwargs) + f" ({self.why})"


def candidates(failed: Any, torch_c: Optional[Constructor], table: Sequence[Tuple[str, str]] = ()) -> List[Change]:
    """Changed calls, most likely first, each the whole call by keyword (pure: read off the two calls)."""
    passed: Dict[str, Any] = dict(failed.passed)
    ms_c: Constructor = failed.constructor
    out: List[Change] = []
    unknown = _UNEXPECTED.search(failed.message or "")
    if unknown and unknown[1] in passed:  # a keyword MindSpore's layer does not take (torch's groups): dropped from
        value = passed.pop(unknown[1])      # every candidate, and first given to the parameter named most like it
        for a in sorted(ms_c.arguments, key=lambda a: -similarity(a.name, unknown[1])):
            if similarity(a.name, unknown[1]) >= 0.75:
                out.append(Change(tuple({**passed, a.name: value}.items()),
                                  f"its {unknown[1]}={value!r} passed as {a.name} (the parameter of that meaning here)"))
    if torch_c is not None:
        aligned = align(torch_c, ms_c, table)
        by_torch = {t.name: m for m, t in aligned.items()}
        for i, name in enumerate(failed.positional):
            if i >= len(torch_c.arguments):
                break
            t_name = torch_c.arguments[i].name
            # MindSpore's parameter of torch's name (the same word means the same), else the one aligned with it
            target = next((a.name for a in ms_c.arguments if similarity(a.name, t_name) == 1.0), by_torch.get(t_name))
            if target and target != name:
                kwargs = {k: v for k, v in passed.items() if k != name}
                kwargs[target] = passed[name]
                out.append(Change(tuple(kwargs.items()),
                                  f"passed positionally, {passed[name]!r} binds to {name} in MindSpore; torch's "
                                  f"{torch_c.kind} takes it as {t_name}, which is {target} here"))
    forms = []
    for name, value in passed.items():  # the same values written in the form MindSpore's parameter takes
        for form, words in other_forms(value):
            forms.append((name, Change(tuple({**passed, name: form}.items()), f"its {name} {value!r} written as"
                                       f" {form!r} ({words})")))
    # the argument MindSpore's message names is rewritten first: while it is refused, no other change can run
    named = [c for n, c in forms if re.search(rf"\b{re.escape(n)}\b", failed.message or "")]
    out += named
    if torch_c is not None:
        for cand in setting_candidates(torch_c, ms_c, table):
            if not cand.against_torch:
                out.append(Change(tuple({**passed, **dict(cand.changes)}.items()), cand.why))
    out += [c for _, c in forms if c not in named]
    m = _RANGE.search(failed.message)
    if m and m["arg"] in passed and isinstance(passed[m["arg"]], (int, float)):
        for bound, closed in ((m["lo"], m["lo_b"] == "["), (m["hi"], m["hi_b"] == "]")):
            try:
                value = float(bound)
            except ValueError:
                continue
            if closed and value != passed[m["arg"]]:
                out.append(Change(tuple({**passed, m["arg"]: value}.items()),
                                  f"the nearest value of {m['arg']} MindSpore's message says it accepts"))
    seen, unique = set(), []
    for c in out:
        if repr(c.kwargs) not in seen:
            seen.add(repr(c.kwargs))
            unique.append(c)
    return unique[:MAX_CANDIDATES]


_UNEXPECTED = re.compile(r"unexpected keyword argument '(\w+)'")


def other_forms(value: Any) -> List[Tuple[Any, str]]:
    """The same numbers in the other forms a layer argument takes: a pair (one per axis) as one value per side,
    each repeated ((0, 1) -> (0, 0, 1, 1)) or the pair given twice; an int as a tuple of one (a shape), a pair
    or one per side; equal values as one int."""
    if isinstance(value, bool) or not isinstance(value, (int, tuple)):
        return []
    if isinstance(value, int):
        return [((value,), "a tuple of one"), ((value, value), "one per axis"), ((value,) * 4, "one per side")]
    if not value or not all(isinstance(v, int) and not isinstance(v, bool) for v in value) or len(value) > 3:
        return []
    out = [(tuple(x for v in value for x in (v, v)), "each axis's value for both its sides"),
           (value + value, "the values given twice")]
    if len(set(value)) == 1:
        out.append((value[0], "one int for every axis"))
    return [(f, w) for f, w in out if f != value]


def counterpart(path: str, kind: str, t_calls: Sequence[Any]) -> Optional[Any]:
    """torch's module call for the layer: the one of the same name, else the one whose class corresponds."""
    named = [c for c in t_calls if c.name == path and path]
    if named:
        return named[0]
    same = {c.name: c for c in t_calls if c.name and (corresponds(c.kind, kind) or c.kind == kind)}
    return next(iter(same.values())) if len(same) == 1 else None


def search(failed: Any, module: TorchProbe, t_call: Any, build_run: Callable[[Mapping[str, Any], bool], Any],
           tol: TolFor, network_agrees: Optional[Callable[[Mapping[str, Any]], bool]] = None,
           builds: Optional[Callable[[Mapping[str, Any]], bool]] = None) -> ConstructionSite:
    """The first changed call that constructs and agrees with torch's layer (eval and train mode) and, where
    network_agrees is given, with which the whole network passes the check."""
    started = time.monotonic()
    torch_c = _try(lambda: module.constructor(t_call.name)) if t_call is not None else None
    table = _table_pairs(t_call.kind, failed.constructor.kind) if t_call is not None else []
    site = ConstructionSite(failed.path, failed.constructor.kind, failed.call_text(), failed.message,
                            t_call.name if t_call is not None else None, t_call.kind if t_call is not None else "",
                            _torch_call(torch_c) if torch_c is not None else "")
    if t_call is None:
        return site
    inputs = list(t_call.inputs)
    train_ref = _torch_train(module, t_call.name, inputs)
    noise = _try(lambda: own_error(module, t_call.name, inputs))  # torch's own float32 band on this input
    tried: List[str] = []
    for change in candidates(failed, torch_c, table):
        tried.append(change.label())
        kwargs = dict(change.kwargs)
        if not agree(t_call.output, _try(lambda: build_run(kwargs, False)), tol, noise):
            continue
        if train_ref is not None and not _train_agrees(train_ref, _try(lambda: build_run(kwargs, True)), tol, noise):
            continue
        whole = network_agrees(kwargs) if network_agrees is not None else None
        if whole is False:
            continue
        checked = ("the changed call constructs, and the layer agrees with torch's on its recorded input in eval and"
                   " train mode" + ("; the whole network built with it passes the check" if whole else
                                    "; the whole network built with it raises at another call" if network_agrees
                                    else ""))
        fix = f"{failed.call_text()} -> {failed.call_text(kwargs)}"
        cause = (f"the port's call {failed.call_text()} raises in MindSpore's constructor ({failed.message}); "
                 f"{change.why}: with {failed.call_text(kwargs)} the layer constructs and computes what torch's "
                 f"{t_call.kind} computes ({len(tried)} candidates tried)")
        return ConstructionSite(**{**site.__dict__, "cause": cause, "fix": fix, "confirmed": True,
                                   "changed": tuple(kwargs.items()),
                                   "checked": checked, "tried": tuple(tried),
                                   "seconds": round(time.monotonic() - started, 3)})
    unsupported = _unsupported(failed, t_call, build_run, builds, tried)
    return ConstructionSite(**{**site.__dict__, "tried": tuple(tried) or ("(none)",),
                               "seconds": round(time.monotonic() - started, 3), **unsupported})


def _unsupported(failed: Any, t_call: Any, build_run: Callable[[Mapping[str, Any], bool], Any],
                 builds: Optional[Callable[[Mapping[str, Any]], bool]], tried: List[str]) -> Dict[str, Any]:
    """A keyword MindSpore's class has no parameter for (nor one of that meaning): confirmed by building the layer
    without it, which constructs. No fix: what torch computes with it has no counterpart setting here."""
    unknown = _UNEXPECTED.search(failed.message or "")
    passed = dict(failed.passed)
    if not unknown or unknown[1] not in passed or unknown[1] in {a.name for a in failed.constructor.arguments}:
        return {}
    name, value = unknown[1], passed.pop(unknown[1])
    tried.append(f"built without {name}")
    if builds is None or not builds(passed):
        return {}
    out = _try(lambda: build_run(passed, False))  # run where its parameters still match torch's one by one
    shapes = (f": built without it, it constructs and returns {np.shape(out)} where torch's {t_call.kind} with"
              f" {name}={value!r} returns {np.shape(t_call.output)}" if out is not None
              and np.shape(out) != np.shape(t_call.output) else ": built without it, it constructs")
    return {"cause": f"MindSpore's {failed.constructor.kind} has no {name} parameter (its constructor takes no such"
                     f" keyword, and no parameter of that meaning){shapes}; torch's {name}={value!r} has no"
                     f" counterpart setting here", "confirmed": True,
            "checked": f"{failed.constructor.kind} built without {name} constructs"}


def _torch_call(c: Constructor) -> str:
    given = [f"{a.name}={a.value!r}" for a in c.arguments if a.found]
    return f"{c.kind}({', '.join(given)})"


def _torch_train(module: TorchProbe, name: str, inputs: Sequence[np.ndarray]) -> Optional[Tuple[Any, bool]]:
    """torch's layer in train mode on the recorded input, and whether it is random (two runs differ)."""
    first = _try(lambda: module.rerun_patched(name, inputs, {}, train=True))
    second = _try(lambda: module.rerun_patched(name, inputs, {}, train=True))
    if not isinstance(first, np.ndarray) or not isinstance(second, np.ndarray):
        return None
    return first, differs(first, second)


def _train_agrees(ref: Tuple[Any, bool], got: Any, tol: TolFor, noise: Any = None) -> bool:
    out, random = ref
    if not isinstance(got, np.ndarray) or got.shape != out.shape:
        return False
    return same_distribution(out, got) if random else agree(out, got, tol, noise)


def _table_pairs(torch_kind: str, ms_kind: str) -> List[Tuple[str, str]]:
    from migcheck.knowledge.lookup import lookup

    entry = lookup(torch_kind, ms_kind)
    return [(a.torch, a.ms) for a in entry.attrs] if entry is not None else []


def _try(run: Callable[[], Any]) -> Any:
    try:
        return run()
    except Exception:  # a call that still raises or cannot run: not the fix
        return None


def locate_construction(case: Any, ref: Any, tolerance_for: Any,
                        passes_with: Optional[Callable[[Callable[[], Any]], bool]] = None) -> Optional[ConstructionSite]:
    """For a case whose MindSpore factory raised: the call that raised and a checked change to it. None when the
    factory builds when run again (the failure lies elsewhere). passes_with(factory): whether the whole check
    passes with the network that factory builds (the end-to-end re-run of a candidate). When the factory, with
    that call changed, raises at another call, that one is searched in turn (`further`, up to MAX_SITES), and
    the whole network's check runs with every change made."""
    from migcheck.precision import apply_precision
    from migcheck.runners.mindspore_construction import failed_construction, patched_factory
    from migcheck.runners.torch_side import TorchModule

    failed = failed_construction(case.mindspore)
    if failed is None:
        return None
    module = TorchModule(case.torch)
    module.load(ref.weights)
    apply_precision(case.precision, module)
    n_net = len(ref.input_names) - len(case.targets)
    try:
        t_calls = module.capture_with_ops(ref.inputs[:n_net], ref.input_dtypes)[0]
    except Exception:  # torch cannot run either: the call that raised is still the place
        t_calls = []
    sites: List[ConstructionSite] = []
    factory = case.mindspore
    while failed is not None and len(sites) < MAX_SITES:
        site = _search_site(factory, failed, module, t_calls, tolerance_for, passes_with)
        sites.append(site)
        if not (site.confirmed and "raises at another call" in site.checked):
            break
        factory = patched_factory(factory, failed, dict(site.changed))
        before, failed = failed, failed_construction(factory)
        if failed is not None and (failed.path, failed.index, failed.constructor.kind) == (
                before.path, before.index, before.constructor.kind):
            break  # the change did not take where the factory builds: the same call raises again
    return dataclasses.replace(sites[0], further=tuple(sites[1:]))


MAX_SITES = 4


def _search_site(factory: Callable[[], Any], failed: Any, module: TorchProbe, t_calls: Sequence[Any],
                 tolerance_for: Any, passes_with: Optional[Callable[[Callable[[], Any]], bool]]) -> ConstructionSite:
    """One raising call searched; the whole network's check is undecided (None) while another call raises."""
    from migcheck.localization.capture import _tol
    from migcheck.runners.mindspore_construction import (construct_and_run, constructs, failed_construction,
                                                         patched_factory)
    from migcheck.runners.mindspore_side import to_numpy

    t_call = counterpart(failed.path, failed.constructor.kind, t_calls)
    params = _torch_params(module, t_call.name) if t_call is not None else []

    def build_run(kwargs: Mapping[str, Any], train: bool) -> Any:
        return construct_and_run(factory, failed, kwargs, list(t_call.inputs), train, to_numpy, params)

    network = None
    if passes_with is not None:
        def network(kwargs: Mapping[str, Any]) -> Optional[bool]:
            changed = patched_factory(factory, failed, kwargs)
            if failed_construction(changed) is not None:
                return None
            return passes_with(changed)
    site = search(failed, module, t_call, build_run, _tol(tolerance_for), network,
                  lambda kwargs: constructs(factory, failed, kwargs))
    return _at_member(site, failed, t_calls)


def _at_member(site: ConstructionSite, failed: Any, t_calls: Sequence[Any]) -> ConstructionSite:
    """A port's own cell that raised while building a member that is no cell (an operator primitive assigned to
    `self.ctc`) is placed at that member where torch has a module of that name."""
    if not failed.member or site.confirmed:
        return site
    path = f"{failed.path}.{failed.member}" if failed.path else failed.member
    named = next((c for c in t_calls if c.name == path), None)
    if named is None:
        return site
    return dataclasses.replace(site, torch_name=path, torch_kind=named.kind, ms_path=path)


def _torch_params(module: TorchProbe, name: str) -> List[np.ndarray]:
    """torch's layer's own parameters in registration order (a rebuilt MindSpore layer takes them one by one)."""
    prefix = f"{name}." if name else ""
    try:
        own = [p.name for p in module.params() if not p.is_buffer and p.name.startswith(prefix)
               and "." not in p.name[len(prefix):]]
        state = module.state()
    except Exception:  # no parameters to read: a layer with parameters is then not re-run
        return []
    return [state[n] for n in own if n in state]
