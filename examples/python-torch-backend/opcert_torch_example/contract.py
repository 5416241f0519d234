"""The checks a query makes before accepting a call: known attributes, dtypes, ranks."""

from typing import Iterable, Mapping, Optional

import torch

FLOATS = (torch.float32, torch.float16, torch.bfloat16)


def unknown_attribute(attrs: Mapping, known: Iterable[str]) -> Optional[str]:
    """The one rule for attributes (docs/ABI.md): a name the op does not define is declined."""
    known = set(known)
    extra = sorted(set(attrs) - known)
    return f"unknown attribute '{extra[0]}' (known: {', '.join(sorted(known)) or 'none'})" if extra else None


def dtype_problem(name: str, tensor, allowed) -> Optional[str]:
    if tensor.dtype not in allowed:
        return f"{name} is {tensor.dtype}; this backend takes {', '.join(str(d) for d in allowed)}"
    return None


def first(*problems: Optional[str]) -> Optional[str]:
    return next((p for p in problems if p), None)
