#!/usr/bin/env bash
# How close `plan` is to the reads it cannot do without (issue 46): times,
# interleaved (scripts/bench-interleave.py), the plan against
# scripts/bench-reads-floor.c, which makes the same reads and nothing else,
# and against the issue's floor (scripts/bench-floor.sh).
#
# Usage, inside a world (scripts/bench-world.sh, rolled once so that every
# session is up to date, HOME, TMUX_TMPDIR and PATH set as it says):
#   bench-reads-floor.sh BINARY CONFIG STATE_ROOT [ROUNDS] [JSON]
#
# The listing the reads floor asks tmux for is the plan's own: the plan is
# run once, untimed, through a tmux wrapper that keeps its `list-panes`
# call's argv, which the floor then replays. The rows:
#   plan               BINARY --config CONFIG plan
#   reads, 2 threads   the plan's listing; each pane process's environ,
#                      cmdline and stat; every process's stat; every file
#                      in STATE_ROOT/local (the records) and
#                      STATE_ROOT/activity (the hooks' activity), overlapped
#                      on two threads as a plan could overlap them
#   reads, read ahead  the same reads, overlapped as `plan` overlaps them:
#                      the process table's pass reads each pane process
#                      as it meets it while tmux answers, the files on a
#                      thread of their own
#   reads, 1 thread    the same, one after the other
#   floor listing, 2 threads  the same reads, with the floor's listing
#                      (`list-panes -a -F '#{pane_pid}'`) instead of the plan's
#   floor              scripts/bench-floor.sh, the reference
# QUIET=5: seconds each timed run waits, at most, for a quiet machine.
# Needs a C compiler (cc) and python3.
set -euo pipefail
bin=$1 config=$2 state=$3 rounds=${4:-20} json=${5:-}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -pthread -o "$work/reads-floor" "$repo/scripts/bench-reads-floor.c"

real_tmux=$(command -v tmux)
mkdir "$work/wrap"
cat >"$work/wrap/tmux" <<EOF
#!/bin/sh
if [ "\$1" = list-panes ] && [ ! -e "$work/listing" ]; then
  printf '%s\0' "\$@" >"$work/listing"
fi
exec "$real_tmux" "\$@"
EOF
chmod +x "$work/wrap/tmux"
PATH="$work/wrap:$PATH" "$bin" --config "$config" plan >/dev/null
[ -s "$work/listing" ] || {
  echo "bench-reads-floor.sh: the plan made no list-panes call" >&2
  exit 1
}

# The listing's argv, quoted for /bin/sh, and which tab-separated field of
# its format holds the pane's pid.
read -r field quoted < <(python3 - "$work/listing" <<'PY'
import shlex, sys
argv = open(sys.argv[1], "rb").read().split(b"\0")[:-1]
argv = [a.decode() for a in argv]
fmt = argv[argv.index("-F") + 1]
field = fmt.split("\t").index("#{pane_pid}") + 1
print(field, " ".join(shlex.quote(a) for a in argv))
PY
)

reads="$work/reads-floor"
dirs="$state/local $state/activity"
set -- --alternate --quiet "${QUIET:-5}" "$rounds" \
  --label plan "$bin --config $config plan" \
  --label "reads, read ahead" "$reads 3 $field $dirs -- tmux $quoted" \
  --label "reads, 2 threads" "$reads 2 $field $dirs -- tmux $quoted" \
  --label "reads, 1 thread" "$reads 1 $field $dirs -- tmux $quoted" \
  --label "floor listing, 2 threads" "$reads 2 1 $dirs -- tmux list-panes -a -F '#{pane_pid}'" \
  --label floor "$repo/scripts/bench-floor.sh"
[ -n "$json" ] && set -- --json "$json" "$@"
python3 "$repo/scripts/bench-interleave.py" "$@"
