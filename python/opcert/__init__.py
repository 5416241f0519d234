"""opcert's Python API: declare a backend whose ops opcert certifies (docs/PYTHON.md).

    import opcert, torch

    backend = opcert.Backend("my_ops", version="1.0", vendor="Me", device="cpu")

    @backend.implementation("softmax", "torch")
    def softmax(inputs, outputs, attrs):
        torch.softmax(inputs["x"], dim=-1, out=outputs["out"])

and in the package's pyproject.toml:

    [project.entry-points."opcert.backends"]
    my_ops = "my_ops_pkg:backend"
"""

from opcert.backend import Backend, Implementation, Unsupported, attribute

__all__ = ["Backend", "Implementation", "Unsupported", "attribute"]
__version__ = "0.1.0"
