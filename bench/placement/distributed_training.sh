#!/usr/bin/env bash
# Epoch time of `graphopt train-policy` with 1 and 2 ranks on this machine (tools/launch-local.sh,
# loopback, Gloo), every rank on one BRKGA thread, the same global batch, so the weights are the
# same and only the time differs. Prints a Markdown table: ranks, median epoch seconds, training
# graphs per second, throughput relative to 1 rank, the CPU seconds of all ranks (whole run: the
# work is shared, not repeated, when this stays level while the ranks grow), and per epoch the CPU
# seconds along the critical path (each phase's slowest rank, EpochReport::criticalCpuS): the
# epoch's time if every rank had a core to itself, so its ratio to 1 rank's is the speed-up the
# code gives when the machine does not hold it back.
#   bench/placement/distributed_training.sh BUILD_DIR [RANKS...]      (default ranks: 1 2)
# Environment: EPOCHS (5), BUDGET (1500), SIZES (30,80,160), BATCH (4), SAMPLES (4), MODELS (none:
# synthetic graphs only; a folder with splits.json adds its train split).
set -euo pipefail
build=${1:?usage: distributed_training.sh BUILD_DIR [RANKS...]}
shift
here=$(cd "$(dirname "$0")/../.." && pwd)
ranks=("$@")
[ ${#ranks[@]} -gt 0 ] || ranks=(1 2)
epochs=${EPOCHS:-5}
budget=${BUDGET:-1500}
sizes=${SIZES:-30,80,160}
batch=${BATCH:-4}
samples=${SAMPLES:-4}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=$(cd "$build" && pwd)/app/graphopt
args=(train-policy --objective runtime --seed 1 --epochs "$epochs" --budget "$budget" --sizes "$sizes" --graph-seeds 1
      --models "${MODELS:-none}" --samples "$samples" --batch-graphs "$batch" --threads 1 --json)
echo "train-policy, $epochs epochs, budget $budget, sizes $sizes, models ${MODELS:-none}, $samples samples, batches of $batch graphs, 1 BRKGA thread per rank"
echo "$(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
# What the machine gives two processes right now (other builds may hold a core): the same
# single-thread BRKGA run alone and as two concurrent processes.
"$bin" generate --family layered --nodes 160 --seed 1 --out "$work/probe.json" >/dev/null
probe=("$bin" place "$work/probe.json" --engine brkga --budget 40000 --threads 1 --no-store)
t0=$(date +%s.%N); "${probe[@]}" >/dev/null; t1=$(date +%s.%N)
"${probe[@]}" >/dev/null & "${probe[@]}" >/dev/null; wait; t2=$(date +%s.%N)
python3 -c "import sys; a, b, c = map(float, sys.argv[1:]); print(f'capacity probe: two concurrent single-thread BRKGA processes ran at {2 * (b - a) / (c - b):.2f}x the throughput of one ({b - a:.2f} s alone, {c - b:.2f} s for the pair)')" "$t0" "$t1" "$t2"
echo
echo "| ranks | median epoch s | best epoch s | epochs s | graphs / s (median) | throughput vs first row (median, best) | CPU s, all ranks | critical-path CPU s / epoch | speed-up with a core per rank | weights vs first row |"
echo "|---|---|---|---|---|---|---|---|---|---|"
base=
for n in "${ranks[@]}"; do
  log="$work/ranks$n.log"
  db="$work/runs$n.db"
  # Every rank under /usr/bin/time: the CPU seconds of all ranks, whole runs (setup included).
  timed=(sh -c '/usr/bin/time -f "%U %S" -o "$0.${RANK:-0}" "$@"' "$work/cpu$n")
  if [ "$n" = 1 ]; then
    "${timed[@]}" "$bin" "${args[@]}" --db "$db" --out "$work/p$n.json" 2>"$log" >"$work/r$n.json"
  else
    "$here/tools/launch-local.sh" "$n" "${timed[@]}" "$bin" "${args[@]}" --db "$db" --out "$work/p$n.json" 2>"$log" >"$work/r$n.json"
  fi
  cpu=$(cat "$work/cpu$n".* | awk '{s += $1 + $2} END {printf "%.1f", s}')
  # Rank 0 recorded the run: one event per epoch with its epoch_s; the graphs from the checkpoint.
  "$bin" runs export 1 --json --db "$db" >"$work/e$n.json"
  python3 - "$n" "$work/e$n.json" "$work/p$n.json.ckpt" "$work/r$n.json" "${base:-0}" "$work/p$n.json" "$work/p${ranks[0]}.json" \
      "$work/e${ranks[0]}.json.best" "$cpu" <<'PY'
import json, statistics, sys
n, events, ckpt, result, base = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5])
a = json.load(open(sys.argv[6]))["parameters"]
b = json.load(open(sys.argv[7]))["parameters"]
diff = max(abs(x - y) for k in a for x, y in zip(a[k]["data"], b[k]["data"]))
evs = json.load(open(events))["events"]
times = [e["values"]["epoch_s"] for e in evs]
critical = statistics.median(e["values"]["epoch_critical_cpu_s"] for e in evs)
graphs = len(json.load(open(ckpt))["baseline"])
world = json.load(open(result))["world_size"]
assert world == int(n), (world, n)
median, best = statistics.median(times), min(times)
if base:
    base_median, base_best = base, float(open(sys.argv[8]).read())
    base_critical = float(open(sys.argv[8].replace(".best", ".critical")).read())
else:
    base_median, base_best, base_critical = median, best, critical
print(f"| {n} | {median:.2f} | {best:.2f} | {', '.join(f'{t:.2f}' for t in times)} | {graphs / median:.2f} | "
      f"{base_median / median:.2f}x, {base_best / best:.2f}x | {sys.argv[9]} | {critical:.2f} | {base_critical / critical:.2f}x | "
      f"max difference {diff:g} |")
open(sys.argv[2] + ".critical", "w").write(str(critical))
open(sys.argv[2] + ".median", "w").write(str(median))
open(sys.argv[2] + ".best", "w").write(str(best))
PY
  [ -n "${base:-}" ] || base=$(cat "$work/e$n.json.median")
done
