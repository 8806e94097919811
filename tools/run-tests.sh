#!/usr/bin/env bash
# The test command: installs what is missing, builds everything, runs the whole suite headless,
# then the package test (builds the .deb, installs, checks and removes it: tools/package-test.sh),
# then the suite again under AddressSanitizer + UndefinedBehaviorSanitizer (tools/asan-tests.sh,
# build-asan/) and the deterministic fuzzing (tools/fuzz.sh ci: a fixed number of executions per
# target from seed 1, then the regression inputs; build-fuzz/).
# At the end (also when a step fails) it prints a table of its steps: wall time, and the tests,
# fuzz executions and corpus files each counted. Each step's output is also kept in
# ${CI_LOG_DIR:-a new temporary directory}/STEP.log.
set -euo pipefail
cd "$(dirname "$0")/.."
logs=${CI_LOG_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/graphopt-ci.XXXXXX")}
mkdir -p "$logs"
begin=$(date +%s)
rows=()
current=""

# count STEP LOG: what the step counted, from its output.
count() {
  local n
  case "$1" in
    ctest | asan)
      n=$(sed -n 's/.*tests passed, \([0-9]*\) tests failed out of \([0-9]*\).*/\2 tests, \1 failed/p' "$2" | tail -1)
      echo "${n:-no test summary}"
      ;;
    fuzz)
      awk '/ executions .* corpus files/ { e += $2; c += $4; r += $9 } END { if (NR) printf "%d executions, %d corpus files, %d regression inputs", e, c, r }' "$2"
      ;;
    package) grep -q 'package-test: passed\|package-test: ok' "$2" && echo "1 package" || echo "-" ;;
    *) echo "-" ;;
  esac
}

table() {
  local rc=$?
  [[ -n "$current" ]] && rows+=("$(printf '%-22s %8s  %-8s %s' "$current" "$(($(date +%s) - stepStart)) s" FAILED "$(count "$currentKey" "$logs/$currentKey.log")")")
  echo
  echo "CI steps (logs in $logs)"
  printf '%-22s %8s  %-8s %s\n' step "wall" status counted
  printf '%s\n' "${rows[@]}"
  printf '%-22s %8s  %-8s\n' total "$(($(date +%s) - begin)) s" "$( ((rc == 0)) && echo ok || echo FAILED)"
}
trap table EXIT

# step KEY TITLE COMMAND...: runs it with its output shown and kept, and adds its row.
step() {
  currentKey=$1
  current=$2
  shift 2
  stepStart=$(date +%s)
  "$@" 2>&1 | tee "$logs/$currentKey.log"
  rows+=("$(printf '%-22s %8s  %-8s %s' "$current" "$(($(date +%s) - stepStart)) s" ok "$(count "$currentKey" "$logs/$currentKey.log")")")
  current=""
}

suite() {
  cd "${BUILD_DIR:-build}"
  QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j "$(nproc)" --timeout 900
}

step install "install" tools/install-deps.sh
step build "build" tools/build.sh
step ctest "ctest" suite
step package "package test" tools/package-test.sh
step asan "asan build + tests" tools/asan-tests.sh
step fuzz "fuzz (deterministic)" tools/fuzz.sh ci
