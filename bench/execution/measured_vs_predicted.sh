#!/bin/bash
# Measured costs against a real execution (issue 34): for each model, profile it with libtorch on
# one thread, execute every op on one core (the profile's sum against the measured makespan), then
# place it on cpu-cores with `single` and `brkga` using the measured costs and execute each
# placement on the two cores: measured makespan against the simulator's prediction for the same
# placement, order and costs. Prints one line per setting and whether the machine was busy.
#
#   bench/execution/measured_vs_predicted.sh [BUILD_DIR] [MODEL ...]
# Defaults: build, resnet18 googlenet inception_v3. Needs 2 cores; run it on an idle machine.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$here/build}
shift || true
models=("$@")
[ ${#models[@]} -eq 0 ] && models=(resnet18 googlenet inception_v3)
G=$build/app/graphopt
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-14s %-10s %12s %12s %8s  %s\n' model setting predicted measured error "ops per core"
for m in "${models[@]}"; do
  model=$here/resources/models/$m.onnx
  "$G" profile "$model" --out "$out/$m.costs.json" --no-store >/dev/null 2>&1
  report() {  # label, then execute's JSON on stdin
    python3 -c "
import json, sys
j = json.load(sys.stdin)
busy = ' (busy)' if j['machine_loaded'] else ''
print('%-14s %-10s %10.2f ms %10.2f ms %+7.1f%%  %s%s' % ('$m', '$1', j['predicted_makespan_s'] * 1e3,
      j['measured_makespan_s'] * 1e3, j['error_pct'], [d['ops'] for d in j['per_device']], busy))"
  }
  "$G" execute "$model" --costs "$out/$m.costs.json" --devices cpu-cores --repeats 9 --json | report "one core"
  for e in single brkga; do
    "$G" place "$model" --devices cpu-cores --costs "$out/$m.costs.json" --engine "$e" --export "$out/$m-$e.json" --no-store >/dev/null
    "$G" execute "$model" --placement "$out/$m-$e.json" --costs "$out/$m.costs.json" --devices cpu-cores --repeats 9 --json | report "$e"
  done
done
