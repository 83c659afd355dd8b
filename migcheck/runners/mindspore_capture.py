"""What the MindSpore side records for localization beyond sub-cell outputs: where a forward that raises
raises (forward pre- and post-hooks, PYNATIVE). ``network`` is the port's Cell; ``pynative`` the runner's context manager that switches the mode."""
from __future__ import annotations

import functools
from typing import Any, List, Optional, Sequence, Tuple


def raising_subcell(network: Any, args: Sequence[Any], pynative: Any, *, train: bool = False) -> Optional[Tuple[str, str]]:
    """(name, class) of the innermost sub-cell that started and never finished in a PYNATIVE forward that
    raises ("" is the network's own construct); None when the forward runs through."""
    import mindspore as ms

    stack: List[Tuple[str, str]] = []

    # Ops may run asynchronously, so an error can surface after its cell has finished: wait for the queue at
    # every cell boundary, so it surfaces while the cell that launched it (or its parent, between two
    # children) is still on the stack.
    def enter(name: str, cell: Any, _args: tuple) -> None:
        ms.runtime.synchronize()
        stack.append((name, type(cell).__name__))

    def leave(_cell: Any, _args: tuple, _out: Any) -> None:
        ms.runtime.synchronize()
        if stack:
            stack.pop()

    with pynative():
        handles = []
        for name, c in network.cells_and_names():
            handles.append(c.register_forward_pre_hook(functools.partial(enter, name)))
            handles.append(c.register_forward_hook(leave))
        try:
            network.set_train(train)
            network(*args)
            ms.runtime.synchronize()
        except Exception:  # the very failure being located
            return stack[-1] if stack else None
        finally:
            for h in handles:
                h.remove()
    return None

