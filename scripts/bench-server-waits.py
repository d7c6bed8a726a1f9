#!/usr/bin/env python3
"""Where a roll waits inside the tmux server: its own CPU, and the time it
spends blocked on the helper processes it forks.

The tmux server is one thread, and every `respawn-pane` passes through it.
Debian's tmux links libutempter: each pane spawn and each pane exit forks
the setgid helper `/usr/lib/x86_64-linux-gnu/utempter/utempter` and waits
for it (`wait4` on that pid, blocking the whole server). This script rolls a
benchmark world twice:

1. plain, reading the server's own CPU and its reaped children's CPU from
   `/proc/<server>/stat` before and after (ticks of 10 ms);
2. with `strace` attached to the server (process calls only), and sums the
   time from each helper's fork to the end of the `wait4` that reaps it.
   strace slows the server, so read this run's figures as an upper bound.

Usage: scripts/bench-server-waits.py DIR [PARALLELISM]
  DIR is a world made by `scripts/bench-world.sh N DIR`; PARALLELISM
  defaults to the world's size (the whole fleet in one wave).
THE_LOOP_BIN picks the build (default target/release/the-loop).
Needs strace. Not part of `cargo test`.
"""
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("THE_LOOP_BIN") or os.path.join(REPO, "target", "release", "the-loop")


def world_env(world):
    env = dict(os.environ)
    env.update(HOME=f"{world}/home", TMUX_TMPDIR=f"{world}/tmux",
               PATH=f"{world}/bin:{env['PATH']}")
    for name in ("TMUX", "TMUX_PANE", "THE_LOOP_CLI_CONFIG"):
        env.pop(name, None)
    return env


def server_times(pid):
    """utime, stime, cutime, cstime of the server, in clock ticks."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return [int(x) for x in fields[11:15]]


def roll(world, env, parallelism):
    subprocess.run([f"{REPO}/scripts/bench-rotate.sh", f"{world}/.env"], check=True)
    start = time.monotonic()
    done = subprocess.run([BIN, "--config", f"{world}/cli-config.yaml", "apply",
                           "--auto-approve", "--parallelism", str(parallelism)],
                          env=env, capture_output=True, text=True)
    wall = time.monotonic() - start
    summary = [l for l in done.stdout.splitlines() if l.startswith("Apply:")]
    if done.returncode != 0 or not summary:
        sys.exit(f"bench-server-waits: apply failed ({done.returncode}): {done.stderr[-500:]}")
    return wall, summary[0]


def seconds(stamp):
    h, m, s = stamp.split(":")
    return int(h) * 3600 + int(m) * 60 + float(s)


def helper_waits(trace):
    """Seconds from each forked child's clone to the end of the wait4 that
    reaped it by pid: the server's blocking waits (the panes are reaped
    with wait4(-1, WNOHANG), which never blocks, so they are not counted)."""
    forked, waits = {}, []
    for line in trace:
        m = re.match(r"(\S+) clone3?\(.*\) = (\d+) <([\d.]+)>", line)
        if m:
            forked[m.group(2)] = seconds(m.group(1))
            continue
        m = re.match(r"(\S+) wait4\((\d+), .*<([\d.]+)>", line)
        if m and m.group(2) in forked:
            waits.append(seconds(m.group(1)) + float(m.group(3)) - forked[m.group(2)])
    return len(forked), waits


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    world = os.path.abspath(sys.argv[1])
    env = world_env(world)
    server = subprocess.run(["tmux", "display", "-p", "#{pid}"], env=env,
                            capture_output=True, text=True, check=True).stdout.strip()
    sessions = len([f for f in os.listdir(f"{world}/state/local") if f.endswith(".json")])
    parallelism = int(sys.argv[2]) if len(sys.argv) > 2 else sessions
    tick = os.sysconf("SC_CLK_TCK")

    before = server_times(server)
    wall, summary = roll(world, env, parallelism)
    after = server_times(server)
    own = (after[0] + after[1] - before[0] - before[1]) / tick
    reaped = (after[2] + after[3] - before[2] - before[3]) / tick
    print(f"{sessions} sessions, --parallelism {parallelism}: apply {wall:.2f} s; {summary}")
    print(f"  tmux server's own CPU: {own * 1000:.0f} ms ({own * 1000 / sessions:.2f} ms a session)")
    print(f"  CPU of the children it reaped (helpers, and the panes' ended processes): "
          f"{reaped * 1000:.0f} ms")

    with tempfile.NamedTemporaryFile("r", suffix=".strace") as out:
        tracer = subprocess.Popen(["strace", "-q", "-tt", "-T", "-e",
                                   "trace=clone,clone3,fork,vfork,wait4", "-p", server,
                                   "-o", out.name])
        time.sleep(1)  # strace attaches
        wall, summary = roll(world, env, parallelism)
        time.sleep(0.5)
        tracer.send_signal(signal.SIGINT)
        tracer.wait()
        forks, waits = helper_waits(out.read().splitlines())
    if not waits:
        sys.exit("bench-server-waits: strace saw no blocking wait4 (a tmux without utempter?)")
    waits.sort()
    total = sum(waits)
    print(f"under strace: apply {wall:.2f} s; the server forked {forks} children and blocked in "
          f"wait4 for {len(waits)} of them")
    print(f"  blocked: {total * 1000:.0f} ms in all, {total * 1000 / sessions:.2f} ms a session; "
          f"per wait median {statistics.median(waits) * 1000:.2f} ms, "
          f"p90 {waits[int(len(waits) * 0.9)] * 1000:.2f} ms")


if __name__ == "__main__":
    main()
