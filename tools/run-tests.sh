#!/usr/bin/env bash
# The test command: installs what is missing, builds the optimized programs (everything but the
# test suites: what the package ships, the benchmarks and the screenshot tools), runs the package
# test (builds the .deb, installs, checks and removes it: tools/package-test.sh), builds the suites
# with AddressSanitizer + UndefinedBehaviorSanitizer and runs the whole suite headless there
# (tools/asan-tests.sh, build-asan/), then the deterministic fuzzing (tools/fuzz.sh ci: a fixed
# number of executions per target from seed 1, then the regression inputs; build-fuzz/).
# The suite runs once, under the sanitizers (and with assertions on): a second run in the
# optimized build took 8 of CI's 52 minutes (its build and its ctest). What CI no longer sees is a
# defect that shows only at -O2; developers run the suite there too (tools/build.sh, then ctest
# in build/).
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
    asan)
      # (the step runs ctest twice: the sum of its summaries)
      n=$(sed -n 's/.*tests passed, \([0-9]*\) tests failed out of \([0-9]*\).*/\2 \1/p' "$2" |
        awk '{ t += $1; f += $2 } END { if (NR) printf "%d tests, %d failed", t, f }')
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

step install "install" tools/install-deps.sh
step build "build (no suites)" tools/build.sh -DGRAPHOPT_BUILD_TESTS=OFF
step package "package test" tools/package-test.sh
step asan "suite (asan build+run)" tools/asan-tests.sh
step fuzz "fuzz (deterministic)" tools/fuzz.sh ci
