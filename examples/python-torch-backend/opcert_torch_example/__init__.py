"""An opcert backend written in plain torch ops, on the CPU: the op catalogue (docs/OPS.md)
computed in fp32 and rounded once, each result returned to opcert, which moves it into the
call's outputs after the timed region. Declines what its torch cannot do (fp8 before torch 2.1),
with the reason."""

from opcert_torch_example.backend import backend

__all__ = ["backend"]
