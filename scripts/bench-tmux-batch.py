#!/usr/bin/env python3
"""Measures the ways to send one apply wave's tmux commands (issue 15).

A roll sends, per session: a provenance listing (`list-panes -s -t =S`),
`set-option -w remain-on-exit on`, `respawn-pane` and a probe listing. This
script times those 4 x N commands against a private tmux server holding N
sessions (each a `sleep`), sent four ways:

  per-command   one tmux client per command (what apply did before)
  sequence      `cmd \\; display -p MARK \\; cmd ...` in as few clients as
                tmux's 16 KiB command limit allows; a failed command skips the
                rest of its sequence, which is then sent again
  control       one `tmux -C attach` client fed the commands on stdin; each
                answer is framed by %begin / %end or %error
  source-file   one `tmux source-file -` client fed a generated file on stdin,
                one command per line, each followed by its own markers

and checks, for each way, that a failing command in the middle of the wave
(a session killed after the "plan") leaves every other command's answer
readable. Prints a Markdown table: clients started, median wall time.

Usage: scripts/bench-tmux-batch.py [N ...]   (default: 20 100 500)
Not part of `cargo test`: timings belong in benchmarks.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

FMT = "#{session_name}\t#{pane_id}\t#{pane_pid}\t#{pane_dead}"
RUNS = 5


def quote(arg):
    """One argument in tmux's config syntax: single-quoted, `'` spliced."""
    return "'" + arg.replace("'", "'\"'\"'") + "'"


def wave(names, panes):
    cmds = []
    for name in names:
        cmds.append(["list-panes", "-s", "-t", f"={name}", "-F", FMT])
        cmds.append(["set-option", "-w", "-t", f"={name}:", "remain-on-exit", "on"])
        # -k: the benchmark has no harness to end first; the real roll runs
        # respawn-pane on a pane that is already dead.
        cmds.append(["respawn-pane", "-k", "-t", panes[name], "--",
                     "sleep", "100000", "#", "a longer argv, as the launcher's is:",
                     "/usr/local/bin/the-loop", "exec", "--config",
                     "/home/operator/.config/the-loop/config.yaml", "--work-item",
                     "acme/widgets#1234", "--", "claude", "--settings",
                     "/home/operator/.local/state/the-loop/harness/claude-settings.json",
                     "--resume", "0b9d3f4e-6f1a-4c55-9e0b-4f2f7e8d9a10"])
        cmds.append(["list-panes", "-s", "-t", f"={name}", "-F", FMT])
    return cmds


def per_command(cmds):
    results = []
    for cmd in cmds:
        p = subprocess.run(["tmux", *cmd], capture_output=True, text=True)
        results.append(p.returncode == 0)
    return results, len(cmds)


def sequence(cmds, limit=15 * 1024):
    """`\\;` chains with a marker after each command, chunked under tmux's
    limit; after a failure, the rest is sent again."""
    results = [None] * len(cmds)
    clients = 0
    start = 0
    while start < len(cmds):
        argv, size, end = [], 0, start
        while end < len(cmds):
            part = cmds[end] + [";", "display-message", "-p", f"@@{end}"]
            n = sum(len(a) + 1 for a in part)
            if argv and size + n > limit:
                break
            argv += part + [";"]
            size += n
            end += 1
        p = subprocess.run(["tmux", *argv[:-1]], capture_output=True, text=True)
        clients += 1
        done = {int(l[2:]) for l in p.stdout.splitlines() if l.startswith("@@")}
        i = start
        while i < end and i in done:
            results[i] = True
            i += 1
        if i < end:  # command i failed; the rest of the chunk never ran
            results[i] = False
            i += 1
        start = i
    return results, clients


def control(cmds, session):
    script = "".join(" ".join(quote(a) for a in c) + "\n" for c in cmds)
    p = subprocess.run(["tmux", "-C", "attach", "-t", f"={session}"],
                       input=script, capture_output=True, text=True)
    results = []
    for line in p.stdout.splitlines():
        if line.startswith("%end "):
            results.append(True)
        elif line.startswith("%error "):
            results.append(False)
    # The first block answers the attach itself.
    return results[1:len(cmds) + 1], 1


def source_file(cmds):
    lines = []
    for i, c in enumerate(cmds):
        # Same line: skipped with a failed command. Next line: always runs.
        lines.append(" ".join(quote(a) for a in c) + f" ; display-message -p '@@ok{i}'")
        lines.append(f"display-message -p '@@end{i}'")
    p = subprocess.run(["tmux", "source-file", "-"], input="\n".join(lines) + "\n",
                       capture_output=True, text=True)
    ok = {l[4:] for l in p.stdout.splitlines() if l.startswith("@@ok")}
    return [str(i) in ok for i in range(len(cmds))], 1


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [20, 100, 500]
    root = tempfile.mkdtemp(prefix="tl-batch.")
    os.environ["TMUX_TMPDIR"] = root
    os.environ.pop("TMUX", None)
    print(f"tmux: {subprocess.run(['tmux', '-V'], capture_output=True, text=True).stdout.strip()}, "
          f"cores: {os.cpu_count()}, loadavg: {open('/proc/loadavg').read().split()[0]}\n")
    print("| sessions | way | tmux clients | median wall | mid-wave failure: others answered |")
    print("|---:|---|---:|---:|---|")
    try:
        for n in sizes:
            subprocess.run(["tmux", "kill-server"], capture_output=True)
            time.sleep(0.5)  # the old server's socket goes away
            names = [f"loop-bench-{i}" for i in range(n)]
            subprocess.run(["tmux", "new-session", "-d", "-s", "keep", "sleep 100000"], check=True)
            for name in names:
                subprocess.run(["tmux", "new-session", "-d", "-s", name, "sleep 100000"], check=True)
            out = subprocess.run(["tmux", "list-panes", "-a", "-F", "#{session_name} #{pane_id}"],
                                 capture_output=True, text=True, check=True).stdout
            panes = dict(l.split() for l in out.splitlines())
            cmds = wave(names, panes)
            ways = {
                "per-command": per_command,
                "sequence": sequence,
                "control": lambda c: control(c, "keep"),
                "source-file": source_file,
            }
            for way, run in ways.items():
                times, clients = [], 0
                for _ in range(RUNS if n <= 100 or way != "per-command" else 1):
                    t = time.monotonic()
                    results, clients = run(cmds)
                    times.append(time.monotonic() - t)
                    assert all(results), (way, results.count(False))
                # A session killed between plan and roll: its 4 commands fail
                # (3 of them: set-option on a gone session fails too).
                victim = names[n // 2]
                subprocess.run(["tmux", "kill-session", "-t", f"={victim}"], check=True)
                results, _ = run(cmds)
                bad = {i for i, r in enumerate(results) if not r}
                expect = set(range(4 * (n // 2), 4 * (n // 2) + 4))
                verdict = "yes" if bad == expect else f"no ({len(bad)} failed, {len(expect)} expected)"
                subprocess.run(["tmux", "new-session", "-d", "-s", victim, "sleep 100000"], check=True)
                out = subprocess.run(["tmux", "list-panes", "-t", f"={victim}", "-F", "#{pane_id}"],
                                     capture_output=True, text=True, check=True).stdout
                panes[victim] = out.strip()
                cmds = wave(names, panes)
                print(f"| {n} | {way} | {clients} | {statistics.median(times) * 1000:.0f} ms | {verdict} |")
    finally:
        subprocess.run(["tmux", "kill-server"], capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
