#!/usr/bin/env bash
# Times `the-loop top` at N sessions (default 500) against `plan` on the
# same world (scripts/bench-world.sh: N registered sessions of the light
# stand-in harness, every one drifted):
#   plan          hyperfine, median wall time of `plan` (a whole process:
#                 config, registry, one observation, the table printed)
#   top refresh   one refresh inside a running top (`ops::top::snapshot`:
#                 the same observation and plan, then the rows), read from
#                 top's own debug log: `RUST_LOG=the_loop=debug` writes a
#                 `top refreshed ms=…` line per refresh (src/cli/top/mod.rs)
#   key latency   `j` typed every 30 ms (a key repeat) while top refreshes
#                 every second: from the key read to its frame drawn, the
#                 `top key drawn ms=…` lines of the same log
# top runs in a pseudo-terminal of its own (tests/it/support/in-pty, 120x40).
#
# Usage: scripts/bench-top.sh [N]
#   THE_LOOP_BIN=path  the build to measure (default: `cargo build --release
#                      --locked`, into CARGO_TARGET_DIR when set)
#   KEYS=300           how many `j` are typed
#   OUT=dir            where the world and logs go (default target/bench-top/<time>)
set -euo pipefail
n=${1:-500}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
target=${CARGO_TARGET_DIR:-$repo/target}
if [ -z "${THE_LOOP_BIN:-}" ]; then
  (cd "$repo" && cargo build --release --locked >&2)
  THE_LOOP_BIN=$target/release/the-loop
fi
bin=$(cd "$(dirname "$THE_LOOP_BIN")" && pwd)/$(basename "$THE_LOOP_BIN")
out=${OUT:-$target/bench-top/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"
out=$(cd "$out" && pwd -P)
world=$out/world
echo "bench-top: spawning $n sessions in $world" >&2
"$repo/scripts/bench-world.sh" "$n" "$world" >&2
export HOME=$world/home TMUX_TMPDIR=$world/tmux PATH=$world/bin:$PATH
unset TMUX TMUX_PANE THE_LOOP_CLI_CONFIG CLAUDE_CONFIG_DIR
trap 'tmux kill-server 2>/dev/null || true' EXIT
config=$world/cli-config.yaml

hyperfine --style basic --warmup 2 --runs "${RUNS:-10}" -N \
  --export-json "$out/plan.json" "$bin --config $config plan" >&2 || true
plan_ms=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("%.1f" % (r["median"]*1000))' "$out/plan.json")

log=$out/top.log
: >"$log"
{
  sleep 6 # the first refreshes
  for ((i = 0; i < ${KEYS:-300}; i++)); do
    printf j
    sleep 0.03
  done
  sleep 3
  printf q
  sleep 1
} | RUST_LOG=the_loop=debug NO_COLOR=1 TERM=xterm python3 "$repo/tests/it/support/in-pty" "$out/top.screen" -- \
  sh -c 'exec "$0" --config "$1" top --interval 1s 2>"$2"' "$bin" "$config" "$log" || true

python3 - "$log" "$n" "$plan_ms" <<'PY'
import re, statistics, sys
log, n, plan_ms = sys.argv[1], sys.argv[2], float(sys.argv[3])
text = open(log).read()
def ms(what):
    return [float(re.search(r"ms=([0-9.]+)", l).group(1))
            for l in text.splitlines() if what in l and "ms=" in l]
refresh, keys = ms("top refreshed"), ms("top key drawn")
def q(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]
print(f"sessions: {n}")
print(f"plan (whole process, hyperfine median): {plan_ms:.1f} ms")
if refresh:
    # The first refresh runs beside top's own start.
    r = refresh[1:] or refresh
    print(f"top refresh (in process): median {statistics.median(r):.1f} ms, "
          f"min {min(r):.1f}, max {max(r):.1f} over {len(r)} refreshes "
          f"({statistics.median(r) / plan_ms:.2f}x one plan)")
if keys:
    print(f"key to frame (j every 30 ms): median {statistics.median(keys):.2f} ms, "
          f"p99 {q(keys, 0.99):.2f} ms, max {max(keys):.2f} ms over {len(keys)} keys")
PY
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%FT%TZ); $(git -C "$repo" rev-parse --short HEAD)"
