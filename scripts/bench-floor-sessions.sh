#!/bin/sh
# The floor of a plan that must read each session's own tmux environment
# (issue 26): what scripts/bench-floor.sh does (one `tmux list-panes -a` and
# a read of every pane's /proc/<pid>/environ), plus the per-session
# questions that tell an inherited value from a session's own copy, one
# `show-environment -s -t =SESSION` per session, issued bare (no markers)
# in ONE tmux call (`source-file -`: a `;` chain of 500 does not fit on a
# command line). That is what a plan has to ask while tmux's global layer
# still holds a retired value (src/observed/session_loop.rs, script.rs).
# The session names come from the same listing; the word splitting is the
# shell's own, no process started for it.
IFS='
'
files= script= last=
for line in $(tmux list-panes -a -F '#{pane_pid} #{session_name}'); do
  files="$files
/proc/${line%% *}/environ"
  name=${line#* }
  [ "$name" = "$last" ] || script="$script
showenv -s -t '=$name'"
  last=$name
done
cat $files >/dev/null 2>&1 || true
tmux source-file - >/dev/null 2>&1 <<EOF || true
$script
EOF
