#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang + AddressSanitizer + UndefinedBehaviorSanitizer) into
# ${FUZZ_BUILD_DIR:-build-fuzz} and runs each for SECONDS_PER_TARGET seconds (default 20) on its
# seed corpus (fuzz/seeds.sh), then prints per target the inputs executed and the corpus size.
# A crash, sanitizer report, uncaught exception, timeout (-timeout) or out-of-memory fails the
# script; the input is kept in the work directory and printed: copy it to
# tests/data/fuzz-regressions/TARGET/ (the GoogleTest FuzzRegressionTest loads every file there).
#
# Usage: tools/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
# Environment: FUZZ_WORK_DIR (default: a new temporary directory; corpora, logs, findings),
#              FUZZ_JOBS (build parallelism, default 2), FUZZ_TIMEOUT (seconds one input may take, default 25),
#              FUZZ_SEED (libFuzzer's -seed, default 1 so that a CI run replays the same mutations;
#              0 = a new random seed every run, for longer runs that should explore).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
seconds=${1:-20}
shift || true
all=(onnx costgraph dot json_graph neurips pipedream devices policy tuner_params)
targets=("${@:-${all[@]}}")
build=${FUZZ_BUILD_DIR:-build-fuzz}
work=${FUZZ_WORK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/graphopt-fuzz.XXXXXX")}
mkdir -p "$work"

start=$(date +%s)
cmake -S . -B "$build" -G Ninja -DGRAPHOPT_BUILD_FUZZERS=ON -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g" >/dev/null
ninja -C "$build" -j "${FUZZ_JOBS:-2}" $(printf 'fuzz/fuzz_%s ' "${targets[@]}")
echo "fuzz: built in $(($(date +%s) - start)) s; work directory $work"

# Leaks inside Debian's libraries (not ours) are listed, with the reason, in fuzz/lsan.supp.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:symbolize=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$root/fuzz/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

# knownIssue TARGET LOG: the reason fuzz/known-issues gives for the crash in LOG, if it lists it:
# a line "TARGET<TAB>TEXT<TAB>REASON" matches when TEXT appears in the report's first 8 frames.
knownIssue() {
  local frames
  frames=$(grep -m1 -A12 -E '^==[0-9]+==ERROR|^SUMMARY|runtime error' "$2" | grep -E '^ +#[0-7] ' || true)
  [[ -n "$frames" ]] || return 0
  while IFS=$'\t' read -r target text reason; do
    [[ -z "$target" || "$target" == \#* || "$target" != "$1" ]] && continue
    if grep -qF -- "$text" <<<"$frames"; then
      echo "$reason"
      return 0
    fi
  done <fuzz/known-issues
}

failed=()
summary=()
for t in "${targets[@]}"; do
  corpus="$work/corpus/$t"
  findings="$work/findings/$t"
  mkdir -p "$corpus" "$findings"
  fuzz/seeds.sh "$t" "$corpus"
  seeds=$(find "$corpus" -type f | wc -l)
  log="$work/$t.log"
  # Policies are 270 KB; mutating whole ones is slow and finds no more than small ones do.
  maxlen=()
  [[ "$t" == policy ]] && maxlen=(-max_len=16384)
  echo "fuzz: $t for $seconds s ($seeds seed files)"
  # A crash that fuzz/known-issues lists (in a file another change is fixing) is reported and the
  # fuzzer goes on for the rest of its time; anything else fails the run.
  deadline=$(($(date +%s) + seconds))
  execs=0
  status=0
  known=()
  while :; do
    left=$((deadline - $(date +%s)))
    ((left > 0)) || break
    set +e
    "$build/fuzz/fuzz_$t" "$corpus" -max_total_time="$left" -timeout="${FUZZ_TIMEOUT:-25}" -rss_limit_mb=2048 \
      -malloc_limit_mb=2048 -print_final_stats=1 -seed="${FUZZ_SEED:-1}" -artifact_prefix="$findings/" "${maxlen[@]}" >"$log" 2>&1
    status=$?
    set -e
    n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    execs=$((execs + ${n:-0}))
    ((status != 0)) || break
    issue=$(knownIssue "$t" "$log")
    [[ -n "$issue" ]] || break
    known+=("$issue")
    mkdir -p "$work/known/$t"
    mv "$findings"/* "$work/known/$t/" 2>/dev/null || true
    cat "$log" >>"$work/$t.known.log"
    status=0
  done
  files=$(find "$corpus" -type f | wc -l)
  if ((status != 0)) || [[ -n "$(ls -A "$findings")" ]]; then
    failed+=("$t")
    echo "fuzz: $t FAILED (exit $status); the end of $log:"
    tail -n 60 "$log"
    ls -l "$findings"
  fi
  if ((${#known[@]})); then
    echo "fuzz: $t hit ${#known[@]} known issue(s), not counted as failures (inputs in $work/known/$t):"
    printf '  %s\n' "$(printf '%s\n' "${known[@]}" | sort -u)"
  fi
  summary+=("$(printf '%-14s %12s executions  %6d corpus files (%d seeds)  %s%s' "$t" "$execs" "$files" "$seeds" \
    "$( ((status == 0)) && echo ok || echo FAILED)" "$( ((${#known[@]})) && echo ", ${#known[@]} known-issue restart(s)")")")
done

echo
echo "fuzz: $seconds s per target, $(($(date +%s) - start)) s in all"
printf '%s\n' "${summary[@]}"
if ((${#failed[@]})); then
  echo "fuzz: findings in ${failed[*]}; inputs in $work/findings/ (reproduce: $build/fuzz/fuzz_TARGET FILE;"
  echo "      keep one as tests/data/fuzz-regressions/TARGET/NAME once fixed)"
  exit 1
fi
[[ -n "${FUZZ_WORK_DIR:-}" ]] || rm -rf "$work"
