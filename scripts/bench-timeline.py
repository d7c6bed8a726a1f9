#!/usr/bin/env python3
"""Where one roll's wall time goes, step by step (issue 26).

Rolls a benchmark world once (the token rotated first, so every session
rolls) with the event log at debug level, and lines up:

- the roll's events, by the debug log's microsecond stamps
  (`session.harness_terminated`: the-loop saw the old harness end;
  `session.respawned`: the new one verified, a probe window after it
  started);
- each new harness's start, from /proc/<new pid>/stat (the moment the tmux
  server forked its pane, to the clock tick: 10 ms);
- the CPU spent meanwhile: the-loop's own (rusage), the tmux server's
  (/proc/<server>/stat) and the whole machine's (/proc/stat).

So the wall time splits into what is the-loop's (before the canary, between
the waves, after the last verification), the probe windows (2 x P: the
canary is rolled and verified alone, issue 3) and the tmux server's
serial respawns. Prints one table.

Usage: scripts/bench-timeline.py DIR [PARALLELISM]
  DIR is a world made by `scripts/bench-world.sh N DIR`; PARALLELISM
  defaults to the world's size (the whole fleet in one wave).
THE_LOOP_BIN picks the build (default target/release/the-loop).
Not part of `cargo test`.
"""
import json
import os
import re
import resource
import subprocess
import sys
import threading
import time
from datetime import datetime

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("THE_LOOP_BIN") or os.path.join(REPO, "target", "release", "the-loop")
TICK = os.sysconf("SC_CLK_TCK")


def world_env(world):
    env = dict(os.environ)
    env.update(HOME=f"{world}/home", TMUX_TMPDIR=f"{world}/tmux",
               PATH=f"{world}/bin:{env['PATH']}", RUST_LOG="the_loop=debug")
    for name in ("TMUX", "TMUX_PANE", "THE_LOOP_CLI_CONFIG", "NO_COLOR"):
        env.pop(name, None)
    return env


def boot_time():
    """The epoch second the clock of /proc/<pid>/stat counts from: now less
    the uptime (to 10 ms; /proc/stat's btime is a whole second off)."""
    with open("/proc/uptime") as f:
        uptime = float(f.read().split()[0])
    return time.time() - uptime


def started_at(pid, btime):
    """When process `pid` started, in seconds since the epoch (to a tick)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return btime + int(fields[19]) / TICK


def cpu_of(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def machine_busy():
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / TICK


class Sampler(threading.Thread):
    """The machine's busy CPU every 20 ms while the roll runs."""

    def __init__(self):
        super().__init__(daemon=True)
        self.samples, self.done = [], threading.Event()

    def run(self):
        while not self.done.is_set():
            self.samples.append((time.time(), machine_busy()))
            time.sleep(0.02)

    def cores_busy(self, a, b):
        """Busy cores on average between epoch seconds a and b."""
        inside = [x for x in self.samples if a <= x[0] <= b]
        if len(inside) < 2 or inside[-1][0] <= inside[0][0]:
            return None
        return (inside[-1][1] - inside[0][1]) / (inside[-1][0] - inside[0][0])


def events(log):
    """(epoch seconds, event dict) of every event line of the debug log."""
    found = []
    for line in log.splitlines():
        m = re.match(r"(\S+)\s+DEBUG\b.*?\bline=(\{.*\})\s*$", line)
        if not m:
            continue
        try:
            event = json.loads(m.group(2))
        except ValueError:
            continue
        stamp = datetime.fromisoformat(m.group(1).replace("Z", "+00:00")).timestamp()
        found.append((stamp, event))
    return found


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    world = os.path.abspath(sys.argv[1])
    env = world_env(world)
    sessions = len([f for f in os.listdir(f"{world}/state/local") if f.endswith(".json")])
    parallelism = int(sys.argv[2]) if len(sys.argv) > 2 else sessions
    server = subprocess.run(["tmux", "display", "-p", "#{pid}"], env=env, capture_output=True,
                            text=True, check=True).stdout.strip()
    probe = None
    for line in open(f"{world}/cli-config.yaml"):
        if "resumeProbeSeconds:" in line:
            probe = float(line.split(":")[1])
    subprocess.run([f"{REPO}/scripts/bench-rotate.sh", f"{world}/.env"], check=True)
    btime = boot_time()
    own = resource.getrusage(resource.RUSAGE_CHILDREN)
    server_cpu, busy = cpu_of(server), machine_busy()
    sampler = Sampler()
    sampler.start()
    t0 = time.time()
    done = subprocess.run([BIN, "--config", f"{world}/cli-config.yaml", "apply", "--auto-approve",
                           "--parallelism", str(parallelism)], env=env, capture_output=True, text=True)
    t_end = time.time()
    sampler.done.set()
    sampler.join()
    server_cpu, busy = cpu_of(server) - server_cpu, machine_busy() - busy
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    own = after.ru_utime - own.ru_utime + after.ru_stime - own.ru_stime
    if done.returncode != 0:
        sys.exit(f"bench-timeline: apply failed ({done.returncode}): {done.stderr[-500:]}")

    found = events(done.stderr)
    first = {}
    for stamp, event in found:
        first.setdefault(event.get("event"), stamp)
    ended = sorted(s for s, e in found if e.get("event") == "session.harness_terminated")
    verified = sorted((s, e.get("new_pid")) for s, e in found if e.get("event") == "session.respawned")
    if not ended or not verified or "apply.started" not in first:
        sys.exit("bench-timeline: the debug log holds no roll events (RUST_LOG=the_loop=debug)")
    spawned = sorted(t for t in (started_at(pid, btime) for _, pid in verified if pid) if t)
    canary_verified = verified[0][0]
    canary_spawned = spawned[0]
    fleet_ended = [s for s in ended if s > canary_verified - 1e-3]
    fleet_spawned = [t for t in spawned[1:]]

    def at(t):
        return f"{(t - t0):7.3f} s"

    rows = [
        ("the-loop starts, reads its config, observes, plans", t0, first["apply.started"]),
        ("canary: its harness signalled and ended", first["apply.started"], ended[0]),
        ("canary: tmux respawns its pane (new process started)", ended[0], canary_spawned),
        ("canary: probe window and verification (P)", canary_spawned, canary_verified),
        ("fleet: harnesses signalled and ended (first to last)", canary_verified,
         fleet_ended[-1] if fleet_ended else canary_verified),
        ("fleet: tmux respawns the panes, after the last ended", fleet_ended[-1] if fleet_ended
         else canary_verified, fleet_spawned[-1] if fleet_spawned else canary_verified),
        ("fleet: the last pane's probe window and verification (P)",
         fleet_spawned[-1] if fleet_spawned else canary_verified, verified[-1][0]),
        ("the-loop reports and exits", verified[-1][0], t_end),
    ]
    print(f"{sessions} sessions, --parallelism {parallelism}, probe {probe:g} s: apply "
          f"{t_end - t0:.3f} s; loadavg {open('/proc/loadavg').read().split()[0]}")
    print()
    print(f"| step | from | to | takes | busy cores (of {os.cpu_count()}) |")
    print("|---|---:|---:|---:|---:|")
    for what, a, b in rows:
        cores = sampler.cores_busy(a, b)
        cores = "–" if cores is None else f"{cores:.2f}"
        print(f"| {what} | {at(a)} | {at(b)} | {b - a:.3f} s | {cores} |")
    if fleet_spawned and fleet_ended:
        print()
        cores = sampler.cores_busy(fleet_ended[0], fleet_spawned[-1])
        print(f"fleet harnesses ended {at(fleet_ended[0])} .. {at(fleet_ended[-1])}; "
              f"their new processes started {at(fleet_spawned[0])} .. {at(fleet_spawned[-1])} "
              f"(tmux's pane forks, to a 10 ms tick); verified {at(verified[1][0])} .. "
              f"{at(verified[-1][0])}; from the first end to the last start, "
              f"{fleet_spawned[-1] - fleet_ended[0]:.3f} s with "
              f"{'–' if cores is None else f'{cores:.2f}'} cores busy on average")
    print(f"CPU during the roll: the-loop {own:.2f} s (with the tmux clients it waits for), "
          f"the tmux server {server_cpu:.2f} s, the whole machine {busy:.2f} s "
          f"({os.cpu_count()} cores x {t_end - t0:.2f} s = {os.cpu_count() * (t_end - t0):.2f} s)")


if __name__ == "__main__":
    main()
