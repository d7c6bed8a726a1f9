#!/usr/bin/env bash
# The floor `apply` is measured against (issue 26): T_tmux(COUNT), the time
# the tmux server takes to `respawn-pane -k` COUNT panes to a trivial command
# (`sleep 600`) through ONE control-mode client, and nothing else: no
# signal, no probe, no harness, no the-loop. The panes are those of the
# `loop-*` sessions of the server TMUX_TMPDIR points at (a world made by
# scripts/bench-world.sh), the first COUNT of them in tmux's listing order;
# so the server is the very one a roll of that world talks to, with as many
# sessions as it has then.
#
# The client is made as the roll makes its own (src/runner/control: a
# `tmux -C new-session` of its own, killed at the end, its stdin a pipe
# held open: fed a file, tmux 3.3a was seen to reach the file's end before
# it ran the new-session, which then never ran), fed every line at once,
# and timed from its start to its last answer. Prints `elapsed: SECONDS` (scripts/bench-interleave.py takes
# that as the run's time), and the tmux server's own CPU and the whole
# machine's busy CPU in that window (`tmux_server_cpu:`, `machine_cpu:`).
#
# Usage: bench-respawn-floor.sh COUNT [--restore]
#   --restore  then puts each of those panes back to the stand-in harness
#              as scripts/bench-world.sh started it (`claude --resume <its
#              conversation>` in its working directory, untimed) and waits
#              until every one is up, so the world can be rolled again.
#              bench-world.sh's layout only: session loop-SLUG, conversation
#              0000-SLUG.
set -euo pipefail
count=${1:?usage: bench-respawn-floor.sh COUNT [--restore]}
restore=${2:-}

# id, session, working directory of each managed pane, in listing order.
mapfile -t panes < <(tmux list-panes -a -F '#{pane_id} #{session_name} #{pane_current_path}' |
  awk '$2 ~ /^loop-/' | head -n "$count")
if ((${#panes[@]} < count)); then
  echo "bench-respawn-floor: only ${#panes[@]} loop-* panes, $count asked" >&2
  exit 1
fi

server=$(tmux display -p '#{pid}')
cpu() { # the server's utime + stime, in clock ticks
  local stat
  stat=$(</proc/"$server"/stat)
  stat=${stat##*) }
  read -r -a f <<<"$stat"
  echo $((f[11] + f[12]))
}

busy() { # the whole machine's busy CPU (/proc/stat, all but idle and iowait), in ticks
  local cpu user nice system idle iowait rest
  read -r cpu user nice system idle iowait rest </proc/stat
  local sum=$((user + nice + system)) x
  for x in $rest; do sum=$((sum + x)); done
  echo "$sum"
}

work=$(mktemp -d /tmp/tl-respawn-floor.XXXXXX)
trap 'rm -rf "$work"' EXIT
session=bench-respawn-floor-$$
commands=
for p in "${panes[@]}"; do
  commands+="respawn-pane -k -t ${p%% *} -- sleep 600"$'\n'
done

ticks=$(cpu) machine=$(busy)
start=$EPOCHREALTIME
coproc CONTROL { exec tmux -C new-session -s "$session" -- sleep 600 2>&1; }
client=$CONTROL_PID
exec {to}>&"${CONTROL[1]}" {from}<&"${CONTROL[0]}"
printf '%s' "$commands" >&"$to"
# One block answers the new-session itself, one each respawn.
grep -m $((count + 1)) -E '^%(end|error) ' <&"$from" >"$work/answers" || true
end=$EPOCHREALTIME
ticks=$(($(cpu) - ticks)) machine=$(($(busy) - machine))
printf 'kill-session -t =%s\n' "$session" >&"$to"
exec {to}>&-
cat <&"$from" >/dev/null
wait "$client" 2>/dev/null || true

errors=$(grep -c '^%error' "$work/answers" || true)
ends=$(grep -c '^%end' "$work/answers" || true)
if ((errors > 0 || ends < count + 1)); then
  echo "bench-respawn-floor: $errors commands failed, $ends of $((count + 1)) answered" >&2
  exit 1
fi
elapsed=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f", b - a }')
hz=$(getconf CLK_TCK)
echo "elapsed: $elapsed"
echo "tmux_server_cpu: $(awk -v t="$ticks" -v hz="$hz" 'BEGIN { printf "%.3f", t / hz }')"
echo "machine_cpu: $(awk -v t="$machine" -v hz="$hz" 'BEGIN { printf "%.3f", t / hz }')"

[ "$restore" = --restore ] || exit 0
: >"$work/commands"
for p in "${panes[@]}"; do
  read -r id name cwd <<<"$p"
  printf "respawn-pane -k -t %s -c '%s' -- claude --resume '0000-%s'\n" "$id" "$cwd" "${name#loop-}"
done >"$work/commands"
tmux source-file "$work/commands"
# Up: the pane's process is the stand-in's final `sleep 2147483647`.
for ((tries = 0; ; tries++)); do
  up=0
  while read -r pid name; do
    [[ $name == loop-* ]] || continue
    [[ $(tr '\0' ' ' </proc/"$pid"/cmdline 2>/dev/null) == "sleep 2147483647 " ]] && up=$((up + 1))
  done < <(tmux list-panes -a -F '#{pane_pid} #{session_name}')
  total=$(tmux list-panes -a -F '#{session_name}' | grep -c '^loop-')
  ((up == total)) && break
  ((tries < 600)) || { echo "bench-respawn-floor: $((total - up)) harnesses did not come back" >&2; exit 1; }
  sleep 0.1
done
