#!/usr/bin/env bash
# Same seeds, same results: runs `graphopt place --json` of two builds on bundled models, every
# engine but the exhaustive one, both objectives, on the presets, and compares what both report
# (cost, running time, peak memory, placement, order, evaluations). Prints one line per run and a
# count of differences; exits 1 when any run differs. For checking that a change to the placement
# model leaves today's problems alone.
#   bench/placement/compare_builds.sh OLD_GRAPHOPT NEW_GRAPHOPT [MODELS...]
set -euo pipefail
old=${1:?usage: compare_builds.sh OLD_GRAPHOPT NEW_GRAPHOPT [MODELS...]}
new=${2:?usage: compare_builds.sh OLD_GRAPHOPT NEW_GRAPHOPT [MODELS...]}
shift 2
here=$(cd "$(dirname "$0")/../.." && pwd)
models=("$@")
[ ${#models[@]} -gt 0 ] || models=("$here/resources/models/resnet18.onnx" "$here/resources/models/googlenet.onnx"
                                   "$here/resources/models/mobilenet_v2.onnx" "$here/resources/models/vgg16.onnx")
engines=${ENGINES:-brkga single heft list dfs postorder xla-best random local regal}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
differ=0 runs=0
for m in "${models[@]}"; do
    for devices in 2xgpu-pcie cpu+gpu 4xgpu-nvlink; do
        for objective in runtime memory; do
            for engine in $engines; do
                args=(place "$m" --engine "$engine" --objective "$objective" --devices "$devices" --budget 1500 --seed 2
                      --threads "${THREADS:-2}" --no-store --json)
                "$old" "${args[@]}" > "$work/old.json" 2> "$work/old.err" || true
                "$new" "${args[@]}" > "$work/new.json" 2> "$work/new.err" || true
                runs=$((runs + 1))
                verdict=$(python3 - "$work/old.json" "$work/new.json" <<'PY'
import json, sys
def load(p):
    try:
        return json.load(open(p))
    except Exception:
        return None
a, b = load(sys.argv[1]), load(sys.argv[2])
if a is None or b is None:
    print("same (both failed)" if a is None and b is None else "DIFFERENT (one failed)")
    sys.exit()
keys = ["cost", "runtime_s", "peak_bytes", "device_peak_bytes", "placement", "order", "evaluations", "feasible"]
diff = [k for k in keys if a.get(k) != b.get(k)]
print("same" if not diff else "DIFFERENT: " + ", ".join(diff))
PY
)
                echo "$(basename "$m") $devices $objective $engine: $verdict"
                case "$verdict" in DIFFERENT*) differ=$((differ + 1)) ;; esac
            done
        done
    done
done
echo "$runs runs, $differ different"
[ "$differ" -eq 0 ]
