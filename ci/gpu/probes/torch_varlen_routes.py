"""The ways a torch 2.11 user runs packed varlen attention, and the block-scaled fp8 GEMM at decode M,
timed on the GPU for the shapes of opcert's Llama-3-8B rows (suites/models/llama3-8b.json), so that
the torch peer (backends/torch) times the fastest route a user has (docs/PEER.md).

Attention (bf16, Hq 32, Hkv 8, D 128; prefill.varlen causal Sq = Skv per sequence, decode.varlen one
query row per sequence, which a bottom-right causal mask lets see every key, so unmasked):
  per-seq      one F.scaled_dot_product_attention per sequence on [1, H, S, D] views (today's peer)
  njt          one SDPA on jagged nested tensors (torch.nested.nested_tensor_from_jagged, [B, j, H, D]
               transposed to [B, H, j, D]), with enable_gqa; under each sdpa_kernel backend alone too,
               to see which one torch picks; "njt+build" times building the nested tensors as well
  pad          pad to the longest sequence ([B, H, Smax, D]) with a boolean mask (keys in range, and
               bottom-right causal), one SDPA, then the valid rows gathered back: whole route and call only;
               for a decode batch also as the peer pads it (index_copy_ into kept buffers, q as [B, 1, H, D])
  flash-varlen torch.ops.aten._flash_attention_forward on the packed tensors with cu_seqlens: the kernel
               SDPA on jagged tensors reaches through FLASH_ATTENTION (the call a C++ peer can make)
Each route's o is compared with per-seq's (max |diff|). Then gemm_fp8 BlockWise1x128 x BlockWise128x128
at M 1 and 4 for the Llama-3 decode shapes: the direct call (refused?), the fp32 per-K-block
decomposition (today's peer), and the user's route: a kept [16, K] buffer (rows M.. zero) and scale
buffer, a[:M] and scale_a[:M] copied in, F.scaled_mm, out[:M]; plus the same with a fresh zero buffer
per call (torch.zeros is row-major, which torch refuses at 16 rows: the line shows the refusal).
"max|o - per-seq|" is against one SDPA per sequence for attention, against the decomposition for the
GEMM. Timing: CUDA events around each launch of the route, 20 warm-ups, median of N launches.

Usage: python3 ci/gpu/probes/torch_varlen_routes.py [--reps N]"""
import argparse
import os
import statistics
import sys
import traceback

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from torch_user_routes import padded_decode  # noqa: E402

CASES = {  # suites/models/llama3-8b.json
    "prefill.varlen": dict(seqlens_q=[2048, 512, 1500, 2048, 100, 900, 1024, 60], seqlens_k=None, causal=True),
    "decode.varlen": dict(seqlens_q=[1] * 16,
                          seqlens_k=[8192, 37, 2048, 513, 4096, 1, 7000, 128, 300, 8191, 1024, 65, 3000, 16, 6000, 257],
                          causal=True),
}
HQ, HKV, D = 32, 8, 128
GEMM_SHAPES = {"8b.qkv_proj": (6144, 4096), "8b.o_proj": (4096, 4096), "8b.gate_up_proj": (28672, 4096),
               "8b.down_proj": (4096, 14336), "70b.qkv_proj": (10240, 8192), "70b.down_proj": (8192, 28672)}


def time_us(fn, reps):
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); fn(); e.record(); e.synchronize()
        times.append(s.elapsed_time(e) * 1000)
    return statistics.median(times)


def first_line(err):
    return (str(err).strip().splitlines() or [type(err).__name__])[0][:200]


def report(label, fn, reps, ref=None, out=None):
    """Times fn (its output through out(result) when given) and prints one line: time, max diff to ref."""
    try:
        result = fn()
        got = out(result) if out else result
        diff = "" if ref is None else f"  max|o - per-seq| {(got.float() - ref.float()).abs().max().item():.3g}"
        print(f"  {label:44} {time_us(fn, reps):10.1f} us{diff}", flush=True)
        return got
    except Exception as err:  # torch's refusal, on one line
        print(f"  {label:44} refused: {type(err).__name__}: {first_line(err)}", flush=True)
        return None


def attention(name, case, reps):
    lq = case["seqlens_q"]
    lk = case["seqlens_k"] or lq
    causal_rows = case["causal"] and max(lq) > 1  # one query row: bottom-right causal is no mask
    scale = D ** -0.5
    cu_q = torch.tensor([0] + list(torch.tensor(lq).cumsum(0)), dtype=torch.int32, device="cuda")
    cu_k = torch.tensor([0] + list(torch.tensor(lk).cumsum(0)), dtype=torch.int32, device="cuda")
    g = torch.Generator(device="cuda").manual_seed(1)
    q = torch.randn(sum(lq), HQ, D, device="cuda", dtype=torch.bfloat16, generator=g)
    k = torch.randn(sum(lk), HKV, D, device="cuda", dtype=torch.bfloat16, generator=g)
    v = torch.randn(sum(lk), HKV, D, device="cuda", dtype=torch.bfloat16, generator=g)
    print(f"{name}: B {len(lq)}, Tq {sum(lq)}, Tk {sum(lk)}, max Sq {max(lq)}, max Skv {max(lk)}, "
          f"is_causal {causal_rows}", flush=True)

    o_seq = torch.empty_like(q)
    oq, ok = cu_q.tolist(), cu_k.tolist()

    def per_seq():
        for b in range(len(lq)):
            qs = q[oq[b]:oq[b + 1]].unsqueeze(0).transpose(1, 2)
            ks = k[ok[b]:ok[b + 1]].unsqueeze(0).transpose(1, 2)
            vs = v[ok[b]:ok[b + 1]].unsqueeze(0).transpose(1, 2)
            o = F.scaled_dot_product_attention(qs, ks, vs, is_causal=causal_rows and lq[b] > 1, scale=scale,
                                               enable_gqa=True)
            o_seq[oq[b]:oq[b + 1]].copy_(o.transpose(1, 2)[0])
        return o_seq
    ref = report("per-seq SDPA (today's peer)", per_seq, reps).clone()

    # Jagged nested tensors: values [T, H, D], offsets cu_seqlens (int64), max/min seqlen given.
    def njt(x, cu, lens):
        return torch.nested.nested_tensor_from_jagged(x, cu.long(), min_seqlen=min(lens), max_seqlen=max(lens))
    cu_q64, cu_k64 = cu_q.long(), cu_k.long()
    nq, nk, nv = njt(q, cu_q64, lq), njt(k, cu_k64, lk), njt(v, cu_k64, lk)
    print(f"  njt shapes q {tuple(nq.shape)} k {tuple(nk.shape)}, layout {nq.layout}", flush=True)

    def njt_call(gqa=True):
        def call():
            return F.scaled_dot_product_attention(nq.transpose(1, 2), nk.transpose(1, 2), nv.transpose(1, 2),
                                                  is_causal=causal_rows, scale=scale, enable_gqa=gqa)
        return call
    njt_out = lambda r: r.transpose(1, 2).values()
    report("njt SDPA enable_gqa (default backends)", njt_call(), reps, ref, njt_out)
    for backend in (SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.CUDNN_ATTENTION,
                    SDPBackend.MATH):
        def only(backend=backend):
            with sdpa_kernel([backend]):
                return njt_call()()
        report(f"njt SDPA enable_gqa, {backend.name} only", only, reps, ref, njt_out)
    # Without enable_gqa a user repeats the KV heads (one copy of k and v each).
    group = HQ // HKV
    nk_r, nv_r = njt(k.repeat_interleave(group, 1), cu_k64, lk), njt(v.repeat_interleave(group, 1), cu_k64, lk)
    report("njt SDPA, KV heads repeated (call only)",
           lambda: F.scaled_dot_product_attention(nq.transpose(1, 2), nk_r.transpose(1, 2), nv_r.transpose(1, 2),
                                                  is_causal=causal_rows, scale=scale), reps, ref, njt_out)

    def njt_build_and_call():
        a, b, c = njt(q, cu_q64, lq), njt(k, cu_k64, lk), njt(v, cu_k64, lk)
        return F.scaled_dot_product_attention(a.transpose(1, 2), b.transpose(1, 2), c.transpose(1, 2),
                                              is_causal=causal_rows, scale=scale, enable_gqa=True)
    report("njt+build (nested tensors built per call)", njt_build_and_call, reps, ref, njt_out)

    # Pad to the longest sequence with a boolean mask [B, 1, Sq_max, Skv_max].
    bsz, sq_max, skv_max = len(lq), max(lq), max(lk)
    lq_t, lk_t = torch.tensor(lq, device="cuda"), torch.tensor(lk, device="cuda")
    q_rows = torch.arange(sq_max, device="cuda")[None, :] < lq_t[:, None]  # [B, Sq_max]
    k_rows = torch.arange(skv_max, device="cuda")[None, :] < lk_t[:, None]
    i = torch.arange(sq_max, device="cuda")[None, :, None]
    j = torch.arange(skv_max, device="cuda")[None, None, :]
    mask = k_rows[:, None, :].expand(bsz, sq_max, skv_max)
    if causal_rows:
        mask = mask & (j <= i + (lk_t - lq_t)[:, None, None])
    mask = mask[:, None]
    qp = torch.zeros(bsz, sq_max, HQ, D, device="cuda", dtype=q.dtype)
    kp = torch.zeros(bsz, skv_max, HKV, D, device="cuda", dtype=q.dtype)
    vp = torch.zeros_like(kp)

    def pad_call():
        return F.scaled_dot_product_attention(qp.transpose(1, 2), kp.transpose(1, 2), vp.transpose(1, 2),
                                              attn_mask=mask, scale=scale, enable_gqa=True)

    def pad_route():
        qp[q_rows] = q
        kp[k_rows] = k
        vp[k_rows] = v
        return pad_call().transpose(1, 2)[q_rows]
    got = report("pad to longest + bool mask: pad, call, unpad", pad_route, reps, ref)
    if got is not None:
        report("pad to longest + bool mask: the call only", pad_call, reps)
        for backend in (SDPBackend.EFFICIENT_ATTENTION, SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION):
            def only(backend=backend):
                with sdpa_kernel([backend]):
                    return pad_call()
            report(f"pad call, {backend.name} only", only, reps)

    if max(lq) == 1:  # a decode batch as the peer pads it: index_copy_ into kept buffers, key mask
        report("decode padded as the peer: index_copy_, mask, call", padded_decode(q, k, v, cu_k, -1, scale), reps, ref)

    max_q, max_k = max(lq), max(lk)

    def flash():
        return torch.ops.aten._flash_attention_forward(q, k, v, cu_q, cu_k, max_q, max_k, 0.0, causal_rows, False,
                                                       scale=scale)[0]
    report("aten._flash_attention_forward varlen (GQA)", flash, reps, ref)

    def flash_rep():
        return torch.ops.aten._flash_attention_forward(q, k.repeat_interleave(group, 1), v.repeat_interleave(group, 1),
                                                       cu_q, cu_k, max_q, max_k, 0.0, causal_rows, False,
                                                       scale=scale)[0]
    report("aten._flash_attention_forward varlen, KV repeated", flash_rep, reps, ref)
    try:  # its lse, to see whether it is [Hq, Tq] (opcert's varlen lse layout)
        lse = torch.ops.aten._flash_attention_forward(q, k, v, cu_q, cu_k, max_q, max_k, 0.0, causal_rows, False,
                                                      scale=scale)[1]
        print(f"  flash varlen lse shape {tuple(lse.shape)}", flush=True)
    except Exception as err:
        print(f"  flash varlen lse: {first_line(err)}", flush=True)


def gemm_fp8(reps):
    st = F.ScalingType
    print("gemm_fp8 BlockWise1x128 x BlockWise128x128, bf16 out", flush=True)
    for name, (n, k) in GEMM_SHAPES.items():
        b = (torch.rand(n, k, device="cuda") - 0.5).to(torch.float8_e4m3fn)
        sb = torch.rand(n // 128, k // 128, device="cuda") + 0.5
        for m in (1, 4):
            print(f" {name} M {m} N {n} K {k}", flush=True)
            a = (torch.rand(m, k, device="cuda") - 0.5).to(torch.float8_e4m3fn)
            sa = torch.rand(m, k // 128, device="cuda") + 0.5
            mm = lambda a_, s_: F.scaled_mm(a_, b.t(), s_, st.BlockWise1x128, sb.t(), st.BlockWise128x128,
                                            output_dtype=torch.bfloat16)
            report("direct F.scaled_mm at M", lambda: mm(a, sa), reps)

            af, bf = a.float(), b.float()
            sb_rows = sb.repeat_interleave(128, 0)[:n]

            def decomposition():  # the peer's fp32 per-K-block decomposition
                acc = torch.zeros(m, n, device="cuda")
                for j in range(k // 128):
                    part = af[:, j * 128:(j + 1) * 128] @ bf[:, j * 128:(j + 1) * 128].t()
                    acc.add_(part * sa[:, j:j + 1] * sb_rows[:, j][None, :])
                return acc.to(torch.bfloat16)
            ref = report("fp32 decomposition (today's peer)", decomposition, max(reps // 4, 20))

            for label, sa_pad in (("row-major", torch.zeros(16, k // 128, device="cuda")),
                                  ("outer-major", torch.empty_strided((16, k // 128), (1, 16), device="cuda").zero_())):
                a_pad = torch.zeros(16, k, device="cuda", dtype=torch.float8_e4m3fn)

                def padded(a_pad=a_pad, sa_pad=sa_pad):
                    a_pad[:m].copy_(a)
                    sa_pad[:m].copy_(sa)
                    return mm(a_pad, sa_pad)[:m]
                report(f"kept [16,K] buffer, {label} scales: copy, call, slice", padded, reps, ref)

            def fresh():  # F.pad-like: a new zero buffer per call
                a_pad = torch.zeros(16, k, device="cuda", dtype=torch.float8_e4m3fn)
                a_pad[:m] = a
                sa_pad = torch.zeros(16, k // 128, device="cuda")
                sa_pad[:m] = sa
                return mm(a_pad, sa_pad)[:m]
            report("fresh zero buffer per call: pad, call, slice", fresh, reps, ref)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=200)
    args = parser.parse_args()
    print("torch", torch.__version__, torch.cuda.get_device_name(), flush=True)
    for name, case in CASES.items():
        try:
            attention(name, case, args.reps)
        except Exception:
            traceback.print_exc()
    try:
        gemm_fp8(args.reps)
    except Exception:
        traceback.print_exc()


if __name__ == "__main__":
    main()
