#!/usr/bin/env python3
"""Every benchmark row's change between two bench runs, and a one-line summary.

Usage: row_changes.py FIRST SECOND [--csv FILE] [--threshold PCT]

FIRST and SECOND are bench output folders (or their report.json). The CSV has one line per row in
both runs: suite, case, implementation, each run's time (us), the change (%), and each run's own
relative standard error of the mean (%, report.json's `noise`). The summary says how many rows
moved by more than the threshold (default 3%) each way, the median and largest changes, and the
largest noise either run reported, so that the run-to-run change can be set against it.
"""
import argparse
import json
import os
import statistics
import sys


def rows(path):
    report = os.path.join(path, "report.json") if os.path.isdir(path) else path
    with open(report, encoding="utf-8") as f:
        doc = json.load(f)
    suite = doc.get("suite", "")
    if isinstance(suite, dict):  # report.json's suite is {name, path, sha256} since schema 2.x
        suite = suite.get("name", "")
    return suite, {(b["case_id"], b["impl_key"]): b for b in doc["benchmarks"] if b.get("seconds")}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("first")
    parser.add_argument("second")
    parser.add_argument("--csv")
    parser.add_argument("--threshold", type=float, default=3.0)
    args = parser.parse_args()
    suite, a = rows(args.first)
    _, b = rows(args.second)
    common = [k for k in a if k in b]
    if not common:
        print(f"no benchmark row in common between {args.first} and {args.second}", file=sys.stderr)
        return 2
    lines = []
    for k in common:
        x, y = a[k], b[k]
        change = (y["seconds"] / x["seconds"] - 1) * 100
        lines.append((suite, k[0], k[1], x["seconds"] * 1e6, y["seconds"] * 1e6, change,
                      100 * (x.get("noise") or 0), 100 * (y.get("noise") or 0)))
    if args.csv:
        with open(args.csv, "w", encoding="utf-8") as f:
            f.write("suite,case,impl,first_us,second_us,change_pct,first_noise_pct,second_noise_pct\n")
            for line in lines:
                f.write("%s,%s,%s,%.2f,%.2f,%+.2f,%.3f,%.3f\n" % line)
    changes = [line[5] for line in lines]
    slower = sum(c > args.threshold for c in changes)
    faster = sum(c < -args.threshold for c in changes)
    noise = max(max(line[6], line[7]) for line in lines)
    print(f"{len(lines)} rows in both runs: {slower} slower and {faster} faster by more than {args.threshold:g}%; "
          f"median |change| {statistics.median(abs(c) for c in changes):.2f}%, range {min(changes):+.1f}% to "
          f"{max(changes):+.1f}%; largest own noise {noise:.2f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
