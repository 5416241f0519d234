"""How torch 2.11 takes block-scaled fp8 (F.scaled_mm, BlockWise1x128 x BlockWise128x128) at decode M:
for each Llama-3 decode shape and M in (1, 16), which layouts of the activation scales it accepts
(row-major as opcert's contract has them, `.t().contiguous().t()`, and built outer-dim-major with
empty_strided) and how long the accepted call takes (CUDA events, median of 200 launches after 20).
Prints one line per (shape, M, layout): the time, or torch's error."""
import statistics

import torch
import torch.nn.functional as F

SHAPES = {"8b.qkv_proj": (6144, 4096), "8b.o_proj": (4096, 4096), "8b.gate_up_proj": (28672, 4096),
          "8b.down_proj": (4096, 14336), "70b.qkv_proj": (10240, 8192), "70b.down_proj": (8192, 28672)}


def layouts(sa):
    m, kb = sa.shape
    yield "row-major", sa
    yield ".t().contiguous().t()", sa.t().contiguous().t()
    yield "empty_strided outer-major", torch.empty_strided((m, kb), (1, m), device="cuda").copy_(sa)


def time_us(fn):
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(200):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); fn(); e.record(); e.synchronize()
        times.append(s.elapsed_time(e) * 1000)
    return statistics.median(times)


def main():
    st = F.ScalingType
    print("torch", torch.__version__, torch.cuda.get_device_name())
    for name, (n, k) in SHAPES.items():
        b = (torch.rand(n, k, device="cuda") - 0.5).to(torch.float8_e4m3fn)
        sb = torch.rand(n // 128, k // 128, device="cuda") + 0.5
        for m in (1, 16):
            a = (torch.rand(m, k, device="cuda") - 0.5).to(torch.float8_e4m3fn)
            sa = torch.rand(m, k // 128, device="cuda") + 0.5
            for label, s in layouts(sa):
                call = lambda: F.scaled_mm(a, b.t(), s, st.BlockWise1x128, sb.t(), st.BlockWise128x128,
                                           output_dtype=torch.bfloat16)
                try:
                    print(f"{name:16} m{m:<3} {label:28} strides {tuple(s.stride())}: {time_us(call):9.1f} us")
                except Exception as err:  # torch's refusal, on one line
                    print(f"{name:16} m{m:<3} {label:28} strides {tuple(s.stride())}: refused: {str(err).splitlines()[0]}")


if __name__ == "__main__":
    main()
