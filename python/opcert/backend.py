"""The registration API of a Python backend: its name, devices and implementations.

A backend is an ``opcert.Backend`` object that a package exposes through the ``opcert.backends``
entry-point group (docs/PYTHON.md). opcert's Python bridge imports it inside a worker process and
calls its implementations with the call's tensors as torch tensors that alias opcert's buffers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, List, Mapping, Optional

Tensors = Mapping[str, Any]  # operand name -> torch.Tensor
Attributes = Mapping[str, Any]  # attribute name -> int, float, str or tuple of ints

#: An implementation: writes its results into ``outputs`` (and returns None), or returns a dict
#: of freshly computed tensors by output name, which opcert moves into the outputs after the
#: timed region (the ABI's publish_outputs), so that a library that returns new tensors is timed
#: for its own work only.
RunFunction = Callable[[Tensors, Tensors, Attributes], Optional[Mapping[str, Any]]]

#: A query: None to accept the call, or a one-line reason to decline it (reported as SKIPPED).
#: Its tensors live on the meta device: shapes, strides and dtypes, no data.
QueryFunction = Callable[[Tensors, Tensors, Attributes], Optional[str]]

_NAME = re.compile(r"^[a-z][a-z0-9_\-]*$")
_DEVICES = ("cpu", "cuda")


class Unsupported(Exception):
    """Raised by an implementation to decline a call it cannot do; opcert reports it as
    UNSUPPORTED with the message, never as a failure of the backend."""


@dataclass
class Implementation:
    """One implementation of a catalogue op (docs/OPS.md): key ``<backend>.<op>.<variant>``."""

    key: str
    op: str
    run: RunFunction
    description: str = ""
    query: Optional[QueryFunction] = None


@dataclass
class Backend:
    """A compute backend written in Python.

    name: short lowercase identifier, unique among the backends opcert loads (the entry point's
    name must be the same). device: "cpu" (one host device) or "cuda" (every GPU torch sees).
    """

    name: str
    version: str = "0"
    vendor: str = ""
    description: str = ""
    device: str = "cpu"
    implementations: List[Implementation] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise ValueError(f"backend name {self.name!r} must be lowercase letters, digits, '_' or '-'")
        if self.device not in _DEVICES:
            raise ValueError(f"backend {self.name!r}: device must be one of {_DEVICES}, not {self.device!r}")

    def add(self, op: str, variant: str, run: RunFunction, *, description: str = "",
            query: Optional[QueryFunction] = None) -> Implementation:
        """Registers ``run`` as implementation ``<name>.<op>.<variant>``."""
        key = f"{self.name}.{op}.{variant}"
        if any(i.key == key for i in self.implementations):
            raise ValueError(f"implementation {key!r} is registered twice")
        impl = Implementation(key, op, run, description, query)
        self.implementations.append(impl)
        return impl

    def implementation(self, op: str, variant: str, *, description: str = "",
                       query: Optional[QueryFunction] = None) -> Callable[[RunFunction], RunFunction]:
        """Decorator form of :meth:`add`."""

        def register(run: RunFunction) -> RunFunction:
            self.add(op, variant, run, description=description or (run.__doc__ or "").strip().split("\n")[0],
                     query=query)
            return run

        return register

    def find(self, key: str) -> Implementation:
        for impl in self.implementations:
            if impl.key == key:
                return impl
        raise KeyError(key)


def attribute(attrs: Attributes, name: str, default: Any = None) -> Any:
    """An attribute's value, or ``default`` when the call does not carry it."""
    return attrs.get(name, default)


