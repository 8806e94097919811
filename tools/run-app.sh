#!/usr/bin/env bash
# The main job: installs what is missing, builds, prints a summary of the bundled ResNet-18 and
# starts the GUI on it. Extra arguments go to graphopt-studio (e.g. another model file).
# Without a display it starts under xvfb-run, so the window exists but cannot be seen.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
tools/build.sh
BIN="${BUILD_DIR:-build}/app"
MODEL=resources/models/resnet18.onnx
"$BIN/graphopt" info "$MODEL"
args=("$@")
((${#args[@]})) || args=("$MODEL")
if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
  echo "run-app: no display found; starting graphopt-studio under xvfb-run (the window is not visible; Ctrl+C stops it)"
  exec xvfb-run -a "$BIN/graphopt-studio" "${args[@]}"
fi
exec "$BIN/graphopt-studio" "${args[@]}"
