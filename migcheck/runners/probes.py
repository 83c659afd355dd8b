"""What localization and diagnosis ask of a side, as typed protocols: capture, re-run a sub-cell on recorded
inputs, rebuild a layer with one setting changed, trace ops. The runners implement them (TorchModule,
MindSporeCell, torch_replay.Replayer); the stages above hold a side only through these names, never as `Any`,
and get numpy arrays and records back, never a framework object. tests/runners/test_probes.py checks that
every method declared here exists on its runner with the same parameters.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping, Optional, Protocol, Sequence, Tuple

import numpy as np

from migcheck.records.ops import Change, OpSite
from migcheck.runners.base import Constructor, Gradients, Objective, ParamInfo

Arrays = Sequence[np.ndarray]


class SideProbe(Protocol):
    """What both sides answer: weights in and out, forward, capture, gradients, steps, a sub-cell's settings."""

    def load(self, weights: Mapping[str, np.ndarray]) -> None: ...

    def state(self) -> Dict[str, np.ndarray]: ...

    def forward(self, inputs: Arrays, dtypes: Sequence[str], *, train: bool = False) -> Any: ...

    def capture(self, inputs: Arrays, dtypes: Sequence[str], *, train: bool = False) -> List[Any]:
        """One forward with a hook on every sub-cell: each call's inputs and output (records.findings.Call)."""

    def gradients(self, inputs: Arrays, dtypes: Sequence[str], objective: Objective,
                  loss: Optional[Callable[[], Any]], *, train: bool = False) -> Gradients: ...

    def optimizer_groups(self, optimizer: Any) -> Tuple[str, Dict[str, Dict[str, Any]]]: ...

    def config(self, name: str) -> Tuple[str, Dict[str, Any]]:
        """(class name, plain settings) of one sub-cell."""

    def constructor(self, name: str) -> Any:
        """The sub-cell's class and constructor arguments as it holds them (runners/*_args.py)."""

    def has_parameters(self, name: str) -> bool: ...

    def run_class(self, class_name: str, kwargs: Mapping[str, Any], inputs: Arrays) -> Any:
        """A fresh library layer of that class built from kwargs, run on given inputs (a checked class fix)."""


class TorchProbe(SideProbe, Protocol):
    """The torch side (runners/torch_side.py TorchModule)."""

    def params(self) -> List[ParamInfo]: ...

    def capture_with_ops(self, inputs: Arrays, dtypes: Sequence[str], *, train: bool = False
                         ) -> Tuple[List[Any], List[Any]]:
        """capture(), plus the functional calls each module's own forward made (records.ops.OpCall)."""

    def keep_ops_of(self, names: Sequence[str]) -> None:
        """The last capture_with_ops forward again, keeping the calls of these sub-modules for op_records."""

    def capture_backward(self, inputs: Arrays, dtypes: Sequence[str], objective: Objective,
                         loss: Optional[Callable[[], Any]]) -> Dict[str, Tuple[Tuple[Any, ...], Tuple[Any, ...]]]:
        """name -> (grad_output, grad_input) of every sub-module called once."""

    def input_names(self, name: str) -> Tuple[str, ...]:
        """The sub-module's forward parameter names, in order."""

    def parameter_shapes_built_with(self, name: str, changes: Dict[str, Any]) -> Dict[str, Tuple[int, ...]]:
        """The sub-module's class built with some constructor arguments changed: its own parameters' shapes."""

    def tensor_method(self, name: str) -> bool:
        """Whether torch.Tensor has `name` as a method."""

    def op_records(self, owner: str, inline: Sequence[str] = ()) -> List[Any]:
        """The op calls `owner`'s own forward made; those of the sub-modules in `inline` count as its own."""

    def rerun_op(self, owner: str, index: int, inputs: Arrays) -> List[np.ndarray]:
        """One recorded call of `owner`'s own forward run again on other tensors (edge values)."""

    def rerun_patched(self, name: str, inputs: Arrays, patch: Mapping[str, Any],
                      pads: Optional[Sequence[Tuple[int, int]]] = None, train: bool = False,
                      float64: bool = False) -> Any:
        """A copy of one sub-module with some attributes set to other values, run on given inputs."""

    def steps(self, inputs: Arrays, dtypes: Sequence[str], objective: Objective, loss: Optional[Callable[[], Any]],
              optimizer: Any, count: int, *, schedule: Optional[Callable] = None,
              lrs: Optional[Sequence[float]] = None) -> List[Dict[str, Any]]: ...


class MindSporeProbe(SideProbe, Protocol):
    """The MindSpore side (runners/mindspore_side.py MindSporeCell)."""

    def subcell_kind(self, name: str) -> str:
        """The class name of one sub-cell; KeyError when the port has none of that name."""

    def subcell_kinds(self) -> Dict[str, str]:
        """Every sub-cell's class name by its path ("" is the network itself)."""

    def has_custom_bprop(self, name: str) -> bool:
        """Whether the sub-cell defines its own backward (a `bprop` method)."""

    def set_requires_grad(self, name: str, flag: bool) -> bool:
        """One Parameter's requires_grad set; its previous flag (KeyError where there is none to set)."""

    def set_parameter_value(self, name: str, value: np.ndarray) -> np.ndarray:
        """One Parameter given another value; its previous value (KeyError where there is none to set)."""

    def set_parameter_dtype(self, name: str, dtype: str) -> str:
        """One Parameter held in another dtype; its previous dtype (KeyError where there is none to set)."""

    def run_subcell(self, name: str, inputs: Arrays) -> Any:
        """One sub-cell called on given inputs (the isolated pass), in PYNATIVE."""

    def subcell_vjp(self, name: str, inputs: Arrays, cotangents: Arrays) -> Tuple[Any, ...]:
        """One sub-cell's gradients with respect to its inputs for given output cotangents."""

    def rerun_rebuilt(self, name: str, inputs: Arrays, override: Mapping[str, Any], train: bool = False,
                      state: bool = False) -> Any:
        """One sub-cell rebuilt from its own settings with some constructor arguments changed, run on inputs
        (state=True: its parameters and buffers after the run, by leaf name, instead of its output)."""

    def rerun_with_attributes(self, name: str, inputs: Arrays, override: Mapping[str, Any]) -> Any:
        """One live sub-cell run with attributes set to other values (runners/base.ChildRebuild: a child cell
        rebuilt with some constructor arguments changed), put back afterwards."""

    def rerun_arguments(self, name: str, kwargs: Mapping[str, Any], inputs: Arrays, train: bool = False,
                        extra: Optional[Mapping[str, np.ndarray]] = None) -> Any:
        """The sub-cell's class built from exactly kwargs, with its parameters (extra: torch's values, by leaf
        name, for one it lacks), run on given inputs."""

    def run_live(self, name: str, inputs: Arrays, train: bool) -> Any: ...

    def run_with_parameters(self, name: str, values: Mapping[str, np.ndarray], inputs: Arrays,
                            train: bool = False) -> Any:
        """The sub-cell run with some of its parameters (by name under it) set to other values, then put back."""

    def parameter_shapes(self, name: str) -> Mapping[str, Tuple[int, ...]]: ...

    def alternatives(self, torch_kind: str, wanted: Sequence[str], named: Sequence[str] = ()) -> List[Any]: ...

    def run_alternative(self, name: str, class_name: str, kwargs: Mapping[str, Any], inputs: Arrays) -> Any: ...

    def default_classes(self, arity: int) -> Tuple[str, ...]:
        """mindspore.nn layers built without arguments or parameters whose construct takes `arity` tensors."""

    def class_defaults(self, name: str) -> Tuple[Tuple[str, Any], ...]:
        """mindspore.nn.<name>'s constructor defaults that are plain values."""

    def trace_ops(self, name: str, inputs: Arrays, change: Any = None) -> Tuple[List[Any], Any]:
        """(the op calls the sub-cell's own construct made, its output), in PYNATIVE."""

    def call_optional(self, name: str, inputs: Arrays, kwargs: Optional[Mapping[str, np.ndarray]]) -> Tuple[Any, Any]:
        """(construct's parameters defaulting to None, the sub-cell's output with `kwargs` given; None when None)."""

    def vjp_changed(self, name: str, inputs: Arrays, cotangent: np.ndarray, change: Any) -> Tuple[Any, Any]:
        """(output, input gradients) of a sub-cell for an output gradient, one call of its construct changed."""
    def run_function(self, name: str, tensors: Mapping[str, np.ndarray], kwargs: Mapping[str, Any]
                     ) -> List[np.ndarray]:
        """mindspore.ops.<name> called once on given tensors and plain keyword arguments (edge values)."""

    def functions_like(self, base: str, wanted: Sequence[str] = ()) -> List[Any]:
        """mindspore.ops functions named like torch's op `base`, those taking more of `wanted` first."""

    def raising_line(self, inputs: Arrays) -> Any:
        """Where the port's own code raised in one forward: runners/mindspore_raising_line.RaisingLine, or None."""

    def run_with_child(self, name: str, child: str, override: Mapping[str, Any], inputs: Arrays) -> Any:
        """The sub-cell run with its direct child rebuilt with some constructor arguments changed."""

    def child_constructors(self, name: str) -> List[Tuple[str, Any]]:
        """(attribute, constructor) of each direct child cell of the sub-cell."""

    def record_ops(self, inputs: Arrays, dtypes: Sequence[str], *, train: bool = False) -> Any: ...

    def raising_op(self, inputs: Arrays, dtypes: Sequence[str], *, train: bool = False) -> Any: ...

    def raising_subcell(self, inputs: Arrays, dtypes: Sequence[str], *, train: bool = False
                        ) -> Optional[Tuple[str, str]]: ...

    def lr_per_step(self, optimizer: Any, count: int) -> Tuple[str, List[float]]: ...

    def optimizer_constructor(self, optimizer: Any) -> Tuple[Constructor, List[Constructor]]:
        """The port's optimizer (class, arguments as its factory passed them) and mindspore.nn's other ones."""

    def rebuilt_optimizer(self, optimizer: Any, class_name: str, changes: Mapping[str, Any],
                          group: Optional[Mapping[str, Any]] = None) -> Any:
        """An optimizer factory for steps(): the port's with changes, or another class in its place; `group`:
        every parameter in one group with these settings."""

    def steps(self, inputs: Arrays, dtypes: Sequence[str], objective: Objective, loss: Optional[Callable[[], Any]],
              optimizer: Any, count: int) -> List[Dict[str, Any]]: ...


class OpReplayer(Protocol):
    """Replays one torch module's own functional calls with one setting changed (runners/torch_replay.py)."""

    def op_sites(self, owner: str, after: int, before: int) -> List[OpSite]: ...

    def replay_ops(self, owner: str, after: int, before: int, change: Optional[Change]) -> Dict[int, Any]: ...

    def site_tensor(self, seq: int, keyword: str, position: Optional[int]) -> Any: ...

    def origins(self, seq: int) -> Tuple[str, ...]: ...


PROBES = {"TorchProbe": TorchProbe, "MindSporeProbe": MindSporeProbe, "OpReplayer": OpReplayer}
