"""The golden store: the torch side's reference, recorded once, read back without torch (numpy + json only).

Layout, one folder per case::

    DIR/<case>/manifest.json     what was recorded, from what, with which versions, and a sha256 per file
    DIR/<case>/<check>.npz       one check's reference: inputs, weights, results, cotangents, oracle

Every ``.npz`` holds plain arrays only (written and read with ``allow_pickle=False``) plus a
``meta`` entry: UTF-8 JSON, as a uint8 array, that names each array and rebuilds the result trees.
Files are written to a temporary name in the same folder and moved into place with ``os.replace``,
so a reader sees the old file or the new one, never half of one.

A golden is used only when its recorded fingerprint equals the case's current one
(``stale-golden`` otherwise) and its bytes hash to the sha256 in the manifest
(``tampered-golden`` otherwise). The sha256 catches corruption and edits, not an adversary
who rewrites the manifest as well: there is no signature.
"""
from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import os
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

# atomic_write(path, write): write(file) on a temporary file next to path, fsynced, then os.replace'd
# into place; on any failure path is left as it was. The reports use the same helper.
from migcheck.util.atomic import atomic_write
from migcheck.runners.base import Objective
from migcheck.runners.base import ParamInfo

FORMAT = "migcheck-golden"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
SEED_SCHEME = ("numpy.random.default_rng(sha256(case name, role, tensor name)) per input, weight and"
               " cotangent (migcheck.util.seeding.rng_for); the drawn values are stored, so reading a golden"
               " never re-draws them")
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed entry times: the same reference gives the same bytes


class GoldenProblem(Exception):
    """A golden that cannot be used; ``kind`` is missing-golden, stale-golden or tampered-golden."""

    def __init__(self, kind: str, message: str) -> None:
        self.kind = kind
        super().__init__(message)


class RecordedSkip(Exception):
    """The torch side could not run this check when it was recorded (e.g. output adapters); the reason."""


# ---- manifest ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TensorEntry:
    role: str  # input, weight, result, oracle, cotangent
    name: str  # 'x', 'fc.weight', 'out[0]', 'grad.param.fc.weight'
    shape: Tuple[int, ...]
    dtype: str


@dataclass(frozen=True)
class CheckEntry:
    check: str
    fingerprint: str
    fingerprint_parts: Mapping[str, str] = field(default_factory=dict)
    file: str = ""  # '<check>.npz'; '' for a recorded skip
    sha256: str = ""
    size: int = 0
    skip: str = ""  # why the torch side could not run this check
    oracle: bool = False  # holds float64 oracle results (error-budget mode)
    oracle_note: str = ""  # why there is no oracle, when there is none
    recorded: str = ""  # ISO 8601 UTC
    torch_version: str = ""
    torch_device: str = ""
    tensors: Tuple[TensorEntry, ...] = ()


@dataclass(frozen=True)
class Manifest:
    case: str
    case_file: str
    case_file_sha256: str
    fingerprint: str  # of the latest recording; each check entry carries its own
    fingerprint_parts: Mapping[str, str]
    recorded_with: Mapping[str, str]  # migcheck, torch, numpy, python versions; torch_device
    seed: Mapping[str, str]
    checks: Mapping[str, CheckEntry]
    format: str = FORMAT
    format_version: int = FORMAT_VERSION


def manifest_to_json(m: Manifest) -> str:
    data = dataclasses.asdict(m)
    data["checks"] = {k: data["checks"][k] for k in sorted(data["checks"])}
    text = json.dumps(data, indent=2, sort_keys=False)
    # Shapes on one line: [\n  2,\n  3\n] -> [2, 3]
    text = re.sub(r"\[\s*((?:-?\d+,\s*)*-?\d+)?\s*\]", lambda m: "[" + ", ".join((m.group(1) or "").replace(",", " ").split()) + "]", text)
    return text + "\n"


def manifest_from_json(text: str) -> Manifest:
    data = json.loads(text)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError("not a migcheck golden manifest")
    if data.get("format_version") != FORMAT_VERSION:
        raise ValueError(f"golden format version {data.get('format_version')!r}; this migcheck reads {FORMAT_VERSION}")
    checks = {}
    if not isinstance(data.get("checks", {}), dict):
        raise ValueError("'checks' is not an object")
    for name, entry in data.get("checks", {}).items():
        if not isinstance(entry, dict):
            raise ValueError(f"checks[{name!r}] is not an object")
        entry = dict(entry)
        entry["tensors"] = tuple(TensorEntry(t["role"], t["name"], tuple(t["shape"]), t["dtype"])
                                 for t in entry.get("tensors", ()))
        known = {f.name for f in dataclasses.fields(CheckEntry)}
        checks[name] = _typed(CheckEntry(**{k: v for k, v in entry.items() if k in known}), f"checks[{name!r}]")
        if checks[name].file and not _plain_file_name(checks[name].file):
            raise ValueError(f"checks[{name!r}].file {checks[name].file!r} is not a file name in the case's folder")
    data["checks"] = checks
    known = {f.name for f in dataclasses.fields(Manifest)}
    return _typed(Manifest(**{k: v for k, v in data.items() if k in known}), "manifest")


def _typed(obj: Any, where: str) -> Any:
    """obj, after checking that its str, bool and int fields (and fingerprint_parts) read from JSON
    have those types.

    A manifest is data from disk: a flipped byte may turn a string into a number or `true` into a
    string. Such a manifest must read as unreadable (tampered-golden), never fail later inside migcheck.
    """
    checks = {"str": lambda v: isinstance(v, str), "bool": lambda v: isinstance(v, bool),
              "int": lambda v: isinstance(v, int) and not isinstance(v, bool)}
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if f.name == "fingerprint_parts":
            ok = isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())
        elif f.type in checks:
            ok = checks[f.type](value)
        else:
            continue
        if not ok:
            raise ValueError(f"{where}.{f.name} is {type(value).__name__} {value!r}, not {f.type}")
    return obj


def _plain_file_name(name: str) -> bool:
    """A bare file name: no folder part, not '.' or '..', nothing that could reach outside DIR/<case>/."""
    return name not in ("", ".", "..") and "/" not in name and "\\" not in name and "\0" not in name


# ---- paths ---------------------------------------------------------------------------------------

def case_dir(root: os.PathLike, case_name: str) -> Path:
    """DIR/<case>; names outside [A-Za-z0-9_.-] get a short hash so they cannot collide or escape."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", case_name).lstrip(".") or "_"
    if safe != case_name:
        safe += "-" + hashlib.sha256(case_name.encode()).hexdigest()[:8]
    return Path(root) / safe


def check_path(root: os.PathLike, case_name: str, check: str) -> Path:
    return case_dir(root, case_name) / f"{check}.npz"


def read_manifest(root: os.PathLike, case_name: str) -> Optional[Manifest]:
    """The case's manifest, None when there is none; ValueError when it cannot be read."""
    path = case_dir(root, case_name) / MANIFEST
    if not path.exists():
        return None
    try:
        return manifest_from_json(path.read_text(encoding="utf-8"))
    except Exception as exc:  # any damage (bad UTF-8, JSON, types) reads as unreadable, never as a crash
        raise ValueError(f"{path}: {type(exc).__name__}: {exc}") from None


def file_sha256(path: os.PathLike) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_manifest(root: os.PathLike, manifest: Manifest) -> Path:
    path = case_dir(root, manifest.case) / MANIFEST
    data = manifest_to_json(manifest).encode("utf-8")
    atomic_write(path, lambda f: f.write(data))
    return path


# ---- encoding a reference ------------------------------------------------------------------------

class _Arrays:
    """Collects arrays under short keys ('a0', 'a1', ...) with a role and a name for the manifest."""

    def __init__(self) -> None:
        self.arrays: List[Tuple[str, np.ndarray]] = []
        self.entries: List[TensorEntry] = []

    def add(self, role: str, name: str, value: Any) -> str:
        arr = value if isinstance(value, np.ndarray) else np.asarray(value)
        key = f"a{len(self.arrays)}"
        self.arrays.append((key, arr))
        self.entries.append(TensorEntry(role, name, tuple(int(d) for d in arr.shape), str(arr.dtype)))
        return key

    def tree(self, role: str, prefix: str, tree: Any) -> Any:
        """A JSON rebuild recipe for a numpy tree; leaves become {'$a': key}."""
        if isinstance(tree, Mapping):
            items = []
            for k, v in tree.items():
                if not isinstance(k, (str, int, float, bool)) and k is not None:
                    raise TypeError(f"{prefix}: dict key {k!r} cannot be stored; use str or int keys")
                items.append([k, self.tree(role, f"{prefix}.{k}" if prefix else str(k), v)])
            return {"$d": items}
        if isinstance(tree, (tuple, list)):
            tag = "$t" if isinstance(tree, tuple) else "$l"
            return {tag: [self.tree(role, f"{prefix}[{i}]", v) for i, v in enumerate(tree)]}
        return {"$a": self.add(role, prefix, tree)}


def encode(fields: Mapping[str, Any]) -> Tuple[List[Tuple[str, np.ndarray]], Dict[str, Any], Tuple[TensorEntry, ...]]:
    """A reference's fields (engine.Reference as a mapping) -> (arrays, meta, tensor entries)."""
    store = _Arrays()
    names = list(fields["input_names"])
    meta: Dict[str, Any] = {
        "format": FORMAT, "format_version": FORMAT_VERSION,
        "input_names": names,
        "input_dtypes": list(fields["input_dtypes"]),
        "inputs": [store.add("input", n, x) for n, x in zip(names, fields["inputs"])],
        "params": [_plain(dataclasses.asdict(p)) for p in fields["params"]],
        "weights": [[n, store.add("weight", n, w)] for n, w in fields["weights"].items()],
        "results": [[n, store.tree("result", n, v)] for n, v in fields["results"].items()],
        "oracle": None if fields.get("oracle") is None else
        [[n, store.tree("oracle", n, v)] for n, v in fields["oracle"].items()],
        "objective": None,
    }
    objective = fields.get("objective")
    if objective is not None:
        obj: Dict[str, Any] = {}
        for f in dataclasses.fields(objective):
            value = getattr(objective, f.name)
            if f.name == "cotangents":
                obj["cotangents"] = [None if c is None else store.add("cotangent", f"cotangent[{i}]", c)
                                     for i, c in enumerate(value)]
            else:
                obj[f.name] = _plain(value)
        meta["objective"] = obj
    return store.arrays, meta, tuple(store.entries)


def write_npz(f: Any, arrays: Sequence[Tuple[str, np.ndarray]], meta: Mapping[str, Any]) -> None:
    """An .npz (a zip of .npy files) with fixed entry times; object arrays are refused, never pickled."""
    with zipfile.ZipFile(f, mode="w", compression=zipfile.ZIP_DEFLATED) as zf:
        meta_bytes = np.frombuffer(json.dumps(meta, sort_keys=True).encode("utf-8"), dtype=np.uint8)
        for key, arr in [("meta", meta_bytes), *arrays]:
            info = zipfile.ZipInfo(f"{key}.npy", date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            with zf.open(info, mode="w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asanyarray(arr), allow_pickle=False)


def decode(npz: Any) -> Dict[str, Any]:
    """The fields of an engine.Reference from a loaded .npz (np.load(..., allow_pickle=False))."""
    meta = json.loads(bytes(npz["meta"]).decode("utf-8"))
    if meta.get("format") != FORMAT or meta.get("format_version") != FORMAT_VERSION:
        raise ValueError(f"not a migcheck golden of format version {FORMAT_VERSION}")

    def arr(key: str) -> np.ndarray:
        return np.array(npz[key], copy=True)

    def tree(node: Any) -> Any:
        if "$a" in node:
            return arr(node["$a"])
        if "$d" in node:
            return {k: tree(v) for k, v in node["$d"]}
        if "$t" in node:
            return tuple(tree(v) for v in node["$t"])
        return [tree(v) for v in node["$l"]]

    param_fields = {f.name for f in dataclasses.fields(ParamInfo)}
    params = tuple(ParamInfo(**{**{k: v for k, v in p.items() if k in param_fields}, "shape": tuple(p["shape"]),
                                "aliases": tuple(p.get("aliases", ())),
                                "owner_extra": tuple(p.get("owner_extra", ()))}) for p in meta["params"])
    objective = None
    if meta["objective"] is not None:
        obj = dict(meta["objective"])
        known = {f.name for f in dataclasses.fields(Objective)}
        kwargs = {k: _tuples(v) for k, v in obj.items() if k in known and k != "cotangents"}
        kwargs["cotangents"] = tuple(None if k is None else arr(k) for k in obj["cotangents"])
        objective = Objective(**kwargs)
    return {
        "inputs": tuple(arr(k) for k in meta["inputs"]),
        "input_names": tuple(meta["input_names"]),
        "input_dtypes": tuple(meta["input_dtypes"]),
        "params": params,
        "weights": {n: arr(k) for n, k in meta["weights"]},
        "results": {n: tree(t) for n, t in meta["results"]},
        "objective": objective,
        "oracle": None if meta["oracle"] is None else {n: tree(t) for n, t in meta["oracle"]},
    }


def _plain(value: Any) -> Any:
    """Tuples to lists, numpy scalars to Python: JSON-ready."""
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, np.generic):
        return value.item()
    return value


def _tuples(value: Any) -> Any:
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


# ---- one check's golden --------------------------------------------------------------------------

def write_check(root: os.PathLike, case_name: str, check: str, fields: Mapping[str, Any]) -> Tuple[Path, str, int, Tuple[TensorEntry, ...]]:
    """Write DIR/<case>/<check>.npz atomically; (path, sha256, size, tensor entries)."""
    arrays, meta, entries = encode(fields)
    meta = {**meta, "check": check, "case": case_name}
    path = check_path(root, case_name, check)
    atomic_write(path, lambda f: write_npz(f, arrays, meta))
    return path, file_sha256(path), path.stat().st_size, entries


@dataclass(frozen=True)
class Loaded:
    fields: Dict[str, Any]  # engine.Reference(**fields)
    entry: CheckEntry
    manifest: Manifest
    path: Path

    @property
    def description(self) -> str:
        return (f"golden {self.path} (torch {self.entry.torch_version or '?'} on {self.entry.torch_device or '?'},"
                f" recorded {self.entry.recorded or '?'})")


def load_check(root: os.PathLike, case_name: str, check: str, fingerprint: str, parts: Mapping[str, str],
               *, need_oracle: bool = False, record_hint: str = "") -> Loaded:
    """The recorded reference for one case and check, verified; GoldenProblem when it cannot be used."""
    hint = record_hint or f"migcheck record -k {case_name} --fixtures {root}"
    folder = case_dir(root, case_name)
    try:
        manifest = read_manifest(root, case_name)
    except ValueError as exc:
        raise GoldenProblem("tampered-golden", f"golden manifest unreadable ({exc}); it is not used."
                                               f" Re-record where torch is installed: {hint} --update") from None
    if manifest is None:
        raise GoldenProblem("missing-golden", f"no golden for {case_name} under {root} (no {folder / MANIFEST});"
                                              f" record it where torch is installed: {hint}")
    entry = manifest.checks.get(check)
    if entry is None:
        raise GoldenProblem("missing-golden", f"no golden for {case_name}[{check}] in {folder / MANIFEST};"
                                              f" record it where torch is installed: {hint} --check {check}")
    if entry.fingerprint != fingerprint:
        from migcheck.golden.fingerprint import changed_parts

        changed = changed_parts(dict(entry.fingerprint_parts), dict(parts)) or ["the fingerprint scheme"]
        raise GoldenProblem("stale-golden", f"golden {folder / (entry.file or MANIFEST)} is stale: the case's"
                                            f" {', '.join(changed)} changed since it was recorded ({entry.recorded});"
                                            f" it is not used. Re-record where torch is installed: {hint} --update")
    if entry.skip:
        raise RecordedSkip(entry.skip)
    path = folder / entry.file
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise GoldenProblem("missing-golden", f"golden {path} is listed in the manifest but cannot be read"
                                              f" ({exc.strerror}); re-record: {hint} --update") from None
    if hashlib.sha256(data).hexdigest() != entry.sha256:
        raise GoldenProblem("tampered-golden", f"golden {path} does not match the sha256 in its manifest (edited,"
                                               f" corrupted or cut short); it is not used. Re-record where torch is"
                                               f" installed: {hint} --update")
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            fields = decode(npz)
    except Exception as exc:  # e.g. object arrays: refused without pickle
        raise GoldenProblem("tampered-golden", f"golden {path} cannot be read without pickle ({type(exc).__name__}:"
                                               f" {exc}); it is not used. Re-record: {hint} --update") from None
    if need_oracle and fields["oracle"] is None:
        why = f" ({entry.oracle_note})" if entry.oracle_note else ""
        raise GoldenProblem("missing-golden", f"golden {path} has no float64 oracle{why}, which error-budget mode"
                                              f" needs; re-record it where torch is installed: {hint} --update")
    return Loaded(fields, entry, manifest, path)
