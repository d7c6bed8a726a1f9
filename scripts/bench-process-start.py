#!/usr/bin/env python3
"""What one start of the launcher and of the hook costs, for several builds.

A roll starts two short the-loop processes for every harness: the launcher
(`the-loop exec`, which execs the harness) and the harness's start hook
(`the-loop hook`). Their cost is mostly the process start, so this times
starts: each build's hook (no stdin: it finds no event and exits) and its
launcher on a session of a benchmark world (execing /bin/true in place of
the harness), with /bin/true itself as the floor. Builds alternate, round
by round, so a machine shared with other work touches them alike.

Usage: scripts/bench-process-start.py WORLD BINARY... [--rounds R] [--runs N]
  WORLD is a world made by `scripts/bench-world.sh N WORLD` (its config and
  env file are what the launcher reads). Prints one Markdown table: per
  start, the median over rounds of the mean wall time and of the CPU time
  (user + system, from the children's rusage). Not part of `cargo test`.
"""
import argparse
import os
import resource
import statistics
import subprocess
import time


def timed(argv, runs, env):
    """Mean wall and CPU seconds of one start of `argv`, over `runs` starts."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    for _ in range(runs):
        subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, env=env, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall / runs, cpu / runs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("world")
    parser.add_argument("binaries", nargs="+")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    world = os.path.abspath(args.world)
    env = dict(os.environ, HOME=f"{world}/home", TMUX_TMPDIR=f"{world}/tmux")
    for name in ("TMUX", "TMUX_PANE", "THE_LOOP_CLI_CONFIG"):
        env.pop(name, None)
    launch = ["exec", "--config", f"{world}/cli-config.yaml",
              "--work-item", "github:bench/fleet#1", "--harness", "claude", "--", "/bin/true"]
    commands = [("`/bin/true` (the floor)", ["/bin/true"])]
    for binary in args.binaries:
        label = os.path.basename(binary)
        commands.append((f"`{label} hook`", [binary, "hook"]))
        commands.append((f"`{label} exec …` (then `/bin/true`)", [binary, *launch]))
    walls = {label: [] for label, _ in commands}
    cpus = {label: [] for label, _ in commands}
    for round_ in range(args.rounds):
        order = commands if round_ % 2 == 0 else list(reversed(commands))
        for label, argv in order:
            wall, cpu = timed(argv, args.runs, env)
            walls[label].append(wall)
            cpus[label].append(cpu)
    print(f"{args.rounds} rounds of {args.runs} starts each, loadavg {os.getloadavg()[0]:.2f}")
    print("| command | wall per start, ms | CPU per start, ms |")
    print("|---|---:|---:|")
    for label, _ in commands:
        print(f"| {label} | {statistics.median(walls[label]) * 1000:.2f} "
              f"| {statistics.median(cpus[label]) * 1000:.2f} |")


if __name__ == "__main__":
    main()
