"""Backends that end the process at import, one module each (see pyproject.toml)."""
