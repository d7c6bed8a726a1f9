#!/usr/bin/env bash
# A storm of rotations under `watch --apply` (issue 46): builds the world of
# scripts/bench-world.sh (N sessions of the light stand-in), puts it under
# the-loop's launcher, starts one watch, then rotates the token ROTATIONS
# times SPACING seconds apart. After the last rotation it waits until
# `plan --detailed-exitcode` says no drift, and prints, from the event log,
# how many times each session's harness was ended from the first rotation
# on (issue 46's target: at most 3), how many sessions were never reached,
# how long the fleet took to converge after the last rotation, how many
# sessions were lost, and how long one full roll of a single rotation takes.
#
# Usage: bench-watch-storm.sh N ROTATIONS SPACING [DIR]
#   THE_LOOP=path (default target/release/the-loop, else target/debug/the-loop)
#   PROBE=seconds (resumeProbeSeconds, default 1)  PARALLELISM=n (default 32)
#   DEBOUNCE_MS (watch's --debounce-ms, default 500)
# DIR (default a new temporary directory) keeps the world, watch.log and
# storm.txt; its tmux server (TMUX_TMPDIR=DIR/tmux) is ended at the end.
set -euo pipefail
n=$1
rotations=$2
spacing=$3
dir=${4:-$(mktemp -d /tmp/watch-storm.XXXXXX)}
probe=1
source "$(dirname "${BASH_SOURCE[0]}")/bench-watch-world.sh"
"$bin" --config "$config" watch --apply --interval 3600 \
  --debounce-ms "${DEBOUNCE_MS:-500}" --parallelism "${PARALLELISM:-32}" >"$dir/watch.log" 2>&1 &
watch=$!
trap cleanup EXIT
until grep -q "no drift" "$dir/watch.log"; do sleep 0.2; done

from=$(wc -l <"$events")
for ((i = 1; i <= rotations; i++)); do
  "$repo/scripts/bench-rotate.sh" "$dir/.env"
  [ "$i" -lt "$rotations" ] && sleep "$spacing"
done
last=$(date +%s.%N)
until "$bin" --config "$config" plan --detailed-exitcode >/dev/null 2>&1; do sleep 1; done
converged=$(date +%s.%N)

tail -n +"$((from + 1))" "$events" | python3 -c '
import json, sys
n = int(sys.argv[1])
ended = {}
for line in sys.stdin:
    try:
        e = json.loads(line)
    except ValueError:
        continue
    if e.get("event") == "session.harness_terminated" and e.get("ref"):
        ended[e["ref"]] = ended.get(e["ref"], 0) + 1
counts = [ended.get(f"github:bench/fleet#{i}", 0) for i in range(1, n + 1)]
hist = {}
for c in counts:
    hist[c] = hist.get(c, 0) + 1
print(f"sessions {n}; respawns {sum(counts)}; per session: most {max(counts)}, least {min(counts)}")
print("sessions by respawns: " + ", ".join(f"{k}: {v}" for k, v in sorted(hist.items())))
' "$n" | tee "$dir/storm.txt"
echo "converged $(python3 -c "print(round($converged - $last, 1))") s after the last rotation" | tee -a "$dir/storm.txt"
# Lost: a session not up to date and live once converged (its harness gone,
# its pane dead), from the plan's own counts.
"$bin" --config "$config" plan --json | python3 -c '
import json, sys
n = int(sys.argv[1])
plan = json.load(sys.stdin)
live = sum(1 for s in plan["sessions"] if s.get("action") == "none" and s.get("probe") == "live")
print(f"after: {live} of {n} sessions live and up to date; lost {n - live}")
' "$n" | tee -a "$dir/storm.txt"
# One roll of the whole fleet, for "converged within one roll": one more
# rotation, alone, and how long watch takes from it to no drift.
"$repo/scripts/bench-rotate.sh" "$dir/.env"
one=$(date +%s.%N)
until "$bin" --config "$config" plan --detailed-exitcode >/dev/null 2>&1; do sleep 1; done
echo "one full roll (a single rotation, same watch): $(python3 -c "print(round($(date +%s.%N) - $one, 1))") s" | tee -a "$dir/storm.txt"
echo "world: $dir; binary: $bin"
