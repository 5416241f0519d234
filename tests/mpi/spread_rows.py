"""What check_spread.py (run) and check_bench_spread.py (bench) share: reading one process's and
the ranks' outputs, and checking that the ranks gave the same rows, each once, in the same order."""
import json, sys
from collections import Counter
def fail(why):
    print("FAILED:", why)
    sys.exit(1)
def lines(path):
    return [json.loads(l) for l in open(path) if l.strip()]
def reports(out):
    return json.load(open(f"{out}/single/report.json")), json.load(open(f"{out}/ranks/report.json"))
def same_rows(want, got, what):
    dups = [k for k, n in Counter(got).items() if n > 1]
    if dups: fail(f"duplicated: {dups[:5]}")
    if set(want) - set(got): fail(f"missing: {sorted(set(want) - set(got))[:5]}")
    if set(got) - set(want): fail(f"not in one process's {what}: {sorted(set(got) - set(want))[:5]}")
    if got != want: fail(f"report.json is not in the suite's order (one process's {what})")
