# Sourced by bench-watch-soak.sh and bench-watch-storm.sh (not run alone):
# the world both watch benchmarks start from. Needs n (sessions), dir and
# probe (resumeProbeSeconds, unless PROBE overrides it); sets repo, bin
# (THE_LOOP, else target/release/the-loop, else target/debug/the-loop, made
# absolute), config and events; builds the world of scripts/bench-world.sh
# and points HOME, TMUX_TMPDIR and PATH at it. Its harnesses were started
# by tmux, not by the-loop: no hooks speak for them, so a roll holds them
# ("unknown" never rolls now); one apply with --now puts each under the
# launcher and hooks first. cleanup (the callers' EXIT trap) ends the
# watch they start as $watch, then the world's tmux server.
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${THE_LOOP:-}
if [ -z "$bin" ]; then
  bin=$repo/target/release/the-loop
  [ -x "$bin" ] || bin=$repo/target/debug/the-loop
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
PROBE=${PROBE:-$probe} "$repo/scripts/bench-world.sh" "$n" "$dir" >/dev/null
export HOME=$dir/home TMUX_TMPDIR=$dir/tmux PATH=$dir/bin:$PATH
unset TMUX TMUX_PANE THE_LOOP_CLI_CONFIG CLAUDE_CONFIG_DIR
config=$dir/cli-config.yaml
events=$dir/state/events.jsonl
"$bin" --config "$config" apply --auto-approve --now --parallelism "$n" >/dev/null 2>&1 || true
cleanup() {
  kill "$watch" 2>/dev/null || true
  wait "$watch" 2>/dev/null || true
  tmux kill-server 2>/dev/null || true
}
