"""The backend object: rms_norm and softmax through the Triton kernels of kernels.py, writing
straight into opcert's output buffers (the tensors alias them)."""

import torch
import triton

import opcert
from opcert_triton_example.kernels import MAX_BLOCK, rms_norm_kernel, softmax_kernel

backend = opcert.Backend("triton_example", version="0.1.0", vendor="opcert examples",
                         description=f"Triton {triton.__version__} kernels for rms_norm and softmax "
                                     "(examples/python-triton-backend)",
                         device="cuda")

FLOATS = (torch.float32, torch.float16, torch.bfloat16)
CHUNK = 4096  # the block a row longer than MAX_BLOCK is walked in


def _launch_shape(n):
    """(BLOCK, ONE_BLOCK, num_warps) for rows of n elements."""
    block = triton.next_power_of_2(max(n, 1))
    if block > MAX_BLOCK:
        return CHUNK, False, 8
    return block, True, min(max(block // 256, 1), 16)


def _query(known):
    def query(inputs, outputs, attrs):
        extra = sorted(set(attrs) - set(known))
        if extra:
            return f"unknown attribute '{extra[0]}' (known: {', '.join(sorted(known)) or 'none'})"
        x = inputs["x"]
        if x.dtype not in FLOATS:
            return f"x is {x.dtype}; these kernels take float32, float16 and bfloat16"
        if not x.is_contiguous():
            return "x must be contiguous"
        if "bias" in inputs:
            return "rms_norm has no bias (docs/OPS.md): declined rather than computed without it"
        return None

    return query


@backend.implementation("rms_norm", "triton", query=_query({"eps"}))
def rms_norm(inputs, outputs, attrs):
    """One program per token, fp32 sums, the residual sum rounded once"""
    x, y = inputs["x"], outputs["y"]
    tokens, h = x.shape
    if tokens == 0 or h == 0:
        return
    residual, weight = inputs.get("residual"), inputs.get("weight")
    block, one_block, warps = _launch_shape(h)
    rms_norm_kernel[(tokens,)](x, residual if residual is not None else x, weight if weight is not None else x, y,
                               outputs.get("residual_out", y), h, float(attrs.get("eps", 1e-6)),
                               HAS_RESIDUAL=residual is not None, HAS_WEIGHT=weight is not None, BLOCK=block,
                               ONE_BLOCK=one_block, num_warps=warps)


@backend.implementation("softmax", "triton", query=_query(()))
def softmax(inputs, outputs, attrs):
    """One program per row, in registers up to 8192 columns, online beyond"""
    x, y = inputs["x"], outputs["y"]
    n = x.shape[-1]
    if x.numel() == 0:
        return
    block, one_block, warps = _launch_shape(n)
    softmax_kernel[(x.numel() // n,)](x, y, n, BLOCK=block, ONE_BLOCK=one_block, num_warps=warps)
