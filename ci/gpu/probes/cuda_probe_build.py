"""What attention_ws_probe.py and attention_decode_probe.py share: building a probe's shared library
from the repository's CUDA sources (each with nvcc for sm_90a, in parallel, ptxas's report kept) and
loading it with ctypes, so that both time the backend's own kernel sources; and the attention mask
their references use."""
import ctypes
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def build_library(sources, out_dir, name, libs=(), ptxas_report=None):
    """Compiles `sources` (paths from the repository root) into out_dir/lib<name>.so and loads it.
    ptxas_report(src, output) is called with each compile's output (-v), for the lines worth printing."""
    lib = os.path.join(out_dir, f"lib{name}.so")
    objs, procs = [], []
    for src in sources:
        obj = os.path.join(out_dir, os.path.basename(src) + ".o")
        objs.append(obj)
        cmd = ["nvcc", "-arch=sm_90a", "-O3", "-std=c++20", "-Xcompiler", "-fPIC", "--ptxas-options=-v",
               "-I", os.path.join(ROOT, "backends/cuda"), "-I", os.path.join(ROOT, "backends/sdk/include"),
               "-c", os.path.join(ROOT, src), "-o", obj]
        procs.append((src, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)))
    for src, proc in procs:
        out = proc.communicate()[0]
        if proc.returncode != 0:
            sys.exit(f"build of {src} failed:\n{out}")
        if ptxas_report:
            ptxas_report(src, out)
    subprocess.run(["nvcc", "-shared", "-o", lib, *objs, *libs], check=True)
    return ctypes.CDLL(lib)


def allowed_keys(sq, skv, causal, window, device):
    """[Sq, Skv] True where a query may see a key: the bottom-right causal mask and the window."""
    import torch  # (only the probes, which run on the GPU machine, have torch)

    i = torch.arange(sq, device=device).unsqueeze(1) + (skv - sq)
    j = torch.arange(skv, device=device).unsqueeze(0)
    ok = torch.ones(sq, skv, dtype=torch.bool, device=device)
    if causal:
        ok &= j <= i
    if window >= 0:
        ok &= j >= i - window
    return ok
