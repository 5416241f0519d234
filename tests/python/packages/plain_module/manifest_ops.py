"""A backend in a bare module (no distribution), announced by a plugin manifest's "python" field."""

import torch

import opcert

backend = opcert.Backend("manifest_ops", version="0.0.2", device="cpu")


@backend.implementation("softmax", "torch")
def softmax(inputs, outputs, attrs):
    """torch.softmax in fp32"""
    return {"y": torch.softmax(inputs["x"].float(), dim=-1).to(outputs["y"].dtype)}
