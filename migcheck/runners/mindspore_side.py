"""The MindSpore side: configure mode and backend, load mapped numpy weights, run, return numpy trees."""
from __future__ import annotations

import os
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

# MindSpore's C++ logger prints every warning to stderr; keep errors only unless the user chose.
os.environ.setdefault("GLOG_v", "3")

import mindspore as ms  # noqa: E402
import numpy as np  # noqa: E402

from migcheck.runners.base import ChildRebuild, Constructor, Gradients, Objective, ParamInfo
from migcheck.runners.construction import bound_arguments, built_with_calls, own_signature
from migcheck.runners.mindspore_context import pynative, scratch_cwd
from migcheck.runners.mindspore_held import HeldErrors
from migcheck.runners.mindspore_module import (TorchLikeCell, as_ms_args, entry_point, graph_hint, is_torch_like,
                                               load_value, read_value, to_numpy)
from migcheck.runners.mindspore_cell_ops import CellOps
from migcheck.runners.mindspore_objective import KeywordCall, MindSporeSideError, objective_cell, split_grads
from migcheck.runners.foreign_params import as_parameters, is_foreign_trainable
from migcheck.runners.lineage import cell_lineage
from migcheck.precision import Precision, kept, unmatched
from migcheck.util.calls import keyword_names
from migcheck.util.tree import contiguous, flatten, lenient

# Optimizer presets paired with torch_side.PRESETS. Weight decay is given per group so that it
# reaches every parameter, as in torch (a plain float would be filtered by parameter name).
PRESETS: Mapping[str, Callable[[list], Any]] = {
    "sgd": lambda params: ms.nn.SGD([{"params": params, "weight_decay": 1e-4}], learning_rate=0.1,
                                    momentum=0.9, nesterov=True),
    "adam": lambda params: ms.nn.Adam(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8),
    # nn.AdamWeightDecay is not torch's AdamW (no bias correction); mint's AdamW is, but MindSpore
    # 2.10 registers its kernel for Ascend only.
    "adamw": lambda params: ms.mint.optim.AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2),
}

def _dtype_name(p: Any) -> str:
    return str(p.dtype).lower()  # "Float32" -> "float32", "BFloat16" -> "bfloat16"


class MindSporeCell(CellOps):
    def __init__(self, factory: Callable[[], Any], mode: str, input_names: Sequence[str] = ()) -> None:
        built, self._calls = built_with_calls(factory, ms.nn.Cell)  # each layer's constructor call (construction.py)
        if is_torch_like(built):
            cell: Any = TorchLikeCell(built)
        elif isinstance(built, ms.nn.Cell):
            cell = built
        else:
            raise MindSporeSideError(f"the mindspore factory returned {type(built).__name__}, not a mindspore.nn.Cell"
                                     f" nor a callable with named_parameters()/parameters_and_names()")
        self.cell = cell
        self.mode = mode
        self.plain_args: Dict[str, Any] = {}  # sub-cell -> the plain arguments its captured call took (hooks.py)
        # Captured once: wrapping the cell later (objectives, train steps) may rename parameters.
        self._named = list(cell.named) if isinstance(cell, TorchLikeCell) else list(cell.parameters_and_names())
        # What calls run: the cell itself, or a KeywordCall feeding the inputs by name (migcheck.util.calls).
        names = keyword_names(entry_point(built), input_names, f"the MindSpore {type(built).__name__}")
        self._call = KeywordCall(cell, names) if names else cell
        # GRAPH mode: seconds spent compiling graphs (Cell.compile before the first call; for gradients,
        # the first call's time beyond a second call's). Each new Cell instance compiles anew in 2.10.
        self.compile_s = 0.0
        self.loss_float32 = False

    def set_precision(self, precision: Precision) -> None:
        """Cell.to_float(dtype) on the network, then float32 on the kept layers (their children follow)."""
        layers = [(name, type(c).__name__) for name, c in self.cell.cells_and_names()]
        missing = unmatched(precision, [cls for _, cls in layers])
        if missing:
            raise MindSporeSideError(f"keep_float32 {missing} matches no layer of the MindSpore cell (its classes:"
                                     f" {', '.join(sorted({cls for _, cls in layers}))}); name layer classes such as 'BatchNorm'")
        self.cell.to_float(getattr(ms, precision.dtype))
        for _, c in self.cell.cells_and_names():
            if any(kept(p, type(c).__name__) for p in precision.keep_float32):
                c.to_float(ms.float32)
        self.loss_float32 = precision.loss_float32

    def _compile(self, cell: Any, args: Sequence[Any]) -> None:
        """GRAPH mode: compile cell for args now (public Cell.compile), timed apart from running it."""
        if self.mode != "graph":
            return
        started = time.perf_counter()
        try:
            with scratch_cwd(self.mode):
                cell.compile(*args)
        finally:
            self.compile_s += time.perf_counter() - started

    def params(self) -> List[ParamInfo]:
        owners = (self.cell.owners() if isinstance(self.cell, TorchLikeCell)
                  else {name: type(c).__name__ for name, c in self.cell.cells_and_names()})
        lineage = ({} if isinstance(self.cell, TorchLikeCell)  # torch-like layers: their parameter signature decides
                   else {name: cell_lineage(c) for name, c in self.cell.cells_and_names()})
        out = []
        for name, p in self._named:
            owner = name.rpartition(".")[0]
            out.append(ParamInfo(name=name, shape=tuple(p.shape), dtype=_dtype_name(p),
                                 owner_kind=owners.get(owner, "?"), trainable=_trainable(p),
                                 is_buffer=not _trainable(p), owner_base=lineage.get(owner, ("", ()))[0],
                                 owner_extra=lineage.get(owner, ("", ()))[1]))
        return out

    def load(self, weights: Mapping[str, np.ndarray]) -> None:
        for name, p in self._named:
            load_value(p, contiguous(weights[name]))

    def forward(self, inputs: Sequence[np.ndarray], dtypes: Sequence[str], *, train: bool = False) -> Any:
        self.cell.set_train(train)
        args = [_tensor(x, d) for x, d in zip(inputs, dtypes)]
        with graph_hint(self.cell, self.mode):
            self._compile(self._call, args)
            with scratch_cwd(self.mode):
                return to_numpy(self._call(*args))

    def capture(self, inputs: Sequence[np.ndarray], dtypes: Sequence[str], *, train: bool = False) -> List[Any]:
        """One PYNATIVE forward with a hook on every sub-cell (hooks need PYNATIVE; the mode is restored)."""
        from migcheck.runners.hooks import hook_recorder

        calls: List[Any] = []
        is_tensor = lambda a: isinstance(a, ms.Tensor)  # noqa: E731
        with pynative():
            handles = [c.register_forward_hook(hook_recorder(calls, name, is_tensor, to_numpy, MindSporeSideError,
                                                             self.plain_args))
                       for name, c in self.cell.cells_and_names()]
            try:
                self.cell.set_train(train)
                self._call(*[_tensor(x, d) for x, d in zip(inputs, dtypes)])
            finally:
                for h in handles:
                    h.remove()
        return calls

    def raising_subcell(self, inputs: Sequence[np.ndarray], dtypes: Sequence[str], *, train: bool = False
                        ) -> Optional[Tuple[str, str]]:
        """(name, class) of the innermost sub-cell that started and never finished in a PYNATIVE forward that
        raises ("" is the network itself); None when it runs through: runners/mindspore_capture.py."""
        from migcheck.runners.mindspore_capture import raising_subcell

        return raising_subcell(self.cell, [_tensor(x, d) for x, d in zip(inputs, dtypes)], pynative, train=train)

    def record_ops(self, inputs: Sequence[np.ndarray], dtypes: Sequence[str], *, train: bool = False) -> Any:
        """The ops the port's constructs call in one PYNATIVE forward: runners/mindspore_backward_ops.py."""
        from migcheck.runners.mindspore_backward_ops import RecordedOps, port_authored

        tape = RecordedOps()
        tape.keep = port_authored(self.cell)
        tape.run(self.cell, self._call, [_tensor(x, d) for x, d in zip(inputs, dtypes)], train)
        return tape

    def raising_op(self, inputs: Sequence[np.ndarray], dtypes: Sequence[str], *, train: bool = False) -> Any:
        """(the public MindSpore call that raised, its place among its cell's calls) or None:
        runners/mindspore_raising_op.py."""
        from migcheck.runners.mindspore_raising_op import raising_call

        return raising_call(self.cell, self._call, [_tensor(x, d) for x, d in zip(inputs, dtypes)], train)

    def run_class(self, class_name: str, kwargs: Mapping[str, Any], inputs: Sequence[np.ndarray]) -> Any:
        """A fresh mindspore.nn.<class_name>(**kwargs) run on given inputs, in PYNATIVE (a checked class fix)."""
        with pynative():
            layer = getattr(ms.nn, class_name)(**kwargs)
            layer.set_train(False)
            return lenient(layer(*[ms.Tensor(contiguous(x)) for x in inputs]), to_numpy, MindSporeSideError)

    def subcell(self, name: str) -> Any:
        return dict(self.cell.cells_and_names())[name]

    def subcell_kind(self, name: str) -> str:
        return type(self.subcell(name)).__name__

    def subcell_kinds(self) -> Dict[str, str]:
        return {name: type(c).__name__ for name, c in self.cell.cells_and_names()}

    def has_custom_bprop(self, name: str) -> bool:
        return callable(getattr(type(self.subcell(name)), "bprop", None))

    def subcell_vjp(self, name: str, inputs: Sequence[np.ndarray], cotangents: Sequence[np.ndarray]) -> Tuple[Any, ...]:
        """One sub-cell's gradients with respect to its inputs, for given output cotangents (mindspore.vjp, in
        PYNATIVE): the isolated backward pass. A cell's own bprop is what runs, as in training."""
        cell = self.subcell(name)
        with pynative():
            cell.set_train(False)
            args = [ms.Tensor(contiguous(x)) for x in inputs]
            cot = [ms.Tensor(contiguous(c)) for c in cotangents]
            try:
                return _vjp(cell, args, cot, range(len(args)))
            except Exception:  # an input MindSpore cannot differentiate through (a ±1 label whose gradient path
                pass          # adds a bool): each input alone, the others held fixed
            out: List[Any] = []
            for k in range(len(args)):
                try:
                    out.append(_vjp(cell, args, cot, [k])[0])
                except Exception:  # no gradient for this input: None, as torch gives for a non-float one
                    out.append(None)
            if all(g is None for g in out):
                raise MindSporeSideError(f"no input of '{name}' can be differentiated alone")
            return tuple(out)

    def args_of(self, name: str, inputs: Sequence[np.ndarray]) -> List[Any]:
        """Recorded tensors, with the plain arguments the sub-cell's captured call took (hooks.with_plain)."""
        from migcheck.runners.hooks import with_plain

        return with_plain(inputs, self.plain_args.get(name))

    def run_subcell(self, name: str, inputs: Sequence[np.ndarray]) -> Any:
        """Call one sub-cell on given inputs (the isolated pass), in PYNATIVE."""
        cell = self.subcell(name)
        with pynative():
            return lenient(cell(*as_ms_args(self.args_of(name, inputs))), to_numpy, MindSporeSideError)

    def rerun_rebuilt(self, name: str, inputs: Sequence[np.ndarray], override: Mapping[str, Any],
                      train: bool = False, state: bool = False) -> Any:
        """One sub-cell rebuilt from its own settings with some constructor arguments changed, its
        parameters copied over, run on given inputs (how a proposed fix is checked before it is shown);
        state=True returns its parameters and buffers after the run (running statistics), by leaf name."""
        cell = self.subcell(name)
        inputs = self.args_of(name, inputs)
        if not set(override) <= set(own_signature(type(cell)).parameters):  # a port's own cell that reads the
            return self._rerun_with_attributes(cell, inputs, override)       # setting off itself
        with pynative():
            new = self.rebuilt_cell(cell, override)
            new.set_train(train)
            out = lenient(new(*as_ms_args(inputs)), to_numpy, MindSporeSideError)
            return {n: to_numpy(read_value(p)) for n, p in new.parameters_and_names()} if state else out

    def rebuilt_cell(self, cell: Any, override: Mapping[str, Any]) -> Any:
        """A new cell of cell's class from its own arguments with `override` changed, its parameters copied."""
        from migcheck.runners.hooks import plain_config

        call = bound_arguments(cell, self._calls)
        accepted = own_signature(type(cell)).parameters
        # an attribute that shares a constructor argument's name but holds an operator's encoding (AvgPool2d's
        # data_format kept as 0) is left at the argument's default; the caught call needs no reading back
        kwargs = dict(call) if call is not None else {
            k: (v.lower() if k == "pad_mode" and isinstance(v, str) else v) for k, v in plain_config(cell).items()
            if k in accepted and k != "self" and not (isinstance(accepted[k].default, str) and not isinstance(v, str))}
        kwargs.update(override)
        try:
            new = type(cell)(**kwargs)
        except (TypeError, ValueError):  # a 1-D cell keeps its operator's 2-D (1, k) settings: give it k
            new = type(cell)(**{k: v[-1] if isinstance(v, tuple) and v and k not in override else v
                                for k, v in kwargs.items()})
        old = dict(cell.parameters_and_names())
        for pname, param in new.parameters_and_names():
            if pname in old and tuple(old[pname].shape) == tuple(param.shape):
                param.set_data(old[pname].value())
        return new

    def rerun_with_attributes(self, name: str, inputs: Sequence[np.ndarray], override: Mapping[str, Any]) -> Any:
        """One live sub-cell run with attributes set to other values (a ChildRebuild: that child rebuilt)."""
        cell = self.subcell(name)
        override = {k: self.rebuilt_cell(getattr(cell, k), dict(v.changes)) if isinstance(v, ChildRebuild) else v
                    for k, v in override.items()}
        return self._rerun_with_attributes(cell, self.args_of(name, inputs), override)

    def _rerun_with_attributes(self, cell: Any, inputs: Sequence[np.ndarray], override: Mapping[str, Any]) -> Any:
        """The live cell with some attributes set to other values for one PYNATIVE call, then put back."""
        saved = {k: getattr(cell, k) for k in override}
        try:
            for k, v in override.items():
                setattr(cell, k, v)
            with pynative():
                cell.set_train(False)
                return lenient(cell(*as_ms_args(inputs)), to_numpy, MindSporeSideError)
        finally:
            for k, v in saved.items():
                setattr(cell, k, v)

    def constructor(self, name: str) -> Any:
        """The sub-cell's class and constructor arguments as it holds them (runners/mindspore_args.py)."""
        from migcheck.runners.mindspore_args import constructor

        return constructor(self.subcell(name), bound_arguments(self.subcell(name), self._calls))

    def rerun_arguments(self, name: str, kwargs: Mapping[str, Any], inputs: Sequence[np.ndarray],
                        train: bool = False, extra: Optional[Mapping[str, np.ndarray]] = None) -> Any:
        """The sub-cell's class built from exactly `kwargs`, with its parameters (torch's values by leaf name,
        `extra`, for a parameter it lacks), run on given inputs."""
        from migcheck.runners.mindspore_args import rebuild_run

        cell = self.subcell(name)
        return rebuild_run(cell, kwargs, self.args_of(name, inputs), train, to_numpy, bound_arguments(cell, self._calls),
                           extra)

    def run_live(self, name: str, inputs: Sequence[np.ndarray], train: bool) -> Any:
        from migcheck.runners.mindspore_args import run_live

        return run_live(self.subcell(name), self.args_of(name, inputs), train, to_numpy)

    def alternatives(self, torch_kind: str, wanted: Sequence[str], named: Sequence[str] = ()) -> List[Any]:
        from migcheck.runners.mindspore_args import alternatives

        return alternatives(torch_kind, wanted, named)

    def run_alternative(self, name: str, class_name: str, kwargs: Mapping[str, Any],
                        inputs: Sequence[np.ndarray]) -> Any:
        from migcheck.runners.mindspore_args import run_alternative

        return run_alternative(self.subcell(name), class_name, kwargs, inputs, to_numpy)

    def has_parameters(self, name: str) -> bool:
        prefix = f"{name}." if name else ""
        return any(n.startswith(prefix) for n, _ in self._named)

    def config(self, name: str) -> Tuple[str, Dict[str, Any]]:
        from migcheck.runners.hooks import plain_config

        cell = self.subcell(name)
        return type(cell).__name__, plain_config(cell)

    def state(self) -> Dict[str, np.ndarray]:
        return {name: to_numpy(read_value(p)) for name, p in self._named}

    def gradients(self, inputs: Sequence[np.ndarray], dtypes: Sequence[str], objective: Objective,
                  loss: Optional[Callable[[], Any]], *, train: bool = False) -> Gradients:
        """Gradients through mindspore.grad, by input position and by MindSpore parameter name.
        train: in train mode, as a step computes them (BatchNorm on batch statistics)."""
        self.cell.set_train(train)
        args = [_tensor(x, d) for x, d in zip(inputs, dtypes)]
        positions = tuple(i for i, a in enumerate(args) if ms.ops.is_floating_point(a))
        module = self.cell.module if isinstance(self.cell, TorchLikeCell) else self.cell
        with as_parameters(module, [(n, p) for n, p in self._named if _trainable(p)]) as named:
            return self._gradients(args, positions, named, objective, loss)

    def _gradients(self, args: List[Any], positions: Tuple[int, ...], named: List[Tuple[str, Any]],
                   objective: Objective, loss: Optional[Callable[[], Any]]) -> Gradients:
        if not positions and not named:  # mindspore.grad would raise "'grad_position' and 'weight' can not be None"
            raise MindSporeSideError("nothing to differentiate on the MindSpore side: no floating-point input and no"
                                     " trainable parameter (requires_grad=True); hint: a port whose weights are plain"
                                     " Tensors has none, so hold them as mindspore.Parameter, or drop the backward,"
                                     " train and step checks from the case")
        # With cotangents, the outputs come back as aux (no gradient flows through them): the caller
        # checks their shapes against torch's after this one pass (Gradients.output_shapes), instead of
        # running a forward pass of its own first.
        with_outputs = loss is None and bool(objective.cotangents)
        held = HeldErrors(objective_cell(self._call, objective, loss, with_outputs, self.loss_float32), pair=with_outputs)
        fn = ms.grad(held.function() if self.mode == "pynative" else held.fn, grad_position=positions or None,
                     weights=[p for _, p in named] or None, has_aux=with_outputs)
        with scratch_cwd(self.mode), graph_hint(self.cell, self.mode):
            started = time.perf_counter()
            result = fn(*args)
            held.reraise()
            if self.mode == "graph":  # no compile call for a grad function: the first call minus a second
                first = time.perf_counter() - started
                started = time.perf_counter()
                fn(*args)
                self.compile_s += max(0.0, first - (time.perf_counter() - started))
        shapes = None
        if with_outputs:
            result, aux = result
            shapes = [(name, tuple(leaf.shape)) for name, leaf in flatten(aux[0])]
        input_grads, param_grads = split_grads(result, bool(positions), bool(named))
        return Gradients(dict(zip(positions, (to_numpy(g) for g in input_grads))),
                         {n: to_numpy(g) for (n, _), g in zip(named, param_grads)}, objective, shapes)

    def optimizer_groups(self, optimizer: Any) -> Tuple[str, Dict[str, Dict[str, Any]]]:
        """(optimizer class, MindSpore parameter name -> its hyperparameters in torch's names), read from the
        optimizer a step builds; per-parameter weight decay follows its decay flags (a name filter)."""
        named = [(n, p) for n, p in self._named if _trainable(p)]
        opt = PRESETS[optimizer]([p for _, p in named]) if isinstance(optimizer, str) else optimizer([p for _, p in named])
        from migcheck.runners.mindspore_optimizer import hyperparameters

        return hyperparameters(opt, [n for n, _ in named])

    def optimizer_constructor(self, optimizer: Any) -> Tuple[Constructor, List[Constructor]]:
        """The port's optimizer as its factory called it, and mindspore.nn's other optimizer classes (their
        signatures): what the optimizer argument search may change (runners/mindspore_optimizer.py)."""
        from migcheck.runners.mindspore_optimizer import described, optimizer_classes

        return described(self._caught(optimizer)), optimizer_classes()

    def rebuilt_optimizer(self, optimizer: Any, class_name: str, changes: Mapping[str, Any],
                          group: Optional[Mapping[str, Any]] = None) -> Any:
        """An optimizer factory for steps(): the port's with `changes`, or class_name's (mindspore.nn) in its place;
        `group`: every parameter in one group with these settings."""
        from migcheck.runners.mindspore_optimizer import rebuilt

        return rebuilt(self._caught(optimizer), class_name, changes, group)

    def _caught(self, optimizer: Any) -> Any:
        from migcheck.runners.mindspore_optimizer import catch_call

        factory = PRESETS[optimizer] if isinstance(optimizer, str) else optimizer
        return catch_call(factory, [p for _, p in self._named if _trainable(p)])

    def lr_per_step(self, optimizer: Any, count: int) -> Tuple[str, List[float]]:
        """(the optimizer's schedule described, the learning rate each of `count` steps uses), read off a fresh
        optimizer on the parameters: runners/mindspore_schedule.py."""
        from migcheck.runners.mindspore_schedule import mindspore_rates

        return mindspore_rates([p for _, p in self._named if _trainable(p)], PRESETS, optimizer, count)

    def steps(self, inputs: Sequence[np.ndarray], dtypes: Sequence[str], objective: Objective,
              loss: Optional[Callable[[], Any]], optimizer: Any, count: int) -> List[Dict[str, Any]]:
        """Train-mode steps through TrainOneStepCell; after each: the loss and every parameter by name."""
        args = [_tensor(x, d) for x, d in zip(inputs, dtypes)]
        params = [p for _, p in self._named if _trainable(p)]
        opt = PRESETS[optimizer](params) if isinstance(optimizer, str) else optimizer(params)
        step = ms.nn.TrainOneStepCell(objective_cell(self._call, objective, loss, loss_float32=self.loss_float32), opt)
        step.set_train(True)
        records = []
        with graph_hint(self.cell, self.mode):
            self._compile(step, args)
            for _ in range(count):
                with scratch_cwd(self.mode):
                    value = step(*args)
                records.append({"loss": to_numpy(value), "state": self.state()})
        return records


def initial_state(factory: Callable[[], Any], seed: int) -> Tuple[List[ParamInfo], Dict[str, np.ndarray]]:
    """A port built with its own default initialization under one seed (mindspore.set_seed; numpy's
    global generator too, put back afterwards): its parameters and their initial values."""
    saved = np.random.get_state()
    try:
        ms.set_seed(seed)
        np.random.seed(seed)
        cell = MindSporeCell(factory, "pynative")
        return cell.params(), cell.state()
    finally:
        np.random.set_state(saved)


def _trainable(p: Any) -> bool:
    """A Parameter that asks for gradients, or a torch-like library's Parameter type (a Tensor subclass) with
    requires_grad=True; a torch-like module's plain Tensor never gets one."""
    return (isinstance(p, ms.Parameter) and bool(p.requires_grad)) or is_foreign_trainable(p)


def _tensor(x: np.ndarray, dtype: str) -> ms.Tensor:
    t = ms.Tensor(np.array(x, copy=True))
    return t.astype(ms.bfloat16) if dtype == "bfloat16" else t


def _vjp(cell: Any, args: Sequence[Any], cot: Sequence[Any], wrt: Sequence[int]) -> Tuple[Any, ...]:
    """Input gradients of `cell` for output cotangents, with respect to the inputs at `wrt` (the others fixed)."""
    held = HeldErrors(cell)
    call = held.function()
    wrt = list(wrt)

    def partial(*chosen: Any) -> Any:
        full = list(args)
        for k, v in zip(wrt, chosen):
            full[k] = v
        return call(*full)

    out, vjp_fn = ms.vjp(partial, *[args[k] for k in wrt])
    held.reraise()
    grads = vjp_fn(cot[0] if isinstance(out, ms.Tensor) else tuple(cot))
    return tuple(to_numpy(g) for g in (grads if isinstance(grads, (tuple, list)) else (grads,)))
