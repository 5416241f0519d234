"""A PEP 517 build backend with no requirements, so that `pip install ./python` and
`pip install ./examples/<backend>` work offline: pip's isolated build would otherwise fetch
setuptools from an index (docs/PYTHON.md, "Installing").

It builds a pure-Python wheel from pyproject.toml's [project] table (name, version, description,
requires-python, dependencies, entry-points) and the packages beside it (folders holding
__init__.py, this one excepted), and an editable wheel (PEP 660) that puts the project folder on
sys.path with a .pth file. Projects point at it with
    [build-system]
    requires = []
    build-backend = "opcert_build_backend"
    backend-path = ["build_backend"]
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import tomllib
import zipfile
from pathlib import Path
from typing import Dict, List, Optional, Tuple

_HERE = Path(__file__).resolve().parent


def _project() -> Dict:
    with open("pyproject.toml", "rb") as f:
        project = tomllib.load(f).get("project", {})
    for key in ("name", "version"):
        if key not in project:
            raise ValueError(f"pyproject.toml: [project] needs '{key}'")
    return project


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _metadata(project: Dict) -> str:
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {project['version']}"]
    if "description" in project:
        lines.append(f"Summary: {project['description']}")
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    lines += [f"Requires-Dist: {d}" for d in project.get("dependencies", [])]
    return "\n".join(lines) + "\n"


def _entry_points(project: Dict) -> str:
    text = ""
    for group, entries in project.get("entry-points", {}).items():
        text += f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()) + "\n"
    for group, key in (("console_scripts", "scripts"), ("gui_scripts", "gui-scripts")):
        if project.get(key):
            text += f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in project[key].items()) + "\n"
    return text


def _packages() -> List[Path]:
    return sorted(p for p in Path(".").iterdir()
                  if p.is_dir() and (p / "__init__.py").is_file() and p.resolve() != _HERE)


def _package_files() -> List[Tuple[str, bytes]]:
    files = []
    for package in _packages():
        for folder, dirs, names in os.walk(package):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(names):
                if not name.endswith((".pyc", ".pyo")):
                    path = Path(folder) / name
                    files.append((path.as_posix(), path.read_bytes()))
    return files


def _write_wheel(directory: str, files: List[Tuple[str, bytes]], tag: str = "py3-none-any") -> str:
    project = _project()
    dist = f"{_normalized(project['name'])}-{project['version']}"
    info = f"{dist}.dist-info"
    files = files + [(f"{info}/METADATA", _metadata(project).encode()),
                     (f"{info}/WHEEL", f"Wheel-Version: 1.0\nGenerator: opcert_build_backend\n"
                                       f"Root-Is-Purelib: true\nTag: {tag}\n".encode())]
    entry_points = _entry_points(project)
    if entry_points:
        files.append((f"{info}/entry_points.txt", entry_points.encode()))
    record = ""
    for path, data in files:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record += f"{path},sha256={digest},{len(data)}\n"
    record += f"{info}/RECORD,,\n"
    name = f"{dist}-{tag}.whl"
    with zipfile.ZipFile(os.path.join(directory, name), "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, data in files + [(f"{info}/RECORD", record.encode())]:
            wheel.writestr(zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0)), data)
    return name


def get_requires_for_build_wheel(config_settings: Optional[Dict] = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: Optional[Dict] = None) -> List[str]:
    return []


def build_wheel(wheel_directory: str, config_settings: Optional[Dict] = None,
                metadata_directory: Optional[str] = None) -> str:
    return _write_wheel(wheel_directory, _package_files())


def build_editable(wheel_directory: str, config_settings: Optional[Dict] = None,
                   metadata_directory: Optional[str] = None) -> str:
    pth = f"{_normalized(_project()['name'])}_editable.pth"
    return _write_wheel(wheel_directory, [(pth, (str(Path('.').resolve()) + "\n").encode())])
