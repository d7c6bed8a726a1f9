#!/usr/bin/env bash
# Issue 46's plan and apply figures for two builds, interleaved with their
# floors on the same worlds (scripts/bench-interleave.py: one run of each
# command per round, every other round reversed), so a machine shared with
# other work touches both builds alike. What `scripts/bench.sh targets`
# measures for one build, for a before/after comparison.
#
# Usage: bench-compare-targets.sh BEFORE AFTER [OUT]
#   BEFORE, AFTER  the-loop binaries (copies: the panes' launcher is the
#                  binary that rolled them, so neither may be rebuilt meanwhile)
#   OUT            where the tables and JSON go (default /tmp/bench-compare)
# Environment: PLAN_ROUNDS=20 APPLY100_ROUNDS=6 APPLY500_ROUNDS=4 QUIET=15
#   (seconds each timed run waits, at most, for a quiet machine)
#
# Worlds (scripts/bench-world.sh, each killed at the end): 500 sessions at
# P = 2 s, planned three ways (after a roll with tmux's global layer clean,
# against `bench-floor.sh`; drifted with the layer clean, the same floor;
# drifted with the retired value in the global layer, against
# `bench-floor-sessions.sh`), then rolled (`apply --parallelism 500`,
# against `bench-respawn-floor.sh 499`, tmux respawning panes to `sleep`,
# and its `--harness`, respawning them to the harness until it has started:
# the floor issue 46 states); and 100 sessions at P = 1 s, rolled (against
# the same two floors of 99).
#
# Before each timed apply, untimed: the token rotated, the fleet rolled by
# the same build, the token rotated again. The floor's `--restore` (and the
# world as built) leaves harnesses started without the-loop's launcher,
# whose hooks never speak: a plan looks at 150 screens, and the other 350
# of 500 are held (`wait_unknown`) until the drain's own look, then rolled
# in a second wave with its own probe window, 3-4 s more. Rolled once by
# the-loop, every harness has its hooks, as in a fleet the-loop started.
# ONLY=plan or ONLY=apply runs one half; ONLY=apply100 only the apply of 100.
set -euo pipefail
before=$1 after=$2 out=${3:-/tmp/bench-compare}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mkdir -p "$out"
interleave() { python3 "$repo/scripts/bench-interleave.py" --quiet "${QUIET:-15}" "$@"; }

world() { # n probe dir
  rm -rf "$3"
  PROBE=$2 "$repo/scripts/bench-world.sh" "$1" "$3" >/dev/null
}

rolled() { # binary config-args n dir: the untimed roll before a timed apply
  local rotate="$repo/scripts/bench-rotate.sh $4/.env"
  echo "$rotate && $1 $2 apply --auto-approve --parallelism $3 >/dev/null; sleep 1; $rotate"
}

apply_of() { # n rounds: apply of n sessions, each build's run on a fleet
  # rolled untimed just before, interleaved with tmux respawning n-1 panes
  # (uses the calling block's $w, $c and $server)
  interleave --json "$out/apply-$1.json" --alternate --settle 1 --server-pid "$server" "$2" \
    --label before --before "$(rolled "$before" "$c" "$1" "$w")" \
    "$before $c apply --auto-approve --parallelism $1" \
    --label after --before "$(rolled "$after" "$c" "$1" "$w")" \
    "$after $c apply --auto-approve --parallelism $1" \
    --label floor "$repo/scripts/bench-respawn-floor.sh $(($1 - 1)) --restore" \
    --label harness_floor "$repo/scripts/bench-respawn-floor.sh $(($1 - 1)) --harness"
}

enter_world() { # n probe: builds a world of n sessions at probe P in
  # $out/w<n> and runs the rest of the calling block in it (sets $w, $c and
  # $server; the world's tmux server ends with the block)
  w=$out/w$1
  world "$1" "$2" "$w"
  export HOME=$w/home TMUX_TMPDIR=$w/tmux PATH=$w/bin:$PATH
  unset TMUX TMUX_PANE THE_LOOP_CLI_CONFIG
  c="--config $w/cli-config.yaml"
  server=$(tmux display -p '#{pid}')
  trap 'tmux kill-server 2>/dev/null || true' EXIT
}

[ "${ONLY:-}" = apply100 ] || (
  enter_world 500 2
  # The world as built is drifted; rolled once, it is up to date.
  "$after" $c apply --auto-approve --parallelism 500 >/dev/null
  tmux setenv -gu BENCH_TOKEN
  sleep 2
  plans="rolled drifted residue"
  [ "${ONLY:-}" = apply ] && plans=
  for plan in $plans; do
    floor=$repo/scripts/bench-floor.sh
    case $plan in
      drifted) "$repo/scripts/bench-rotate.sh" "$w/.env" ;;
      residue)
        tmux setenv -g BENCH_TOKEN retired-0000
        floor=$repo/scripts/bench-floor-sessions.sh
        ;;
    esac
    echo "== plan at 500, $plan; loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
    NULL=1 interleave --json "$out/plan-$plan.json" --alternate --server-pid "$server" \
      "${PLAN_ROUNDS:-20}" --label before "$before $c plan" --label after "$after $c plan" \
      --label floor "$floor"
  done
  [ "${ONLY:-}" = plan ] && exit 0
  echo "== apply of 500, P = 2 s; loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
  apply_of 500 "${APPLY500_ROUNDS:-4}"
) | tee "$out/tables.txt"
[ "${ONLY:-}" = plan ] && exit 0

(
  enter_world 100 1
  echo "== apply of 100, P = 1 s; loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
  apply_of 100 "${APPLY100_ROUNDS:-6}"
) | tee -a "$out/tables.txt"
