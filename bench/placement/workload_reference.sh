#!/usr/bin/env bash
# Our max-load (throughput objective) on the public partitioning workloads beside the figures the
# published programs give on the same files (../shared/workloads/README.md, "Reference figures").
# Prints a Markdown table: file, engine, our time per sample (ms), the reference figure, and the
# relative difference; "one device" must match to rounding, since it is the same split.
#   bench/placement/workload_reference.sh BUILD_DIR [WORKLOADS_DIR]    (default ../shared/workloads)
# Environment: ENGINES ("single brkga"), BUDGET (5000), SEEDS ("1 2 3").
set -euo pipefail
build=${1:?usage: workload_reference.sh BUILD_DIR [WORKLOADS_DIR]}
here=$(cd "$(dirname "$0")/../.." && pwd)
workloads=${2:-$here/../shared/workloads}
bin=$(cd "$build" && pwd)/app/graphopt
engines=${ENGINES:-single brkga}
budget=${BUDGET:-5000}
seeds=${SEEDS:-1 2 3}
# The published programs' figures (ms): one device, dp (optimal contiguous), local search.
declare -A onedev=([bert24_inference_layers]=92.406 [bert24_training_layers]=217.813
                   [resnet50_inference_layers]=201.45 [bert_l3_inference_operators]=49.3526)
declare -A dp=([bert24_inference_layers]=17.78990625 [bert24_training_layers]=41.7458125
               [resnet50_inference_layers]=33.774666015625 [bert_l3_inference_operators]=27.9185676799125)
echo "$(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); budget $budget, seeds $seeds"
echo
echo "| workload | engine | seed | time per sample (ms) | feasible | published one device (ms) | published dp (ms) | ours / dp |"
echo "|---|---|---|---:|---|---:|---:|---:|"
for f in "$workloads"/nips20/throughput/*.json; do
    name=$(basename "$f" .json)
    for engine in $engines; do
        for seed in $seeds; do
            [ "$engine" = single ] && [ "$seed" != "$(echo $seeds | cut -d' ' -f1)" ] && continue
            out=$("$bin" place "$f" --objective throughput --engine "$engine" --budget "$budget" --seed "$seed" \
                  --no-store --json)
            python3 - "$name" "$engine" "$seed" "${onedev[$name]:-}" "${dp[$name]:-}" <<PY
import json, sys
r = json.loads('''$out''')
name, engine, seed, one, dp = sys.argv[1:]
ms = r["throughput_s"] * 1e3
ratio = f"{ms / float(dp):.4f}" if dp else ""
print(f"| {name} | {engine} | {seed} | {ms:.6f} | {'yes' if r['feasible'] else 'no'} | {one} | {dp} | {ratio} |")
PY
        done
    done
done
