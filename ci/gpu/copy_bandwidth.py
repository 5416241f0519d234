"""Device-to-device copy bandwidth on the GPU machine, the yardstick of docs/PERFORMANCE.md's
memory-bound targets: a bf16 tensor of ROWS x COLS copied with torch (cudaMemcpyAsync underneath),
timed with CUDA events after a warm-up; GB/s counts the bytes read and written, as opcert bench does."""
import sys

import torch

rows, cols = (int(v) for v in (sys.argv[1:3] if len(sys.argv) > 2 else (32768, 8192)))
src = torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16)
dst = torch.empty_like(src)
for _ in range(5):
    dst.copy_(src)
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
times = []
for _ in range(5):
    start.record()
    for _ in range(20):
        dst.copy_(src)
    end.record()
    torch.cuda.synchronize()
    times.append(start.elapsed_time(end) / 20 / 1e3)
best = min(times)
moved = 2 * src.numel() * src.element_size()
print(f"copy bf16 {rows}x{cols}: {moved / best / 1e9:.0f} GB/s best of 5 (median {moved / sorted(times)[2] / 1e9:.0f}), {best * 1e6:.0f} us")
