#!/usr/bin/env python3
"""Summarises a silence sweep (ci/silence/sweep.sh): per backend and suite, the results, any
FAILED or MISTRUSTED (false alarms on correct code), the largest error ratio, and the rounding
bias test's largest |mean| and z (docs/TOLERANCES.md, "Rounding"). Exit 1 on any false alarm."""
import json
import pathlib
import sys


def main(folder):
    rows = {}
    alarms = []
    for report in sorted(pathlib.Path(folder).glob("*/report.json")):
        doc = json.loads(report.read_text())
        suite = doc["suite"]["name"]
        for r in doc["results"]:
            key = (r["backend"], suite)
            row = rows.setdefault(key, {"results": 0, "passed": 0, "skipped": 0, "other": 0, "ratio": 0.0,
                                        "bias": 0.0, "z": 0.0, "decided": 0, "seeds": set()})
            row["results"] += 1
            row["seeds"].add(doc["seed"])
            status = r["status"]
            if status == "PASSED":
                row["passed"] += 1
            elif status == "SKIPPED":
                row["skipped"] += 1
            else:
                row["other"] += 1
                alarms.append(f"{r['backend']} {suite} seed {doc['seed']} {r['case']} ({r['impl']}): {status} {r['message']}")
            for m in r["metrics"]:
                ratio = m["error_ratio"]
                if isinstance(ratio, (int, float)):
                    row["ratio"] = max(row["ratio"], ratio)
                rounding = m.get("rounding")
                if rounding:
                    row["decided"] += rounding["decisive"]
                    if isinstance(rounding["bias_ulp"], (int, float)):
                        row["bias"] = max(row["bias"], abs(rounding["bias_ulp"]))
                    if isinstance(rounding["bias_z"], (int, float)):
                        row["z"] = max(row["z"], rounding["bias_z"])
    print("| backend | suite | seeds | results | passed | skipped | FAILED/MISTRUSTED/other | max error ratio | decided elements | max |bias| (ulp) | max z |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for (backend, suite), row in sorted(rows.items()):
        print(f"| {backend} | {suite} | {len(row['seeds'])} | {row['results']} | {row['passed']} | {row['skipped']} | "
              f"{row['other']} | {row['ratio']:.3g} | {row['decided']} | {row['bias']:.3f} | {row['z']:.2f} |")
    if alarms:
        print(f"\n{len(alarms)} false alarm(s):")
        for a in alarms:
            print("- " + a)
    return 1 if alarms else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: silence_summary.py SWEEP_FOLDER")
    sys.exit(main(sys.argv[1]))
