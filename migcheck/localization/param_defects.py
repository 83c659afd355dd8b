"""A parameter trainable on one side only (torch's `requires_grad=False` dropped in the port, or the other way
round), said as a defect of the layer that owns it (pure: the flags are read off both parameters; running/
trainable_fix.py re-runs the item with the port's flag set as torch's and passes in whether that agreed)."""
from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

from migcheck.localization.defect_findings import findings_of
from migcheck.records.findings import Defect, Localization

RULE = "trainable-flag"


def trainable_defect(torch_param: Any, ms_param: Any, fixed: bool) -> Defect:
    """torch_param / ms_param: runners.base.ParamInfo of one pair whose trainable flags differ. fixed: the item,
    re-run with the port's flag set as torch's, reported no structure problem and agreed."""
    owner, leaf = ms_param.name.rpartition(".")[0], ms_param.name.rpartition(".")[2]
    torch_owner = torch_param.name.rpartition(".")[0]
    ms_flag, torch_flag = bool(ms_param.trainable), bool(torch_param.trainable)
    what = ("frozen" if not torch_flag else "trainable")
    cause = (f"MindSpore's parameter '{ms_param.name}' has requires_grad={ms_flag} where torch's '{torch_param.name}'"
             f" has requires_grad={torch_flag} (torch's is {what}): "
             + ("an optimizer would update the port's, where torch's stays fixed" if not torch_flag else
                "the port's is never updated, where torch's is trained"))
    fix = (f"mindspore.Parameter(..., name='{leaf}', requires_grad={torch_flag}) for '{ms_param.name}' (or set"
           f" self.{ms_param.name}.requires_grad = {torch_flag} in the port); re-run with it: the check agrees"
           if fixed else "")
    evidence = (f"read off both parameters: torch requires_grad={torch_flag}, MindSpore requires_grad={ms_flag}"
                + ("; the item re-run with the port's flag set as torch's agrees" if fixed else ""))
    return Defect(0, torch_owner, torch_param.owner_kind, owner, ms_param.owner_kind, evidence, cause, fix,
                  "high" if fixed else "medium", fixed, RULE)


def with_trainable_defects(localization: Optional[Localization], pairs: Sequence[Tuple[Any, Any]],
                           fixed: bool) -> Localization:
    """The item's localization with one defect per parameter whose flag differs (a new one where it had none)."""
    said = "; ".join(f"'{m.name}' trainable on one side only" for _, m in pairs)
    return with_defects(localization, [trainable_defect(t, m, fixed) for t, m in pairs], f"parameter flags differ: {said}")


DTYPE_RULE = "parameter-dtype"


def dtype_defect(torch_param: Any, ms_param: Any, fixed: bool) -> Defect:
    """A paired parameter held in another dtype than torch's; fixed: the item, re-run with it in torch's dtype,
    agreed."""
    owner, leaf = ms_param.name.rpartition(".")[0], ms_param.name.rpartition(".")[2]
    truncates = ms_param.dtype.startswith(("int", "uint", "bool")) and torch_param.dtype.startswith(("float", "bfloat"))
    cause = (f"MindSpore's parameter '{ms_param.name}' is {ms_param.dtype} where torch's '{torch_param.name}' is"
             f" {torch_param.dtype}" + (": torch's values loaded into it are truncated to integers"
                                        if truncates else ": the computation after it runs in another dtype"))
    fix = (f"build '{ms_param.name}' as {torch_param.dtype} (mindspore.Parameter(<its initial value>.astype("
           f"mindspore.{torch_param.dtype}), name='{leaf}')); re-run with it: the check agrees" if fixed else "")
    evidence = (f"read off both parameters: torch {torch_param.dtype}, MindSpore {ms_param.dtype}"
                + ("; the item re-run with the port's parameter in torch's dtype agrees" if fixed else ""))
    return Defect(0, torch_param.name.rpartition(".")[0], torch_param.owner_kind, owner, ms_param.owner_kind, evidence,
                  cause, fix, "high" if fixed else "medium", fixed, DTYPE_RULE)


def with_defects(localization: Optional[Localization], defects: Sequence[Defect], said: str) -> Localization:
    """The item's localization with these defects first (a new one where it had none)."""
    findings = tuple(findings_of(list(defects)))
    if localization is None:
        return Localization((), defects[0].torch_name, defects[0].ms_name, findings, said, tuple(defects))
    return Localization(localization.rows, localization.first_divergence, localization.first_divergence_ms,
                        findings + localization.findings, f"{said}; {localization.summary}",
                        tuple(defects) + localization.defects, localization.between)
