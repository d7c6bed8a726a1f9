#!/bin/sh
# Rotates the benchmark's token (a new value each call), so the next
# `apply` finds every session drifted. Usage: bench-rotate.sh ENV_FILE
printf 'BENCH_TOKEN=rotated-%s\n' "$(date +%s%N)" >"$1"
