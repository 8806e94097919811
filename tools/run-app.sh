#!/usr/bin/env bash
# The main job: installs what is missing, builds, prints a summary of the bundled ResNet-18, runs
# a BRKGA and a REGAL placement on it (both stored in the user's run database) and starts the GUI on it.
# Extra arguments go to graphopt-studio (e.g. another model file).
# Without a display it starts under xvfb-run, so the window exists but cannot be seen.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
tools/build.sh
BIN="${BUILD_DIR:-build}/app"
MODEL=resources/models/resnet18.onnx
"$BIN/graphopt" info "$MODEL"
# One placement run, recorded in the user's run database like every run the GUI starts.
"$BIN/graphopt" place "$MODEL" --engine brkga --objective runtime --budget 5000 --seed 1
"$BIN/graphopt" place "$MODEL" --engine regal --objective runtime --budget 5000 --seed 1   # BRKGA guided by the shipped policy
"$BIN/graphopt" runs list --limit 5
args=("$@")
((${#args[@]})) || args=("$MODEL")
if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
  echo "run-app: no display found; starting graphopt-studio under xvfb-run (the window is not visible; Ctrl+C stops it)"
  exec xvfb-run -a "$BIN/graphopt-studio" "${args[@]}"
fi
exec "$BIN/graphopt-studio" "${args[@]}"
