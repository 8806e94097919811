#!/usr/bin/env bash
# Loads every file of a workloads folder (default: the shared ../shared/workloads next to this
# checkout) with `graphopt info`, PipeDream profiles also with --training, and prints one line per
# file: its nodes and devices, or the error. Exits 1 when any file fails to load. The workloads are
# read where they are, never copied into the project.
# Usage: tools/check-workloads.sh [DIR] [GRAPHOPT]
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir=${1:-$root/../shared/workloads}
bin=${2:-$root/build/app/graphopt}
failed=0
while IFS= read -r f; do
  modes=("")
  [[ $f == *.txt ]] && modes+=("--training")
  for m in "${modes[@]}"; do
    if out=$("$bin" info "$f" $m --json 2>&1); then
      /usr/bin/python3 - "$f" "$m" "$out" <<'PY'
import json, sys
f, mode, out = sys.argv[1], sys.argv[2], sys.argv[3]
j = json.loads(out[out.index('{'):])
devs = j.get('devices', {}).get('devices', [])
kinds = {}
for d in devs: kinds[d['kind']] = kinds.get(d['kind'], 0) + 1
print(f"ok   {f} {mode}: {j['nodes']} nodes, {j['edges']} edges" + (", devices " + ", ".join(f"{n} {k}" for k, n in kinds.items()) if devs else ""))
PY
    else
      echo "FAIL $f $m: $out"
      failed=1
    fi
  done
done < <(find "$dir" -type f \( -name '*.json' -o -name '*.txt' \) ! -name 'LICENSE*' | sort)
exit $failed
