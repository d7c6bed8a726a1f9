#!/usr/bin/env python3
"""Times commands side by side, one run of each in turn (issue 15).

hyperfine runs each command's runs together, so on a machine whose speed
drifts from minute to minute (this 2-core VM: the same build measured 41 ms
and 51 ms ten minutes apart) a ratio of two commands can move more than the
difference being measured. Here every round runs each command once, in the
order given, so drift touches all of them alike; the ratio of medians is
what the performance notes quote.

Usage:
  scripts/bench-interleave.py ROUNDS CMD [CMD ...]
      each CMD is one shell command (quote it); the LAST one is the
      reference the others are divided by (say, scripts/bench-floor.sh)
  NULL=1 sends stdout to /dev/null instead of a pipe that is read

Prints, per command: median, mean and the fastest run in ms, and the
median's ratio to the reference's median. Not part of `cargo test`.
"""
import os
import statistics
import subprocess
import sys
import time


def run_once(command, to_null):
    """Wall time of one run of `command` through /bin/sh, in seconds."""
    start = time.perf_counter()
    if to_null:
        subprocess.run(["/bin/sh", "-c", command], stdout=subprocess.DEVNULL, check=False)
    else:
        subprocess.run(["/bin/sh", "-c", command], capture_output=True, check=False)
    return time.perf_counter() - start


def main(argv):
    if len(argv) < 3 or not argv[1].isdigit() or int(argv[1]) < 1:
        sys.exit(__doc__)
    rounds = int(argv[1])
    commands = argv[2:]
    to_null = os.environ.get("NULL") == "1"
    times = {c: [] for c in commands}
    for command in commands:  # one warm-up run each, not counted
        run_once(command, to_null)
    for _ in range(rounds):
        for command in commands:
            times[command].append(run_once(command, to_null))
    reference = statistics.median(times[commands[-1]])
    print(f"{rounds} rounds, stdout {'/dev/null' if to_null else 'a pipe'}")
    print("| command | median ms | mean ms | min ms | median / reference |")
    print("|---|---:|---:|---:|---:|")
    for command in commands:
        runs = times[command]
        median = statistics.median(runs)
        print(
            f"| `{command}` | {median * 1e3:.1f} | {statistics.mean(runs) * 1e3:.1f} "
            f"| {min(runs) * 1e3:.1f} | {median / reference:.2f}× |"
        )


if __name__ == "__main__":
    main(sys.argv)
