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
# Usage: bench-respawn-floor.sh COUNT [--restore | --harness | --launcher STATE_ROOT]
#   --restore  then puts each of those panes back to the stand-in harness
#              as scripts/bench-world.sh started it (`claude --resume <its
#              conversation>` in its working directory, untimed) and waits
#              until every one is up, so the world can be rolled again.
#              bench-world.sh's layout only: session loop-SLUG, conversation
#              0000-SLUG.
#   --harness  the floor issue 46 states, "respawn + harness start of N-1
#              sessions": each pane is respawned (`-k`, the same one client)
#              straight to that stand-in harness, and the time runs from the
#              client's start to the moment the last harness had started,
#              read afterwards from the transcript line the stand-in appends
#              just before its final `exec sleep` (the file's mtime; nothing
#              polls meanwhile, so nothing but the harnesses runs). No
#              launcher, no hook (bench-world.sh starts it without
#              `--settings`), no signal, no probe: what the-loop adds to a
#              harness's start is all counted against it. The world is left
#              as --restore leaves it.
#   --launcher STATE_ROOT  what every respawn of a roll must start, and
#              nothing of the roll itself: each pane is respawned (`-k`, the
#              same one client) to its own start command, the-loop's
#              launcher as the roll last started it, which puts the env
#              file's values in place, adds the hook's settings and execs
#              the stand-in, whose SessionStart hook (`the-loop hook`)
#              writes STATE_ROOT/activity/<pid>.jsonl. The time runs to the
#              last of those files written (read afterwards). No plan, no
#              provenance check, no last look, no journal, no signal of its
#              own, no probe, no verification: what a roll adds beyond the
#              launcher and the hook is what is left. The world is left
#              rolled.
set -euo pipefail
count=${1:?usage: bench-respawn-floor.sh COUNT [--restore | --harness | --launcher STATE_ROOT]}
mode=${2:-}
state_root=${3:-}
if [ "$mode" = --launcher ] && [ ! -d "$state_root/activity" ]; then
  echo "bench-respawn-floor: --launcher needs the world's state root (with activity/)" >&2
  exit 2
fi

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
# The stand-in harness of each pane, as scripts/bench-world.sh started it.
harness() { # pane line -> its respawn-pane command
  local id name cwd
  read -r id name cwd <<<"$1"
  printf "respawn-pane -k -t %s -c '%s' -- claude --resume '0000-%s'\n" "$id" "$cwd" "${name#loop-}"
}
# Each managed pane's start command, as tmux renders it (its parser reads
# that rendering back into the same words).
declare -A started
if [ "$mode" = --launcher ]; then
  while IFS=$'\t' read -r id command; do
    started[$id]=$command
  done < <(tmux list-panes -a -F '#{pane_id}	#{pane_start_command}')
fi
commands=
for p in "${panes[@]}"; do
  if [ "$mode" = --harness ]; then
    commands+=$(harness "$p")$'\n'
  elif [ "$mode" = --launcher ]; then
    read -r id _ cwd <<<"$p"
    commands+="respawn-pane -k -t $id -c '$cwd' -- ${started[$id]}"$'\n'
  else
    commands+="respawn-pane -k -t ${p%% *} -- sleep 600"$'\n'
  fi
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
up() { # waits until every loop-* pane runs the stand-in's final `sleep 2147483647`
  local tries up total pid name
  for ((tries = 0; ; tries++)); do
    up=0
    while read -r pid name; do
      [[ $name == loop-* ]] || continue
      [[ $(tr '\0' ' ' </proc/"$pid"/cmdline 2>/dev/null) == "sleep 2147483647 " ]] && up=$((up + 1))
    done < <(tmux list-panes -a -F '#{pane_pid} #{session_name}')
    total=$(tmux list-panes -a -F '#{session_name}' | grep -c '^loop-')
    ((up == total)) && return 0
    ((tries < 600)) || { echo "bench-respawn-floor: $((total - up)) harnesses did not come back" >&2; exit 1; }
    sleep 0.1
  done
}

# The file each pane's new harness writes last as it starts: with
# --harness, its transcript's newest line, written just before it becomes
# `sleep`; with --launcher, its hook's activity file.
written_last() { # pane line -> that file
  local id name cwd
  read -r id name cwd <<<"$1"
  if [ "$mode" = --harness ]; then
    echo "${CLAUDE_CONFIG_DIR:-$HOME/.claude}/projects/${cwd//[^A-Za-z0-9]/-}/0000-${name#loop-}.jsonl"
  else
    echo "$state_root/activity/$(tmux display -p -t "$id" '#{pane_pid}').jsonl"
  fi
}
if [ "$mode" = --harness ] || [ "$mode" = --launcher ]; then
  # Untimed: the harnesses start undisturbed (`up` starts processes).
  sleep $((count / 100 + 1))
  up
  # The last harness's start, read afterwards from the files' times.
  last=$start
  for p in "${panes[@]}"; do
    file=$(written_last "$p")
    written=$(stat -c '%.9Y' "$file" 2>/dev/null) || {
      echo "bench-respawn-floor: $file was not written (pane ${p%% *})" >&2
      exit 1
    }
    last=$(awk -v a="$last" -v b="$written" 'BEGIN { print (b > a) ? b : a }')
  done
  end=$last
fi
elapsed=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f", b - a }')
hz=$(getconf CLK_TCK)
echo "elapsed: $elapsed"
echo "tmux_server_cpu: $(awk -v t="$ticks" -v hz="$hz" 'BEGIN { printf "%.3f", t / hz }')"
echo "machine_cpu: $(awk -v t="$machine" -v hz="$hz" 'BEGIN { printf "%.3f", t / hz }')"

[ "$mode" = --restore ] || exit 0
: >"$work/commands"
for p in "${panes[@]}"; do
  harness "$p"
done >"$work/commands"
tmux source-file "$work/commands"
up
