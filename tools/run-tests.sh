#!/usr/bin/env bash
# The test command: installs what is missing, builds everything, runs the whole suite headless,
# then the package test (builds the .deb, installs, checks and removes it: tools/package-test.sh),
# then the suite again under AddressSanitizer + UndefinedBehaviorSanitizer (tools/asan-tests.sh,
# build-asan/) and every fuzz target for FUZZ_SECONDS seconds each (tools/fuzz.sh, build-fuzz/,
# default 20).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
tools/build.sh
export QT_QPA_PLATFORM=offscreen
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j "$(nproc)" --timeout 900
cd - >/dev/null
tools/package-test.sh
tools/asan-tests.sh
tools/fuzz.sh "${FUZZ_SECONDS:-20}"
