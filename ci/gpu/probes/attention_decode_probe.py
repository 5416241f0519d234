"""Checks and times cuda.attention.decode (backends/cuda/ops/attention_decode*) against torch's SDPA on
the same tensors, in one process: the backend's own host path and kernels, built from its sources
with nvcc into a shared library (attention_decode_probe.cu is the C entry point).

Usage: cd /work/main && python3 ci/gpu/probes/attention_decode_probe.py [--seconds S] [--warm] [--only RE]

Per shape: the plan (row blocks / KV splits), max |o - ref| of ours and of torch's SDPA against an fp32
reference (bottom-right causal mask, window), lse against logsumexp of the scaled scores, and the guard
bytes around o and lse; then each timed with CUDA events around a CUDA graph of back-to-back calls
(host overhead out of the picture; eager launches when capture fails), replayed for about --seconds
after a warm-up, the median replay. Unless --warm, K and V are rotated over enough copies to exceed
the L2 (what a decode step sees: the KV cache comes from HBM). GB/s counts K + V + Q + O (+ lse) once.
ratio = torch us / ours us (above 1: ours is faster). One failure prints and the rest still run.
torch is called as opcert's torch peer calls it: F.scaled_dot_product_attention on [B, H, S, D] views
of the BSHD tensors with enable_gqa, unmasked for one query row; causal Sq > 1 with causal_lower_right;
window and varlen have no SDPA form (n/a).
"""
import argparse
import ctypes
import itertools
import math
import os
import re
import statistics
import sys
import tempfile
import time
import traceback
import zlib

import torch
import torch.nn.functional as F

from cuda_probe_build import allowed_keys, build_library

SOURCES = [
    "ci/gpu/probes/attention_decode_probe.cu",
    "backends/cuda/ops/attention_decode_bf16.cu",
    "backends/cuda/ops/attention_decode_fp16.cu",
    "backends/cuda/cuda_check.cpp",
]
L2_ROTATE_BYTES = 256 << 20


# ---- build ------------------------------------------------------------------------------------

def ptxas_summary(out):
    """'kernel: registers, spills' lines from ptxas -v output, kernel names shortened."""
    lines, name = [], None
    for line in out.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            mangled = m.group(1)
            cfg = re.search(r"DecodeConfigILi(\d+)ELi(\d+)E", mangled)
            comb = re.search(r"combine_kernelI.*?Li(\d+)E", mangled)
            name = (f"split D{cfg.group(1)} x{cfg.group(2)}" if cfg else f"combine D{comb.group(1)}" if comb
                    else mangled[:40])
        elif name and "registers" in line:
            lines.append(f"{name}: {line.split(':', 1)[1].strip()}")
        elif name and "spill" in line and "0 bytes spill stores, 0 bytes spill loads" not in line:
            lines.append(f"{name}: SPILLS {line.strip()}")
    return lines


def build(out_dir):
    def report(src, out):
        if src.endswith("_bf16.cu"):
            for line in ptxas_summary(out):
                print(f"  ptxas bf16 {line}")
    so = build_library(SOURCES, out_dir, "attention_decode_probe", (), report)
    vp, i32, i64 = ctypes.c_void_p, ctypes.c_int, ctypes.c_int64
    so.decode_probe_run.argtypes = [i32, vp, vp, vp, vp, vp, vp, vp, i32, i32, i32, i32, i32, i32, i64, i64,
                                    ctypes.c_float, i32, i32, i32, vp, ctypes.POINTER(ctypes.c_int)]
    so.decode_probe_run.restype = i32
    so.decode_probe_error.restype = ctypes.c_char_p
    so.decode_probe_ctas_per_sm.argtypes = [i32, i32, i32]
    so.decode_probe_ctas_per_sm.restype = i32
    return so


# ---- cases ------------------------------------------------------------------------------------

class Case:
    def __init__(self, name, b=1, sq=1, skv=8192, hq=32, hkv=8, d=128, dtype=torch.bfloat16, causal=True, window=-1,
                 lse=False, seqlens_q=None, seqlens_k=None, timed=True, sweep=False):
        self.name, self.b, self.sq, self.skv, self.hq, self.hkv, self.d = name, b, sq, skv, hq, hkv, d
        self.dtype, self.causal, self.window, self.lse = dtype, causal, window, lse
        self.seqlens_q, self.seqlens_k, self.timed, self.sweep = seqlens_q, seqlens_k, timed, sweep
        self.varlen = seqlens_q is not None
        if self.varlen:
            self.b = len(seqlens_q)
        self.scale = 1.0 / math.sqrt(d)


LLAMA_VARLEN_K = [8192, 37, 2048, 513, 4096, 1, 7000, 128, 300, 8191, 1024, 65, 3000, 16, 6000, 257]
CASES = [
    Case("llama3-8b.decode.b1", b=1, sweep=True),
    Case("llama3-8b.decode.b4", b=4, sweep=True),
    Case("llama3-8b.decode.b16", b=16),
    Case("llama3-8b.decode.b64", b=64),
    Case("llama3-8b.decode.b16.fp16", b=16, dtype=torch.float16),
    Case("llama3-8b.decode.b4.lse", b=4, lse=True, timed=False),
    Case("d64.b8.hq32.hkv8.skv4096", b=8, skv=4096, d=64),
    Case("d256.b4.hq16.hkv4.skv2048", b=4, skv=2048, hq=16, hkv=4, d=256),
    Case("mqa.b8.hq32.hkv1.skv4096", b=8, skv=4096, hkv=1),
    Case("mha.b8.hq32.hkv32.skv4096", b=8, skv=4096, hkv=32),
    Case("skv8191.b4 (not a tile multiple)", b=4, skv=8191, lse=True),
    Case("skv1000.b2.d64", b=2, skv=1000, d=64, lse=True, timed=False),
    Case("skv17.b2", b=2, skv=17, lse=True, timed=False),
    Case("skv1.b2", b=2, skv=1, lse=True, timed=False),
    Case("skv0.b2 (no key: o 0, lse -inf)", b=2, skv=0, lse=True, timed=False),
    Case("noncausal.b4.skv4096", b=4, skv=4096, causal=False),
    Case("causal.sq4.b4.skv4096 (speculative)", b=4, sq=4, skv=4096, lse=True),
    Case("causal.sq16.b2.skv2048 (64 rows)", b=2, sq=16, skv=2048, lse=True),
    Case("causal.sq8.b2.skv5 (rows without keys)", b=2, sq=8, skv=5, lse=True, timed=False),
    Case("window1024.b4.skv8192", b=4, skv=8192, window=1024, lse=True),
    Case("window3.causal.sq4.skv100", b=2, sq=4, skv=100, window=3, lse=True, timed=False),
    Case("llama3-8b.decode.varlen16", seqlens_q=[1] * 16, seqlens_k=LLAMA_VARLEN_K, lse=True),
    Case("varlen.rows>tile (40·4 rows, empty k)", seqlens_q=[1, 40, 0, 3, 2], seqlens_k=[100, 300, 50, 0, 70],
         hq=8, hkv=2, lse=True, timed=False),
    Case("varlen.window.fp16", seqlens_q=[2, 1, 5], seqlens_k=[700, 1, 64], hq=16, hkv=4, d=64, window=40,
         dtype=torch.float16, lse=True, timed=False),
]


def reference_bshd(q, k, v, c):
    """fp32 attention (docs/OPS.md): q [B,Sq,Hq,D], k/v [B,Skv,Hkv,D] -> o [B,Sq,Hq,D], lse [B,Hq,Sq]. The
    query heads of a KV head are taken together (no repeat of K and V)."""
    b, sq, hq, d = q.shape
    skv, hkv = k.shape[1], k.shape[2]
    g = hq // hkv
    o = torch.zeros(b, sq, hq, d, device=q.device)
    lse = torch.full((b, hq, sq), float("-inf"), device=q.device)
    if skv == 0 or sq == 0:
        return o, lse
    ok = allowed_keys(sq, skv, c.causal, c.window, q.device).repeat(g, 1)  # rows (g, i)
    step = max(1, (256 << 20) // max(1, hkv * skv * d * 8))
    for b0 in range(0, b, step):
        b1 = min(b, b0 + step)
        qf = q[b0:b1].float().reshape(b1 - b0, sq, hkv, g, d).permute(0, 2, 3, 1, 4).reshape(b1 - b0, hkv, g * sq, d)
        kf = k[b0:b1].float().permute(0, 2, 1, 3)
        vf = v[b0:b1].float().permute(0, 2, 1, 3)
        s = torch.matmul(qf, kf.transpose(-1, -2)) * c.scale
        s = s.masked_fill(~ok, float("-inf"))
        lse_g = torch.logsumexp(s, -1)  # [b, hkv, g*sq]
        p = torch.softmax(s, -1).nan_to_num(0.0)
        og = torch.matmul(p, vf)  # [b, hkv, g*sq, d]
        o[b0:b1] = og.reshape(b1 - b0, hkv, g, sq, d).permute(0, 3, 1, 2, 4).reshape(b1 - b0, sq, hq, d)
        lse[b0:b1] = lse_g.reshape(b1 - b0, hkv, g, sq).reshape(b1 - b0, hq, sq)
    return o, lse


def reference(t, c):
    if not c.varlen:
        return reference_bshd(t["q"], t["k"], t["v"], c)
    o = torch.zeros(t["q"].shape, device="cuda")
    lse = torch.full((c.hq, t["q"].shape[0]), float("-inf"), device="cuda")
    q0 = k0 = 0
    for sq, skv in zip(c.seqlens_q, c.seqlens_k):
        ob, lb = reference_bshd(t["q"][q0:q0 + sq].unsqueeze(0), t["k"][k0:k0 + skv].unsqueeze(0),
                                t["v"][k0:k0 + skv].unsqueeze(0), c)
        o[q0:q0 + sq] = ob[0]
        lse[:, q0:q0 + sq] = lb[0]
        q0, k0 = q0 + sq, k0 + skv
    return o, lse


GUARD = 4096  # elements of guard before and after o and lse


def guarded(shape, dtype, fill):
    n = math.prod(shape)
    buf = torch.full((n + 2 * GUARD,), fill, dtype=dtype, device="cuda")
    return buf, buf[GUARD:GUARD + n].view(shape)


def make_tensors(c):
    torch.manual_seed(zlib.crc32(c.name.encode()))
    if c.varlen:
        tq, tk = sum(c.seqlens_q), sum(c.seqlens_k)
        qshape, kshape = (tq, c.hq, c.d), (tk, c.hkv, c.d)
        cu = lambda lens: torch.tensor([0, *itertools.accumulate(lens)], dtype=torch.int32, device="cuda")
        extra = {"cu_q": cu(c.seqlens_q), "cu_k": cu(c.seqlens_k)}
        lse_shape = (c.hq, tq)
    else:
        qshape, kshape = (c.b, c.sq, c.hq, c.d), (c.b, c.skv, c.hkv, c.d)
        extra = {"cu_q": None, "cu_k": None}
        lse_shape = (c.b, c.hq, c.sq)
    t = {"q": torch.randn(qshape, device="cuda", dtype=c.dtype), "k": torch.randn(kshape, device="cuda", dtype=c.dtype),
         "v": torch.randn(kshape, device="cuda", dtype=c.dtype), **extra}
    t["o_buf"], t["o"] = guarded(qshape, c.dtype, 7.0)
    t["lse_buf"], t["lse"] = guarded(lse_shape, torch.float32, 7.0) if c.lse else (None, None)
    return t


def ptr(x):
    return ctypes.c_void_p(x.data_ptr() if x is not None else 0)


def run_ours(lib, c, t, k=None, v=None, splits=0):
    plan = (ctypes.c_int * 2)()
    q = t["q"]
    tq = q.shape[0] if c.varlen else c.b * c.sq
    tk = t["k"].shape[0] if c.varlen else c.b * c.skv
    rc = lib.decode_probe_run(int(c.dtype == torch.float16), ptr(q), ptr(t["k"] if k is None else k),
                              ptr(t["v"] if v is None else v), ptr(t["o"]), ptr(t["lse"]), ptr(t["cu_q"]),
                              ptr(t["cu_k"]), c.b, c.hq, c.hkv, c.d, 0 if c.varlen else c.sq,
                              0 if c.varlen else c.skv, tq, tk, ctypes.c_float(c.scale), int(c.causal), c.window, splits,
                              ctypes.c_void_p(torch.cuda.current_stream().cuda_stream), plan)
    if rc != 0:
        raise RuntimeError("decode_probe_run: " + lib.decode_probe_error().decode())
    return plan[0], plan[1]


def sdpa_fn(c, t):
    """torch's SDPA as opcert's torch peer calls it, or None where it has no form for the case."""
    if c.varlen or c.window >= 0 or c.skv == 0:
        return None
    qv, kv_, vv = (x.permute(0, 2, 1, 3) for x in (t["q"], t["k"], t["v"]))
    gqa = c.hq != c.hkv
    if c.causal and c.sq > 1 and c.sq != c.skv:
        from torch.nn.attention.bias import causal_lower_right
        mask = causal_lower_right(c.sq, c.skv)
        return lambda k=kv_, v=vv: F.scaled_dot_product_attention(qv, k, v, attn_mask=mask, scale=c.scale,
                                                                   enable_gqa=gqa)
    causal = c.causal and c.sq > 1
    return lambda k=kv_, v=vv: F.scaled_dot_product_attention(qv, k, v, is_causal=causal, scale=c.scale,
                                                               enable_gqa=gqa)


# ---- checks -----------------------------------------------------------------------------------

def errors(c, t, ref_o, ref_lse):
    """(max |o - ref|, max |lse - ref| over finite entries, problems as text)."""
    problems = []
    o = t["o"].float()
    err = (o - ref_o).abs().max().item() if o.numel() else 0.0
    if math.isnan(err) or bool(o.isnan().any()):
        problems.append("NaN in o")
    ob = t["o_buf"]
    if not bool((ob[:GUARD] == 7.0).all()) or not bool((ob[GUARD + o.numel():] == 7.0).all()):
        problems.append("o's guard bytes changed")
    lse_err = 0.0
    if c.lse:
        lse = t["lse"]
        inf_ours, inf_ref = lse == float("-inf"), ref_lse == float("-inf")
        if bool((inf_ours != inf_ref).any()):
            problems.append(f"lse -inf at {int((inf_ours != inf_ref).sum())} wrong places")
        fin = ~inf_ref & ~inf_ours
        if bool(fin.any()):
            lse_err = (lse[fin] - ref_lse[fin]).abs().max().item()
        if bool(lse.isnan().any()):
            problems.append("NaN in lse")
        lb = t["lse_buf"]
        if not bool((lb[:GUARD] == 7.0).all()) or not bool((lb[GUARD + lse.numel():] == 7.0).all()):
            problems.append("lse's guard bytes changed")
    return err, lse_err, problems


def tolerance(c, ref_o):
    eps = 2.0 ** -8 if c.dtype == torch.bfloat16 else 2.0 ** -11
    return 4 * eps * max(1.0, ref_o.abs().max().item() if ref_o.numel() else 1.0)


# ---- timing -----------------------------------------------------------------------------------

def timed_us(call, copies, seconds):
    """Median microseconds per call: a CUDA graph of back-to-back calls cycling over the K/V copies,
    replayed for about `seconds` (eager launches when capture fails). Returns (us, how)."""
    for i in range(3):  # warm-up (and one-time setup: attributes, workspace) outside the graph
        call(*copies[i % len(copies)])
    torch.cuda.synchronize()
    per_graph = max(len(copies), 20)
    how = "graph"
    try:
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for i in range(2):
                call(*copies[i % len(copies)])
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for i in range(per_graph):
                call(*copies[i % len(copies)])
        replay = graph.replay
    except Exception as e:  # capture failed: time eager launches (host overhead included)
        how = f"eager ({type(e).__name__})"
        torch.cuda.synchronize()

        def replay():
            for i in range(per_graph):
                call(*copies[i % len(copies)])
    replay()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    replay()
    end.record()
    end.synchronize()
    one = max(start.elapsed_time(end) / 1e3, 1e-6)
    reps = max(1, int(0.01 / one))  # each sample ~10 ms
    samples, t_end = [], time.perf_counter() + seconds
    while time.perf_counter() < t_end or len(samples) < 5:
        start.record()
        for _ in range(reps):
            replay()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) * 1e3 / (reps * per_graph))
    return statistics.median(samples), how


def kv_copies(c, t, warm):
    kv_bytes = 2 * t["k"].numel() * t["k"].element_size()
    n = 1 if warm else max(1, min(8, -(-L2_ROTATE_BYTES // max(kv_bytes, 1))))
    return [(t["k"], t["v"])] + [(t["k"].clone(), t["v"].clone()) for _ in range(n - 1)]


def moved_bytes(c, t):
    n = t["q"].numel() + t["k"].numel() + t["v"].numel() + t["o"].numel()
    return n * t["q"].element_size() + (t["lse"].numel() * 4 if c.lse else 0)


def is_sticky(e):
    """A CUDA error after which the context is unusable."""
    return any(w in str(e) for w in ("illegal", "misaligned", "unspecified launch failure", "an exception"))


def timing(lib, c, t, args):
    """' | torch .. us  ours .. us  ratio ..  GB/s ..' for the case."""
    copies = kv_copies(c, t, args.warm)
    nbytes = moved_bytes(c, t)
    ours_us, how = timed_us(lambda k, v: run_ours(lib, c, t, k, v), copies, args.seconds)
    sdpa = t.get("sdpa")
    if sdpa is not None:
        torch_us, how_t = timed_us(lambda k, v: sdpa(k.permute(0, 2, 1, 3), v.permute(0, 2, 1, 3)), copies,
                                   args.seconds)
        out = (f" | torch {torch_us:8.1f} us  ours {ours_us:8.1f} us  ratio {torch_us / ours_us:5.2f}x"
               f"  GB/s torch {nbytes / torch_us / 1e3:6.0f} ours {nbytes / ours_us / 1e3:6.0f}")
        if how_t != "graph":
            out += f" [torch {how_t}]"
    else:
        out = f" | torch      n/a    ours {ours_us:8.1f} us               GB/s ours {nbytes / ours_us / 1e3:6.0f}"
    if how != "graph":
        out += f" [ours {how}]"
    if len(copies) > 1:
        out += f" [K/V x{len(copies)}]"
    return out


# ---- main -------------------------------------------------------------------------------------

def run_case(lib, c, args):
    t = make_tensors(c)
    rows_blocks, splits = run_ours(lib, c, t)
    torch.cuda.synchronize()
    ref_o, ref_lse = reference(t, c)
    err, lse_err, problems = errors(c, t, ref_o, ref_lse)
    tol = tolerance(c, ref_o)
    if err > tol:
        problems.append(f"max |o - ref| {err:.2e} above {tol:.2e}")
    if lse_err > 1e-3:
        problems.append(f"max |lse - ref| {lse_err:.2e} above 1e-3")
    torch_err = None
    try:
        sdpa = sdpa_fn(c, t)
        if sdpa is not None:
            so = sdpa().permute(0, 2, 1, 3)
            torch_err = (so.float() - ref_o).abs().max().item()
    except Exception as e:  # torch without this form: the case is timed without it
        print(f"    torch SDPA failed: {type(e).__name__}: {(str(e).splitlines() or [''])[0][:120]}")
        sdpa = None
    t["sdpa"] = sdpa
    status = "PASS" if not problems else "FAIL"
    shape = (f"{'varlen ' if c.varlen else ''}B{c.b} Sq{c.sq if not c.varlen else '*'} Skv{c.skv if not c.varlen else '*'} "
             f"H{c.hq}/{c.hkv} D{c.d} {str(c.dtype)[6:]}{' causal' if c.causal else ''}"
             f"{f' w{c.window}' if c.window >= 0 else ''}{' lse' if c.lse else ''}")
    line = (f"{status} {c.name:38s} {shape:44s} plan x{rows_blocks}/{splits:<3d} err {err:.1e}"
            f"{f' (torch {torch_err:.1e})' if torch_err is not None else ''}{f' lse {lse_err:.1e}' if c.lse else ''}")
    if c.timed and not args.only_check:
        try:
            line += timing(lib, c, t, args)
        except Exception as e:  # the check above still prints; a sticky CUDA error stops the run
            if is_sticky(e):
                raise
            line += f" | timing failed: {type(e).__name__}: {str(e)[:160]}"
    if problems:
        line += "\n    " + "; ".join(problems)
    print(line, flush=True)
    if c.sweep and not args.only_check:
        parts = []
        for s in sorted({1, 2, 4, 8, 16, 32, 64, splits}):
            t["o"].fill_(7.0)
            run_ours(lib, c, t, splits=s)
            torch.cuda.synchronize()
            e = (t["o"].float() - ref_o).abs().max().item()
            us, _ = timed_us(lambda k, v: run_ours(lib, c, t, k, v, splits=s), kv_copies(c, t, args.warm),
                             min(args.seconds, 0.3))
            parts.append(f"{s}:{us:.1f}us{'' if e <= tol else f'(ERR {e:.1e})'}")
        print(f"    splits sweep {c.name}: " + "  ".join(parts), flush=True)
    return not problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=0.8, help="timed replays per measurement (default 0.8 s)")
    ap.add_argument("--warm", action="store_true", help="no K/V rotation: the L2 keeps what fits")
    ap.add_argument("--only", default="", help="regex: only the cases whose name matches")
    ap.add_argument("--only-check", action="store_true", help="correctness only, no timing")
    ap.add_argument("--out", default="", help="build folder (default: a temporary one)")
    args = ap.parse_args()
    t0 = time.time()
    out = args.out or tempfile.mkdtemp(prefix="attention_decode_probe.")
    os.makedirs(out, exist_ok=True)
    lib = build(out)
    props = torch.cuda.get_device_properties(0)
    print(f"built in {time.time() - t0:.0f} s; {props.name}, {props.multi_processor_count} SMs; torch {torch.__version__}; "
          f"CTAs/SM of the split kernel (bf16, D128 x1/x2/x4): "
          f"{[lib.decode_probe_ctas_per_sm(0, 128, r) for r in (1, 2, 4)]}", flush=True)
    fails = 0
    for c in CASES:
        if args.only and not re.search(args.only, c.name):
            continue
        try:
            fails += not run_case(lib, c, args)
        except Exception as e:  # one failure prints and the rest still run
            fails += 1
            print(f"FAIL {c.name}: {type(e).__name__}: {e}", flush=True)
            traceback.print_exc(limit=2)
            if is_sticky(e):
                print("a sticky CUDA error: the context is unusable, stopping", flush=True)
                break
        torch.cuda.empty_cache()
    print(f"{fails} failed; {time.time() - t0:.0f} s in all", flush=True)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
