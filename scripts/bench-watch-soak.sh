#!/usr/bin/env bash
# Soak benchmark of `watch --apply` memory (issue 46): builds the world of
# scripts/bench-world.sh (N sessions of the light stand-in), starts one
# watch on it, then rotates the token each time a roll has finished, until
# the rolls have respawned RESPAWNS harnesses. After every roll it reads
# watch's resident set (VmRSS, /proc/<pid>/status) and prints
#
#   rolls respawns rss_kib
#
# and at the end the RSS after the first 500 respawns, the last, and the
# growth between them (issue 46's target: at most 5 MB over 10,000
# respawns). Nothing is timed; the machine may be busy.
#
# Usage: bench-watch-soak.sh N RESPAWNS [DIR]
#   THE_LOOP=path (default target/release/the-loop, else target/debug/the-loop)
#   PROBE=seconds (resumeProbeSeconds, default 0.2)
#   PARALLELISM=n (default N)
# DIR (default a new temporary directory) keeps the world, watch.log and
# soak.tsv; its tmux server (TMUX_TMPDIR=DIR/tmux) is ended at the end.
set -euo pipefail
n=$1
want=$2
dir=${3:-$(mktemp -d /tmp/watch-soak.XXXXXX)}
probe=0.2
source "$(dirname "${BASH_SOURCE[0]}")/bench-watch-world.sh"
count() { if [ -f "$events" ]; then grep -c "\"event\":\"$1\"" "$events" || true; else echo 0; fi; }
"$bin" --config "$config" watch --apply --interval 3600 --debounce-ms 200 \
  --parallelism "${PARALLELISM:-$n}" >"$dir/watch.log" 2>&1 &
watch=$!
"$repo/scripts/bench-rotate.sh" "$dir/.env"
trap cleanup EXIT

rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$watch/status"; }
printf 'rolls\trespawns\trss_kib\n' | tee "$dir/soak.tsv"
rolls=0
respawns=0
at500=""
while [ "$respawns" -lt "$want" ]; do
  while [ "$(count apply.finished)" -le "$rolls" ]; do
    kill -0 "$watch" 2>/dev/null || { echo "watch exited: $dir/watch.log" >&2; exit 1; }
    sleep 0.1
  done
  rolls=$(count apply.finished)
  respawns=$(count session.harness_terminated)
  now=$(rss)
  printf '%s\t%s\t%s\n' "$rolls" "$respawns" "$now" | tee -a "$dir/soak.tsv"
  [ -z "$at500" ] && [ "$respawns" -ge 500 ] && at500=$now
  "$repo/scripts/bench-rotate.sh" "$dir/.env"
done
last=$(rss)
echo "world: $dir; binary: $bin"
echo "rss after the first 500 respawns: ${at500:-n/a} KiB; after $respawns: $last KiB;" \
  "growth: $(( ${last} - ${at500:-$last} )) KiB"
