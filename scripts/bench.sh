#!/usr/bin/env bash
# Benchmarks `plan`, `status` and `apply` against a private tmux server
# holding N registered sessions, and the naive per-session way beside them.
#
# For each N it builds a world of its own (HOME, TMUX_TMPDIR, state root,
# config and env file under a temp dir), starts a tmux server whose own
# environment holds a retired token, spawns N sessions running a light
# stand-in harness (scripts/bench-stand-in) and registers them, then
# rotates the token so every session has drifted. Then it measures, with
# hyperfine (median wall time) and /usr/bin/time (peak RSS):
#   plan, plan --json            the-loop's drift check; plan runs side by
#                                side with the floor (scripts/bench-floor.sh:
#                                one `tmux list-panes -a` and every pane's
#                                environ) in ONE hyperfine run, so their
#                                ratio is measured under the same load
#   plan-clean                   the same with the tmux global layer clean
#                                (as `apply --scrub-tmux-env` leaves it)
#   compare-plan, compare-plan-clean
#                                COMPARE_BIN's plan and this build's, side
#                                by side in one hyperfine run (when set)
#   naive                        scripts/bench-naive-plan.sh: one
#                                `tmux list-panes -t` and one environ read
#                                per session (the reporter's way)
#   status, status-nodrift       status with and without env.file (the
#                                difference is what the drift check adds)
#   apply, apply-serial          roll every session (resumeProbeSeconds PROBE)
#                                at each APPLY_PARALLELISM and with
#                                --parallelism 1; the token is rotated
#                                before each run so every run rolls all N;
#                                reported as wall time, probe, wall - probe
#   canary                       the canary's own time, from the debug-log
#                                timestamps of one apply run's events
#   tmux calls                   one run of each command through a
#                                recording tmux wrapper
# and the startup cost: `--version` and `plan` with no sessions beside a
# no-op process and one bare `tmux list-panes -a`.
# Then issue 26's targets, each figure timed interleaved with its floor in
# the same run, on the same tmux server (scripts/bench-interleave.py, one
# run of each in turn), and printed first in summary.md as one table:
#   apply of N at probe P (--parallelism N) against T_tmux(N-1)
#       (scripts/bench-respawn-floor.sh: N-1 `respawn-pane -k` to
#       `sleep 600` through one control client, on the world's own panes,
#       which it then puts back); target apply <= 2P + 1.25 T + 0.5 s
#   plan at TARGET_PLAN_SIZE with the retired value in tmux's global layer,
#       against scripts/bench-floor-sessions.sh (the floor plus one bare
#       `show-environment` per session, in one tmux call); target <= 1.5x
#   plan at TARGET_PLAN_SIZE, global layer clean, built and after a roll,
#       against scripts/bench-floor.sh; target <= 1.5x
#
# Usage: scripts/bench.sh            (everything; ~25 minutes on 2 cores)
#        scripts/bench.sh targets    (issue 26's targets alone; ~10 minutes)
# (scripts/bench-world.sh makes one such world to explore by hand.)
# Environment knobs:
#   SIZES="1 20 100 200 500"  fleet sizes for plan, status and the baseline
#   APPLY_SIZES="1 20 100 500"  fleet sizes for apply
#   SERIAL_SIZES="20 100"     sizes that also roll with --parallelism 1
#   APPLY_PARALLELISM="default N"  the parallelisms apply rolls at: `default`
#                             (no flag), a number, or N (the whole fleet in
#                             one wave: --parallelism <fleet size>)
#   RUNS=20  APPLY_RUNS=3     hyperfine runs per measurement
#   PROBE=2                   the worlds' resumeProbeSeconds (issue 15 states
#                             its 100-session target at PROBE=1)
#   COMPARE_BIN=path          another the-loop build (say, before a change)
#                             to roll with in the same run, for comparison
#   COMPARE_SIZES="1 20 100"  fleet sizes COMPARE_BIN rolls (an engine that
#                             serialises probe waits needs minutes for 500)
#   OUT=dir                   where results go (default target/bench/<time>)
#   THE_LOOP_BIN=path         the build to measure (default: build it with
#                             `cargo build --release --locked`, into
#                             CARGO_TARGET_DIR when that is set)
#   TARGETS=0                 skips issue 26's targets in a full run
#   TARGET_SIZES="100:1 500:2"  N:P, the fleet sizes and probes of the apply
#                             targets (each its own world)
#   TARGET_PLAN_SIZE=500      the world whose plan targets are measured too
#   TARGET_APPLY_ROUNDS=5  TARGET_PLAN_ROUNDS=40  interleaved rounds
#   TARGET_QUIET=60           each timed run of the targets waits up to this
#                             many seconds for a quiet machine (a compiler
#                             running beside the bench skews every ratio);
#                             0: no wait
# The results: one hyperfine JSON per measurement, calls.tsv, rss.tsv,
# canary.tsv, probe.tsv, machine.txt, target-*.json (bench-interleave.py's),
# target-timeline-n*.txt (bench-timeline.py's), target-probe.tsv, and
# summary.md (scripts/bench-summary.py).
# Not part of `cargo test`: timings belong in benchmarks, not tests.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MODE=${1:-all}
case $MODE in all | targets) ;; *) echo "usage: scripts/bench.sh [targets]" >&2; exit 2 ;; esac
TARGETS=${TARGETS:-1}
TARGET_SIZES=${TARGET_SIZES:-"100:1 500:2"}
TARGET_PLAN_SIZE=${TARGET_PLAN_SIZE:-500}
TARGET_APPLY_ROUNDS=${TARGET_APPLY_ROUNDS:-5}
TARGET_PLAN_ROUNDS=${TARGET_PLAN_ROUNDS:-40}
TARGET_QUIET=${TARGET_QUIET:-60}
SIZES=${SIZES:-"1 20 100 200 500"}
APPLY_SIZES=${APPLY_SIZES-"1 20 100 500"}
SERIAL_SIZES=${SERIAL_SIZES-"20 100"}
APPLY_PARALLELISM=${APPLY_PARALLELISM:-"default N"}
RUNS=${RUNS:-20}
export PROBE=${PROBE:-2}
APPLY_RUNS=${APPLY_RUNS:-3}
COMPARE_BIN=${COMPARE_BIN:-}
COMPARE_SIZES=${COMPARE_SIZES-"1 20 100"}
OUT=${OUT:-$repo/target/bench/$(date +%Y%m%d-%H%M%S)}

tools="tmux python3"
[ "$MODE" = all ] && tools="hyperfine tmux jq python3 /usr/bin/time"
for tool in $tools; do
  command -v "$tool" >/dev/null || {
    echo "bench: $tool is required (Debian: apt-get install hyperfine tmux jq python3 time)" >&2
    exit 1
  }
done

if [ -n "${THE_LOOP_BIN:-}" ]; then
  BIN=$(realpath "$THE_LOOP_BIN")
else
  echo "bench: building the release binary" >&2
  cargo build --release --locked --quiet --manifest-path "$repo/Cargo.toml"
  BIN=$(realpath "${CARGO_TARGET_DIR:-$repo/target}")/release/the-loop
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
ROOT=$(mktemp -d /tmp/tl-bench.XXXXXX)
BASE_PATH=$PATH
# Built now, while HOME still finds the toolchain.
if [ "$MODE" = all ]; then
  echo 'fn main() {}' >"$ROOT/noop.rs"
  rustc -O -o "$ROOT/noop-rust" "$ROOT/noop.rs"
fi
unset TMUX TMUX_PANE THE_LOOP_CLI_CONFIG CLAUDE_CONFIG_DIR RUST_LOG
export NO_COLOR=1

cleanup() {
  for dir in "$ROOT"/n*; do
    [ -d "$dir/tmux" ] && TMUX_TMPDIR=$dir/tmux tmux kill-server 2>/dev/null || true
  done
  rm -rf "$ROOT"
}
trap cleanup EXIT

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
  echo "cores: $(nproc)"
  echo "memory: $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
  echo "kernel: $(uname -r)"
  echo "tmux: $(tmux -V)"
  [ "$MODE" = all ] && echo "hyperfine: $(hyperfine --version)"
  echo "the-loop: $BIN"
  echo "processes on the machine at start: $(ps -e --no-headers | wc -l)"
  echo "loadavg at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$OUT/machine.txt"
: >"$OUT/calls.tsv"
: >"$OUT/rss.tsv"
: >"$OUT/canary.tsv"
: >"$OUT/load.tsv"
: >"$OUT/probe.tsv"
: >"$OUT/target-probe.tsv"

log() { echo "bench: $*" >&2; }
load_note() { printf '%s\t%s\n' "$1" "$(cut -d' ' -f1 /proc/loadavg)" >>"$OUT/load.tsv"; }

# Points this shell (and hyperfine, and the-loop) at world $1.
use_world() {
  local dir=$1
  export HOME=$dir/home TMUX_TMPDIR=$dir/tmux PATH=$dir/bin:$BASE_PATH
  W=$dir
  CONFIG=$dir/cli-config.yaml
}

rotate() { "$repo/scripts/bench-rotate.sh" "$W/.env"; }

# A world with $1 registered sessions, each born on the retired token (in
# $ROOT/n$1, or $ROOT/n$1$2).
make_world() {
  "$repo/scripts/bench-world.sh" "$1" "$ROOT/n$1${2:-}"
  use_world "$ROOT/n$1${2:-}"
}

hf() { # name runs hyperfine-args... (no shell: -N)
  local name=$1 runs=$2
  shift 2
  hyperfine -N --style basic --warmup 3 --runs "$runs" --export-json "$OUT/$name.json" "$@" >"$OUT/$name.txt"
}

count_calls() { # label n command...
  local label=$1 n=$2
  shift 2
  : >"$W/tmux-calls.log"
  PATH=$W/wrap:$PATH "$@" >/dev/null 2>&1 || true
  printf '%s\t%s\t%s\n' "$label" "$n" "$(wc -l <"$W/tmux-calls.log")" >>"$OUT/calls.tsv"
}

peak_rss() { # label n command...  (KiB, the most of 5 runs)
  local label=$1 n=$2 max=0 kb
  shift 2
  for _ in 1 2 3 4 5; do
    /usr/bin/time -f %M -o "$W/rss" "$@" >/dev/null 2>&1 || true
    kb=$(tail -n1 "$W/rss")
    ((kb > max)) && max=$kb
  done
  printf '%s\t%s\t%s\n' "$label" "$n" "$max" >>"$OUT/rss.tsv"
}

# The canary's time: from `apply.started` to the first session's outcome
# event (src/events/kinds.rs), by the debug log's microsecond timestamps of
# each event line (`<time> DEBUG event line={json}`), in seconds; empty when
# the run logged no such pair.
canary_time() { # binary
  rotate
  RUST_LOG=the_loop=debug "$1" --config "$CONFIG" apply --auto-approve >/dev/null 2>"$W/canary.log" || true
  python3 - "$W/canary.log" <<'EOF'
import json, re, sys
from datetime import datetime
OUTCOMES = ("session.respawned", "session.resume_failed", "env.verify_mismatch", "session.blocked")
stamps = {}
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r'(\S+)\s+DEBUG\b.*?\bline=(\{.*\})\s*$', line)
    if not m:
        continue
    try:
        event = json.loads(m.group(2)).get("event")
    except ValueError:
        continue
    if event and event not in stamps:
        stamps[event] = datetime.fromisoformat(m.group(1).replace("Z", "+00:00"))
ends = [stamps[e] for e in OUTCOMES if e in stamps]
if "apply.started" in stamps and ends:
    print(f"{(min(ends) - stamps['apply.started']).total_seconds():.3f}")
else:
    print("")
EOF
}

# The fleet size a parallelism stands for: `N` is the whole fleet.
parallelism_of() { # value n
  if [ "$1" = N ]; then echo "$2"; else echo "$1"; fi
}

check_clean() {
  "$BIN" --config "$CONFIG" plan --detailed-exitcode >/dev/null || {
    log "the fleet is not clean after apply at N=$1"
    exit 1
  }
}

# Issue 26's targets, each against its floor, interleaved in one run:
# every round runs the figure and its floor once each, so the machine's
# drift touches both alike (scripts/bench-interleave.py).
interleave() { # name rounds interleave-args...
  local name=$1 rounds=$2
  shift 2
  python3 "$repo/scripts/bench-interleave.py" --json "$OUT/target-$name.json" \
    --quiet "$TARGET_QUIET" "$rounds" "$@" \
    >"$OUT/target-$name.txt"
  cat "$OUT/target-$name.txt" >&2
}

targets() {
  local pair n p
  for pair in $TARGET_SIZES; do
    n=${pair%%:*} p=${pair#*:}
    log "targets, N=$n, probe $p s: spawning the fleet"
    PROBE=$p make_world "$n" -targets
    printf '%s\t%s\n' "$n" "$p" >>"$OUT/target-probe.tsv"
    server_pid=$(tmux display -p '#{pid}')
    if [ "$n" = "$TARGET_PLAN_SIZE" ]; then
      log "targets, N=$n: plan with the retired value in tmux's global layer"
      interleave "plan-residue-n$n" "$TARGET_PLAN_ROUNDS" --server-pid "$server_pid" \
        --label plan "$BIN --config $CONFIG plan" \
        --label floor "$repo/scripts/bench-floor.sh" \
        --label floor-sessions "$repo/scripts/bench-floor-sessions.sh"
      log "targets, N=$n: plan with the global layer clean"
      tmux setenv -gu BENCH_TOKEN
      interleave "plan-clean-n$n" "$TARGET_PLAN_ROUNDS" --server-pid "$server_pid" \
        --label plan "$BIN --config $CONFIG plan" \
        --label floor "$repo/scripts/bench-floor.sh"
      # The rolls below start from the world as built, as the bench's own do.
      tmux setenv -g BENCH_TOKEN retired-0000
    fi
    log "targets, N=$n: apply --parallelism $n, and T_tmux($((n - 1)))"
    # The floor puts the panes back (untimed) so the next apply rolls them
    # all again; a warm-up round of each, not counted, rolls the world once.
    interleave "apply-n$n" "$TARGET_APPLY_ROUNDS" --alternate --settle 1 \
      --server-pid "$server_pid" \
      --label apply --before "$repo/scripts/bench-rotate.sh $W/.env" \
      "$BIN --config $CONFIG apply --auto-approve --parallelism $n" \
      --label respawn-floor "$repo/scripts/bench-respawn-floor.sh $((n - 1)) --restore"
    # Rolled once more, step by step (scripts/bench-timeline.py): where the
    # wall time goes; every harness then has its activity file.
    sleep 2
    THE_LOOP_BIN=$BIN python3 "$repo/scripts/bench-timeline.py" "$W" "$n" >"$OUT/target-timeline-n$n.txt"
    cat "$OUT/target-timeline-n$n.txt" >&2
    check_clean "$n"
    load_note "targets-apply-n$n"
    if [ "$n" = "$TARGET_PLAN_SIZE" ]; then
      log "targets, N=$n: plan after a roll, the global layer clean"
      tmux setenv -gu BENCH_TOKEN
      sleep 2
      interleave "plan-rolled-n$n" "$TARGET_PLAN_ROUNDS" --server-pid "$server_pid" \
        --label plan "$BIN --config $CONFIG plan" \
        --label floor "$repo/scripts/bench-floor.sh"
      load_note "targets-plan-n$n"
    fi
    tmux kill-server
  done
}

if [ "$MODE" = all ]; then
# Startup: --version, and plan with no sessions, beside a no-op process.
log "startup"
make_world 0
hf noop "$RUNS" /bin/true
# The same for a Rust program that does nothing: the floor for any Rust CLI.
hf noop-rust "$RUNS" "$ROOT/noop-rust"
hf version "$RUNS" "$BIN --version"
peak_rss version 0 "$BIN" --version
# the-loop's format (src/observed/fleet.rs), with real tabs.
LIST_PANES="tmux list-panes -a -F '#{session_name}\t#{window_index}\t#{pane_index}\t#{pane_id}\t#{pane_pid}\t#{pane_dead}'"
LIST_PANES=${LIST_PANES//\\t/$'\t'}
hf tmux-floor "$RUNS" "$LIST_PANES"
hf plan-empty "$RUNS" "$BIN --config $CONFIG plan"
count_calls plan 0 "$BIN" --config "$CONFIG" plan
tmux kill-server
hf plan-empty-noserver "$RUNS" "$BIN --config $CONFIG plan"
load_note startup

for n in $SIZES; do
  log "N=$n: spawning the fleet"
  make_world "$n"
  log "N=$n: plan, status, naive"
  # plan and the floor side by side in one hyperfine run (same load).
  hf "plan-n$n" "$RUNS" "$BIN --config $CONFIG plan" "$repo/scripts/bench-floor.sh"
  hf "plan-json-n$n" "$RUNS" "$BIN --config $CONFIG plan --json"
  # plan's one tmux query alone: the part of plan's time that is tmux's.
  hf "tmux-n$n" "$RUNS" "$LIST_PANES"
  hf "naive-n$n" "$RUNS" "$repo/scripts/bench-naive-plan.sh $W/state $W/.env"
  hf "status-n$n" "$RUNS" -i "$BIN --config $CONFIG status"
  hf "status-nodrift-n$n" "$RUNS" -i "$BIN --config $W/cli-config-nodrift.yaml status"
  count_calls plan "$n" "$BIN" --config "$CONFIG" plan
  count_calls floor "$n" "$repo/scripts/bench-floor.sh"
  if [ -n "$COMPARE_BIN" ]; then
    hf "compare-plan-n$n" "$RUNS" "$COMPARE_BIN --config $CONFIG plan" "$BIN --config $CONFIG plan"
  fi
  # The same with the global layer clean, as `apply --scrub-tmux-env`
  # leaves it: no session then shows the token, and plan's format gate
  # spares tmux the per-session questions (src/observed/session_loop.rs).
  tmux setenv -gu BENCH_TOKEN
  hf "plan-clean-n$n" "$RUNS" "$BIN --config $CONFIG plan" "$repo/scripts/bench-floor.sh"
  count_calls plan-clean "$n" "$BIN" --config "$CONFIG" plan
  if [ -n "$COMPARE_BIN" ]; then
    hf "compare-plan-clean-n$n" "$RUNS" "$COMPARE_BIN --config $CONFIG plan" "$BIN --config $CONFIG plan"
  fi
  tmux setenv -g BENCH_TOKEN retired-0000
  count_calls status "$n" "$BIN" --config "$CONFIG" status
  count_calls naive "$n" "$repo/scripts/bench-naive-plan.sh" "$W/state" "$W/.env"
  peak_rss plan "$n" "$BIN" --config "$CONFIG" plan
  peak_rss plan-json "$n" "$BIN" --config "$CONFIG" plan --json
  load_note "plan-n$n"

  if [[ " $APPLY_SIZES " == *" $n "* ]]; then
    log "N=$n: apply"
    printf 'current\t%s\t%s\n' "$n" "$(canary_time "$BIN")" >>"$OUT/canary.tsv"
    check_clean "$n"
    # The probe window each respawned session waits (the world's config).
    printf '%s\t%s\n' "$n" "$(awk '/resumeProbeSeconds:/ {print $2}' "$CONFIG")" >>"$OUT/probe.tsv"
    # The token is rotated before every run, so each run rolls all N.
    for par in $APPLY_PARALLELISM; do
      if [ "$par" = default ]; then
        name=apply-n$n label=apply flag=""
      else
        p=$(parallelism_of "$par" "$n")
        name=apply-p$p-n$n label=apply-p$p flag="--parallelism $p"
      fi
      hyperfine --style basic --runs "$APPLY_RUNS" --prepare "$repo/scripts/bench-rotate.sh $W/.env" \
        --export-json "$OUT/$name.json" "$BIN --config $CONFIG apply --auto-approve $flag" >"$OUT/$name.txt"
      check_clean "$n"
      rotate
      # $flag is empty or two words.
      count_calls "$label" "$n" "$BIN" --config "$CONFIG" apply --auto-approve $flag
      check_clean "$n"
    done
    if [[ " $SERIAL_SIZES " == *" $n "* ]]; then
      hyperfine --style basic --runs "$APPLY_RUNS" --prepare "$repo/scripts/bench-rotate.sh $W/.env" \
        --export-json "$OUT/apply-serial-n$n.json" \
        "$BIN --config $CONFIG apply --auto-approve --parallelism 1" >"$OUT/apply-serial-n$n.txt"
      check_clean "$n"
    fi
    if [ -n "$COMPARE_BIN" ] && [[ " $COMPARE_SIZES " == *" $n "* ]]; then
      log "N=$n: apply with $COMPARE_BIN"
      printf 'compare\t%s\t%s\n' "$n" "$(canary_time "$COMPARE_BIN")" >>"$OUT/canary.tsv"
      hyperfine --style basic --runs "$APPLY_RUNS" --prepare "$repo/scripts/bench-rotate.sh $W/.env" \
        --export-json "$OUT/compare-apply-n$n.json" "$COMPARE_BIN --config $CONFIG apply --auto-approve" >"$OUT/compare-apply-n$n.txt"
      if [[ " $SERIAL_SIZES " == *" $n "* ]]; then
        hyperfine --style basic --runs 1 --prepare "$repo/scripts/bench-rotate.sh $W/.env" \
          --export-json "$OUT/compare-apply-serial-n$n.json" \
          "$COMPARE_BIN --config $CONFIG apply --auto-approve --parallelism 1" >"$OUT/compare-apply-serial-n$n.txt"
      fi
      check_clean "$n"
    fi
    load_note "apply-n$n"
  fi
  tmux kill-server
done
fi

if [ "$MODE" = targets ] || [ "$TARGETS" != 0 ]; then
  targets
fi

echo "loadavg at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/machine.txt"
python3 "$repo/scripts/bench-summary.py" "$OUT" | tee "$OUT/summary.md"
log "results in $OUT"
