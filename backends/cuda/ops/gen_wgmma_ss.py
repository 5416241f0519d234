"""Writes backends/cuda/ops/wgmma_ss.cuh: the wgmma wrappers (fp32 accumulate) the attention kernels
use beyond attention_wgmma_kernel.cuh's: SS m64nNk16 for 16-bit types at the key-tile widths N in NS,
and for fp8 e4m3 the SS m64nNk32 (S = Q·Kᵀ) and RS m64nNk32 (O += P·V, P from registers) at the
widths in FP8_NS. Inline PTX has no loops, so each N spells out its N/2 accumulator operands. Run
from the repository root after changing them: python3 backends/cuda/ops/gen_wgmma_ss.py
"""
NS = [128, 176]
FP8_NS = [128]
TYPES = (("__nv_bfloat16", "bf16"), ("__half", "f16"))


def chunks(items, n):
    return [items[i:i + n] for i in range(0, len(items), n)]


def wrapper(t, ty, n):
    r = n // 2
    regs = chunks([f"%{i}" for i in range(r)], 16)
    outs = chunks([f'"+f"(d[{i // 4}][{i % 4}])' for i in range(r)], 8)
    reg_lines = "\n".join(f'      "{", ".join(c)}{"," if i + 1 < len(regs) else ""} "' for i, c in enumerate(regs))
    out_lines = ",\n".join(f"        {', '.join(c)}" for c in outs)
    return f'''template <>
__device__ inline void wgmma_ss<{t}, {n}>(float (&d)[{n // 8}][4], uint64_t a, uint64_t b, int scale_d) {{
#if OPCERT_WGMMA_OK
  asm volatile(
      "{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{r + 2}, 0;\\n"
      "wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{ty}.{ty} {{"
{reg_lines}
      "}}, %{r}, %{r + 1}, p, 1, 1, 0, 0;\\n}}\\n"
      :
{out_lines}
      : "l"(a), "l"(b), "r"(scale_d)
      : "memory");
#else
  (void)d, (void)a, (void)b, (void)scale_d;
  __trap();
#endif
}}
'''


def fp8_wrapper(n, rs):
    r = n // 2
    regs = chunks([f"%{i}" for i in range(r)], 16)
    outs = chunks([f'"+f"(d[{i // 4}][{i % 4}])' for i in range(r)], 8)
    reg_lines = "\n".join(f'      "{", ".join(c)}{"," if i + 1 < len(regs) else ""} "' for i, c in enumerate(regs))
    out_lines = ",\n".join(f"        {', '.join(c)}" for c in outs)
    if rs:
        sig = f"wgmma_rs_e4m3<{n}>(float (&d)[{n // 8}][4], const uint32_t (&a)[4], uint64_t b)"
        a_op = f"{{%{r}, %{r + 1}, %{r + 2}, %{r + 3}}}, %{r + 4}"
        pred = r + 5
        ins = '"r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1)'
        unused = "(void)d, (void)a, (void)b;"
    else:
        sig = f"wgmma_ss_e4m3<{n}>(float (&d)[{n // 8}][4], uint64_t a, uint64_t b, int scale_d)"
        a_op = f"%{r}, %{r + 1}"
        pred = r + 2
        ins = '"l"(a), "l"(b), "r"(scale_d)'
        unused = "(void)d, (void)a, (void)b, (void)scale_d;"
    return f'''template <>
__device__ inline void {sig} {{
#if OPCERT_WGMMA_OK
  asm volatile(
      "{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{pred}, 0;\\n"
      "wgmma.mma_async.sync.aligned.m64n{n}k32.f32.e4m3.e4m3 {{"
{reg_lines}
      "}}, {a_op}, p, 1, 1;\\n}}\\n"
      :
{out_lines}
      : {ins}
      : "memory");
#else
  {unused}
  __trap();
#endif
}}
'''


HEADER = '''// wgmma.mma_async wrappers (fp32 accumulate) the attention kernels use beyond those of
// attention_wgmma_kernel.cuh: both operands in shared memory (SS) m64nNk16 for 16-bit types at the
// key-tile widths N they use, and fp8 e4m3 SS and RS m64nNk32. Written by backends/cuda/ops/gen_wgmma_ss.py (inline PTX has no
// loops: each N spells out its N/2 accumulator operands); edit the script, not this file.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "ops/attention_wgmma_kernel.cuh"  // OPCERT_WGMMA_OK

namespace opcert::cuda::attn {

/// d (64 x N, fp32) = (scale_d ? d : 0) + A·B for one k-step of 16: A (64 x 16) and B (16 x N)
/// from shared memory through descriptors, both K-major.
template <class T, int N>
__device__ inline void wgmma_ss(float (&d)[N / 8][4], uint64_t a, uint64_t b, int scale_d);

/// fp8 e4m3: d (64 x N) = (scale_d ? d : 0) + A·B for one k-step of 32, A (64 x 32) and B (32 x N)
/// from shared memory, both K-major (fp8 wgmma reads no other layout).
template <int N>
__device__ inline void wgmma_ss_e4m3(float (&d)[N / 8][4], uint64_t a, uint64_t b, int scale_d);

/// fp8 e4m3: d (64 x N) += A·B for one k-step of 32, A from registers (the m64k32 8-bit fragment:
/// thread (g, t4) of warp w holds rows 16w+g and 16w+g+8, bytes k = 4t4..4t4+3 and 16+4t4..), B
/// (32 x N) from shared memory, K-major.
template <int N>
__device__ inline void wgmma_rs_e4m3(float (&d)[N / 8][4], const uint32_t (&a)[4], uint64_t b);
'''

with open("backends/cuda/ops/wgmma_ss.cuh", "w") as f:
    f.write(HEADER)
    for n in NS:
        for t, ty in TYPES:
            f.write("\n" + wrapper(t, ty, n))
    for n in FP8_NS:
        f.write("\n" + fp8_wrapper(n, False))
        f.write("\n" + fp8_wrapper(n, True))
    f.write("\n}  // namespace opcert::cuda::attn\n")
