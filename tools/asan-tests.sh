#!/usr/bin/env bash
# Builds the test suite with AddressSanitizer + UndefinedBehaviorSanitizer (gcc) into
# ${ASAN_BUILD_DIR:-build-asan} and runs ctest there: memory errors, leaks and undefined behaviour
# anywhere the tests reach end the test with a report. tools/run-tests.sh runs it after the normal
# suite; on its own: tools/asan-tests.sh [extra ctest arguments].
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${ASAN_BUILD_DIR:-build-asan}
jobs=${JOBS:-$(nproc)}
# UBSan without its null and alignment checks: in this template-heavy C++ they are a check on
# nearly every reference and member call and cost a third of the build's compile time (a core
# file: 20.3 s with them, 13.8 s without), while a null dereference is still an ASan report and
# the fuzz targets (tools/fuzz.sh, clang) keep both checks on every file reader.
sanitize="-fsanitize=address,undefined -fno-sanitize=null,alignment -fno-omit-frame-pointer -fno-sanitize-recover=undefined"

# The same options for the build (gtest_discover_tests runs every test program to list its tests)
# and for ctest. Leaks inside Debian's libraries (Qt, fontconfig, LibTorch, ...) are listed, with
# the reason, in tools/lsan.supp; leak detection stays on for everything else.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$root/tools/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

start=$(date +%s)
# -O1: sanitized code at -O2 takes longer to build and runs hardly faster; -g1 (line tables) keeps
# file:line in the reports at half the compile time of -g. No benchmarks.
# The test programs' own sources: -O0 and AddressSanitizer only (GRAPHOPT_TEST_COMPILE_OPTIONS,
# tests/CMakeLists.txt): instrumenting gtest's and the JSON library's templates for undefined
# behaviour at -O1 took 21 s per test file, 12 s this way, and found nothing there. At -O0 the
# inline Qt 6 functions they call are left as out-of-line copies, which the dynamic linker then
# hands to Qt 5 (libtorch -> OpenCV's highgui loads libQt5Widgets, whose start-up called our
# QByteArray::append and crashed): -fvisibility-inlines-hidden keeps those copies to the program.
# ASAN_CMAKE_ARGS adds configure arguments (a compiler launcher, say).
cmake -S . -B "$build" -G Ninja ${ASAN_CMAKE_ARGS:-} -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1" \
  "-DGRAPHOPT_TEST_COMPILE_OPTIONS=-O0;-fno-sanitize=undefined;-fvisibility-inlines-hidden" \
  "-DCMAKE_CXX_FLAGS=$sanitize" "-DCMAKE_C_FLAGS=$sanitize" \
  "-DCMAKE_EXE_LINKER_FLAGS=$sanitize" "-DCMAKE_SHARED_LINKER_FLAGS=$sanitize" \
  -DGRAPHOPT_BUILD_BENCH=OFF >/dev/null
# Only what ctest runs and the programs the tests start (tests/CMakeLists.txt): not the GUI
# binary, the screenshot tools or the benchmarks.
ninja -C "$build" -j "$jobs" graphopt_test_programs
built=$(date +%s)
echo "asan-tests: built in $((built - start)) s"

# The tests run with leak detection off, each for the reason given in tools/lsan-leaky-tests.txt.
mapfile -t leaky < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' -e 's/\./\\./g' -e 's/.*/^&$/' tools/lsan-leaky-tests.txt)
leakyPattern=$(IFS='|'; echo "${leaky[*]}")
export QT_QPA_PLATFORM=offscreen
cd "$build"
ctest --output-on-failure -j "$jobs" --timeout 1800 -E "$leakyPattern" "$@"
ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" \
  ctest --output-on-failure -j "$jobs" --timeout 1800 -R "$leakyPattern" "$@"
echo "asan-tests: ctest took $(($(date +%s) - built)) s"
