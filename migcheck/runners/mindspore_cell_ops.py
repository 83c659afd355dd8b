"""The op-level side of a MindSpore cell: its sub-cells' construct calls traced and changed one at a time
(runners/mindspore_ops.py), a changed call's gradients, optional construct arguments, one mindspore.ops function
run alone. A mixin of MindSporeCell, which supplies subcell() and args_of()."""
from __future__ import annotations

from typing import Any, List, Mapping, Sequence, Tuple

import numpy as np

from migcheck.runners.mindspore_module import ms_dtype, to_numpy


class CellOps:
    def subcell(self, name: str) -> Any:  # supplied by MindSporeCell
        raise NotImplementedError

    def args_of(self, name: str, inputs: Sequence[np.ndarray]) -> List[Any]:  # supplied by MindSporeCell
        raise NotImplementedError

    def default_classes(self, arity: int) -> Tuple[str, ...]:
        """mindspore.nn layers built without arguments or parameters taking `arity` tensors (mindspore_args.py)."""
        from migcheck.runners.mindspore_args import default_classes

        return default_classes(arity)

    def class_defaults(self, name: str) -> Tuple[Tuple[str, Any], ...]:
        """mindspore.nn.<name>'s plain constructor defaults (mindspore_args.py)."""
        from migcheck.runners.mindspore_args import class_defaults

        return class_defaults(name)

    def trace_ops(self, name: str, inputs: Sequence[np.ndarray], change: Any = None) -> Tuple[List[Any], Any]:
        """(the op calls the sub-cell's own construct made, its output) in PYNATIVE (runners/mindspore_ops.py)."""
        from migcheck.runners.mindspore_ops import trace

        return trace(self.subcell(name), self.args_of(name, inputs), to_numpy, change)

    def vjp_changed(self, name: str, inputs: Sequence[np.ndarray], cotangent: np.ndarray, change: Any) -> Tuple[Any, Any]:
        """(output, input gradients) of one sub-cell with one call of its construct changed (runners/mindspore_ops.py)."""
        from migcheck.runners.mindspore_ops import vjp_changed

        return vjp_changed(self.subcell(name), inputs, cotangent, change, to_numpy)

    def call_optional(self, name: str, inputs: Sequence[np.ndarray], kwargs: Mapping[str, np.ndarray]) -> Tuple[Any, Any]:
        """(construct's parameters defaulting to None, its output with `kwargs` given): runners/mindspore_call_args.py."""
        from migcheck.runners.mindspore_call_args import call_with, optional_parameters

        cell = self.subcell(name)
        return optional_parameters(cell), call_with(cell, inputs, kwargs, to_numpy) if kwargs is not None else None

    def run_function(self, name: str, tensors: Mapping[str, np.ndarray], kwargs: Mapping[str, Any]) -> List[np.ndarray]:
        """mindspore.ops.<name> called once, in PYNATIVE, on given tensors and plain keyword arguments."""
        from migcheck.runners.mindspore_ops import call_function

        return call_function(name, dict(tensors), dict(kwargs))

    def functions_like(self, base: str, wanted: Sequence[str] = ()) -> List[Any]:
        from migcheck.runners.mindspore_functions import functions_like

        return functions_like(base, wanted)

    def run_with_parameters(self, name: str, values: Mapping[str, np.ndarray], inputs: Sequence[np.ndarray],
                            train: bool = False) -> Any:
        """The sub-cell run on given inputs with some of its parameters (by name under it) set to other values,
        all put back afterwards (a parameter layout tried as the cause)."""
        import mindspore as ms

        from migcheck.runners.mindspore_args import run_live

        cell = self.subcell(name)
        params = dict(cell.parameters_and_names())
        saved = {k: params[k].value().asnumpy().copy() for k in values}
        try:
            for k, v in values.items():
                params[k].set_data(ms.Tensor(np.ascontiguousarray(v, dtype=saved[k].dtype)))
            return run_live(cell, self.args_of(name, inputs), train, to_numpy)
        finally:
            for k, v in saved.items():
                params[k].set_data(ms.Tensor(v))

    def parameter_shapes(self, name: str) -> Mapping[str, Tuple[int, ...]]:
        """Each parameter of the sub-cell, by its name under it, with its shape."""
        return {k: tuple(p.shape) for k, p in self.subcell(name).parameters_and_names()}

    def raising_line(self, inputs: Sequence[np.ndarray]) -> Any:
        """Where the port's own code raised in one PYNATIVE forward (runners/mindspore_raising_line.py)."""
        from migcheck.runners.mindspore_context import pynative
        from migcheck.runners.mindspore_module import as_ms_args
        from migcheck.runners.mindspore_raising_line import raising_line

        root = self.subcell("")
        with pynative():
            return raising_line(root, root, as_ms_args(self.args_of("", inputs)))

    def rebuilt_cell(self, cell: Any, override: Mapping[str, Any]) -> Any:  # supplied by MindSporeCell
        raise NotImplementedError

    def run_with_child(self, name: str, child: str, override: Mapping[str, Any], inputs: Sequence[np.ndarray]) -> Any:
        """The sub-cell run on given inputs with its direct child `child` rebuilt with some constructor arguments
        changed (a replayed torch setting tried on the port's layer), the child put back afterwards."""
        from migcheck.runners.mindspore_context import pynative
        from migcheck.runners.mindspore_module import as_ms_args, to_numpy as numpy_of

        from migcheck.runners.mindspore_args import with_call

        container = self.subcell(name)
        old = getattr(container, child)
        with pynative():
            new = self.rebuilt_cell(old, with_call(override, None))  # a TensorValue built into a Tensor
            setattr(container, child, new)
            try:
                return numpy_of(container(*as_ms_args(self.args_of(name, inputs))))
            finally:
                setattr(container, child, old)

    def child_constructors(self, name: str) -> List[Tuple[str, Any]]:
        """(attribute, its constructor) for each direct child cell of the sub-cell."""
        container = self.subcell(name)
        return [(n, self.constructor(f"{name}.{n}" if name else n)) for n, _ in container.name_cells().items()]

    def constructor(self, name: str) -> Any:  # supplied by MindSporeCell
        raise NotImplementedError

    def set_requires_grad(self, name: str, flag: bool) -> bool:
        """One mindspore.Parameter's requires_grad set (a fix re-run); its previous flag. KeyError: no such
        Parameter (a torch-like module's plain Tensor has no flag to set)."""
        p = self._parameter(name)
        previous = bool(p.requires_grad)
        p.requires_grad = flag
        return previous

    def set_parameter_dtype(self, name: str, dtype: str) -> str:
        """One mindspore.Parameter held in another dtype (numpy name; a fix re-run); its previous dtype's numpy
        name. KeyError: no such Parameter."""
        p = self._parameter(name)
        previous = str(p.asnumpy().dtype)
        p.set_dtype(ms_dtype(dtype))
        return previous

    def set_parameter_value(self, name: str, value: np.ndarray) -> np.ndarray:
        """One mindspore.Parameter given another value (a fix re-run); its previous value. KeyError: no such
        Parameter."""
        from migcheck.runners.mindspore_module import load_value

        p = self._parameter(name)
        previous = p.asnumpy().copy()
        load_value(p, np.ascontiguousarray(value))
        return previous

    def _parameter(self, name: str) -> Any:
        import mindspore as ms

        found = next((p for n, p in getattr(self, "_named", ()) if n == name and isinstance(p, ms.Parameter)), None)
        if found is None:
            raise KeyError(name)
        return found
