#!/usr/bin/env python3
"""How much each benchmark row moves between runs against how much it moves within one.

Usage: row_stability.py RUN [RUN ...] [--csv FILE] [--threshold PCT]

Each RUN is a bench output folder (or its report.json), of the same suite and settings, made with
--benchmark_repetitions=N (N >= 2 gives a within-run spread). Per row: the median of each run's
repetition times; `within` is the largest (max - min) / median of one run's repetitions; `between`
is (max - min) / median of the runs' medians. A row whose `between` is many times its `within` is
moved by something a run shares across its repetitions (placement, clocks, what ran before), which
a rank test over one run's repetitions cannot see. The summary counts rows over the threshold.
"""
import argparse
import json
import os
import statistics


def load(path):
    report = os.path.join(path, "report.json") if os.path.isdir(path) else path
    with open(report, encoding="utf-8") as f:
        doc = json.load(f)
    out = {}
    for b in doc["benchmarks"]:
        reps = [r["seconds"] for r in b.get("repetitions") or [] if r.get("seconds")]
        if reps:
            out[(b["case_id"], b["impl_key"])] = reps
    return out


def spread(values):
    m = statistics.median(values)
    return 100 * (max(values) - min(values)) / m if m else 0.0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--csv")
    parser.add_argument("--threshold", type=float, default=3.0)
    args = parser.parse_args()
    runs = [load(r) for r in args.runs]
    keys = [k for k in runs[0] if all(k in r for r in runs[1:])]
    lines = []
    for k in keys:
        medians = [statistics.median(r[k]) for r in runs]
        within = max(spread(r[k]) for r in runs)
        lines.append((k[0], k[1], statistics.median(medians) * 1e6, within, spread(medians),
                      " ".join("%.2f" % (m * 1e6) for m in medians)))
    if args.csv:
        with open(args.csv, "w", encoding="utf-8") as f:
            f.write("case,impl,median_us,within_pct,between_pct,run_medians_us\n")
            for line in lines:
                f.write("%s,%s,%.2f,%.2f,%.2f,%s\n" % line)
    over = [l for l in lines if l[4] > args.threshold]
    print(f"{len(lines)} rows in {len(runs)} runs: {len(over)} moved by more than {args.threshold:g}% between runs; "
          f"median between {statistics.median(l[4] for l in lines):.2f}%, median within {statistics.median(l[3] for l in lines):.2f}%")
    for l in sorted(lines, key=lambda l: -l[4])[:15]:
        print("  %-45s %-26s %9.2f us  within %5.2f%%  between %5.2f%%  [%s]" % l)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
