#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang + AddressSanitizer + UndefinedBehaviorSanitizer) into
# ${FUZZ_BUILD_DIR:-build-fuzz} and runs them on their seed corpus (fuzz/seeds.sh), in one of two
# modes:
#
#   tools/fuzz.sh ci [TARGET...]        what CI runs (tools/run-tests.sh): deterministic. Every target
#                                       executes exactly the number of inputs fuzz/ci-runs gives it,
#                                       from seed 1 and the committed corpus, so the same commit runs
#                                       the same inputs in every run (the summary's execution
#                                       counts and corpus sizes repeat, on other CPUs too since
#                                       -use_cmp=0: fuzz/README.md); then every
#                                       file of tests/data/fuzz-regressions/TARGET/ is replayed.
#   tools/fuzz.sh [SECONDS] [TARGET...] exploring, outside CI: each target for SECONDS (default 20),
#                                       from a new random seed each time (FUZZ_SEED to choose one).
#                                       What it finds becomes a regression input once fixed.
#
# Any finding (a crash, a sanitizer report, an uncaught exception, a timeout (-timeout), running
# out of memory) fails the script, in both modes, and its input's path is printed. There is no
# list of tolerated crashes.
#
# Environment: FUZZ_WORK_DIR (default: a new temporary directory; corpora, logs, findings; kept
#              when something was found), FUZZ_JOBS (build parallelism, default 2), FUZZ_PARALLEL
#              (targets fuzzed at once, default one per core), FUZZ_TIMEOUT
#              (seconds one input may take; default 60 in ci mode, where a slow machine must not
#              turn into a finding, 25 otherwise), FUZZ_SEED (exploring mode only, default 0 = random),
#              FUZZ_STACK_DEPTH (ON: build libFuzzer's stack-depth feature in; default OFF).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
mode=time
seconds=20
if [[ "${1:-}" == ci ]]; then
  mode=ci
  shift
elif [[ "${1:-}" =~ ^[0-9]+$ ]]; then
  seconds=$1
  shift
fi
all=(onnx costgraph dot json_graph neurips pipedream devices policy tuner_params)
targets=("${@:-${all[@]}}")
build=${FUZZ_BUILD_DIR:-build-fuzz}
work=${FUZZ_WORK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/graphopt-fuzz.XXXXXX")}
mkdir -p "$work"

# ciRuns TARGET: the executions fuzz/ci-runs gives TARGET ("TARGET RUNS" lines).
ciRuns() {
  local n
  n=$(awk -v t="$1" '$1 == t { print $2 }' fuzz/ci-runs)
  [[ -n "$n" ]] || { echo "fuzz: fuzz/ci-runs has no line for target '$1'" >&2; exit 2; }
  echo "$n"
}
[[ $mode == ci ]] && for t in "${targets[@]}"; do ciRuns "$t" >/dev/null; done

start=$(date +%s)
# -ffile-prefix-map: the programs hold no path of this checkout (the sanitizers' source locations
# and __FILE__ become relative), so a clone elsewhere builds programs with the same layout, and
# the CI run (fixedProcess, below) the same inputs.
# FUZZ_STACK_DEPTH=ON builds libFuzzer's stack-depth feature in (off by default: it makes the CI
# run depend on where the stack lies; fuzz/CMakeLists.txt); give such a build its own folder.
cmake -S . -B "$build" -G Ninja -DGRAPHOPT_BUILD_FUZZERS=ON -DGRAPHOPT_FUZZ_STACK_DEPTH="${FUZZ_STACK_DEPTH:-OFF}" \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -ffile-prefix-map=$root=." \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -ffile-prefix-map=$root=." >/dev/null
ninja -C "$build" -j "${FUZZ_JOBS:-2}" $(printf 'fuzz/fuzz_%s ' "${targets[@]}")
echo "fuzz: built in $(($(date +%s) - start)) s; work directory $work"

# Leaks inside Debian's libraries (not ours) are listed, with the reason, in fuzz/lsan.supp.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:symbolize=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$root/fuzz/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
if [[ $mode == ci ]]; then
  timeout=${FUZZ_TIMEOUT:-60}
  seed=1
  # One thread wherever a library would start several (XGBoost's OpenMP in the tuner target):
  # how often a waiting loop runs depends on timing, and libFuzzer counts it as coverage.
  export OMP_NUM_THREADS=1
  # No address space randomization: with it the same input covered a few edges more or less from
  # one process to the next (pointer values reach hashing and ordering), which was enough for two
  # runs from one seed to drift apart after a few thousand inputs. setarch -R turns it off for
  # the fuzzer alone.
  if setarch "$(uname -m)" -R true 2>/dev/null; then
    norandom=(setarch "$(uname -m)" -R)
  else
    norandom=()
    echo "fuzz: WARNING: cannot turn address randomization off (setarch -R); runs may not repeat exactly"
  fi
else
  timeout=${FUZZ_TIMEOUT:-25}
  seed=${FUZZ_SEED:-0}
  norandom=()
fi
limits=(-timeout="$timeout" -rss_limit_mb=2048 -malloc_limit_mb=2048)

# fixedProcess TARGET ARGS...: the CI run of a target in a process that starts the same on every
# machine. With address randomization off, where the stack and the heap lie still depends on what
# the kernel puts at the top of the stack (the environment, the arguments, the program's path)
# and on the lengths of the strings the process allocates first; libFuzzer records the operands
# of comparisons (pointers among them) and mutates inputs with them, so those addresses reach the
# inputs it tries: the same commit found 683, 689 and 699 corpus files for the device target as
# only an unrelated environment variable changed. So the fuzzer runs in $work with a copy of the
# program, relative paths only, and nothing in its environment but these fixed variables.
# The sanitizers' options are the ones exported above, with the suppressions read from the copy
# in $work (no checkout path in the environment).
fixedProcess() {
  local t=$1
  shift
  cp "$build/fuzz/fuzz_$t" "$work/bin/fuzz_$t"
  (cd "$work" && exec env -i PATH=/usr/bin:/bin TMPDIR=/tmp OMP_NUM_THREADS=1 \
    ASAN_OPTIONS="$ASAN_OPTIONS" UBSAN_OPTIONS="$UBSAN_OPTIONS" LSAN_OPTIONS="${LSAN_OPTIONS/"$root/fuzz/"/}" \
    "${norandom[@]}" ./bin/fuzz_"$t" "$@")
}
if [[ $mode == ci ]]; then
  mkdir -p "$work/bin"
  cp "$root/fuzz/lsan.supp" "$work/lsan.supp"
fi

# runTarget TARGET: fuzzes one target and replays its regression inputs. It runs in a process of
# its own, beside others (below), so it leaves its results in files of $out: TARGET.summary (its
# line of the table), TARGET.status (0 or the failing exit status), TARGET.findings (the inputs
# to look at, one per line) and, when it failed, TARGET.failure (the end of its log). Every file
# it writes has the target's name in it, and each target is its own process with its own seed,
# run count and corpus, so running several at once changes no input any of them tries.
runTarget() {
  local t=$1 corpus findings seeds log status rstatus regressions last secs execs files t0
  local inputs_from=() maxlen=() budget=() inputs=() found=()
  corpus="$work/corpus/$t"
  findings="$work/findings/$t"
  mkdir -p "$corpus" "$findings"
  if [[ $mode == ci ]]; then
    # The seeds are handed over as a list in name order (-seed_inputs), not as a directory: the
    # order a directory lists its files in depends on the file system (ext4 hashes names with a
    # seed of its own), and libFuzzer's start-up shuffle and its sort by size keep that order for
    # files of equal size, so the same seeds would start a different sequence on another machine.
    # The corpus directory starts empty and receives only the new inputs; -reload=0 keeps
    # libFuzzer from re-reading it on a timer.
    # Paths are relative to $work (the fuzzer runs there, below): see fixedProcess.
    fuzz/seeds.sh "$t" "$work/seeds/$t"
    (cd "$work" && find "seeds/$t" -type f | LC_ALL=C sort | paste -sd, - >"$t.seeds")
    seeds=$(find "$work/seeds/$t" -type f | wc -l)
    inputs_from=(-seed_inputs=@"$t.seeds" -reload=0)
    ((seeds)) || inputs_from=(-reload=0)
  else
    fuzz/seeds.sh "$t" "$corpus"
    seeds=$(find "$corpus" -type f | wc -l)
    inputs_from=()
  fi
  log="$work/$t.log"
  # Policies are 270 KB; mutating whole ones is slow and finds no more than small ones do.
  maxlen=()
  [[ "$t" == policy ]] && maxlen=(-max_len=16384)
  if [[ $mode == ci ]]; then
    budget=(-runs="$(ciRuns "$t")")
    echo "fuzz: $t, $(ciRuns "$t") executions from seed $seed ($seeds seed files)" >&3
  else
    budget=(-max_total_time="$seconds")
    echo "fuzz: $t for $seconds s ($seeds seed files, seed $seed)" >&3
  fi
  t0=$(date +%s)
  set +e
  if [[ $mode == ci ]]; then
    # No comparison operands in the mutations (-use_cmp=0): libFuzzer's CMP mutation writes the
    # operands of recent comparisons into inputs, and every pointer comparison in instrumented code
    # (an iterator against its end) is one. With randomization off, where the libraries and other
    # mappings lie still depends on the host (the kernel, the stack limit, the sizes of what is
    # mapped first), so the same commit tried other inputs on another CPU (dot 204 and 186 corpus
    # files, onnx 702 and 704, on a Zen 5 and a Zen 3 host). On one host, moving the mappings by
    # 4 KB or 8 MB (ulimit -s 8196 or 16384 instead of 8192) changed the corpus of 5 of 9 targets
    # (and a sixth's coverage) with the CMP mutation and of none without it, at the same coverage
    # (fuzz/README.md). Exploring keeps it.
    fixedProcess "$t" corpus/"$t" "${inputs_from[@]}" "${budget[@]}" -seed="$seed" -use_cmp=0 "${limits[@]}" -print_final_stats=1 \
      -artifact_prefix=findings/"$t"/ "${maxlen[@]}" >"$log" 2>&1
  else
    "${norandom[@]}" "$build/fuzz/fuzz_$t" "$corpus" "${inputs_from[@]}" "${budget[@]}" -seed="$seed" "${limits[@]}" -print_final_stats=1 \
      -artifact_prefix="$findings/" "${maxlen[@]}" >"$log" 2>&1
  fi
  status=$?
  set -e
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  # The corpus libFuzzer ended with (seeds it kept and new inputs), from its last status line.
  files=$(sed -n 's/.* corp: \([0-9]*\)\/.*/\1/p' "$log" | tail -1)
  files=${files:-0}
  # The regression inputs, each once, in the same kind of process.
  regressions=0
  rstatus=0
  if ((status == 0)) && [[ -d tests/data/fuzz-regressions/$t ]]; then
    mapfile -t inputs < <(find "tests/data/fuzz-regressions/$t" -type f | sort)
    regressions=${#inputs[@]}
    if ((regressions)); then
      set +e
      "${norandom[@]}" "$build/fuzz/fuzz_$t" "${limits[@]}" -artifact_prefix="$findings/" "${inputs[@]}" \
        >"$work/$t.regressions.log" 2>&1
      rstatus=$?
      set -e
      if ((rstatus != 0)); then
        # The replay names the file it is running before running it: the last one named is it.
        last=$(sed -n 's/^Running: //p' "$work/$t.regressions.log" | tail -1)
        [[ -n "$last" ]] && found+=("$t: $root/$last (regression input)")
        log="$work/$t.regressions.log"
        status=$rstatus
      fi
    fi
  fi
  secs=$(($(date +%s) - t0))
  for f in "$findings"/*; do [[ -e "$f" ]] && found+=("$t: $f"); done
  if ((status != 0)) || [[ -n "$(ls -A "$findings")" ]]; then
    ((status != 0)) || status=1  # a finding kept without a failing exit
    {
      echo "fuzz: $t FAILED (exit $status); the end of $log:"
      tail -n 60 "$log"
    } >"$out/$t.failure"
  fi
  printf '%s\n' "${found[@]}" >"$out/$t.findings"
  echo "$status" >"$out/$t.status"
  echo "$(printf '%-14s %10s executions  %6d corpus files (%d seeds)  %3d regression inputs  %5d s  %s' "$t" \
    "${execs:-?}" "$files" "$seeds" "$regressions" "$secs" "$( ((status == 0)) && echo ok || echo FAILED)")" >"$out/$t.summary"
  return 0
}

# The targets, FUZZ_PARALLEL at a time (default: one per core; each libFuzzer process uses one),
# then their results in the order of the list.
out="$work/results"
mkdir -p "$out"
# (nproc counts OMP_NUM_THREADS, set to 1 above for the fuzzers, as the number of processors)
parallel=${FUZZ_PARALLEL:-$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)}
((parallel >= 1)) || parallel=1
fuzzStart=$(date +%s)
running=0
for t in "${targets[@]}"; do
  if ((running >= parallel)); then
    wait -n || true  # (a target's failure is in its files; one without them failed too)
    running=$((running - 1))
  fi
  runTarget "$t" 3>&1 >"$out/$t.out" 2>&1 &  # (its start line on fd 3: this output, as it starts)
  running=$((running + 1))
done
wait
failed=()
findings_all=()
summary=()
for t in "${targets[@]}"; do
  cat "$out/$t.out"
  summary+=("$(cat "$out/$t.summary" 2>/dev/null || printf '%-14s did not finish (see %s)' "$t" "$out/$t.out")")
  if [[ "$(cat "$out/$t.status" 2>/dev/null)" != 0 ]]; then
    failed+=("$t")
    cat "$out/$t.failure" 2>/dev/null || true
  fi
  while IFS= read -r f; do [[ -n "$f" ]] && findings_all+=("$f"); done <"$out/$t.findings" 2>/dev/null || true
done

echo
if [[ $mode == ci ]]; then
  echo "fuzz: deterministic (fuzz/ci-runs, seed 1); fuzzing took $(($(date +%s) - fuzzStart)) s, $(($(date +%s) - start)) s with the build"
else
  echo "fuzz: $seconds s per target, $(($(date +%s) - start)) s in all"
fi
printf '%s\n' "${summary[@]}"
if ((${#failed[@]})); then
  echo "fuzz: FINDINGS in ${failed[*]}:"
  printf '  %s\n' "${findings_all[@]:-(no input kept; see the logs in $work)}"
  echo "fuzz: reproduce with $build/fuzz/fuzz_TARGET FILE; once fixed, keep the input as"
  echo "      tests/data/fuzz-regressions/TARGET/NAME (a name that says what it was)"
  exit 1
fi
[[ -n "${FUZZ_WORK_DIR:-}" ]] || rm -rf "$work"
