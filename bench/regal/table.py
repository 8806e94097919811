#!/usr/bin/python3
"""Markdown table of bench/regal/regal-settings.sh's evaluations: python3 bench/regal/table.py [OUTDIR]."""
import glob
import json
import os
import sys

out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/regal-settings"
rows = []
for path in sorted(glob.glob(os.path.join(out, "eval", "*.json"))):
    split, rest = os.path.basename(path)[:-5].split("-", 1)
    objective, rest = rest.split("-", 1)
    recipe = rest.rsplit("-", 1)[1]
    setting = rest.rsplit("-", 1)[0]
    try:
        j = json.load(open(path))
    except ValueError:
        print(f"(skipped {path}: not finished)", file=sys.stderr)
        continue
    s, b = j["summary"], j["summary"].get("vs_best_baseline", {})
    ahead = sum(all(c < min(g["baselines"].values()) for c in g["regal_cost"]) for g in j["graphs"])
    rows.append((objective, setting, recipe, split, s["mean_improvement_pct"], s["median_improvement_pct"], s["win_rate"],
                 b.get("mean_improvement_pct", float("nan")), b.get("win_rate", float("nan")), ahead, len(j["graphs"])))
order = {"val": 0, "test": 1, "heldout": 2}
rows.sort(key=lambda r: (r[0], r[1], r[2], order.get(r[3], 9)))
print("| objective | setting | policy | graphs | vs uniform: mean | median | wins | vs best baseline: mean | wins | graphs ahead of best baseline |")
print("|---|---|---|---|---:|---:|---:|---:|---:|---:|")
for r in rows:
    print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]:+.2f} % | {r[5]:+.2f} % | {r[6]:.2f} | {r[7]:+.2f} % | {r[8]:.2f} | {r[9]}/{r[10]} |")
