#!/usr/bin/env bash
# `sessions start --all` against its floor (issue 44), interleaved on one
# world (scripts/bench-world.sh: N sessions of the light stand-in harness).
#
# Each round ends the tmux server (`tmux kill-server`, the fleet down, its
# records active), then times, in turn:
#   floor   T_start(N): starting N sessions with tmux alone, the harness
#           resuming each one's conversation directly (`new-session -d ...
#           claude --resume ID`, in batches of 40 per tmux client, as
#           bench-world.sh makes them), until every harness has written its
#           resume into its transcript. No the-loop, no launcher, no probe.
#   figure  `the-loop sessions start --all --parallelism N`, start to exit:
#           launches, one probe wait (resumeProbeSeconds = PROBE), and the
#           verifying plan of what every new process holds.
# The target: figure <= 2 * PROBE + 1.25 * floor.
#
# Usage: bench-start-all.sh N [ROUNDS]
#   PROBE=seconds (default 1); THE_LOOP=path of the build (default
#   target/release/the-loop). Prints one line per round, then the medians.
set -euo pipefail
n=${1:?usage: bench-start-all.sh N [ROUNDS]}
rounds=${2:-5}
probe=${PROBE:-1}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
loop=${THE_LOOP:-$repo/target/release/the-loop}
dir=$(mktemp -d /tmp/tl-start-all.XXXXXX)
trap 'TMUX_TMPDIR=$dir/tmux tmux kill-server 2>/dev/null || true; rm -rf "$dir"' EXIT
PROBE=$probe "$repo/scripts/bench-world.sh" "$n" "$dir" >/dev/null
export HOME=$dir/home TMUX_TMPDIR=$dir/tmux PATH=$dir/bin:$PATH
unset TMUX TMUX_PANE THE_LOOP_CLI_CONFIG CLAUDE_CONFIG_DIR THE_LOOP_TMUX_SOCKET
config=$dir/cli-config.yaml

resumes() { # resume lines written by every harness so far
  cat "$dir"/home/.claude/projects/*/*.jsonl | grep -c '"type":"resume"' || true
}

down() {
  tmux kill-server 2>/dev/null || true
  while tmux ls >/dev/null 2>&1; do sleep 0.05; done
}

floor() {
  local before batch=() i slug
  before=$(resumes)
  local start=$EPOCHREALTIME
  for ((i = 1; i <= n; i++)); do
    slug=github-bench-fleet-$i
    [ ${#batch[@]} -gt 0 ] && batch+=(";")
    batch+=(new-session -d -s "loop-$slug" -c "$dir/work/$slug" -- claude --resume "0000-$slug")
    if ((i % 40 == 0 || i == n)); then
      tmux -f /dev/null "${batch[@]}"
      batch=()
    fi
  done
  while (($(resumes) < before + n)); do sleep 0.01; done
  echo "$EPOCHREALTIME - $start" | bc
}

figure() {
  local start=$EPOCHREALTIME
  "$loop" --config "$config" sessions start --all --parallelism "$n" --json >"$dir/report.json" ||
    { echo "bench-start-all: start --all failed:" >&2; cat "$dir/report.json" >&2; exit 1; }
  local elapsed
  elapsed=$(echo "$EPOCHREALTIME - $start" | bc)
  grep -q "\"started\": $n" "$dir/report.json" ||
    { echo "bench-start-all: not all $n started" >&2; exit 1; }
  echo "$elapsed"
}

floors=() figures=()
for ((r = 1; r <= rounds; r++)); do
  down
  f=$(floor)
  down
  g=$(figure)
  floors+=("$f") figures+=("$g")
  printf 'round %d: floor T_start(%d) = %.3f s, start --all = %.3f s\n' "$r" "$n" "$f" "$g"
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
mf=$(median "${floors[@]}")
mg=$(median "${figures[@]}")
ratio=$(echo "scale=3; ($mg - 2 * $probe) / $mf" | bc)
limit=$(echo "scale=3; 2 * $probe + 1.25 * $mf" | bc)
met=no
(($(echo "$mg <= $limit" | bc))) && met=yes
printf 'median: floor %.3f s, start --all %.3f s; (start --all - 2P) / floor = %s; limit %.3f s; met: %s\n' \
  "$mf" "$mg" "$ratio" "$limit" "$met"
