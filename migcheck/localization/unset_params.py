"""MindSpore parameters no torch parameter sets, explained by what torch holds instead (measured, not looked up):
- tied: torch lists one tensor under two names (GPT's `lm_head.weight` is `wte.weight`), so the port's parameter
  of the second name gets no value of its own; the item is re-run with it holding torch's shared tensor;
- a layer torch builds without them: torch's layer at the same path has a False setting that, when the layer is
  built with it True, creates parameters of exactly the port's shapes (`LayerNorm(elementwise_affine=False)`).
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from migcheck.records.findings import Defect
from migcheck.runners.probes import TorchProbe

TIED_RULE = "tied-parameter"
BUILT_RULE = "parameters-torch-lacks"


def tied_pairs(torch_params: Sequence[Any], unset_ms: Sequence[Any]) -> List[tuple]:
    """(torch parameter, the port's unset parameter) where torch lists that very name as an alias of its tensor."""
    by_alias = {alias: t for t in torch_params for alias in t.aliases}
    return [(by_alias[m.name], m) for m in unset_ms if m.name in by_alias
            and tuple(by_alias[m.name].shape) == tuple(m.shape)]


def tied_defect(t: Any, m: Any, fixed: bool) -> Defect:
    owner = m.name.rpartition(".")[0]
    cause = (f"torch's '{m.name}' is the same Parameter as '{t.name}' (tied: torch lists the shared tensor once, as"
             f" '{t.name}'); the port's '{m.name}' is a Parameter of its own, set by nothing of torch's"
             + (": re-run with it holding torch's shared tensor, the check agrees" if fixed else ""))
    fix = (f"share the Parameter as torch does: use the port's counterpart of '{t.name}' for '{m.name}' (one"
           f" Parameter for both, so training updates one tensor)" if fixed else "")
    return Defect(0, owner, t.owner_kind, owner, m.owner_kind, "torch's state_dict lists the tensor under both names",
                  cause, fix, "high" if fixed else "medium", fixed, TIED_RULE)


def built_without(module: TorchProbe, owner: str, unset: Sequence[Any]) -> Optional[Defect]:
    """The torch layer at the port's layer's path holds a False setting with which True it would have parameters of
    the port's unset shapes; None when no such setting is measured."""
    try:
        kind, config = module.config(owner)
    except Exception:  # torch has no module at that path
        return None
    wanted = sorted(tuple(m.shape) for m in unset)
    for setting, value in config.items():
        if value is not False:
            continue
        try:
            shapes = module.parameter_shapes_built_with(owner, {setting: True})
        except Exception:  # the class does not take that setting as a constructor argument
            continue
        if sorted(shapes.values()) != wanted:
            continue
        names = ", ".join(f"'{m.name}' {list(m.shape)}" for m in unset)
        trainable = any(m.trainable for m in unset)
        cause = (f"torch's {kind} '{owner}' is built with {setting}=False and holds no such parameters; the port's"
                 f" {unset[0].owner_kind} holds {names}{', trainable' if trainable else ''}: torch's {kind} built with"
                 f" {setting}=True has parameters of exactly these shapes ({', '.join(sorted(shapes))})")
        fix = (f"build the port's '{owner}' without them, or hold them fixed at their initial values as torch's"
               f" {setting}=False computes (requires_grad=False on {names})")
        return Defect(0, owner, kind, owner, unset[0].owner_kind, f"torch's {kind} rebuilt with {setting}=True",
                      cause, fix, "high", True, BUILT_RULE)
    return None


def by_owner(unset: Sequence[Any]) -> Dict[str, List[Any]]:
    out: Dict[str, List[Any]] = {}
    for m in unset:
        out.setdefault(m.name.rpartition(".")[0], []).append(m)
    return out
