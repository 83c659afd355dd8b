"""The case's own weight_map: exact names, rename rules, functions. Pure: strings in, strings out.

Rename rules are (pattern, replacement) pairs. A pattern matches a run of whole dotted components
anywhere in a name (``blocks\\.(\\d+)`` renames ``blocks.3.conv.weight`` but not ``myblocks.3...``);
only its first match is replaced. Rules apply in order, each to the name the previous rules made,
so ``[("layer(\\d)", "stage\\1"), ("bn(\\d)", "norm\\1")]`` renames both parts of one name. A
replacement of None means "unused on purpose"; a replacement may also be a function of the match (as in
re.sub) returning the new text or None. Rules that match no torch name are reported.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

Rule = Tuple[str, Union[str, None, Callable[["re.Match[str]"], Optional[str]]]]
_UNUSED = object()  # a rule chain that reached a None replacement


def _bounded(pattern: str) -> "re.Pattern[str]":
    """The rule's pattern, made to start and end on a dotted-component boundary."""
    return re.compile(r"(?:^|(?<=\.))(?:" + pattern + r")(?=\.|$)")


@dataclass
class RuleSet:
    """Compiled rename rules, remembering which ones ever matched (for the matches-nothing warning)."""

    rules: Tuple[Rule, ...]
    compiled: Tuple["re.Pattern[str]", ...] = ()
    hits: set = field(default_factory=set)

    @staticmethod
    def of(rules: Sequence[Rule]) -> "RuleSet":
        return RuleSet(tuple((str(p), r) for p, r in rules), tuple(_bounded(str(p)) for p, _ in rules))

    def apply(self, name: str) -> Tuple[object, Tuple[int, ...]]:
        """(new name or _UNUSED, indices of the rules that changed it); (name, ()) when none matched."""
        used = []
        for i, ((_, replacement), rx) in enumerate(zip(self.rules, self.compiled)):
            match = rx.search(name)
            if match is None:
                continue
            used.append(i)
            self.hits.add(i)
            if callable(replacement):  # as re.sub: the function gets the match and returns the new text (None: unused)
                replaced = replacement(match)
                if replaced is None:
                    return _UNUSED, tuple(used)
                if not isinstance(replaced, str):
                    raise TypeError(f"weight_map rule #{i + 1}'s replacement function {_name(replacement)} returned"
                                    f" {replaced!r} for {name!r}; it must return the new text (a str) or None")
                name = name[:match.start()] + replaced + name[match.end():]
                continue
            if replacement is None:
                return _UNUSED, tuple(used)
            name = name[:match.start()] + match.expand(replacement) + name[match.end():]
        return name, tuple(used)

    def unused_warnings(self) -> List[str]:
        return [f"weight_map rule #{i + 1} ({p!r} -> {r!r}) matches no torch parameter name; a rule matches whole"
                f" dotted components anywhere in a name (docs/weight-mapping.md)"
                for i, (p, r) in enumerate(self.rules) if i not in self.hits]


Override = Union[Mapping, Callable[[str], Optional[str]], Sequence[Rule], None]


@dataclass
class Explicit:
    """The case's weight_map, ready to ask 'where does this torch name go?'."""

    override: Override
    rules: Optional[RuleSet] = None
    asked: set = field(default_factory=set)

    @staticmethod
    def of(override: Override) -> "Explicit":
        if override is None or isinstance(override, Mapping) or callable(override):
            return Explicit(override)
        if isinstance(override, (str, bytes)) or not all(_is_rule(r) for r in override):
            raise TypeError("weight_map must be a dict, a function, or a list of (pattern, replacement) rename rules;"
                            f" got {override!r}")
        return Explicit(override, RuleSet.of(override))

    def target(self, name: str) -> Tuple[object, str]:
        """(target, how); how "" means no opinion. A target of None means unused on purpose."""
        if self.override is None:
            return None, ""
        if self.rules is not None:
            new, used = self.rules.apply(name)
            if not used:
                return None, ""
            how = "rename " + ", ".join(f"#{i + 1}" for i in used)
            return (None, how) if new is _UNUSED else (new, how)
        if isinstance(self.override, Mapping):
            self.asked.add(name)
            return (self.override[name], "override") if name in self.override else (None, "")
        target = self.override(name)
        return (target, "override") if target is not None else (None, "")

    def warnings(self, torch_names: Sequence[str]) -> List[str]:
        if self.rules is not None:
            return self.rules.unused_warnings()
        if isinstance(self.override, Mapping):
            known = set(torch_names)
            return [f"weight_map key {key!r} names no torch parameter (it is ignored)"
                    for key in self.override if not isinstance(key, tuple) and key not in known]
        return []


def _is_rule(rule: object) -> bool:
    return isinstance(rule, (tuple, list)) and len(rule) == 2 and isinstance(rule[0], str) \
        and (rule[1] is None or isinstance(rule[1], str) or callable(rule[1]))


def _name(fn: object) -> str:
    return getattr(fn, "__qualname__", None) or repr(fn)


def with_leaf_rule(target: str, ms_names: Mapping[str, object], ms_leaf: str) -> Optional[str]:
    """A renamed target that misses only the layer's own leaf rename: 'features.1.weight' -> 'features.1.gamma'."""
    owner, _, leaf = target.rpartition(".")
    if ms_leaf == leaf:
        return None
    candidate = f"{owner}.{ms_leaf}" if owner else ms_leaf
    return candidate if candidate in ms_names else None


def transform_warnings(patterns: Sequence[str], torch_names: Sequence[str]) -> List[str]:
    import fnmatch

    return [f"weight_transforms[{p!r}] matches no torch parameter name (it is ignored)"
            for p in patterns if not any(fnmatch.fnmatchcase(n, p) for n in torch_names)]


def tolerance_warnings(patterns: Sequence[str], check: str, tensor_names: Sequence[str]) -> List[str]:
    """Tolerance patterns aimed at this item's tensors (same first segment: 'out', 'grad', ...) that match none."""
    from migcheck.tolerance import matches

    heads = {re.split(r"[.\[]", n, maxsplit=1)[0] for n in tensor_names}
    out: Dict[str, str] = {}
    for pattern in patterns:
        check_part, _, tensor_part = pattern.rpartition("/")
        if check_part and check_part not in (check, "*"):
            continue
        if re.split(r"[.\[*?]", tensor_part, maxsplit=1)[0] not in heads:
            continue  # aimed at another check's tensors (grad.* in a forward item)
        if not any(matches(pattern, check=check, tensor=n) for n in tensor_names):
            out[pattern] = (f"tolerances[{pattern!r}] matches none of this {check} item's tensors"
                            f" ({', '.join(sorted(tensor_names)[:4])}{', ...' if len(tensor_names) > 4 else ''})")
    return list(out.values())
