#!/usr/bin/env python3
"""Compare the verdicts of two opcert report.json files, case by case.

    ci/compare_verdicts.py BEFORE/report.json AFTER/report.json

Matches results by (backend, implementation key, case id, rank) and prints every result whose status
changed, appeared or disappeared. Exit 0 when every verdict is the same, 1 when one differs, 2 when
a file cannot be read. A refactor that must not change behaviour runs this on the smoke suite
before and after (docs/ARCHITECTURE.md). `opcert compare` is the user-facing verb; this script is
the dependency-free check that needs only Python.
"""
import json
import sys


def verdicts(path):
    try:
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        print(f"compare_verdicts: cannot read {path}: {e}", file=sys.stderr)
        sys.exit(2)
    results = report.get("results")
    if not isinstance(results, list):
        print(f"compare_verdicts: {path} has no 'results' list; is it an opcert report.json?", file=sys.stderr)
        sys.exit(2)
    out = {}
    for r in results:
        key = (r.get("backend"), r.get("impl"), r.get("case"), r.get("rank"))
        out[key] = r.get("status")
    return out


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    before, after = verdicts(argv[1]), verdicts(argv[2])
    changed = 0
    for key in sorted(set(before) | set(after), key=lambda k: tuple("" if v is None else str(v) for v in k)):
        was, now = before.get(key, "absent"), after.get(key, "absent")
        if was != now:
            changed += 1
            backend, impl, case, rank = key
            where = f"{backend} {impl} {case}" + (f" rank {rank}" if rank is not None else "")
            print(f"{where}: {was} -> {now}")
    print(f"{len(after)} result(s) after, {len(before)} before; {changed} verdict(s) differ")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
