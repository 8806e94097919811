#!/usr/bin/env bash
# Gathers the seed corpus of one fuzz target into a directory: the project's own example files
# (bundled models and policies, tests/data), the small hand-written seeds in fuzz/seeds/TARGET and
# the regression inputs in tests/data/fuzz-regressions/TARGET. The files are copied from where
# they live (nothing is kept twice in the repository).
# Usage: fuzz/seeds.sh TARGET DIR
set -euo pipefail
target=$1
out=$2
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$out"

# copy FILE NAME: one seed (a flat directory, so names are made unique by the caller).
copy() { [[ -f "$1" ]] && cp "$1" "$out/$2"; }
copyAll() {  # copyAll PREFIX FILE...: every existing file, named PREFIX-basename
  local prefix=$1
  shift
  local f
  for f in "$@"; do
    [[ -f "$f" ]] && cp "$f" "$out/$prefix-$(basename "$f")"
  done
  return 0
}

case "$target" in
  onnx)
    # The small bundled models (the large ones only slow every mutation down).
    for f in "$root"/resources/models/*.onnx; do
      (($(stat -c %s "$f") <= 40000)) && copy "$f" "model-$(basename "$f")"
    done
    # Debian's ONNX node and model test corpus: one small model per operator.
    if [[ -d /usr/share/libonnx-testdata/data ]]; then
      while IFS= read -r f; do
        name=${f#/usr/share/libonnx-testdata/data/}
        name=${name%/model.onnx}
        copy "$f" "testdata-${name//\//-}.onnx"
      done < <(find /usr/share/libonnx-testdata/data -name model.onnx -size -8k | sort)
    fi
    ;;
  costgraph) copyAll data "$root"/tests/data/costgraph/*.pbtxt ;;
  dot) copyAll data "$root"/tests/data/dot/*.dot ;;
  json_graph) ;;
  neurips) copyAll data "$root"/tests/data/workloads/*.json ;;
  pipedream) copyAll data "$root"/tests/data/workloads/*.txt ;;
  devices) ;;
  policy) copyAll shipped "$root"/resources/policies/*.json ;;
  tuner_params) ;;
  *)
    echo "fuzz/seeds.sh: unknown target '$target'" >&2
    exit 2
    ;;
esac
copyAll hand "$root"/fuzz/seeds/"$target"/*
copyAll regression "$root"/tests/data/fuzz-regressions/"$target"/*
# libFuzzer needs at least one input to start from.
[[ -n "$(ls -A "$out")" ]] || printf '' > "$out/empty"
