#!/bin/bash
# REGAL in the settings of issue 19, end to end: trains the policies, evaluates them on a
# validation set (synthetic graphs of seeds no training uses: model choice) and on the test split
# of the bundled models (reported, never used to choose), and prints one summary line per
# evaluation.
#
#   bench/regal/regal-settings.sh [OUTDIR]        (default /tmp/regal-settings; needs build/app/graphopt)
#
# Every BRKGA run, uniform and REGAL alike, starts from the heft, xla-best and single solutions
# (--seed-heuristics), so the comparison is fair; budget 5,000, seeds 1-3, baselines heft,
# xla-best, single and local (local search at 5,000 evaluations).
#
# Splits: val (chain, branchy, layered, series-parallel graphs of seeds training never uses: the
# only one used to choose), test (the test split of resources/models/splits.json, at the
# setting's batch), heldout (wide, skip and attention graphs: families no policy is trained on).
# The synthetic graphs have the generator's own batch sizes.
#
# Settings: 2xgpu-pcie batch 1 (the shipped policies), 4xgpu-nvlink batch 32, 2xgpu-pcie batch
# 32; weights are counted in memory (the default). Recipes: "shipped" (the policy in
# resources/policies), "imitate" (imitation of elite chromosomes only), "imitate+rl" (imitation,
# then REINFORCE on seeded rollouts).
set -euo pipefail
cd "$(dirname "$0")/../.."
G=${GRAPHOPT:-build/app/graphopt}  # another binary: GRAPHOPT=/path/to/graphopt
OUT=${1:-/tmp/regal-settings}
mkdir -p "$OUT/val" "$OUT/policies" "$OUT/eval"

for fam in chain branchy layered series-parallel; do
    for s in 1001 1002; do
        [ -f "$OUT/val/$fam-$s.json" ] || $G generate --family $fam --nodes 100 --seed $s --out "$OUT/val/$fam-$s.json" >/dev/null
    done
done
VAL=$(ls "$OUT"/val/*.json | paste -sd,)
# Families no policy is trained on (the generator's held-out shapes): wide branches, long skips,
# attention blocks.
mkdir -p "$OUT/heldout"
for fam in wide skip attention; do
    for s in 1 2; do
        [ -f "$OUT/heldout/$fam-$s.json" ] || $G generate --family $fam --nodes 150 --seed $s --out "$OUT/heldout/$fam-$s.json" >/dev/null
    done
done
HELDOUT=$(ls "$OUT"/heldout/*.json | paste -sd,)

train() {  # name devices objective batch recipe
    local name=$1 devices=$2 objective=$3 batch=$4 recipe=$5 out="$OUT/policies/$1.json"
    [ -f "$out" ] && return
    local shape=()
    [ "$batch" != 1 ] && shape=(--batch "$batch")
    case $recipe in
        imitate) $G train-policy --objective "$objective" --devices "$devices" "${shape[@]}" --seed 1 --epochs 0 \
                     --imitate-epochs 100 --seed-heuristics --out "$out" --no-store 2>"$OUT/policies/$name.log" ;;
        imitate+rl) $G train-policy --objective "$objective" --devices "$devices" "${shape[@]}" --seed 1 --epochs 10 \
                     --budget 2000 --imitate-epochs 100 --seed-heuristics --out "$out" --no-store 2>"$OUT/policies/$name.log" ;;
    esac
}

evaluate() {  # name devices objective batch policy split
    local name=$1 devices=$2 objective=$3 batch=$4 policy=$5 split=$6 shape=()
    local test=resources/models
    [ "$split" = val ] && test=$VAL
    [ "$split" = heldout ] && test=$HELDOUT
    [ "$batch" != 1 ] && [ "$split" = test ] && shape=(--batch "$batch")
    local out="$OUT/eval/$split-$name.json"
    [ -f "$out" ] || $G eval-policy --objective "$objective" --devices "$devices" "${shape[@]}" --test "$test" \
        --budget 5000 --seeds 3 --baselines heft,xla-best,single,local --seed-heuristics --policy "$policy" --json > "$out"
    python3 - "$out" "$split-$name" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); s = j["summary"]; b = s.get("vs_best_baseline", {})
ahead = sum(all(c < min(g["baselines"].values()) for c in g["regal_cost"]) for g in j["graphs"])
print(f"{sys.argv[2]:44s} vs uniform BRKGA: mean {s['mean_improvement_pct']:6.2f} %  median {s['median_improvement_pct']:6.2f} %  "
      f"wins {s['win_rate']:.2f} | vs best baseline: mean {b.get('mean_improvement_pct', float('nan')):6.2f} %  "
      f"wins {b.get('win_rate', float('nan')):.2f}  graphs ahead {ahead}/{len(j['graphs'])}")
PY
}

for objective in memory runtime; do
    # 2xgpu-pcie, batch 1: the shipped policies and the new recipes.
    for recipe in imitate imitate+rl; do train "$objective-2xgpu-pcie-b1-$recipe" 2xgpu-pcie $objective 1 $recipe; done
    for split in val test heldout; do
        evaluate "$objective-2xgpu-pcie-b1-shipped" 2xgpu-pcie $objective 1 resources/policies/regal-$objective-2xgpu-pcie.json $split
        for recipe in imitate imitate+rl; do
            evaluate "$objective-2xgpu-pcie-b1-$recipe" 2xgpu-pcie $objective 1 "$OUT/policies/$objective-2xgpu-pcie-b1-$recipe.json" $split
        done
    done
    # cpu+gpu, batch 1: the shipped policy (the recipe validation chose, retrained by the README's
    # command) and the two recipes.
    for split in val test heldout; do
        evaluate "$objective-cpu+gpu-b1-shipped" cpu+gpu $objective 1 resources/policies/regal-$objective-cpu+gpu.json $split
    done
    for recipe in imitate imitate+rl; do
        train "$objective-cpu+gpu-b1-$recipe" cpu+gpu $objective 1 $recipe
        for split in val test heldout; do
            evaluate "$objective-cpu+gpu-b1-$recipe" cpu+gpu $objective 1 "$OUT/policies/$objective-cpu+gpu-b1-$recipe.json" $split
        done
    done
    # 4xgpu-nvlink and 2xgpu-pcie at batch 32 (the train split's models at that batch).
    for split in val test heldout; do
        evaluate "$objective-4xgpu-nvlink-b32-shipped" 4xgpu-nvlink $objective 32 resources/policies/regal-$objective-4xgpu-nvlink.json $split
    done
    for devices in 4xgpu-nvlink 2xgpu-pcie; do
        for recipe in imitate imitate+rl; do
            train "$objective-$devices-b32-$recipe" $devices $objective 32 $recipe
            for split in val test heldout; do
                evaluate "$objective-$devices-b32-$recipe" $devices $objective 32 "$OUT/policies/$objective-$devices-b32-$recipe.json" $split
            done
        done
    done
done
