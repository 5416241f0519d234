"""Faults the bridge must carry to the verdict unchanged."""

import torch

import opcert

backend = opcert.Backend("mutant_ops", version="0.0.1", device="cpu")


@backend.implementation("softmax", "scaled")
def softmax(inputs, outputs, attrs):
    """torch.softmax, written in place, then five per cent too large"""
    y = torch.softmax(inputs["x"].float(), dim=-1) * 1.05
    outputs["y"].copy_(y.to(outputs["y"].dtype))


@backend.implementation("rms_norm", "raises")
def rms_norm(inputs, outputs, attrs):
    """Raises, as a kernel that rejects its input would"""
    raise ValueError(f"hidden size {inputs['x'].shape[-1]} is not supported by this kernel")


@backend.implementation("gemm", "declines", query=lambda i, o, a: "declines every gemm by design")
def gemm(inputs, outputs, attrs):
    raise AssertionError("never called: the query declines")
