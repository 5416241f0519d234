"""Prints the cases of an opcert run report whose alignment ratio (own RMSE / torch's) is worst,
with both RMSEs, so that a large ratio can be told apart from a tiny torch error."""
import json
import sys

report = json.load(open(sys.argv[1]))
count = int(sys.argv[2]) if len(sys.argv) > 2 else 8
rows = [r for r in report["results"] if r.get("alignment_ratio") is not None]
rows.sort(key=lambda r: r["alignment_ratio"], reverse=True)
for r in rows[:count]:
    own = r["metrics"][0]["rmse"] if r.get("metrics") else float("nan")
    print(f'align {r["alignment_ratio"]:.4g}  {r["impl"]}  {r["case"]}  own rmse {own:.3g}  peer rmse {r.get("peer_rmse", float("nan")):.3g}')
