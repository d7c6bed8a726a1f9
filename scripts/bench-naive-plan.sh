#!/usr/bin/env bash
# The naive drift check, as the reporter's recovery script did it: for each
# registered session, one `tmux list-panes -t` and one read of the pane
# process's /proc/<pid>/environ, compared name by name with the env file.
#
# It is deliberately lean (bash builtins apart from the one tmux call per
# session; no fingerprints, no JSON), so it is a lower bound on what the
# naive way costs. Usage: bench-naive-plan.sh STATE_ROOT ENV_FILE
set -u
state=$1 envfile=$2
declare -A want
while IFS= read -r line || [ -n "$line" ]; do
  line=${line#export }
  [[ $line =~ ^([A-Za-z_][A-Za-z0-9_]*)=(.*)$ ]] && want[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
done <"$envfile"

stale=0
for record in "$state"/local/*.json; do
  read -r -d '' content <"$record"
  [[ $content =~ \"tmuxTarget\":\ *\"([^\"]+)\" ]] || continue
  target=${BASH_REMATCH[1]}
  pid=$(tmux list-panes -t "=$target" -F '#{pane_pid}' 2>/dev/null)
  pid=${pid%%$'\n'*}
  if [ -z "$pid" ] || [ ! -r "/proc/$pid/environ" ]; then
    echo "$target: not running"
    continue
  fi
  declare -A have=()
  while IFS= read -r -d '' kv; do
    have[${kv%%=*}]=${kv#*=}
  done <"/proc/$pid/environ"
  changed=()
  for name in "${!want[@]}"; do
    [ "${have[$name]-}" = "${want[$name]}" ] || changed+=("$name")
  done
  unset have
  if [ ${#changed[@]} -gt 0 ]; then
    stale=$((stale + 1))
    echo "$target: stale ${changed[*]}"
  fi
done
echo "$stale stale session(s)"
