#!/usr/bin/python3
"""Markdown table of bench/regal/test-sets.sh's evaluations: python3 bench/regal/test-table.py OUTDIR [OUTDIR2 ...].

Per set and seeding: graphs used (and skipped), REGAL against uniform BRKGA (mean improvement,
share of (graph, seed) wins), against the best baseline given (mean improvement, and the share of
graphs where REGAL's mean over seeds is at or below the best baseline's cost: the issue's ">= 90 %
of graphs"), and the share of graphs where REGAL reached uniform BRKGA's final cost within a third
of the budget (the issue's ">= 75 %")."""
import glob
import json
import os
import sys

print("| policy | set | seeded | graphs | vs uniform: mean | wins | vs best baseline: mean | graphs at or ahead | to uniform's cost within a third |")
print("|---|---|---|---:|---:|---:|---:|---:|---:|")
for out in sys.argv[1:] or ["/tmp/regal-test-sets"]:
    for path in sorted(glob.glob(os.path.join(out, "*.json"))):
        name = os.path.basename(path)[:-5]
        for suffix in ("-seeded", "-split"):
            if name.endswith(suffix):
                name = name[: -len(suffix)]
        try:
            j = json.load(open(path))
        except ValueError:
            print(f"(skipped {path}: not finished)", file=sys.stderr)
            continue
        s = j["summary"]
        b = s.get("vs_best_baseline", {})
        ahead = 0
        for g in j["graphs"]:
            regal = sum(g["regal_cost"]) / len(g["regal_cost"])
            best = min(g["baselines"].values()) if g["baselines"] else float("inf")
            ahead += regal <= best * (1 + 1e-9)
        n = len(j["graphs"])
        skipped = len(j.get("skipped", []))
        third = s.get("evaluations_to_uniform_final", {}).get("within_third_rate", float("nan"))
        policy = os.path.basename(j.get("policy", "?"))
        # What both sides started from: the heuristics (--seed-heuristics), other engines
        # (--seed-engines), or nothing.
        starts = (["heuristics"] if j.get("seed_heuristics") else []) + list(j.get("seed_engines", []))
        seeded = ", ".join(starts) if starts else "no"
        print(f"| {policy} | {name} | {seeded} | {n}{f' ({skipped} skipped)' if skipped else ''} | "
              f"{s['mean_improvement_pct']:+.2f} % | {s['win_rate']:.2f} | {b.get('mean_improvement_pct', float('nan')):+.2f} % | "
              f"{ahead}/{n} ({100 * ahead / max(1, n):.0f} %) | {100 * third:.0f} % |")
