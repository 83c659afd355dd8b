"""What the MindSpore side records for localization beyond sub-cell outputs: where a forward that raises
raises (forward pre- and post-hooks, PYNATIVE). ``network`` is the port's Cell; ``pynative`` the runner's context manager that switches the mode."""
from __future__ import annotations

import functools
from typing import Any, List, Optional, Sequence, Tuple


def raising_subcell(network: Any, args: Sequence[Any], pynative: Any, *, train: bool = False) -> Optional[Tuple[str, str]]:
    """(name, class) of the innermost sub-cell that started and never finished in a PYNATIVE forward that
    raises ("" is the network's own construct); None when the forward runs through."""
    stack: List[Tuple[str, str]] = []

    def enter(name: str, cell: Any, _args: tuple) -> None:
        stack.append((name, type(cell).__name__))

    def leave(_cell: Any, _args: tuple, _out: Any) -> None:
        if stack:
            stack.pop()

    import mindspore as ms

    synchronous = ms.get_context("pynative_synchronize")
    ms.set_context(pynative_synchronize=True)  # a kernel error surfaces at its op, with its sub-cell running
    with pynative():
        handles = []
        for name, c in network.cells_and_names():
            handles.append(c.register_forward_pre_hook(functools.partial(enter, name)))
            handles.append(c.register_forward_hook(leave))
        try:
            network.set_train(train)
            network(*args)
        except Exception:  # the very failure being located
            return stack[-1] if stack else None
        finally:
            for h in handles:
                h.remove()
            ms.set_context(pynative_synchronize=synchronous)
    return None

