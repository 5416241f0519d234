"""The collective table of docs/PERFORMANCE.md from what ci/gpu/collective_table.sh brought back:
each bench's report.json (or measurements.jsonl, when a bench was stopped) and the NCCL probe's log.
One Markdown row per (collective, dtype, in/out of place, size): opcert's CUDA backend, the peer
(torch.distributed's NCCL) and NCCL alone (the probe), time and busbw, and the two ratios.
Usage: python3 ci/gpu/collective_table.py DIR"""
import glob
import json
import os
import sys


def records(path):
    if path.endswith(".jsonl"):
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()]
    with open(path) as f:
        return json.load(f).get("benchmarks", [])


def probe_rows(path):
    rows = {}
    if not os.path.exists(path):
        return rows
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) != 7 or parts[0] in ("#", "collective") or not parts[3].isdigit():
                continue
            rows[(parts[0], parts[1], parts[2], int(parts[3]))] = (float(parts[4]), float(parts[6]))
    return rows


def size_text(b):
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if b >= scale and b % scale == 0:
            return f"{b // scale}{unit}"
    return str(b)


def main(folder):
    table = {}
    for path in sorted(glob.glob(os.path.join(folder, "*-report.json")) + glob.glob(os.path.join(folder, "*-measurements.jsonl"))):
        for r in records(path):
            c = r.get("collective")
            if not c or r.get("check") != "PASSED" or r.get("impl_key", "").endswith(".gloo"):
                continue
            key = (r["op"], c["dtype"], "in" if c["in_place"] else "out", c["size_bytes"])
            table.setdefault(key, {})[r["backend"]] = (r["seconds"] * 1e6, c["busbw_gbps"] or 0.0)
    probe = probe_rows(os.path.join(folder, "probe.txt"))
    print("| collective | dtype | place | size | opcert us | opcert busbw | torch us | torch busbw | vs torch | NCCL alone us | NCCL alone busbw | vs NCCL |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for key in sorted(table, key=lambda k: (k[0], k[1], k[2], k[3])):
        row = table[key]
        ours, peer, alone = row.get("cuda"), row.get("torch"), probe.get(key)
        cell = lambda v, fmt: "-" if v is None else fmt.format(v)
        ratio = lambda a, b: "-" if not a or not b or b[1] <= 0 or a[1] <= 0 else f"{a[1] / b[1]:.2f}x"
        lat = lambda a, b: "-" if not a or not b else f"{b[0] / a[0]:.2f}x"  # time ratio where busbw rounds to 0
        small = key[3] < 4096
        print(f"| {key[0]} | {key[1]} | {key[2]} | {size_text(key[3])} | {cell(ours and ours[0], '{:.1f}')} | "
              f"{cell(ours and ours[1], '{:.1f}')} | {cell(peer and peer[0], '{:.1f}')} | {cell(peer and peer[1], '{:.1f}')} | "
              f"{lat(ours, peer) if small else ratio(ours, peer)} | {cell(alone and alone[0], '{:.1f}')} | "
              f"{cell(alone and alone[1], '{:.1f}')} | {lat(ours, alone) if small else ratio(ours, alone)} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
