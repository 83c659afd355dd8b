"""The PyTorch reference side: build, load numpy weights, run, and hand back numpy trees."""
from __future__ import annotations

import functools
import os
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np
import torch

from migcheck.runners.base import Gradients, LazyObjective, Objective
from migcheck.runners.base import ParamInfo
from migcheck.runners.lineage import extra_children, library_base
from migcheck.runners.torch_layer_dtype import CastToLayerDtype
from migcheck.precision import Precision, layer_dtypes, unmatched
from migcheck.util.calls import keyword_names, split_call
from migcheck.util.tree import contiguous, flatten, record_fields
from migcheck.runners.torch_numpy import as_numpy

# Optimizer presets: torch's own hyper-parameter names; mindspore_side holds the paired port.
PRESETS: Mapping[str, Callable[[List[torch.nn.Parameter]], torch.optim.Optimizer]] = {
    "sgd": lambda params: torch.optim.SGD(params, lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-4),
    "adam": lambda params: torch.optim.Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8),
    "adamw": lambda params: torch.optim.AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2),
}


class TorchSideError(TypeError):
    pass


DEVICES = ("cpu", "cuda", "auto")


def versions() -> Dict[str, str]:
    return {"torch": torch.__version__, "cuda": str(torch.version.cuda or "")}


def device_unavailable(device: str) -> Optional[str]:
    """None when the reference can run on this torch device here, else the reason (public APIs only)."""
    if device in ("cpu", "auto"):
        return None
    if device != "cuda":
        return f"unknown torch device {device!r}; use one of {', '.join(DEVICES)}"
    if not torch.backends.cuda.is_built():
        return "torch CUDA is not available: this torch build has no CUDA support; use --torch-device cpu (or auto)"
    if not torch.cuda.is_available():
        return "torch CUDA is not available on this machine (torch.cuda.is_available() is False); use --torch-device cpu (or auto)"
    return None


def set_threads(count: int) -> None:
    """Intra-op threads for torch's CPU kernels (pytest-xdist workers: cores / workers, see pytest_plugin)."""
    torch.set_num_threads(count)


def resolve_device(device: str) -> str:
    """'auto' -> 'cuda' when torch sees a GPU, else 'cpu'."""
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return device


_CUDA_READY: Dict[str, bool] = {}


def _prepare_cuda() -> None:
    """Reference numerics on CUDA: no TF32 (it rounds float32 matmul/conv inputs to 10 mantissa bits),
    deterministic algorithms where torch has them (warn, not fail, where it has none)."""
    if _CUDA_READY:
        return
    # cuBLAS needs a fixed workspace for deterministic results; read when its handle is created.
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = False
    torch.use_deterministic_algorithms(True, warn_only=True)
    _CUDA_READY["done"] = True


def to_numpy(tree: Any) -> Any:
    if isinstance(tree, torch.Tensor):
        return as_numpy(tree)
    fields = record_fields(tree)  # model-output objects (dataclass, namedtuple, dict-like): by field name
    if fields is not None:
        return {k: to_numpy(v) for k, v in fields}
    if isinstance(tree, (tuple, list)):
        return [to_numpy(v) for v in tree]
    if isinstance(tree, (bool, int, float, np.ndarray, np.generic)):
        return np.asarray(tree)
    raise TorchSideError(f"torch module returned a {type(tree).__name__}; return tensors, numbers or tuples/lists/dicts of them")


def _placeholders(tree: Any) -> Any:
    """A numpy tree with the outputs' structure, shapes and dtypes but no data (zero-stride views)."""
    if isinstance(tree, torch.Tensor):
        dtype = np.float32 if tree.dtype == torch.bfloat16 else torch.empty((), dtype=tree.dtype).numpy().dtype
        return np.broadcast_to(np.zeros((), dtype), tuple(tree.shape))
    fields = record_fields(tree)
    if fields is not None:
        return {k: _placeholders(v) for k, v in fields}
    if isinstance(tree, (tuple, list)):
        return [_placeholders(v) for v in tree]
    return to_numpy(tree)


def _dtype_name(t: torch.Tensor) -> str:
    return "bfloat16" if t.dtype == torch.bfloat16 else str(t.dtype).replace("torch.", "")


def initial_state(factory: Callable[[], Any], seed: int) -> Tuple[List[ParamInfo], Dict[str, np.ndarray]]:
    """A module built with its own default initialization under one seed (torch's and numpy's global
    generators, both put back afterwards): its parameters and their initial values."""
    saved = np.random.get_state()
    try:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            np.random.seed(seed)
            module = TorchModule(factory)
            return module.params(), module.state()
    finally:
        np.random.set_state(saved)


class TorchModule:
    def __init__(self, factory: Callable[[], Any], device: str = "cpu", input_names: Sequence[str] = ()) -> None:
        if device == "cuda":
            _prepare_cuda()
        module = factory()
        if not isinstance(module, torch.nn.Module):
            raise TorchSideError(f"the torch factory returned {type(module).__name__}, not a torch.nn.Module")
        self.device = torch.device(device)
        self.module = module.to(self.device)
        # Network inputs passed by keyword when forward names them all (migcheck.util.calls).
        self.keywords = keyword_names(module.forward, input_names, f"the torch {type(module).__name__}.forward")
        self.float64 = False
        self._cast: Optional[CastToLayerDtype] = None  # set by set_precision
        self._loss_float32 = False

    def set_precision(self, precision: Precision) -> None:
        """Compute as MindSpore's Cell.to_float does in GRAPH mode (migcheck.precision): parameters stay
        float32; each layer's inputs are cast to its dtype on entry and its parameters where ops use them."""
        layers = [(name, type(m).__name__) for name, m in self.module.named_modules()]
        missing = unmatched(precision, [cls for _, cls in layers])
        if missing:
            raise TorchSideError(f"keep_float32 {missing} matches no layer of the torch module (its classes:"
                                 f" {', '.join(sorted({cls for _, cls in layers}))}); name layer classes such as 'BatchNorm'")
        dtypes = {path: getattr(torch, d) for path, d in layer_dtypes(layers, precision).items()}
        self._cast = cast = CastToLayerDtype({id(b) for b in self.module.buffers()})
        for path, m in self.module.named_modules():
            m.register_forward_pre_hook(functools.partial(cast.enter, dtypes[path]))
            m.register_forward_hook(cast.leave, always_call=True)
        self._loss_float32 = precision.loss_float32

    def _run(self, args: Sequence[torch.Tensor]) -> Any:
        positional, keywords = split_call(args, self.keywords)
        if self._cast is None:
            return self.module(*positional, **keywords)
        with self._cast:
            return self.module(*positional, **keywords)

    def to_float64(self) -> None:
        """The error-budget oracle: every float parameter and buffer, input, cotangent and loss in float64."""
        self.module.double()
        self.float64 = True

    def params(self) -> List[ParamInfo]:
        """Parameters and persistent buffers, in state_dict order."""
        owners = {name: type(m).__name__ for name, m in self.module.named_modules()}
        lineage = {name: _lineage(m) for name, m in self.module.named_modules()}
        trainable = {name: p.requires_grad for name, p in self.module.named_parameters()}
        first = self._first_names()
        out = []
        for name, value in self.module.state_dict(keep_vars=True).items():
            if name in first:
                continue
            owner = name.rpartition(".")[0]
            out.append(ParamInfo(name=name, shape=tuple(value.shape), dtype=_dtype_name(value),
                                 owner_kind=owners.get(owner, "?"), trainable=trainable.get(name, False),
                                 is_buffer=name not in trainable,
                                 aliases=tuple(alias for alias, primary in first.items() if primary == name),
                                 owner_base=lineage.get(owner, ("", ()))[0], owner_extra=lineage.get(owner, ("", ()))[1]))
        return out

    def _first_names(self) -> Dict[str, str]:
        """alias -> first name, for state_dict entries that are one tensor listed under several names."""
        seen: Dict[int, str] = {}
        out: Dict[str, str] = {}
        for name, value in self.module.state_dict(keep_vars=True).items():
            out.update({name: seen[id(value)]} if id(value) in seen else {})
            seen.setdefault(id(value), name)
        return out

    def load(self, weights: Mapping[str, np.ndarray]) -> None:
        state = self.module.state_dict()
        first = self._first_names()
        new = {name: torch.from_numpy(contiguous(weights[first.get(name, name)])).to(state[name].dtype)
               for name in state}
        self.module.load_state_dict(new, strict=True)

    def forward(self, inputs: Sequence[np.ndarray], dtypes: Sequence[str], *, train: bool = False) -> Any:
        self.module.train(train)
        args = self._args(inputs, dtypes)
        with torch.no_grad():
            return to_numpy(self._run(args))

    def capture(self, inputs: Sequence[np.ndarray], dtypes: Sequence[str], *, train: bool = False) -> List[Any]:
        """One forward with a hook on every sub-module: their tensor inputs and outputs, in completion order."""
        from migcheck.runners.hooks import hook_recorder

        calls: List[Any] = []
        is_tensor = lambda a: isinstance(a, torch.Tensor)  # noqa: E731
        handles = [m.register_forward_hook(hook_recorder(calls, name, is_tensor, to_numpy, TorchSideError))
                   for name, m in self.module.named_modules()]
        try:
            self.forward(inputs, dtypes, train=train)
        finally:
            for h in handles:
                h.remove()
        return calls

    def capture_with_ops(self, inputs: Sequence[np.ndarray], dtypes: Sequence[str], *, train: bool = False
                         ) -> Tuple[List[Any], List[Any]]:
        """capture(), each call with its span on an op counter, and the functional ops every module's own
        forward made on that counter (what runs between two sub-modules): runners/torch_capture.py."""
        from migcheck.runners.torch_capture import capture_with_ops

        self.traced_with = (list(inputs), list(dtypes), train)
        self.kept_also: set = set()  # modules keep_ops_of added to this capture's trace
        return capture_with_ops(self, inputs, dtypes, train=train)

    def keep_ops_of(self, names: Sequence[str]) -> None:
        """The last capture_with_ops forward run again keeping the calls of `names` too (torch.nn's own layers'
        calls are not kept otherwise); op numbers stay as they were, the weights as loaded."""
        from migcheck.runners.torch_capture import capture_with_ops

        kept = getattr(self, "kept_also", set())
        if set(names) <= kept:  # the last capture already kept them: no second forward
            return
        inputs, dtypes, train = self.traced_with
        state = {k: v.clone() for k, v in self.module.state_dict().items()}
        try:
            capture_with_ops(self, inputs, dtypes, train=train, keep=sorted(kept | set(names)))
            self.kept_also = kept | set(names)
        finally:
            self.module.load_state_dict(state)

    def has_parameters(self, name: str) -> bool:
        module = self.module.get_submodule(name) if name else self.module
        return any(True for _ in module.parameters())

    def run_class(self, class_name: str, kwargs: Mapping[str, Any], inputs: Sequence[np.ndarray]) -> Any:
        """A fresh torch.nn.<class_name>(**kwargs) run on given inputs (parameterless layers: what the port's class
        computes)."""
        layer = getattr(torch.nn, class_name)(**kwargs).eval()
        with torch.no_grad():
            return to_numpy(layer(*[torch.from_numpy(contiguous(x)) for x in inputs]))

    def constructor(self, name: str) -> Any:
        """The sub-module's class and constructor arguments as it holds them (runners/torch_args.py)."""
        from migcheck.runners.torch_args import constructor

        return constructor(self.module.get_submodule(name) if name else self.module)

    def parameter_shapes_built_with(self, name: str, changes: Dict[str, Any]) -> Dict[str, Tuple[int, ...]]:
        from migcheck.runners.torch_args import parameter_shapes_built_with
        return parameter_shapes_built_with(self.module.get_submodule(name) if name else self.module, changes)

    def tensor_method(self, name: str) -> bool:
        """Whether torch.Tensor has `name` as a method (what a port calling it like torch expects)."""
        return callable(getattr(torch.Tensor, name, None))

    def input_names(self, name: str) -> Tuple[str, ...]:
        """The sub-module's forward parameters, in order (what its inputs are called)."""
        import inspect

        forward = (self.module.get_submodule(name) if name else self.module).forward
        return tuple(p.name for p in inspect.signature(forward).parameters.values()
                     if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))

    def op_records(self, owner: str, inline: Sequence[str] = ()) -> List[Any]:
        from migcheck.runners.torch_ops import records

        return records(self, owner, inline)

    def rerun_op(self, owner: str, index: int, inputs: Sequence[np.ndarray]) -> List[np.ndarray]:
        """One recorded call of `owner`'s own forward (its OpRecord index) run again on other tensors, its plain
        arguments as recorded: torch's op fed edge values (localization/edge_probes.py)."""
        from migcheck.runners.torch_ops import rerun

        return rerun(self, owner, index, inputs)

    def config(self, name: str) -> Tuple[str, Dict[str, Any]]:
        from migcheck.runners.hooks import plain_config

        module = self.module.get_submodule(name) if name else self.module
        return type(module).__name__, plain_config(module)

    def rerun_patched(self, name: str, inputs: Sequence[np.ndarray], patch: Mapping[str, Any],
                      pads: Optional[Sequence[Tuple[int, int]]] = None, train: bool = False,
                      float64: bool = False) -> Any:
        """A copy of one sub-module with some attributes set to other values, run on given inputs.

        pads: explicit (before, after) pads per spatial dim applied to the input first (the
        sub-module's own padding then set to 0): how asymmetric MindSpore 'same' padding is reproduced.
        """
        import copy

        module = copy.deepcopy(self.module.get_submodule(name) if name else self.module)
        for key, value in patch.items():
            current = getattr(module, key)
            setattr(module, key, type(current)(value) if isinstance(current, (tuple, list)) and isinstance(value, (tuple, list)) else value)
        args = [torch.from_numpy(contiguous(x)) for x in inputs]
        if float64:  # the layer's own float32 error, measured against a float64 run of the same computation
            module = module.double()
            args = [a.double() if a.is_floating_point() else a for a in args]
        if pads is not None:
            fill = float("-inf") if "MaxPool" in type(module).__name__ else 0.0
            flat = [v for before, after in reversed(list(pads)) for v in (before, after)]
            args[0] = torch.nn.functional.pad(args[0], flat, value=fill)
            module.padding = 0 if isinstance(module.padding, (int, str)) else tuple(0 for _ in module.padding)
        module.train(train)
        with torch.no_grad():
            return to_numpy(module(*args))

    def state(self) -> Dict[str, np.ndarray]:
        first = self._first_names()
        return {name: to_numpy(v) for name, v in self.module.state_dict().items() if name not in first}

    def gradients(self, inputs: Sequence[np.ndarray], dtypes: Sequence[str], objective: Objective,
                  loss: Optional[Callable[[], Any]], *, train: bool = False) -> Gradients:
        """d(objective)/d(each float input) by position and d/d(each trainable parameter) by name.
        train: in train mode, as a step computes them (BatchNorm on batch statistics)."""
        self.module.train(train)
        args = self._args(inputs, dtypes)
        for a in args:
            if a.is_floating_point():
                a.requires_grad_(True)
        value, objective = self._objective(args, objective, self._loss(loss))
        wrt_inputs = [i for i, a in enumerate(args) if a.requires_grad]
        params = [(n, p) for n, p in self.module.named_parameters() if p.requires_grad]
        grads = torch.autograd.grad(value, [args[i] for i in wrt_inputs] + [p for _, p in params], allow_unused=True)
        # Unused inputs get no gradient from autograd; MindSpore returns zeros for them.
        dense = [to_numpy(g) if g is not None else np.zeros(tuple(t.shape), _np_dtype(t))
                 for g, t in zip(grads, [args[i] for i in wrt_inputs] + [p for _, p in params])]
        input_grads = dict(zip(wrt_inputs, dense[:len(wrt_inputs)]))
        return Gradients(input_grads, {n: g for (n, _), g in zip(params, dense[len(wrt_inputs):])}, objective)

    def capture_backward(self, inputs: Sequence[np.ndarray], dtypes: Sequence[str], objective: Objective,
                         loss: Optional[Callable[[], Any]]) -> Dict[str, Tuple[Tuple[Any, ...], Tuple[Any, ...]]]:
        """name -> (grad_output, grad_input) of every sub-module called once: runners/torch_capture.py."""
        from migcheck.runners.torch_capture import capture_backward

        return capture_backward(self, inputs, dtypes, objective, loss)

    def optimizer_groups(self, optimizer: Any) -> Tuple[str, Dict[str, Dict[str, Any]]]:
        """(optimizer class, parameter name -> its group's hyperparameters) of the optimizer a step builds."""
        named = [(n, p) for n, p in self.module.named_parameters() if p.requires_grad]
        opt = PRESETS[optimizer]([p for _, p in named]) if isinstance(optimizer, str) else optimizer([p for _, p in named])
        group_of = {id(p): g for g in opt.param_groups for p in g["params"]}
        plain = (bool, int, float, tuple)
        return type(opt).__name__, {n: {k: v for k, v in group_of[id(p)].items() if isinstance(v, plain)}
                                    for n, p in named if id(p) in group_of}

    def steps(self, inputs: Sequence[np.ndarray], dtypes: Sequence[str], objective: Objective,
              loss: Optional[Callable[[], Any]], optimizer: Any, count: int, *, schedule: Optional[Callable] = None,
              lrs: Optional[Sequence[float]] = None) -> List[Dict[str, Any]]:
        """Train-mode steps; after each: the loss, every parameter and every buffer, by torch name.
        schedule: the case's lr_schedule, stepped after each step; lrs: a learning rate per step instead
        (a counterfactual re-run with another side's rates)."""
        self.module.train(True)
        args = self._args(inputs, dtypes)
        params = [p for p in self.module.parameters() if p.requires_grad]
        opt = PRESETS[optimizer](params) if isinstance(optimizer, str) else optimizer(params)
        scheduler = schedule(opt) if schedule is not None and lrs is None else None
        loss_fn = self._loss(loss)
        records = []
        for k in range(count):
            if lrs is not None:
                for group in opt.param_groups:
                    group["lr"] = float(lrs[k])
            opt.zero_grad()
            value, _ = self._objective(args, objective, loss_fn)
            value.backward()
            opt.step()
            if scheduler is not None:
                scheduler.step()
            records.append({"loss": to_numpy(value), "state": self.state()})
        return records

    def _objective(self, args: List[torch.Tensor], objective: Any, loss_fn: Any) -> Tuple[torch.Tensor, Objective]:
        """The scalar to differentiate, and the objective it was built from."""
        out = self._run(args[:objective.n_net_inputs])
        if isinstance(objective, LazyObjective):  # cotangents shaped by this very pass: no extra forward
            objective = objective.build(_placeholders(out))
        if loss_fn is not None:
            if self._loss_float32:
                out = _float32_leaves(out)
            return loss_fn(out, *args[objective.n_net_inputs:]), objective
        total = torch.zeros((), dtype=torch.float64 if self.float64 else torch.float32, device=self.device)
        for (_, leaf), cot in zip(flatten(out), objective.cotangents):
            if cot is not None:
                c = torch.from_numpy(cot).to(self.device)
                total = total + (leaf * (c.double() if self.float64 else c)).sum()
        return total, objective

    def _args(self, inputs: Sequence[np.ndarray], dtypes: Sequence[str]) -> List[torch.Tensor]:
        if self.float64:  # the oracle: float inputs widened exactly, integers and booleans as they are
            return [_tensor(x, d).to(self.device, torch.float64 if np.issubdtype(np.asarray(x).dtype, np.floating) else None)
                    for x, d in zip(inputs, dtypes)]
        return [_tensor(x, d).to(self.device) for x, d in zip(inputs, dtypes)]

    def _loss(self, loss: Optional[Callable[[], Any]]) -> Any:
        if loss is None:
            return None
        fn = loss()
        if isinstance(fn, torch.nn.Module):  # class weights and other buffers follow the network
            fn = fn.to(self.device, torch.float64) if self.float64 else fn.to(self.device)
        return fn


def _np_dtype(t: torch.Tensor) -> str:
    return "float32" if t.dtype == torch.bfloat16 else _dtype_name(t)


def _tensor(x: np.ndarray, dtype: str) -> torch.Tensor:
    t = torch.from_numpy(np.array(x, copy=True))
    return t.to(torch.bfloat16) if dtype == "bfloat16" else t


def _float32_leaves(tree: Any) -> Any:
    if isinstance(tree, torch.Tensor):
        return tree.float() if tree.is_floating_point() else tree
    if isinstance(tree, (tuple, list)):
        return type(tree)(_float32_leaves(t) for t in tree)
    if isinstance(tree, Mapping):
        return {k: _float32_leaves(v) for k, v in tree.items()}
    return tree


def _lineage(module: torch.nn.Module) -> Tuple[str, Tuple[str, ...]]:
    """The nearest torch.nn layer class in the module's MRO, and the children a subclass of it adds."""
    base = library_base(module, ("torch.nn.",))
    return base, extra_children(module, base, (n for n, _ in module.named_children()))
