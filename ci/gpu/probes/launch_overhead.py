#!/usr/bin/env python3
"""Does a launch timed alone between two events include the host's time to issue it?

For a few of bench/norms' short torch rows (the peer's calls as opcert makes them), times:
  alone    record start, call, record stop, wait: what opcert's SampleTimer does per sample;
  queued   the same behind a spin kernel (torch.cuda._sleep), so the call is issued before the GPU
           reaches the start event: the GPU's own time, without the host's;
  batch    100 calls back to back between one pair of events, per call;
  host     the call's host time alone (no wait).
Each figure is the mean over ROUNDS rounds of 500 samples, each round on another CPU, to show
whether the host's core moves the figure. Prints one line per call and round.
"""
import os
import statistics
import time

import torch
import torch.nn.functional as F

dev = "cuda"
torch.manual_seed(0)
x16 = torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16)
w16 = torch.randn(4096, device=dev, dtype=torch.bfloat16)
x32 = torch.randn(4096, 4096, device=dev, dtype=torch.float32)
w32 = torch.randn(4096, device=dev, dtype=torch.float32)
b32 = torch.randn(4096, device=dev, dtype=torch.float32)
calls = {
    "rms_norm.bf16.t4096.h4096": lambda: F.rms_norm(x16, (4096,), w16, 1e-6),
    "rms_norm.fp32.t4096.h4096": lambda: F.rms_norm(x32, (4096,), w32, 1e-6),
    "layer_norm.fp32.t4096.h4096": lambda: F.layer_norm(x32, (4096,), w32, b32, 1e-5),
    "softmax.bf16.rows4096.n4096": lambda: torch.softmax(x16, -1),
    "copy.bf16.4096x4096": lambda: x16.clone(),
}
start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)


def alone(f, queued):
    out = []
    for _ in range(500):
        if queued:
            torch.cuda._sleep(200000)
        start.record()
        f()
        stop.record()
        stop.synchronize()
        out.append(start.elapsed_time(stop) * 1e3)
    return statistics.mean(out)


def batch(f):
    start.record()
    for _ in range(100):
        f()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) * 10


def host(f):
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(50):
        f()
    h = (time.perf_counter() - t) / 50 * 1e6
    torch.cuda.synchronize()
    return h


cpus = sorted(os.sched_getaffinity(0))
for name, f in calls.items():
    for _ in range(20):
        f()
    for cpu in cpus[: int(os.environ.get("ROUNDS", "4"))]:
        os.sched_setaffinity(0, {cpu})
        a, q, b, h = alone(f, False), alone(f, True), batch(f), host(f)
        print(f"{name:32s} cpu {cpu:2d}: alone {a:8.2f} us  queued {q:8.2f}  batch {b:8.2f}  host {h:7.2f}")
    os.sched_setaffinity(0, set(cpus))
