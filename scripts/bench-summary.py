#!/usr/bin/env python3
"""Summarises a scripts/bench.sh results directory as Markdown tables, and
checks each target of the performance issue against the numbers.

Usage: bench-summary.py RESULTS_DIR
"""

import json
import sys
from pathlib import Path

out = Path(sys.argv[1])


def median(name):
    """Median wall time in seconds of one hyperfine measurement, or None."""
    path = out / f"{name}.json"
    if not path.is_file():
        return None
    return json.loads(path.read_text())["results"][0]["median"]


def tsv(name):
    rows = {}
    path = out / name
    if path.is_file():
        for line in path.read_text().splitlines():
            cols = line.split("\t")
            rows[tuple(cols[:-1])] = cols[-1]
    return rows


calls = tsv("calls.tsv")
rss = tsv("rss.tsv")
canary = tsv("canary.tsv")


def ms(seconds):
    return "–" if seconds is None else f"{seconds * 1000:.1f} ms"


def s(seconds):
    return "–" if seconds is None else f"{seconds:.2f} s"


def ratio(a, b):
    return "–" if a is None or b is None or b == 0 else f"{a / b:.1f}×"


def mib(label, n):
    kb = rss.get((label, str(n)))
    return "–" if kb is None else f"{int(kb) / 1024:.1f} MiB"


sizes = sorted(
    {int(p.stem.split("-n")[-1]) for p in out.glob("plan-n*.json")}
)
apply_sizes = sorted(
    {int(p.stem.split("-n")[-1]) for p in out.glob("apply-n*.json")}
)
verdicts = []


def check(ok, text):
    verdicts.append(f"- {'met' if ok else '**NOT met**'}: {text}")


print("## plan and status (median wall time)\n")
print(
    "| sessions | plan | plan --json | its tmux query alone | naive baseline | baseline ÷ plan "
    "| tmux calls: plan / status / baseline | plan peak RSS (text / --json) "
    "| status | status, no env.file | drift check adds |"
)
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for n in sizes:
    plan, naive = median(f"plan-n{n}"), median(f"naive-n{n}")
    status, bare = median(f"status-n{n}"), median(f"status-nodrift-n{n}")
    drift = None if status is None or bare is None else status - bare
    counts = " / ".join(
        calls.get((label, str(n)), "–") for label in ("plan", "status", "naive")
    )
    print(
        f"| {n} | {ms(plan)} | {ms(median(f'plan-json-n{n}'))} | {ms(median(f'tmux-n{n}'))} | {ms(naive)} "
        f"| {ratio(naive, plan)} | {counts} | {mib('plan', n)} / {mib('plan-json', n)} "
        f"| {ms(status)} | {ms(bare)} | {ms(drift)} |"
    )

print("\n## apply (every session drifted; resumeProbeSeconds 2)\n")
print(
    "| sessions | canary | apply (default parallelism) | apply --parallelism 1 "
    "| --parallelism 1 ÷ default | tmux calls | compared build: default / --parallelism 1 |"
)
print("|---:|---:|---:|---:|---:|---:|---:|")
for n in apply_sizes:
    fast, serial = median(f"apply-n{n}"), median(f"apply-serial-n{n}")
    print(
        f"| {n} | {s(float(canary[('current', str(n))]) if ('current', str(n)) in canary else None)} "
        f"| {s(fast)} | {s(serial)} | {ratio(serial, fast)} "
        f"| {calls.get(('apply', str(n)), '–')} "
        f"| {s(median(f'compare-apply-n{n}'))} / {s(median(f'compare-apply-serial-n{n}'))} |"
    )

print("\n## startup (median wall time)\n")
print("| command | median |")
print("|---|---:|")
for name, label in [
    ("noop", "`/bin/true` (a no-op process)"),
    ("noop-rust", "`fn main() {}` built with `rustc -O`"),
    ("version", "`the-loop --version`"),
    ("tmux-floor", "`tmux list-panes -a` alone"),
    ("plan-empty", "`the-loop plan`, no sessions, tmux server running"),
    ("plan-empty-noserver", "`the-loop plan`, no sessions, no tmux server"),
]:
    print(f"| {label} | {ms(median(name))} |")

# The targets, checked.
one, big = median("plan-n1"), median(f"plan-n{max(sizes)}") if sizes else None
plan_calls = [int(calls[("plan", str(n))]) for n in sizes if ("plan", str(n)) in calls]
if plan_calls:
    check(max(plan_calls) <= 3, f"plan makes at most 3 tmux calls (made {sorted(set(plan_calls))})")
if ("apply", "100") in calls:
    # Issue 15: a roll's tmux clients grow with its waves, not its sessions.
    made = int(calls[("apply", "100")])
    check(made <= 30, f"apply of 100 sessions makes at most 30 tmux calls (made {made})")
if one and big:
    check(big < 3 * one, f"plan at {max(sizes)} sessions within 3× of 1 session ({big / one:.2f}×)")
    check(big < 0.150, f"plan at {max(sizes)} sessions below 150 ms ({ms(big)})")
if 200 in sizes:
    drift = median("status-n200") - median("status-nodrift-n200")
    check(drift < 0.020, f"status's drift check adds less than 20 ms at 200 sessions ({ms(drift)})")
if ("current", "20") in canary and median("apply-n20"):
    c20, t20 = float(canary[("current", "20")]), median("apply-n20")
    check(t20 < 2 * c20 + 2, f"apply at 20 below 2 × canary + 2 s ({s(t20)} < {s(2 * c20 + 2)})")
    if median("apply-n100"):
        t100 = median("apply-n100")
        check(t100 < 4 * t20, f"apply at 100 below 4 × apply at 20 ({s(t100)} < {s(4 * t20)})")
if median("version") and median("noop"):
    print()
    print(
        f"`--version` costs {ms(median('version') - median('noop'))} beyond a no-op process "
        f"({ms(median('version') - median('noop-rust'))} beyond an empty Rust program); "
        f"`plan` with no sessions {ms(median('plan-empty') - median('noop'))} "
        f"({ms(median('plan-empty') - median('tmux-floor'))} beyond its one tmux call)."
    )
big_rss = rss.get(("plan", str(max(sizes)))) if sizes else None
if big_rss:
    check(int(big_rss) < 20 * 1024, f"plan's peak RSS at {max(sizes)} sessions under 20 MiB ({mib('plan', max(sizes))})")

print("\n## targets\n")
print("\n".join(verdicts))
print("\n## machine\n")
print("```")
print((out / "machine.txt").read_text().rstrip())
load = (out / "load.tsv").read_text().split("\n") if (out / "load.tsv").is_file() else []
print("1-minute load average after each phase: " + ", ".join(l.replace("\t", " ") for l in load if l))
print("```")
