#!/usr/bin/env python3
"""What one command in a `;` chain costs the tmux server, by fleet size.

A plan before `apply --scrub-tmux-env` reads every session's own tmux
environment: a `show-environment -s -t =S` and a closing marker
(`display -p @i`) per session, about 1,000 commands at 500 sessions. This
script shows why that costs more per command as the fleet grows: it starts
two private servers, one holding SMALL sessions and one LARGE (each a
`sleep`), and times the same chain of COMMANDS `display -p` commands, and a
lone `display -p`, against each. The difference per command between the
two servers is what tmux spends per command looking for the "current"
client, pane and session of a client that is attached to none (tmux 3.3a's
cmd-find.c walks every pane and every session for it, twice per command).

Usage: scripts/bench-tmux-commands.py [SMALL LARGE COMMANDS ROUNDS]
       (default: 10 500 250 15)
Not part of `cargo test`.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def tmux(socket, *args):
    return subprocess.run(["tmux", "-f", "/dev/null", "-L", socket, *args],
                          capture_output=True, check=False)


def start_server(socket, sessions):
    tmux(socket, "new-session", "-d", "-s", "s0", "sleep", "2147483647")
    batch = []
    for i in range(1, sessions):
        batch += [";", "new-session", "-d", "-s", f"s{i}", "sleep", "2147483647"]
        if i % 40 == 0 or i == sessions - 1:
            tmux(socket, *batch[1:])
            batch = []


def timed(socket, args):
    start = time.perf_counter()
    tmux(socket, *args)
    return time.perf_counter() - start


def main(argv):
    small, large, commands, rounds = (int(a) for a in (argv[1:] or ["10", "500", "250", "15"]))
    os.environ["TMUX_TMPDIR"] = tempfile.mkdtemp(prefix="tl-cmds-")
    os.environ.pop("TMUX", None)
    chain = []
    for i in range(commands):
        chain += [";", "display", "-p", f"@{i}"]
    chain = chain[1:]
    rows = []
    try:
        for socket, sessions in (("small", small), ("large", large)):
            start_server(socket, sessions)
            chains, bare = [], []
            for _ in range(rounds):
                chains.append(timed(socket, chain))
                bare.append(timed(socket, ["display", "-p", "x"]))
            per = (statistics.median(chains) - statistics.median(bare)) / commands
            rows.append((sessions, statistics.median(chains), statistics.median(bare), per))
    finally:
        for socket in ("small", "large"):
            tmux(socket, "kill-server")
        shutil.rmtree(os.environ["TMUX_TMPDIR"], ignore_errors=True)
    print(f"| sessions | {commands} commands, ms | one command, ms | per command, µs |")
    print("|---:|---:|---:|---:|")
    for sessions, chain_s, bare_s, per in rows:
        print(f"| {sessions} | {chain_s * 1e3:.1f} | {bare_s * 1e3:.1f} | {per * 1e6:.0f} |")


if __name__ == "__main__":
    main(sys.argv)
