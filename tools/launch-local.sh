#!/usr/bin/env bash
# Starts N ranks of COMMAND on this machine, over loopback, the way torchrun would:
#   tools/launch-local.sh N COMMAND [ARGS...]
# Each rank gets MASTER_ADDR=127.0.0.1, MASTER_PORT (a free port, or $MASTER_PORT when set),
# WORLD_SIZE=N and RANK. Waits for all of them and exits with the status of the first rank that
# failed (0 when all succeed); the others get LAUNCH_GRACE seconds to stop by themselves, then
# SIGTERM. Ctrl-C reaches every rank (they share the
# process group), so they all stop after their current batch.
# Example: tools/launch-local.sh 2 build/app/graphopt train-policy --epochs 2 --threads 1 --out p.json
set -uo pipefail

if (($# < 2)) || ! [[ "$1" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 N COMMAND [ARGS...]   (N >= 1 ranks on this machine)" >&2
  exit 2
fi
n=$1
shift

free_port() {
  # Ask the kernel for a free port; the window before rank 0 binds it is short.
  local p
  for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1; then
      "$p" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' && return 0
    fi
  done
  echo $((20000 + RANDOM % 30000))
}

export MASTER_ADDR=127.0.0.1
export MASTER_PORT=${MASTER_PORT:-$(free_port)}
export WORLD_SIZE=$n

pids=()
for ((r = 0; r < n; r++)); do
  RANK=$r "$@" &
  pids+=($!)
done
trap 'kill -TERM "${pids[@]}" 2>/dev/null' TERM

# When a rank fails the others should notice and stop by themselves (naming it); those still
# running after LAUNCH_GRACE seconds (default 30) are stopped with SIGTERM.
status=0
timer=
declare -A alive
for i in "${!pids[@]}"; do alive[${pids[$i]}]=$i; done
while ((${#alive[@]} > 0)); do
  done_pid=
  wait -n -p done_pid "${!alive[@]}" $timer 2>/dev/null
  rc=$?
  [[ -z "$done_pid" ]] && break
  if [[ "$done_pid" == "$timer" ]]; then
    echo "launch-local: stopping the ranks still running ${LAUNCH_GRACE:-30} s after the failure" >&2
    kill -TERM "${!alive[@]}" 2>/dev/null
    timer=
    continue
  fi
  rank=${alive[$done_pid]}
  unset "alive[$done_pid]"
  if ((rc != 0 && status == 0)); then
    echo "launch-local: rank $rank exited with status $rc" >&2
    status=$rc
    if ((${#alive[@]} > 0)); then
      sleep "${LAUNCH_GRACE:-30}" &
      timer=$!
    fi
  fi
done
[[ -n "$timer" ]] && kill "$timer" 2>/dev/null
exit $status
