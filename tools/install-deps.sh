#!/usr/bin/env bash
# Installs every Debian package GraphOpt Studio needs to build, test and run.
# Idempotent: when everything is already installed it only runs dpkg-query and exits.
# Usage: tools/install-deps.sh [--with-export]   (--with-export adds what tools/export_models.py needs)
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libgl-dev libegl-dev libxkbcommon-dev libvulkan-dev
  libgraphviz-dev
  libtorch-dev
  libgloo-dev  # the headers of Gloo, which c10d's ProcessGroupGloo.hpp includes (nn/Distributed.cpp); libtorch links the library
  libopenblas0-pthread  # libtorch's mm goes to the BLAS the alternatives system picks: OpenBLAS, not the reference one
  libsqlite3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
  libhalide14-0-dev
  libxgboost-dev
  nlohmann-json3-dev
  xvfb xauth
  file lintian appstream desktop-file-utils  # the package test: cpack's dependency scan, checks of the .deb and its metadata
  clang libclang-rt-14-dev  # tools/fuzz.sh: libFuzzer and clang's sanitizer runtimes
)
if [[ "${1:-}" == "--with-export" ]]; then
  packages+=(python3-torchvision python3-onnx)
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${#missing[@]} missing packages: ${missing[*]}"
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
