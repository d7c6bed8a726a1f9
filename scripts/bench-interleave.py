#!/usr/bin/env python3
"""Times commands side by side, one run of each in turn (issue 15).

hyperfine runs each command's runs together, so on a machine whose speed
drifts from minute to minute (this 2-core VM: the same build measured 41 ms
and 51 ms ten minutes apart) a ratio of two commands can move more than the
difference being measured. Here every round runs each command once, in the
order given, so drift touches all of them alike; the ratio of medians is
what the performance notes quote.

Usage:
  scripts/bench-interleave.py [OPTIONS] ROUNDS CMD [CMD ...]
      each CMD is one shell command (quote it); the LAST one is the
      reference the others are divided by (say, scripts/bench-floor.sh)
  NULL=1 sends stdout to /dev/null instead of a pipe that is read

Options (issue 26; the ones before a CMD apply to that CMD only):
  --label NAME    the CMD's name in the table and in --json
  --before CMD2   runs CMD2, untimed, before each run of the CMD (say,
                  scripts/bench-rotate.sh, so every apply rolls the fleet)
  --json FILE     writes every run's figures and the medians to FILE
  --warmup K      warm-up runs of each command, not counted (default 1)
  --alternate     every other round runs the commands in reverse order, so
                  a command is not always the one after the same other one
  --settle S      sleeps S seconds before each timed run (a roll leaves
                  harnesses starting; the next run should not time them)
  --server-pid P  also reads the tmux server's own CPU (utime + stime from
                  /proc/P/stat) before and after each run
  --quiet S       before each timed run, waits (S seconds at most) until the
                  machine is quiet: under a fifth of a core busy over 0.3 s.
                  On a machine shared with a compiler, a run that starts
                  during a build measures the build; the wait and whether
                  quiet came are kept with each run

A command that prints a line `elapsed: SECONDS` times itself: that figure,
not the command's wall time, is its time (scripts/bench-respawn-floor.sh
times only its control client, then puts the fleet back, untimed); its
lines `tmux_server_cpu: S` and `machine_cpu: S`, likewise. Besides
the wall time, each run's CPU is read: the command's own and its children's
(rusage), the tmux server's (with --server-pid) and the whole machine's
busy CPU (/proc/stat), so a slow figure can be split into whose it is.

Prints, per command: median, mean and the fastest run in ms, and the
median's ratio to the reference's median. Not part of `cargo test`.
"""
import json
import os
import resource
import statistics
import subprocess
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")
# Lines a self-timed command prints, and the figure each stands for.
SELF_TIMED = {"elapsed": "time", "tmux_server_cpu": "tmux_server_cpu", "machine_cpu": "machine_cpu"}


def machine_busy():
    """Seconds of busy CPU on the whole machine since boot (/proc/stat:
    every column but idle and iowait)."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / TICK


def server_cpu(pid):
    """The tmux server's own CPU in seconds (utime + stime), or None."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / TICK


def wait_quiet(limit):
    """Waits until the machine's busy CPU over 0.3 s is under a fifth of a
    core, `limit` seconds at most: (seconds waited, whether it came)."""
    start = time.perf_counter()
    while True:
        busy = machine_busy()
        time.sleep(0.3)
        if (machine_busy() - busy) / 0.3 < 0.2:
            return time.perf_counter() - start, True
        if time.perf_counter() - start > limit:
            return time.perf_counter() - start, False


def run_once(command, to_null, server_pid):
    """One run of `command` through /bin/sh: a dict of its figures."""
    busy, server = machine_busy(), server_cpu(server_pid)
    start = time.perf_counter()
    proc = subprocess.Popen(
        ["/bin/sh", "-c", command],
        stdout=subprocess.DEVNULL if to_null else subprocess.PIPE,
        stderr=subprocess.DEVNULL if to_null else subprocess.PIPE,
    )
    out, _ = proc.communicate()
    wall = time.perf_counter() - start
    figures = {
        "wall": wall,
        "time": wall,
        "exit": proc.returncode,
        "machine_cpu": machine_busy() - busy,
    }
    after = server_cpu(server_pid)
    if server is not None and after is not None:
        figures["tmux_server_cpu"] = after - server
    for line in (out or b"").decode(errors="replace").splitlines():
        key, _, value = line.partition(": ")
        if key in SELF_TIMED:
            try:
                figures[SELF_TIMED[key]] = float(value)
            except ValueError:
                pass
    return figures


def timed(command, to_null, server_pid):
    """run_once, with the command's own CPU and its children's (rusage of
    this process's children, before and after)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    figures = run_once(command, to_null, server_pid)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    figures["own_cpu"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return figures


def parse(argv):
    opts = {"json": None, "warmup": 1, "alternate": False, "settle": 0.0, "server_pid": None,
            "quiet": 0.0}
    commands, pending = [], {}
    rounds = None
    i = 1
    while i < len(argv):
        arg = argv[i]
        if arg in ("--label", "--before", "--json", "--warmup", "--settle", "--server-pid",
                   "--quiet"):
            if i + 1 >= len(argv):
                sys.exit(__doc__)
            value = argv[i + 1]
            i += 2
            if arg == "--label":
                pending["label"] = value
            elif arg == "--before":
                pending["before"] = value
            elif arg == "--json":
                opts["json"] = value
            elif arg == "--warmup":
                opts["warmup"] = int(value)
            elif arg == "--settle":
                opts["settle"] = float(value)
            elif arg == "--quiet":
                opts["quiet"] = float(value)
            else:
                opts["server_pid"] = int(value) if value else None
            continue
        if arg == "--alternate":
            opts["alternate"] = True
        elif rounds is None:
            if not arg.isdigit() or int(arg) < 1:
                sys.exit(__doc__)
            rounds = int(arg)
        else:
            commands.append({"command": arg, "label": pending.get("label", arg),
                             "before": pending.get("before")})
            pending = {}
        i += 1
    if rounds is None or not commands:
        sys.exit(__doc__)
    return rounds, commands, opts


def median_of(runs, key):
    values = [r[key] for r in runs if key in r]
    return statistics.median(values) if values else None


def mean_of(runs, key):
    """The mean, for CPU figures: /proc counts them in 10 ms ticks, too
    coarse for the median of a 50 ms run."""
    values = [r[key] for r in runs if key in r]
    return statistics.mean(values) if values else None


def main(argv):
    rounds, commands, opts = parse(argv)
    to_null = os.environ.get("NULL") == "1"
    runs = {c["label"]: [] for c in commands}

    def one(c, counted):
        if c["before"]:
            subprocess.run(["/bin/sh", "-c", c["before"]], capture_output=True, check=False)
        if opts["settle"]:
            time.sleep(opts["settle"])
        quiet = wait_quiet(opts["quiet"]) if opts["quiet"] else None
        figures = timed(c["command"], to_null, opts["server_pid"])
        if quiet:
            figures["quiet_wait"], figures["quiet"] = quiet
        if counted:
            runs[c["label"]].append(figures)

    for _ in range(opts["warmup"]):
        for c in commands:
            one(c, False)
    for r in range(rounds):
        order = commands[::-1] if opts["alternate"] and r % 2 else commands
        for c in order:
            one(c, True)
    reference = statistics.median(f["time"] for f in runs[commands[-1]["label"]])
    print(f"{rounds} rounds, stdout {'/dev/null' if to_null else 'a pipe'}, "
          f"loadavg {open('/proc/loadavg').read().split()[0]}")
    print("| command | median ms | mean ms | min ms | median / reference | failed runs "
          "| runs started on a busy machine |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    summary = {}
    for c in commands:
        label, these = c["label"], runs[c["label"]]
        times = [f["time"] for f in these]
        median = statistics.median(times)
        failed = sum(1 for f in these if f["exit"] != 0)
        busy = sum(1 for f in these if f.get("quiet") is False)
        print(
            f"| `{label}` | {median * 1e3:.1f} | {statistics.mean(times) * 1e3:.1f} "
            f"| {min(times) * 1e3:.1f} | {median / reference:.2f}× | {failed} "
            f"| {busy if opts['quiet'] else '–'} |"
        )
        summary[label] = {
            "command": c["command"],
            "median": median,
            "min": min(times),
            "failed": failed,
            "busy_starts": busy if opts["quiet"] else None,
            "median_wall": median_of(these, "wall"),
            "median_own_cpu": median_of(these, "own_cpu"),
            "median_tmux_server_cpu": median_of(these, "tmux_server_cpu"),
            "median_machine_cpu": median_of(these, "machine_cpu"),
            "mean_own_cpu": mean_of(these, "own_cpu"),
            "mean_tmux_server_cpu": mean_of(these, "tmux_server_cpu"),
            "mean_machine_cpu": mean_of(these, "machine_cpu"),
            "runs": these,
        }
    if opts["json"]:
        with open(opts["json"], "w") as f:
            json.dump({"rounds": rounds, "reference": commands[-1]["label"],
                       "loadavg": open("/proc/loadavg").read().split()[:3],
                       "commands": summary}, f, indent=1)


if __name__ == "__main__":
    main(sys.argv)
