#!/bin/sh
# The tmux server's own CPU for each call a plan makes (issue 46), against
# the floor's one `list-panes -a`: read from the server's utime + stime in
# /proc/<pid>/stat around RUNS runs of each (clock ticks, so many runs).
# Run inside a bench world (scripts/bench-world.sh; its HOME, TMUX_TMPDIR
# and PATH), drifted so that the plan looks at screens.
# Usage: bench-tmux-server-cost.sh [RUNS] [SCREENS]   (defaults 30, 150)
# What each line times:
#   empty      a client with nothing to list (`display -p x`): what any
#              call costs the server before its own work
#   floor      scripts/bench-floor.sh's one listing
#   fields     the plan's listing format without `#{pane_start_command}`
#   listing    the plan's listing call as src/observed/observation.rs sends
#              it (six fields, tmux's version and pid, its global layer, the
#              format gate over one watched name, BENCH_TOKEN)
#   screens    SCREENS `capture-pane -p -e`, each followed by the marker
#              that splits the answers (src/runner/batch.rs)
#   captures   the same captures without the markers
#   markers    the markers alone
set -eu
runs=${1:-30} screens=${2:-150}
repo=$(cd "$(dirname "$0")/.." && pwd)
server=$(tmux display -p '#{pid}')
ticks() { awk '{print $14 + $15}' "/proc/$server/stat"; }
hz=$(getconf CLK_TCK)
panes=$(tmux list-panes -a -F '#{pane_id}' | head -n "$screens")
format='#{session_name}	#{pane_id}	#{pane_pid}	#{pane_dead}	#{session_attached}	#{pane_start_command}'
gate='#{?#{m:3.[3-9]*,#{version}},#{m:*[1-9]*,#{S:#{n:BENCH_TOKEN}}},1}'
batch() { # capture-pane words, marker words: one tmux client for every pane
  set -f
  words=
  for pane in $panes; do
    [ -n "$1" ] && words="$words capture-pane -p -e -t $pane ;"
    [ -n "$2" ] && words="$words display -p mark ;"
  done
  # shellcheck disable=SC2086 # one word each, on purpose
  tmux $words >/dev/null
  set +f
}
call() {
  case $1 in
    empty) tmux display -p x >/dev/null ;;
    floor) sh "$repo/scripts/bench-floor.sh" ;;
    fields) tmux list-panes -a -F "${format%	*}" >/dev/null ;;
    listing) tmux list-panes -a -F "$format" \; display -p 'tl panes' \; \
      display -p '@v #{version}' \; display -p '@p #{pid}' \; showenv -gs \; \
      display -p @g \; if -F "$gate" "display -p '@c 1'" "display -p '@c 0'" >/dev/null ;;
    screens) batch 1 1 ;;
    captures) batch 1 '' ;;
    markers) batch '' 1 ;;
  esac
}
echo "| call | tmux server CPU per call, ms |"
echo "|---|---:|"
for what in empty floor fields listing screens captures markers; do
  before=$(ticks)
  i=0
  while [ "$i" -lt "$runs" ]; do call "$what"; i=$((i + 1)); done
  after=$(ticks)
  echo "| $what | $(awk -v t=$((after - before)) -v r="$runs" -v hz="$hz" 'BEGIN{printf "%.1f", t * 1000 / hz / r}') |"
done
