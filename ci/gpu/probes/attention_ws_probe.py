"""Checks and times the CUDA backend's Hopper attention kernels against torch's SDPA, in one process
on the same tensors: cuda.attention.warpspec (the warp-specialized kernel), cuda.attention.wgmma,
and torch.nn.functional.scaled_dot_product_attention called as opcert's torch peer calls it
(on [B, H, S, D] views of the BSHD tensors, enable_gqa for GQA).

Usage: python3 ci/gpu/probes/attention_ws_probe.py [--quick]   (builds the library with nvcc)
Timing: CUDA events around a loop of about --seconds (default 1 s, sustained clocks) after a warm-up;
the median of --reps loops; TFLOP/s counted as 4·B·H·Sq·Skv·D, halved when causal (Sq == Skv).
"""
import argparse
import ctypes
import math
import os
import sys
import time

import torch
import torch.nn.functional as F

from cuda_probe_build import allowed_keys, build_library

SOURCES = [
    "ci/gpu/probes/attention_ws_probe.cu",
    "backends/cuda/ops/attention_ws_bf16.cu",
    "backends/cuda/ops/attention_ws_fp16.cu",
    "backends/cuda/ops/attention_ws_fp8.cu",
    "backends/cuda/ops/attention_wgmma_bf16.cu",
    "backends/cuda/ops/attention_wgmma_fp16.cu",
    "backends/cuda/ops/tensor_map.cpp",
    "backends/cuda/cuda_check.cpp",
]


def build(out_dir):
    def report(src, out):
        if "attention_ws" in src:
            for line in out.splitlines():
                if "registers" in line or "spill" in line:
                    print(f"  ptxas {os.path.basename(src)}: {line.strip()}")
    return build_library(SOURCES, out_dir, "attention_probe", ["-lcublasLt"], report)


KERNELS = {"warpspec": 0, "wgmma": 1, "ws_cfg1": 2, "ws_cfg2": 3, "warpspec_fp8": 4, "ws_headwalk": 5, "ws_persist": 6}
SCRATCH = {}


def scratch(nbytes):
    buf = SCRATCH.get("buf")
    if buf is None or buf.numel() < nbytes:
        buf = torch.empty(max(nbytes, 1 << 20), dtype=torch.uint8, device="cuda")
        SCRATCH["buf"] = buf
    return buf


def run_kernel(lib, which, q, k, v, o, lse, causal, window, scale, descales=(None, None, None)):
    b, sq, hq, d = q.shape
    skv, hkv = k.shape[1], k.shape[2]
    buf = scratch(b * hkv * d * ((skv + 31) // 32 * 32)) if which == "warpspec_fp8" else scratch(0)
    ptr = lambda t: ctypes.c_void_p(t.data_ptr() if t is not None else 0)
    rc = lib.probe_attention(
        KERNELS[which], int(q.dtype == torch.bfloat16), ctypes.c_void_p(q.data_ptr()), ctypes.c_void_p(k.data_ptr()),
        ctypes.c_void_p(v.data_ptr()), ctypes.c_void_p(o.data_ptr()),
        ctypes.c_void_p(lse.data_ptr() if lse is not None else 0), b, sq, skv, hq, hkv, d, int(causal), window,
        ctypes.c_float(scale), ctypes.c_void_p(torch.cuda.current_stream().cuda_stream), *(ptr(x) for x in descales),
        ctypes.c_void_p(buf.data_ptr()), ctypes.c_size_t(buf.numel()))
    if rc != 0:
        raise RuntimeError(f"{which} launch failed")


def scores_and_values(q, k, v, scale):
    """fp32 scores q·kᵀ·scale [B, H, Sq, Skv] (scale a number or a [B, H, 1, 1] tensor), unmasked, and
    v as [B, H, Skv, D]; BSHD inputs, each KV head repeated for its query heads."""
    g = q.shape[2] // k.shape[2]
    qf = q.float().permute(0, 2, 1, 3)
    kf = k.float().permute(0, 2, 1, 3).repeat_interleave(g, 1)
    vf = v.float().permute(0, 2, 1, 3).repeat_interleave(g, 1)
    return torch.matmul(qf, kf.transpose(-1, -2)) * scale, vf


def reference(q, k, v, causal, window, scale):
    """fp32 attention with the bottom-right causal mask and the window; o [B,Sq,H,D], lse [B,H,Sq]."""
    sq, skv = q.shape[1], k.shape[1]
    s, vf = scores_and_values(q, k, v, scale)
    ok = allowed_keys(sq, skv, causal, window, q.device)
    s = s.masked_fill(~ok, float("-inf"))
    lse = torch.logsumexp(s, -1)
    p = torch.softmax(s, -1).nan_to_num(0.0)
    o = torch.matmul(p, vf).permute(0, 2, 1, 3)
    return o, lse


def quantize_e4m3(x, group=1):
    """e4m3 codes of x [B, S, H, D] and their descales [B, H / group] (amax / 448 over each batch
    entry and group of `group` heads: one factor per KV head, as the op takes them)."""
    b, s, h, d = x.shape
    amax = x.float().reshape(b, s, h // group, group, d).abs().amax(dim=(1, 3, 4)).clamp(min=1e-6)
    descale = amax / 448.0
    codes = (x.float() / descale.repeat_interleave(group, 1)[:, None, :, None]).to(torch.float8_e4m3fn)
    return codes, descale.contiguous()


def fp8_emulation(q, k, v, causal, window, scale, qd, kd, vd):
    """The fp8 kernel's arithmetic in torch: exact e4m3 products in fp32, p shifted into [0, 2^8]
    and rounded to e4m3 for p·v, l from the unrounded p, v's descale on o."""
    sq, skv = q.shape[1], k.shape[1]
    g = q.shape[2] // k.shape[2]
    s, vf = scores_and_values(q, k, v, (qd * kd).repeat_interleave(g, 1)[:, :, None, None] * scale)
    ok = allowed_keys(sq, skv, causal, window, q.device)
    s = s.masked_fill(~ok, float("-inf"))
    m = s.amax(-1, keepdim=True).nan_to_num(0.0, neginf=0.0)
    p = torch.exp(s - m) * 256.0
    l = p.sum(-1, keepdim=True)
    p8 = p.to(torch.float8_e4m3fn).float()
    o = (torch.matmul(p8, vf) / l).nan_to_num(0.0) * vd.repeat_interleave(g, 1)[:, :, None, None]
    return o.permute(0, 2, 1, 3)


def small_integer_codes(shape, descale, heads):
    """Codes in {-2, ..., 2}: every product and every partial sum of S is exact in any accumulator
    of 8 bits or more, which separates the kernel's logic from fp8 MMA accumulation precision."""
    codes = torch.randint(-2, 3, shape, device="cuda").float().to(torch.float8_e4m3fn)
    return codes, torch.full((shape[0], heads), descale, device="cuda")


def check_fp8(lib, b, sq, skv, hq, hkv, d, causal, window, with_lse, integers=False, zero_k=False):
    """zero_k: k's descale 0 for every other (batch entry, KV head) group, an all-zero K block's
    factor: the kernel folds it into the scores, not the exponent (fold_scores)."""
    torch.manual_seed(b * 5 + sq + skv + hq + d)
    if integers:
        q, qd = small_integer_codes((b, sq, hq, d), 0.5, hkv)
        k, kd = small_integer_codes((b, skv, hkv, d), 0.25, hkv)
        v, vd = small_integer_codes((b, skv, hkv, d), 0.5, hkv)
    else:
        q, qd = quantize_e4m3(torch.randn(b, sq, hq, d, device="cuda") * 3, hq // hkv)
        k, kd = quantize_e4m3(torch.randn(b, skv, hkv, d, device="cuda"))
        v, vd = quantize_e4m3(torch.randn(b, skv, hkv, d, device="cuda") * 2)
    if zero_k:
        kd = kd.clone()
        kd.view(-1)[::2] = 0.0
    g = hq // hkv
    o = torch.full((b, sq, hq, d), float("nan"), device="cuda", dtype=torch.bfloat16)
    lse = torch.full((b, hq, sq), float("nan"), device="cuda") if with_lse else None
    scale = 1.0 / math.sqrt(d)
    run_kernel(lib, "warpspec_fp8", q, k, v, o, lse, causal, window, scale, (qd, kd, vd))
    torch.cuda.synchronize()
    deq = lambda x, s: (x.float() * s[:, None, :, None])
    ro, rlse = reference(deq(q, qd.repeat_interleave(g, 1)), deq(k, kd), deq(v, vd), causal, window, scale)
    eo = fp8_emulation(q, k, v, causal, window, scale, qd, kd, vd)
    err = (o.float() - ro).abs().max().item()
    emu = (o.float() - eo).abs().max().item()
    mag = ro.abs().max().item()
    lse_err = (lse - rlse).abs().nan_to_num(0.0, posinf=1e9).max().item() if with_lse else 0.0
    # Bounds in the form of docs/TOLERANCES.md's fp8 row, with max|s| and max|o| for its per-element
    # condition and magnitude: the fp8 tensor cores keep ~14 accumulator bits (2^-14), p is rounded
    # to e4m3 (2^-4). Small-integer codes make every score exact: lse must then be fp32-close. The
    # emulation (one final max, not the running one) is printed, not judged.
    smax = scores_and_values(deq(q, qd.repeat_interleave(g, 1)), deq(k, kd), deq(v, vd), scale)[0].abs().max().item()
    s_err = (2 * 2.0**-8 + 2 * math.sqrt(d) * 2.0**-14) * smax
    lse_tol = 1e-5 if integers else s_err + 1e-5
    o_tol = (2.0**-4 + 2 * s_err + 4 * math.sqrt(skv) * 2.0**-14) * max(mag, 1e-3) + 1e-3
    ok = err <= o_tol and lse_err <= lse_tol and not math.isnan(err)
    kind = " (integer codes)" if integers else " (zero k descales)" if zero_k else ""
    print(f"{'ok  ' if ok else 'FAIL'} warpspec_fp8{kind} b{b} sq{sq} skv{skv} hq{hq} hkv{hkv} d{d} causal={int(causal)} "
          f"window={window} lse={int(with_lse)}: max|o - exact| {err:.2e}, max|o - fp8 emulation| {emu:.2e} "
          f"(|o| {mag:.2f}, bound {o_tol:.2e}) lse {lse_err:.1e} (bound {lse_tol:.1e})", flush=True)
    return ok


def bench_fp8(lib, b, h, s, d, causal, seconds, reps):
    q, qd = quantize_e4m3(torch.randn(b, s, h, d, device="cuda"))
    k, kd = quantize_e4m3(torch.randn(b, s, h, d, device="cuda"))
    v, vd = quantize_e4m3(torch.randn(b, s, h, d, device="cuda"))
    o = torch.empty(b, s, h, d, device="cuda", dtype=torch.bfloat16)
    scale = 1.0 / math.sqrt(d)
    flops = 4.0 * b * h * s * s * d / (2 if causal else 1)
    deq = lambda x, ds: (x.to(torch.bfloat16) * ds[:, None, :, None].to(torch.bfloat16)).permute(0, 2, 1, 3)
    qb, kb, vb = deq(q, qd), deq(k, kd), deq(v, vd)
    t_sdpa = time_loop(lambda: F.scaled_dot_product_attention(qb, kb, vb, is_causal=causal, scale=scale), seconds, reps)
    t_user = time_loop(lambda: F.scaled_dot_product_attention(deq(q, qd), deq(k, kd), deq(v, vd), is_causal=causal,
                                                              scale=scale), seconds, reps)
    t_ours = time_loop(lambda: run_kernel(lib, "warpspec_fp8", q, k, v, o, None, causal, -1, scale, (qd, kd, vd)),
                       seconds, reps)
    print(f"fp8 B{b} H{h} S{s} D{d} {'causal' if causal else 'full  '}: torch dequantize+SDPA {t_user:.3f} ms "
          f"(SDPA alone {t_sdpa:.3f} ms, {flops / t_sdpa / 1e9:.0f} TF)  warpspec_fp8 {t_ours:.3f} ms "
          f"{flops / t_ours / 1e9:.0f} TF  ratio {t_user / t_ours:.3f}x (vs SDPA alone {t_sdpa / t_ours:.3f}x)", flush=True)


def check(lib, which, b, sq, skv, hq, hkv, d, causal, window, dtype, with_lse):
    torch.manual_seed(b * 7 + sq + skv + hq + d)
    q = torch.randn(b, sq, hq, d, device="cuda", dtype=dtype)
    k = torch.randn(b, skv, hkv, d, device="cuda", dtype=dtype)
    v = torch.randn(b, skv, hkv, d, device="cuda", dtype=dtype)
    o = torch.full_like(q, float("nan"))
    lse = torch.full((b, hq, sq), float("nan"), device="cuda") if with_lse else None
    scale = 1.0 / math.sqrt(d)
    run_kernel(lib, which, q, k, v, o, lse, causal, window, scale)
    torch.cuda.synchronize()
    ro, rlse = reference(q, k, v, causal, window, scale)
    err = (o.float() - ro).abs().max().item()
    mag = ro.abs().max().item()
    lse_err = (lse - rlse).abs().nan_to_num(0.0, posinf=1e9).max().item() if with_lse else 0.0
    lse_bad = with_lse and bool(((lse == float("-inf")) != (rlse == float("-inf"))).any())
    tol = 4e-2 if dtype == torch.bfloat16 else 8e-3
    ok = err <= tol * max(mag, 1.0) and not math.isnan(err) and lse_err < 1e-3 and not lse_bad
    print(f"{'ok  ' if ok else 'FAIL'} {which:8s} {str(dtype)[6:]:8s} b{b} sq{sq} skv{skv} hq{hq} hkv{hkv} d{d} "
          f"causal={int(causal)} window={window} lse={int(with_lse)}: max|err| {err:.2e} (|o| {mag:.2f}) lse {lse_err:.1e}")
    return ok


def time_loop(fn, seconds, reps):
    # calibrate on synchronized launches (unsynchronized ones only measure the launch queue)
    fn()
    torch.cuda.synchronize()
    t0 = time.time()
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    per = (time.time() - t0) / 3
    iters = max(3, int(seconds / per))
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iters):
            fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / iters)
    times.sort()
    return times[len(times) // 2]


def timing_inputs(b, h, hkv, s, d, dtype):
    """Random BSHD q [B, S, H, D], k and v [B, S, Hkv, D], an output o, the softmax scale, and q, k, v
    as the [B, H, S, D] views torch's SDPA takes (the peer's call)."""
    q = torch.randn(b, s, h, d, device="cuda", dtype=dtype)
    k = torch.randn(b, s, hkv, d, device="cuda", dtype=dtype)
    v = torch.randn(b, s, hkv, d, device="cuda", dtype=dtype)
    views = tuple(t.permute(0, 2, 1, 3) for t in (q, k, v))
    return q, k, v, torch.empty_like(q), 1.0 / math.sqrt(d), views


def profile_once(lib, b, h, s, d, causal, dtype, kernels):
    """One call of torch's SDPA and of each kernel on one shape, nothing else on the GPU in between:
    what `ncu -k regex:...` profiles (ci/gpu/probes/attention_profile.sh)."""
    q, k, v, o, scale, (qt, kt, vt) = timing_inputs(b, h, h, s, d, dtype)
    torch.cuda.synchronize()
    F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal, scale=scale)
    for which in kernels:
        run_kernel(lib, which, q, k, v, o, None, causal, -1, scale)
    torch.cuda.synchronize()
    print(f"profiled B{b} H{h} S{s} D{d} causal={int(causal)}: torch, {', '.join(kernels)}", flush=True)


def bench(lib, b, h, s, d, causal, dtype, seconds, reps, timed, hkv=None):
    hkv = hkv or h
    q, k, v, o, scale, (qt, kt, vt) = timing_inputs(b, h, hkv, s, d, dtype)
    flops = 4.0 * b * h * s * s * d / (2 if causal else 1)
    rows = {}
    rows["torch"] = time_loop(lambda: F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal, scale=scale,
                                                                     enable_gqa=hkv != h), seconds, reps)
    for which in timed:
        rows[which] = time_loop(lambda: run_kernel(lib, which, q, k, v, o, None, causal, -1, scale), seconds, reps)
    line = f"B{b} H{h}/{hkv} S{s} D{d} {'causal' if causal else 'full  '} {str(dtype)[6:]}:"
    for name, ms in rows.items():
        line += f"  {name} {ms:.3f} ms {flops / ms / 1e9:.0f} TF"
    line += "  " + "  ".join(f"{w}/torch {rows['torch'] / rows[w]:.3f}x" for w in timed)
    print(line, flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-bf16-bench", action="store_true", help="check everything, time only fp8")
    ap.add_argument("--checks-only", action="store_true", help="check everything, time nothing")
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", default="/tmp/attention_probe")
    ap.add_argument("--kernels", default="warpspec,ws_cfg1,ws_cfg2", help="which of " + ",".join(KERNELS) + " to time")
    ap.add_argument("--shapes", help="BxHxSxD,... to time instead of bench/attention's")
    ap.add_argument("--causal", choices=("both", "0", "1"), default="both")
    ap.add_argument("--profile", action="store_true", help="no checks, no timing: one call of each side per shape, for ncu")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    t0 = time.time()
    lib = build(args.out)
    print(f"built in {time.time() - t0:.0f} s; {torch.cuda.get_device_name()} torch {torch.__version__}", flush=True)
    timed = args.kernels.split(",")
    causals = {"both": (False, True), "0": (False,), "1": (True,)}[args.causal]
    shapes = [(4, 32, 8192, 128), (4, 32, 8192, 64)]  # bench/attention's sdpa_ref rows first, then the sweep
    if not args.quick:
        shapes += [(16, 32, 1024, 64), (16, 16, 1024, 128), (16, 32, 2048, 64), (16, 16, 2048, 128), (8, 32, 4096, 64),
                   (8, 16, 4096, 128), (2, 32, 16384, 64), (1, 16, 32768, 128)]
    if args.shapes:
        shapes = [tuple(int(x) for x in shape.split("x")) for shape in args.shapes.split(",")]
    if args.profile:
        for b, h, s, d in shapes:
            for causal in causals:
                profile_once(lib, b, h, s, d, causal, torch.bfloat16, timed)
        return 0
    fails = 0
    cases = [
        # b, sq, skv, hq, hkv, d, causal, window, lse
        (2, 256, 256, 4, 4, 128, False, -1, True),
        (2, 256, 256, 4, 4, 64, False, -1, True),
        (1, 1000, 1000, 4, 2, 128, True, -1, True),
        (1, 1000, 1000, 6, 2, 64, True, -1, True),
        (2, 300, 1000, 8, 2, 128, True, -1, True),
        (2, 300, 1000, 8, 2, 64, True, -1, False),
        (1, 1000, 300, 4, 4, 128, True, -1, True),  # rows that see no key
        (1, 777, 777, 4, 1, 128, True, 100, True),
        (1, 777, 777, 4, 1, 64, False, 200, True),
        (3, 1, 517, 8, 8, 128, False, -1, True),
        (1, 64, 1, 2, 2, 64, False, -1, True),
        (1, 2048, 2048, 2, 2, 128, True, -1, False),
        # long K/V: the causal walk's groups of heads (attention_ws_walk.h) are 3, 3, 2 at D 128, 6, 2 at D 64
        (1, 300, 10922, 8, 8, 128, True, -1, True),
        (1, 300, 10922, 8, 8, 64, True, -1, False),
    ]
    for dtype in (torch.bfloat16, torch.float16):
        for c in cases:
            for which in ("ws_cfg1", "ws_cfg2", "ws_persist"):
                try:
                    fails += not check(lib, which, *c[:8], dtype, c[8])
                except Exception as e:  # one failure prints and the rest still run
                    fails += 1
                    print(f"FAIL {which} {c}: {e}", flush=True)
    fp8_cases = [c for c in cases if c[5] == 128] + [(2, 517, 517, 8, 2, 128, False, -1, True)]
    for integers, zero_k in ((True, False), (False, False), (False, True)):
        for c in fp8_cases:
            try:
                fails += not check_fp8(lib, *c, integers=integers, zero_k=zero_k)
            except Exception as e:
                fails += 1
                print(f"FAIL warpspec_fp8 {c}: {e}", flush=True)
    print(f"checks: {fails} failed", flush=True)
    for causal in ([] if args.checks_only else (False, True)):
        try:
            bench_fp8(lib, 4, 32, 8192, 128, causal, args.seconds, args.reps)
        except Exception as e:
            print(f"bench fp8 causal={causal}: {e}", flush=True)
    for b, h, s, d in ([] if args.no_bf16_bench or args.checks_only else shapes):
        for causal in causals:
            try:
                bench(lib, b, h, s, d, causal, torch.bfloat16, args.seconds, args.reps, timed)
            except Exception as e:
                print(f"bench B{b} H{h} S{s} D{d} causal={causal}: {e}", flush=True)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
