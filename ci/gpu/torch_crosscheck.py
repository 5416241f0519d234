#!/usr/bin/env python3
"""Times torch alone, in Python, on the cases whose torch rows opcert bench reports, and prints the
two side by side: is the peer timed doing what a torch user's call does, and nothing else?

    torch_crosscheck.py OPCERT SUITE [--filter REGEX] [--out DIR] [-- opcert bench flags...]

1. asks `OPCERT list --suite SUITE --filter REGEX --backend torch --json` for each case's operands
   (shapes, dtypes, fills, attributes) and the library call the torch backend makes;
2. case by case, runs `OPCERT bench --backend torch` on that case alone (flags after `--` pass
   through, e.g. --benchmark_min_time=0.3s --benchmark_repetitions=3), then at once builds the same
   tensors in torch (same shapes, dtypes and value ranges), warms up as opcert does (3 launches and
   at least 50 ms) and times as many launches as opcert's longest repetition ran, each between two
   CUDA events and waited for, as opcert's samples are, as many times as opcert repeated (the
   median); prints opcert's time, torch's and their ratio; exits 1 when a row differs by more than
   --tolerance (default 5%).

Without --filter each suite's headline rows (HEADLINES below, the rows of docs/PERFORMANCE.md).
"""
import argparse
import json
import re
import statistics
import subprocess
import sys

import torch
import torch.nn.functional as F

from torch_user_routes import padded_decode

HEADLINES = {
    "bench/gemm": r"^gemm\.square\.(bf16|fp16)\.8192$|^gemm_fp8\.square\.e4m3\.tensor\.bf16\.8192$|"
                  r"^gemm_int8\.square\.int32\.8192$|^llama3-8b\.prefill\.",
    "bench/attention": r"^attention\.sdpa_ref\.|^attention\.llama3-8b\.prefill\.(bf16|fp16)|^attention\.llama3-8b\.decode\.b",
    "bench/norms": r"\.ref\.|\.t32768\.h8192\.residual$|^rope\.bf16\.thd\.t32768\.|"
                   r"^softmax\.(bf16|fp32)\.rows(32768\.n8192|4096\.n128256)$|^quantize\.bf16\.(e4m3|int8)\.token\.m32768\.k8192$",
}

DTYPES = {"fp64": torch.float64, "fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16, "int8": torch.int8,
          "int32": torch.int32, "fp8_e4m3fn": torch.float8_e4m3fn, "fp8_e5m2": torch.float8_e5m2}
WARMUP_LAUNCHES, WARMUP_SECONDS = 3, 0.05  # harness/bench/bench_runner.cpp


def make_tensor(spec):
    """An input as opcert fills it: uniform in [lo, hi] (integers for exact fills), given values, or
    a rotary table; rounded to the dtype."""
    dtype, shape, fill = DTYPES[spec["dtype"]], spec["shape"], spec.get("fill") or {"kind": "uniform", "lo": -1, "hi": 1}
    kind = fill["kind"]
    if kind == "values":
        return torch.tensor(fill["values"], device="cuda").to(dtype).reshape(shape)
    if kind in ("rope_cos", "rope_sin"):
        rows, half = shape
        inv = fill["base"] ** (-2.0 * torch.arange(half, device="cuda", dtype=torch.float64) / (2 * half))
        angles = torch.arange(rows, device="cuda", dtype=torch.float64)[:, None] * inv[None, :]
        return (torch.cos(angles) if kind == "rope_cos" else torch.sin(angles)).to(dtype)
    lo, hi = fill["lo"], fill["hi"]
    if kind == "integers":
        return torch.randint(int(lo), int(hi) + 1, shape, device="cuda").to(dtype)
    return (torch.rand(shape, device="cuda", dtype=torch.float32) * (hi - lo) + lo).to(dtype)


def operands(case):
    return {t["name"]: make_tensor(t) for t in case["inputs"]}, {t["name"]: t for t in case["outputs"]}


def gemm_call(case, x, outs):
    a, b, bias = x["a"], x["b"], x.get("bias")
    bt = b if case["attributes"].get("b_layout") == "kn" else b.t()
    c = torch.empty(outs["c"]["shape"], device="cuda", dtype=DTYPES[outs["c"]["dtype"]])
    if case["attributes"].get("allow_tf32"):
        torch.backends.cuda.matmul.allow_tf32 = True
    if bias is not None:
        return lambda: torch.addmm(bias, a, bt, out=c)
    return lambda: torch.mm(a, bt, out=c)


def gemm_fp8_call(case, x, outs):
    a, b, sa, sb, bias = x["a"], x["b"], x["a_scale"], x["b_scale"], x.get("bias")
    out_dtype = DTYPES[outs["c"]["dtype"]]
    scaling = case["attributes"].get("scaling", "tensor")
    if scaling == "block":
        # What a DeepSeek-style user holds: activation scales outer-dim-major, as torch wants them.
        # (empty_strided: at M 1, .t().contiguous().t() keeps strides torch refuses.)
        st = F.ScalingType
        m = a.size(0)
        if m < 16:  # torch 2.11 refuses M < 16: its user pads a and scale_a to 16 rows (docs/PEER.md)
            a_pad = torch.zeros(16, a.size(1), device=a.device, dtype=a.dtype)
            sa_pad = torch.empty_strided((16, sa.size(1)), (1, 16), device=sa.device).zero_()

            def padded():
                a_pad[:m].copy_(a)
                sa_pad[:m].copy_(sa)
                return F.scaled_mm(a_pad, b.t(), sa_pad, st.BlockWise1x128, sb.t(), st.BlockWise128x128,
                                   bias=bias, output_dtype=out_dtype)[:m]
            return padded
        sa_outer = torch.empty_strided(sa.shape, (1, max(sa.shape[0], 1)), device=sa.device).copy_(sa)
        return lambda: F.scaled_mm(a, b.t(), sa_outer, st.BlockWise1x128, sb.t(), st.BlockWise128x128,
                                   bias=bias, output_dtype=out_dtype)
    if scaling == "channel":
        sa, sb = sa.view(-1, 1), sb.view(1, -1)
    return lambda: torch._scaled_mm(a, b.t(), sa, sb, bias=bias, out_dtype=out_dtype)


def gemm_int8_call(case, x, outs):
    a, b = x["a"], x["b"]
    out_dtype = DTYPES[outs["c"]["dtype"]]
    if out_dtype == torch.int32:
        return lambda: torch._int_mm(a, b.t())
    sa, sb, bias = x["a_scale"], x["b_scale"], x.get("bias")

    def dequantized():
        c = torch._int_mm(a, b.t()).float() * sa[:, None] * sb[None, :]
        return (c + bias.float() if bias is not None else c).to(out_dtype)
    return dequantized


def attention_call(case, x, outs):
    if "cu_seqlens_q" in x:
        return varlen_decode_call(case, x)
    q, k, v = (x[n].transpose(1, 2) for n in ("q", "k", "v"))
    attrs = case["attributes"]
    # One query row under the contract's bottom-right mask sees every key: unmasked, as a decode step.
    causal, scale = bool(attrs.get("causal", 0)) and q.size(2) > 1, attrs.get("scale")
    gqa = q.size(1) != k.size(1)
    return lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale, enable_gqa=gqa)


def varlen_decode_call(case, x):
    """A decode batch (one query row per sequence, no lse) as the peer pads it; None otherwise (the peer
    loops over the sequences there, docs/PEER.md)."""
    lq, lk = x["cu_seqlens_q"].diff(), x["cu_seqlens_k"].diff()
    if "lse" in (o["name"] for o in case["outputs"]) or bool((lq != 1).any()) or bool((lk == 0).any()):
        return None
    attrs = case["attributes"]
    return padded_decode(x["q"], x["k"], x["v"], x["cu_seqlens_k"], attrs.get("window_left", -1), attrs.get("scale"))


def norm_call(case, x, outs):
    xs, w, b, r = x["x"], x.get("weight"), x.get("bias"), x.get("residual")
    eps = case["attributes"].get("eps", 1e-6 if case["op"] == "rms_norm" else 1e-5)  # docs/OPS.md
    n = (xs.size(-1),)
    if case["op"] == "rms_norm":
        norm = lambda h: F.rms_norm(h, n, w, eps)
    else:
        norm = lambda h: F.layer_norm(h, n, w, b, eps)
    if r is None:
        return lambda: norm(xs)
    return lambda: norm(xs + r)


def softmax_call(case, x, outs):
    xs = x["x"]
    return lambda: torch.softmax(xs, dim=-1)


def rope_call(case, x, outs):
    """The decomposition model code writes (torch has no rotary op), as the torch backend runs it."""
    q, k, cos, sin, given = x["q"], x.get("k"), x["cos"], x["sin"], x.get("positions")
    attrs = case["attributes"]
    d = q.size(-1)
    r, interleaved = attrs.get("rotary_dim", d), attrs.get("style") == "interleaved"
    half = r // 2
    tokens = list(q.shape[:-2])

    def rotate(t, c, s_):
        tr = t[..., :r].float()
        if interleaved:
            tp = tr.reshape(*tr.shape[:-1], half, 2)
            t1, t2 = tp[..., 0], tp[..., 1]
            rotated = torch.stack((t1 * c - t2 * s_, t2 * c + t1 * s_), -1).flatten(-2)
        else:
            t1, t2 = tr[..., :half], tr[..., half:]
            rotated = torch.cat((t1 * c - t2 * s_, t2 * c + t1 * s_), -1)
        rotated = rotated.to(t.dtype)
        return rotated if r == d else torch.cat((rotated, t[..., r:]), -1)

    def run():
        if given is not None:
            pos = given.long().reshape(-1)
        else:
            pos = torch.arange(tokens[-1], device="cuda").repeat(tokens[0] if q.dim() == 4 else 1)
        c = cos.index_select(0, pos).view(*tokens, 1, half)
        s_ = sin.index_select(0, pos).view(*tokens, 1, half)
        return rotate(q, c, s_), (rotate(k, c, s_) if k is not None else None)
    return run


def quantize_call(case, x, outs):
    """Dynamic quantization as the torch backend (and vLLM's torch path) writes it."""
    xs, q_dtype = x["x"], DTYPES[outs["q"]["dtype"]]
    per_token = case["attributes"].get("granularity", "token") == "token"
    qmax = {torch.int8: 127.0, torch.float8_e4m3fn: 448.0, torch.float8_e5m2: 57344.0}[q_dtype]

    def run():
        xf = xs.float()
        amax = xf.abs().amax(-1, keepdim=True) if per_token else xf.abs().amax().reshape(1, 1)
        scale = amax / qmax
        scaled = torch.where(scale > 0, xf / scale, torch.zeros((), device="cuda")).clamp(-qmax, qmax)
        q = scaled.round().to(torch.int8) if q_dtype == torch.int8 else scaled.to(q_dtype)
        return q, scale.reshape(-1)
    return run


CALLS = {"quantize": quantize_call, "rope": rope_call, "gemm": gemm_call, "gemm_fp8": gemm_fp8_call, "gemm_int8": gemm_int8_call, "attention": attention_call,
         "rms_norm": norm_call, "layer_norm": norm_call, "softmax": softmax_call}


def time_launches(fn, launches):
    """Seconds per launch, each between two events and waited for (opcert's SampleTimer)."""
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    warm, i = 0.0, 0
    while i < WARMUP_LAUNCHES or warm < WARMUP_SECONDS:
        start.record(); fn(); stop.record(); stop.synchronize()
        warm += start.elapsed_time(stop) / 1e3
        i += 1
    samples = []
    for _ in range(launches):
        start.record(); fn(); stop.record(); stop.synchronize()
        samples.append(start.elapsed_time(stop) / 1e3)
    return statistics.fmean(samples)


def main():
    argv = sys.argv[1:]
    passthrough = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("opcert")
    p.add_argument("suite")
    p.add_argument("--filter")
    p.add_argument("--out", default="/tmp/opcert-crosscheck")
    p.add_argument("--tolerance", type=float, default=0.05)
    args = p.parse_args(argv)
    regex = args.filter if args.filter is not None else HEADLINES.get(args.suite, "")
    out = f"{args.out}/{args.suite.replace('/', '-')}"
    listing = json.loads(subprocess.run([args.opcert, "list", "--suite", args.suite, "--filter", regex, "--backend",
                                         "torch", "--json"], check=True, capture_output=True, text=True).stdout)
    print(f"{'case':50} {'opcert torch':>13} {'torch alone':>12} {'ratio':>7}  launches  library call")
    worst, failures = 0.0, 0
    # Case by case, opcert's row and then torch alone at once: the GPU's clocks and temperature
    # drift over minutes, and a sustained GEMM is power-limited, so both figures share their state.
    for n, case in enumerate(listing["cases"]):
        case_out = f"{out}/{n:03d}"
        subprocess.run([args.opcert, "bench", "--suite", args.suite, "--backend", "torch", "--filter",
                        "^" + re.escape(case["id"]) + "$", "--out", case_out, *passthrough],
                       check=False, stdout=subprocess.DEVNULL)
        rows = [r for r in json.load(open(f"{case_out}/report.json"))["benchmarks"]
                if r["backend"] == "torch" and r["seconds"] is not None]
        if not rows:
            print(f"{case['id']:50} opcert did not time it (see {case_out})")
            failures += 1
            continue
        row = rows[0]
        call = CALLS.get(case["op"])
        launches = max((r["iterations"] for r in row["repetitions"]), default=0)
        if call is None:
            print(f"{case['id']:50} {row['seconds'] * 1e6:11.1f}us {'-':>12} {'-':>7}  (no Python call for {case['op']})")
            continue
        torch.manual_seed(0)
        x, outs = operands(case)
        fn = call(case, x, outs)
        if fn is None:
            print(f"{case['id']:50} {row['seconds'] * 1e6:11.1f}us {'-':>12} {'-':>7}  (no single Python call for this form)")
            continue
        repetitions = max(len(row["repetitions"]), 1)
        seconds = statistics.median(time_launches(fn, launches) for _ in range(repetitions))
        ratio = row["seconds"] / seconds
        worst = max(worst, abs(ratio - 1))
        flag = "" if abs(ratio - 1) <= args.tolerance else "  <-- outside"
        failures += flag != ""
        print(f"{case['id']:50} {row['seconds'] * 1e6:11.1f}us {seconds * 1e6:10.1f}us {ratio:6.3f}x  "
              f"{launches:8d}  {row.get('library_call') or ''}{flag}", flush=True)
        del x, fn
        torch.cuda.empty_cache()
    print(f"worst difference {worst * 100:.1f}%; {failures} row(s) outside {args.tolerance * 100:.0f}%")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
