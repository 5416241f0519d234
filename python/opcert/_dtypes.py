"""opcert's dtype codes (backend_abi.h's opcert_dtype) as torch dtypes."""

from __future__ import annotations

from typing import Any, Optional

# Values are part of the ABI: opcert_dtype in backend_abi.h.
F64, F32, F16, BF16, F8_E4M3FN, F8_E5M2, I8, I32 = 1, 2, 3, 4, 5, 6, 7, 8
FLOAT8 = {F8_E4M3FN: "float8_e4m3fn", F8_E5M2: "float8_e5m2"}
_NAMES = {F64: "float64", F32: "float32", F16: "float16", BF16: "bfloat16", I8: "int8", I32: "int32", **FLOAT8}


def torch_dtype(torch: Any, code: int) -> Optional[Any]:
    """The torch dtype of an opcert dtype code, or None when this torch has none (fp8 before 2.1)."""
    name = _NAMES.get(code)
    return getattr(torch, name, None) if name else None


def name(code: int) -> str:
    return _NAMES.get(code, f"dtype {code}")
