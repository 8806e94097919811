#!/usr/bin/env bash
# Prints a Markdown table: for each bundled model, 2 devices (2xgpu-pcie), both objectives,
# budget 5,000: each placement engine's cost, evaluations and wall time.
#   bench/placement/engine_table.sh BUILD_DIR [MODEL...]
set -euo pipefail
build=${1:?usage: engine_table.sh BUILD_DIR [MODEL...]}
shift
here=$(cd "$(dirname "$0")/../.." && pwd)
models=("$@")
[ ${#models[@]} -gt 0 ] || models=("$here"/resources/models/*.onnx)
engines=(brkga random local list dfs postorder xla-best heft single)
budget=${BUDGET:-5000}
threads=${THREADS:-2}
for objective in runtime memory; do
  echo
  echo "### objective: $objective (2xgpu-pcie, budget $budget, $threads threads; cost in $([ $objective = runtime ] && echo ms || echo MiB), evaluations, wall s)"
  echo
  printf '| model | nodes |'; for e in "${engines[@]}"; do printf ' %s |' "$e"; done; echo
  printf '|---|---|'; for e in "${engines[@]}"; do printf -- '---|'; done; echo
  for m in "${models[@]}"; do
    name=$(basename "$m" .onnx)
    nodes=$("$build/app/graphopt" info "$m" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["nodes"])')
    printf '| %s | %s |' "$name" "$nodes"
    for e in "${engines[@]}"; do
      "$build/app/graphopt" place "$m" --objective $objective --engine $e --budget $budget --seed 1 \
          --threads $threads --json --no-store |
        python3 -c '
import json, sys
j = json.load(sys.stdin)
c = j["cost"] * 1e3 if j["objective"] == "runtime" else j["cost"] / 2**20
print(" %.3f / %d / %.2f |" % (c, j["evaluations"], j["wall_s"]), end="")'
    done
    echo
  done
done
