"""Which package a Python backend's code comes from, and a digest of its files: recorded in reports
where a plugin library's SHA-256 is (docs/PYTHON.md, "Provenance")."""

from __future__ import annotations

import hashlib
import importlib.metadata as metadata
import importlib.util
import os
from pathlib import Path
from typing import Iterable, List, Optional, Tuple

# The files of a distribution's metadata that decide what runs; the rest (INSTALLER, RECORD,
# direct_url.json) differ between two installs of the same code.
_METADATA_FILES = ("METADATA", "entry_points.txt")


def _module_files(module: str) -> List[Path]:
    """Every file of the top-level package (or the single module) that `module` belongs to."""
    spec = importlib.util.find_spec(module.split(".")[0])
    if spec is None:
        return []
    if spec.submodule_search_locations:  # a package, a namespace package (no origin) included
        files = []
        for root in spec.submodule_search_locations:
            for folder, dirs, names in os.walk(root):
                dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                files += [Path(folder) / n for n in sorted(names) if not n.endswith((".pyc", ".pyo"))]
        return files
    return [] if spec.origin in (None, "built-in", "frozen") else [Path(spec.origin)]


def _file_hash(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "unreadable"


def _digest(entries: Iterable[Tuple[str, str]]) -> str:
    """SHA-256 over "<label>\0<sha256 of its content>\n" lines, sorted by label."""
    total = hashlib.sha256()
    for label, content in sorted(entries):
        total.update(f"{label}\0{content}\n".encode())
    return total.hexdigest()


def describe(entry: str, dist: Optional[metadata.Distribution]) -> Tuple[str, str, str]:
    """(package name, version, SHA-256 over its files) for the backend at `entry` ("module:attr").

    The files are those of the module's top-level package as imported (so an editable install is
    hashed from its source tree) plus the distribution's METADATA and entry_points.txt."""
    module = entry.split(":")[0]
    top = module.split(".")[0]
    if dist is None:
        names = metadata.packages_distributions().get(top, [])
        dist = metadata.distribution(names[0]) if names else None
    code = _module_files(module)
    root = os.path.commonpath([str(p.parent) for p in code]) if code else ""
    entries: List[Tuple[str, str]] = [(os.path.relpath(p, root), _file_hash(p)) for p in code]
    if dist is None:
        return top, "", _digest(entries)
    for name in _METADATA_FILES:
        text = dist.read_text(name)
        if text is not None:
            entries.append((f"dist-info/{name}", hashlib.sha256(text.encode()).hexdigest()))
    return dist.metadata["Name"], dist.version, _digest(entries)
