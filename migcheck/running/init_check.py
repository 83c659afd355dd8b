"""The `init` check: each side built with its own default initialization under several seeds, each
parameter's values compared by distribution (migcheck.judging.init_dist). Weights are never loaded here:
the other checks overwrite them, which is exactly why a port's initializers are otherwise never seen."""
from __future__ import annotations

from typing import Dict

from migcheck.judging.init_dist import ALPHA, SEEDS, compare_inits, draws_by_name
from migcheck.options import RunOptions
from migcheck.planning.items import Item
from migcheck.mapping.transfer import map_weights, to_torch
from migcheck.running.outcome import Outcome
from migcheck.running.reference import SkipCheck
from migcheck.util.seeding import rng_for
from migcheck.vocab import Kind


def init_outcome(item: Item, options: RunOptions) -> Outcome:
    if options.golden:
        raise SkipCheck("the init check builds the torch module itself (several seeds); golden fixtures hold no"
                        " initial values, so it does not run with --golden")
    from migcheck.runners import mindspore_context, mindspore_side, torch_side

    case = item.case
    mindspore_context.configure("pynative", item.backend, options.device_id)
    base = int(rng_for(case.name, "init").integers(0, 2 ** 31 - SEEDS))
    torch_states, ms_states = [], []
    for seed in range(base, base + SEEDS):
        torch_params, state = torch_side.initial_state(case.torch, seed)
        torch_states.append(state)
        ms_params, state = mindspore_side.initial_state(case.mindspore, seed)
        ms_states.append(state)
    mapping = map_weights(torch_params, ms_params, case.weight_map, case.weight_transforms)
    problems = tuple(mapping.problems())
    if problems:
        return Outcome(Kind.STRUCTURE, f"weights cannot be paired: {problems[0]}"
                       + (f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""), structure=problems, mapping=mapping)
    skipped = {s.torch_name for s in mapping.skipped}
    labels: Dict[str, str] = {t.name: f"torch {t.owner_kind} '{t.name}' / MindSpore "
                              + " + ".join(f"{m.owner_kind} '{m.name}'" for m in link.ms)
                              for link in mapping.links for t in link.torch}
    torch_draws = {k: v for k, v in draws_by_name(torch_states).items() if k not in skipped}
    ms_draws = draws_by_name([to_torch(state, mapping) for state in ms_states])
    tensors = tuple(compare_inits(torch_draws, ms_draws, labels, seed=base))
    note = (f"init: {SEEDS} seeded builds per side, each parameter's values compared by a two-sample"
            f" Kolmogorov-Smirnov test; identical initializers fail a case with probability at most {ALPHA:g}")
    failing = [t for t in tensors if not t.ok]
    if not tensors:
        return Outcome(Kind.EMPTY, "the init check found no floating-point parameter to compare", mapping=mapping,
                       notes=(note,))
    if not failing:
        return Outcome(None, f"{len(tensors)} parameter(s) initialized alike by default", tensors, mapping=mapping,
                       notes=(note,))
    more = f" (+{len(failing) - 1} more parameter(s) initialized differently)" if len(failing) > 1 else ""
    return Outcome(Kind.VALUE, failing[0].message + more, tensors, mapping=mapping, notes=(note,))
