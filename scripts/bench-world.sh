#!/usr/bin/env bash
# Makes a benchmark world: DIR holds a HOME, a TMUX_TMPDIR, a state root, a
# config and an env file; a private tmux server whose own environment holds
# a retired token runs N registered sessions of the light stand-in harness
# (scripts/bench-stand-in); then the token is rotated, so every session has
# drifted. The server is left running.
#
# Usage: bench-world.sh N DIR   (PROBE=seconds sets resumeProbeSeconds; default 2)
# LIVED=1 writes the harness's user config ($HOME/.claude.json) as a fleet
# leaves it after real work: each session's project with its trust keys
# and the last session's figures Claude Code 2.1.332 writes there (about
# 1 KB a project), where without it the-loop's first roll writes the trust
# keys alone.
# Then, to use it by hand:
#   export HOME=DIR/home TMUX_TMPDIR=DIR/tmux PATH=DIR/bin:$PATH
#   the-loop --config DIR/cli-config.yaml plan
# DIR/cli-config-nodrift.yaml is the same config without env.file; the
# recording tmux wrapper DIR/wrap/tmux logs one line per call to
# DIR/tmux-calls.log; `tmux kill-server` (with TMUX_TMPDIR set) ends it.
set -euo pipefail
n=$1
mkdir -p "$2"
dir=$(cd "$2" && pwd -P)
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mkdir -p "$dir"/{home/.claude/projects,tmux,state/local,work,bin,wrap}
export HOME=$dir/home TMUX_TMPDIR=$dir/tmux PATH=$dir/bin:$PATH
unset TMUX TMUX_PANE THE_LOOP_CLI_CONFIG CLAUDE_CONFIG_DIR
cp "$repo/scripts/bench-stand-in" "$dir/bin/claude"
cat >"$dir/wrap/tmux" <<EOF
#!/bin/sh
echo "\$1" >>"$dir/tmux-calls.log"
exec $(command -v tmux) "\$@"
EOF
chmod +x "$dir/wrap/tmux"
cat >"$dir/cli-config.yaml" <<EOF
state:
  root: $dir/state
env:
  file: .env
  deliver: [BENCH_TOKEN]
routing:
  tmux:
    resumeProbeSeconds: ${PROBE:-2}
EOF
sed '/^env:/,/deliver/d' "$dir/cli-config.yaml" >"$dir/cli-config-nodrift.yaml"
printf 'BENCH_TOKEN=retired-0000\n' >"$dir/.env"
# The server's own environment holds the retired token, as a server started
# before a rotation does (never in an argv).
BENCH_TOKEN=retired-0000 tmux -f /dev/null new-session -d -s keepalive sleep 2147483647
batch=()
for ((i = 1; i <= n; i++)); do
  slug=github-bench-fleet-$i
  cwd=$dir/work/$slug
  mkdir -p "$cwd" "$dir/home/.claude/projects/${cwd//[^A-Za-z0-9]/-}"
  printf '{"workItem":{"ref":"github:bench/fleet#%d","provider":"github","owner":"bench","repo":"fleet","number":%d},"harness":"claude","harnessSessionId":"0000-%s","cwd":"%s","status":"active","createdAt":"2026-11-01T00:00:00Z","lastEventAt":null,"tmuxTarget":"loop-%s","recentDeliveries":[]}\n' \
    "$i" "$i" "$slug" "$cwd" "$slug" >"$dir/state/local/$slug.json"
  [ ${#batch[@]} -gt 0 ] && batch+=(";")
  batch+=(new-session -d -s "loop-$slug" -c "$cwd" -- claude --session-id "0000-$slug")
  # tmux caps the length of one command, so sessions are made in batches.
  if ((i % 40 == 0 || i == n)); then
    tmux -f /dev/null "${batch[@]}"
    batch=()
  fi
done
if [ "${LIVED:-}" = 1 ]; then
  python3 - "$dir" "$n" <<'PY'
import json, sys
home, n = sys.argv[1], int(sys.argv[2])
def project(i):
    usage = {"inputTokens": 2, "outputTokens": 2, "thinkingTokens": 0, "cacheReadInputTokens": 0,
             "cacheCreationInputTokens": 0, "webSearchRequests": 0, "costUSD": 4.8e-05}
    metrics = {f"{m}_ms_{s}": 1.78 for m in ("frame_duration", "hook_duration")
               for s in ("count", "min", "max", "avg", "p50", "p95", "p99")}
    return {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True,
            "lastGracefulShutdown": True, "lastVersionBase": "2.1.332", "lastCost": 4.8e-05,
            "lastAPIDuration": 109, "lastAPIDurationWithoutRetries": 64, "lastToolDuration": 0,
            "lastDuration": 2122, "lastStartTime": 1796592755647 + i, "lastLinesAdded": 0,
            "lastLinesRemoved": 0, "lastTotalInputTokens": 2, "lastTotalOutputTokens": 2,
            "lastTotalCacheCreationInputTokens": 0, "lastTotalCacheReadInputTokens": 0,
            "lastTotalWebSearchRequests": 0, "lastFpsAverage": 26.5, "lastFpsLow1Pct": 231.37,
            "lastModelUsage": {"claude-opus-5-5": usage}, "lastSessionId": f"0000-{i}",
            "lastSessionMetrics": metrics}
projects = {f"{home}/work/github-bench-fleet-{i}": project(i) for i in range(1, n + 1)}
with open(f"{home}/home/.claude.json", "w") as f:
    json.dump({"numStartups": 42, "hasCompletedOnboarding": True, "projects": projects}, f, indent=2)
PY
  chmod 600 "$dir/home/.claude.json"
fi
tries=0
while (($(find "$dir/home/.claude/projects" -name '*.jsonl' | wc -l) < n)); do
  ((++tries < 600)) || { echo "bench-world: the sessions did not start" >&2; exit 1; }
  sleep 0.1
done
"$repo/scripts/bench-rotate.sh" "$dir/.env"
