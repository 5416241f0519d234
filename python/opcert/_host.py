"""The Python side of opcert's bridge (backends/python): what the C++ bridge library calls inside
a worker. Not an API for backends; the protocol changes with the bridge it ships with.

Tensors arrive as DLPack capsules that alias opcert's buffers (zero copy) and leave as torch
tensors; a Python exception becomes the ABI error of the call, with its last traceback line."""

from __future__ import annotations

import functools
import importlib
import importlib.metadata as metadata
import os
import platform
import re
from typing import Any, Dict, List, Mapping, Optional, Tuple

from opcert import _dtypes, _environment, _provenance
from opcert.backend import Backend, Unsupported

GROUP = "opcert.backends"
DEVICE_CPU, DEVICE_CUDA = 1, 2  # opcert_device_type
_libtorch_version = ""


def start(libtorch_version: str) -> List[str]:
    """Called once per process. Returns notes on environments that could not be used."""
    global _libtorch_version
    _libtorch_version = libtorch_version
    return _environment.add_active_environment()


@functools.lru_cache(maxsize=None)
def _entry_points() -> Tuple[metadata.EntryPoint, ...]:
    """Read once a process: the runner lists them, then loads each backend it listed."""
    return tuple(metadata.entry_points(group=GROUP))


def list_backends() -> List[Tuple[str, str, str, Optional[str]]]:
    """(name, entry, origin, error) of every entry point in the opcert.backends group."""
    listed = []
    for ep in _entry_points():
        dist = getattr(ep, "dist", None)
        origin = f"python entry point {ep.name} = {ep.value}"
        if dist is not None:
            origin += f" ({dist.metadata['Name']} {dist.version})"
        error = None
        if not re.match(r"^[a-z][a-z0-9_\-]*$", ep.name):
            error = f"entry point name {ep.name!r} is not a backend name (lowercase letters, digits, '_', '-')"
        listed.append((ep.name, ep.value, origin, error))
    return listed


def _release(version: str) -> Tuple[int, ...]:
    """The numeric release of a version string: "1.13.0a0" and "1.13.0" are both (1, 13, 0)."""
    parts = []
    for piece in version.split("+")[0].split(".")[:3]:
        digits = re.match(r"\d+", piece)
        parts.append(int(digits.group()) if digits else 0)
    return tuple(parts)


def _import_torch() -> Any:
    import torch

    if _libtorch_version and _release(torch.__version__) != _release(_libtorch_version):
        raise RuntimeError(
            f"this Python imports torch {torch.__version__} ({os.path.dirname(torch.__file__)}) but opcert is built "
            f"against LibTorch {_libtorch_version}: one process cannot hold both; install the matching torch in "
            f"this Python or rebuild opcert against this one (docs/PYTHON.md)")
    return torch


def _resolve(entry: str) -> Any:
    module, _, attr = entry.partition(":")
    obj = importlib.import_module(module.strip())
    for part in filter(None, attr.strip().split(".")):
        obj = getattr(obj, part)
    return obj


def load(name: str, entry: Optional[str]) -> "HostedBackend":
    """Imports the backend `name` (an entry point of that name, or the manifest's `entry`)."""
    torch = _import_torch()
    # The entry point of this name (and value, when given) says which distribution the code is
    # from; a manifest's module may have none.
    matches = [ep for ep in _entry_points() if ep.name == name and (not entry or ep.value == entry)]
    if not entry and not matches:
        raise LookupError(f"no entry point named {name!r} in group {GROUP!r}")
    dist = getattr(matches[0], "dist", None) if matches else None
    entry = entry or matches[0].value
    obj = _resolve(entry)
    if callable(obj) and not isinstance(obj, Backend):
        obj = obj()
    if not isinstance(obj, Backend):
        raise TypeError(f"{entry} is a {type(obj).__name__}, not an opcert.Backend")
    if obj.name != name:
        raise ValueError(f"{entry} declares backend {obj.name!r} but is registered as {name!r}: the two must agree")
    return HostedBackend(torch, obj, _provenance.describe(entry, dist))


def _devices(torch: Any, kind: str) -> List[Tuple[int, str, int, int]]:
    if kind == "cpu":
        return [(DEVICE_CPU, platform.processor() or platform.machine() or "host", 0, os.cpu_count() or 0)]
    if not torch.cuda.is_available():
        raise RuntimeError("the backend runs on 'cuda' but torch sees no GPU (torch.cuda.is_available() is False)")
    out = []
    for i in range(torch.cuda.device_count()):
        p = torch.cuda.get_device_properties(i)
        out.append((DEVICE_CUDA, p.name, int(p.total_memory), int(p.multi_processor_count)))
    return out


class HostedBackend:
    """One Python backend as the bridge serves it."""

    def __init__(self, torch: Any, backend: Backend, provenance: Tuple[str, str, str]) -> None:
        self.torch = torch
        self.backend = backend
        self.info = (backend.name, backend.version, backend.vendor, backend.description) + provenance
        self.devices = _devices(torch, backend.device)
        self.impls = [(i.key, i.op, i.description) for i in backend.implementations]
        self._blocks: Dict[int, Any] = {}
        self._pending: List[Tuple[Any, Any]] = []
        pinned = os.environ.get("OPCERT_DEVICE")
        if backend.device == "cuda" and pinned:
            torch.cuda.set_device(int(pinned))

    # --- tensors ---------------------------------------------------------------------------------
    def view(self, capsule: Any, dtype: int) -> Any:
        """A torch tensor over a DLPack capsule; fp8 arrives as uint8 and is viewed as such."""
        tensor = self.torch.utils.dlpack.from_dlpack(capsule)
        if dtype in _dtypes.FLOAT8:
            wanted = _dtypes.torch_dtype(self.torch, dtype)
            if wanted is None:
                raise Unsupported(f"torch {self.torch.__version__} has no {_dtypes.name(dtype)}")
            tensor = tensor.view(wanted)
        return tensor

    def _meta(self, spec: Tuple[int, Tuple[int, ...], Tuple[int, ...]]) -> Any:
        dtype, shape, strides = spec
        wanted = _dtypes.torch_dtype(self.torch, dtype)
        if wanted is None:
            raise Unsupported(f"torch {self.torch.__version__} has no {_dtypes.name(dtype)}")
        return self.torch.empty_strided(shape, strides, dtype=wanted, device="meta")

    # --- ops -------------------------------------------------------------------------------------
    def query(self, key: str, inputs: Mapping[str, Any], outputs: Mapping[str, Any],
              attrs: Mapping[str, Any]) -> Optional[str]:
        """None to accept, or the reason to decline. Tensors come as (dtype, shape, strides)."""
        impl = self.backend.find(key)
        try:
            metas_in = {n: self._meta(s) for n, s in inputs.items()}
            metas_out = {n: self._meta(s) for n, s in outputs.items()}
            if impl.query is None:
                return None
            reason = impl.query(metas_in, metas_out, attrs)
        except Unsupported as declined:
            return str(declined) or "declined"
        return None if reason is None else str(reason)

    def run(self, key: str, inputs: Mapping[str, Any], outputs: Mapping[str, Any], attrs: Mapping[str, Any]) -> None:
        self._pending = []
        results = self.backend.find(key).run(inputs, outputs, attrs)
        if results is None:
            return
        for name, value in results.items():
            if name not in outputs:
                raise ValueError(f"{key} returned {name!r}, which is not an output of the call ({', '.join(outputs)})")
            out = outputs[name]
            if tuple(value.shape) != tuple(out.shape) or value.dtype != out.dtype:
                raise ValueError(f"{key} returned {name!r} as {value.dtype} {tuple(value.shape)}; the call's output "
                                 f"is {out.dtype} {tuple(out.shape)}")
            self._pending.append((out, value))

    def publish(self) -> int:
        """Moves results an implementation returned into the call's outputs (never timed)."""
        moved = 0
        for out, value in self._pending:
            out.copy_(value)
            moved += value.numel() * value.element_size()
        self._pending = []
        return moved

    # --- device memory, for a backend on 'cuda' --------------------------------------------------
    def allocate(self, index: int, nbytes: int) -> int:
        block = self.torch.empty(max(nbytes, 1), dtype=self.torch.uint8, device=f"cuda:{index}")
        self._blocks[block.data_ptr()] = block
        return block.data_ptr()

    def free(self, pointer: int) -> None:
        self._blocks.pop(pointer, None)

    def copy(self, dst: Any, src: Any, index: int) -> None:
        dst.copy_(src)
        self.torch.cuda.synchronize(index)

    def synchronize(self, index: int) -> None:
        self.torch.cuda.synchronize(index)

    def event(self, index: int) -> Any:
        with self.torch.cuda.device(index):
            return self.torch.cuda.Event(enable_timing=True)

    @staticmethod
    def record(event: Any) -> None:
        event.record()

    @staticmethod
    def elapsed_ms(start: Any, stop: Any) -> float:
        stop.synchronize()
        return float(start.elapsed_time(stop))
