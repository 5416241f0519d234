"""An opcert backend with Triton kernels for rms_norm and softmax, on every GPU torch sees.
Importing it needs Triton; a machine without it lists the backend as unavailable with the
ImportError, and every other backend runs."""

from opcert_triton_example.backend import backend

__all__ = ["backend"]
