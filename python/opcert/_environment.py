"""The Python environment opcert's bridge sees: the interpreter it embeds (the one whose torch is
opcert's LibTorch), plus the site-packages of the environment you run opcert from, so that
`pip install vendor-ops` there is all it takes (docs/PYTHON.md, "Which Python")."""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
from typing import List, Optional, Tuple

# What the runner learnt of the active environment, handed to its workers through their environment
# so that each does not start the interpreter again to ask (about 0.1 s a worker with a pyenv shim).
_HANDOFF = "OPCERT_PYTHON_ACTIVE_ENVIRONMENT"

_PROBE = ("import json, site, sys; print(json.dumps({'prefix': sys.prefix, 'version': list(sys.version_info[:2]), "
          "'site': site.getsitepackages() + ([site.getusersitepackages()] if site.ENABLE_USER_SITE else [])}))")


def _active_interpreter() -> Optional[Tuple[str, str]]:
    """(interpreter, how it was chosen): OPCERT_PYTHON, else the active virtual environment's,
    else the python3 on PATH."""
    if os.environ.get("OPCERT_PYTHON"):
        return os.environ["OPCERT_PYTHON"], "OPCERT_PYTHON"
    venv = os.environ.get("VIRTUAL_ENV")
    if venv:
        return os.path.join(venv, "bin", "python"), "VIRTUAL_ENV"
    found = shutil.which("python3")
    return (found, "the python3 on PATH") if found else None


def _handed_down(python: str) -> Optional[dict]:
    """The probe's answer for `python` from the process that started this one, if it asked."""
    try:
        info = json.loads(os.environ.get(_HANDOFF, ""))
    except ValueError:
        return None
    return info if isinstance(info, dict) and info.get("interpreter") == python else None


def add_active_environment() -> List[str]:
    """Appends the active environment's site directories to sys.path (after the embedded
    interpreter's own, so that its torch wins). Returns notes for `opcert list`: why an
    environment could not be used."""
    chosen = _active_interpreter()
    if chosen is None:
        return []
    python, how = chosen
    if os.path.abspath(python) == sys.executable:
        return []  # a virtual environment's python links to its base: only its prefix tells them apart
    info = _handed_down(python)
    if info is None:
        try:
            probe = subprocess.run([python, "-c", _PROBE], capture_output=True, text=True, timeout=60, check=True)
            info = json.loads(probe.stdout)
        except (OSError, subprocess.SubprocessError, ValueError) as e:
            return [f"{python} ({how}) cannot be asked for its site-packages: {e}; its packages are not seen"]
        os.environ[_HANDOFF] = json.dumps({"interpreter": python, **info})
    if os.path.realpath(info["prefix"]) == os.path.realpath(sys.prefix):
        return []
    if tuple(info["version"]) != tuple(sys.version_info[:2]):
        mine = "{}.{}".format(*sys.version_info[:2])
        theirs = "{}.{}".format(*info["version"])
        return [f"{python} ({how}) is Python {theirs} but opcert's bridge embeds Python {mine} ({sys.executable}): "
                f"packages installed there are not seen; install them with {sys.executable} -m pip, or rebuild "
                f"opcert with -DOPCERT_PYTHON={python}"]
    for folder in info["site"]:
        if os.path.isdir(folder) and folder not in sys.path:
            site.addsitedir(folder)  # reads its .pth files too: editable installs work
    return []
