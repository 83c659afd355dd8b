"""What the pipeline may ask of a side, and the plain values that cross the boundary; framework-free.

Both runners (torch_side.TorchModule, mindspore_side.MindSporeCell) implement `Side`; everything
they hand back is numpy or the frozen dataclasses below, so mapping, judging and localization stay pure.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Protocol, Sequence, Tuple

import numpy as np


@dataclass(frozen=True)
class ParamInfo:
    """One parameter or buffer of a module tree, described without the framework."""

    name: str  # full dotted path, e.g. "layer1.0.running_mean"
    shape: Tuple[int, ...]
    dtype: str  # numpy dtype name
    owner_kind: str  # class name of the module/cell that owns it, e.g. "BatchNorm2d"
    trainable: bool
    is_buffer: bool
    # Other names of the same tensor: one module registered under two attribute names (diffusers' Downsample2D
    # holds its conv as `conv` and `Conv2d_0`); it is listed once, under its first name.
    aliases: Tuple[str, ...] = ()
    # What the owner IS: the nearest torch.nn / mindspore.nn library class in its MRO ("" if none; None: not
    # reported, as in goldens recorded before, so the class name stands for it), and the children a subclass of
    # that class adds (timm's BatchNormAct2d is a BatchNorm2d plus act and drop).
    owner_base: Optional[str] = None
    owner_extra: Tuple[str, ...] = ()

    @property
    def owner_path(self) -> str:
        return self.name.rpartition(".")[0]

    @property
    def leaf(self) -> str:
        return self.name.rpartition(".")[2]


@dataclass(frozen=True)
class Objective:
    """What the runners need to build the same scalar on both sides."""

    n_net_inputs: int  # the first n inputs feed the network; the rest feed the loss
    # One entry per flattened output leaf; None where the leaf is excluded (integer/bool).
    cotangents: Tuple[Optional[np.ndarray], ...]
    notes: Tuple[str, ...] = ()
    # The index path to each leaf, e.g. (1, 0) for h in an LSTM's (out, (h, c)), ("logits",) for a model
    # output's field; () for a bare tensor.
    paths: Tuple[Tuple[Any, ...], ...] = ()


@dataclass(frozen=True)
class LazyObjective:
    """An objective whose cotangents are shaped by the very forward pass that is differentiated.

    The runner calls ``build(outputs)`` with a numpy tree shaped like the network's outputs (only
    shapes and dtypes count), so the backward check needs no extra forward pass just to learn them.
    """

    n_net_inputs: int
    build: Callable[[Any], Objective]


@dataclass(frozen=True)
class Gradients:
    """What a gradient pass returns: by input position, by the side's own parameter name, and how it ran."""

    inputs: Dict[int, np.ndarray]
    params: Dict[str, np.ndarray]
    # The objective actually differentiated: a LazyObjective is built from this very pass's outputs.
    objective: Objective
    # (name, shape) per output leaf when the pass returned its outputs as well; None when it did not.
    output_shapes: Optional[List[Tuple[str, Tuple[int, ...]]]] = None


class Side(Protocol):
    """One framework's half of a case: a built module or cell, fed numpy, answering numpy."""

    compile_s: float  # GRAPH mode: seconds spent compiling so far (0 where nothing compiles)

    def params(self) -> List[ParamInfo]: ...

    def load(self, weights: Mapping[str, np.ndarray]) -> None: ...

    def state(self) -> Dict[str, np.ndarray]: ...

    def set_precision(self, precision: Any) -> None: ...

    def forward(self, inputs: Sequence[np.ndarray], dtypes: Sequence[str], *, train: bool = False) -> Any: ...

    def capture(self, inputs: Sequence[np.ndarray], dtypes: Sequence[str], *, train: bool = False) -> List[Any]: ...

    def config(self, name: str) -> Tuple[str, Dict[str, Any]]: ...

    def gradients(self, inputs: Sequence[np.ndarray], dtypes: Sequence[str], objective: Any,
                  loss: Optional[Callable[[], Any]], *, train: bool = False) -> Gradients: ...

    def steps(self, inputs: Sequence[np.ndarray], dtypes: Sequence[str], objective: Objective,
              loss: Optional[Callable[[], Any]], optimizer: Any, count: int) -> List[Dict[str, Any]]: ...


@dataclass(frozen=True)
class ChildRebuild:
    """A child cell to rebuild with some constructor arguments changed, for one re-run of its parent."""

    changes: Tuple[Tuple[str, Any], ...]


class TensorValue(tuple):
    """A small constant tensor a layer was built from (a loss's class weights), as nested numbers: compared like
    a tuple, built into a Tensor by the MindSpore runner, and shown as one in a fix."""

    def __repr__(self) -> str:
        return f"Tensor({list(self)!r})"


@dataclass(frozen=True)
class Argument:
    """One constructor argument of a layer as the object holds it (plain python values only)."""

    name: str
    value: Any  # read off the object (or the default when not found): bool, int, float, str, None, tuples
    found: bool  # the value was read off the object; False: the default is assumed
    has_default: bool
    default: Any = None
    annotation: str = ""


@dataclass(frozen=True)
class Constructor:
    """What a layer was built from: its class, where the class comes from, its constructor's arguments."""

    kind: str  # class name
    library: bool  # a class of the framework itself (its arguments are the framework's documented settings)
    arguments: Tuple[Argument, ...]
    doc: str = ""  # the class docstring: where a string argument's other members are listed
    has_parameters: bool = False
