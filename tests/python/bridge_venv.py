"""What the bridge's end-to-end tests share: a virtual environment on the embedded interpreter
(the one running the test) with packages pip-installed into it from their folders, with no index,
and opcert run in it as a user would run it."""

import os
import subprocess
import sys
import unittest
from pathlib import Path

OPCERT = os.environ.get("OPCERT_BINARY", "")
SOURCE = Path(os.environ.get("OPCERT_SOURCE_DIR", Path(__file__).resolve().parents[2]))
PACKAGES = Path(__file__).resolve().parent / "packages"


def make_venv(root: Path, packages) -> Path:
    """A venv under `root` that sees the embedded interpreter's torch, with `packages` installed;
    SkipTest when this Python has no pip (Debian: python3-pip)."""
    if subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode != 0:
        raise unittest.SkipTest(f"{sys.executable} has no pip (Debian: python3-pip)")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)], check=True)
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install",
                              "--no-deps", "--no-index", *map(str, packages)], capture_output=True, text=True)
    if install.returncode != 0:
        raise AssertionError(f"pip install failed:\n{install.stdout}\n{install.stderr}")
    return venv


def run_opcert(venv: Path, *args, env=None):
    """opcert with `args`, in `venv` activated (VIRTUAL_ENV), PYTHONPATH cleared unless `env` sets it."""
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    environment.update({"VIRTUAL_ENV": str(venv), **(env or {})})
    return subprocess.run([OPCERT, *args], capture_output=True, text=True, env=environment, timeout=900)
