#!/usr/bin/env bash
# Builds the binary the-loop ships (the Debian package, the release
# archives) and prints its path on stdout; cargo's output goes to stderr.
#
#   bin=$(scripts/build-release.sh)
#
# On Linux with glibc it is linked statically (glibc's static-pie). Each
# harness the-loop starts runs `the-loop exec`, and each harness start's
# hook a `the-loop hook`: a roll of 100 sessions starts 200 of them at
# once, and a static binary starts in about 0.5 ms less, with no loader
# mapping and relocating libc, libm and libgcc_s (docs/performance.md,
# "The launcher and the hook, linked statically"). A static build also runs
# on a machine with an older glibc than the one it was built on. What it
# gives up, the name service, is used for one thing only: an owner's name
# in a refusal, read from /etc/passwd instead (src/fsutil/user_name.rs).
#
# The flag is given for the target alone: given to every crate, as
# RUSTFLAGS would, it breaks the proc-macro crates, which the compiler
# loads as shared libraries. So the build names its target (the host) and
# the binary is <target dir>/<host>/release/the-loop. Elsewhere (not
# glibc) it is a plain `cargo build --release`.
set -euo pipefail
cd "$(dirname "$0")/.."
host=$(rustc -vV | sed -n 's/^host: //p')
target_dir=$(cargo metadata --format-version 1 --no-deps --locked \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
case "$host" in
  *-linux-gnu*)
    cargo build --release --locked --target "$host" \
      --config "target.$host.rustflags = [\"-C\", \"target-feature=+crt-static\"]" >&2
    bin="$target_dir/$host/release/the-loop"
    # No interpreter: nothing is loaded before main.
    if readelf -lW "$bin" | grep -q 'INTERP'; then
      echo "scripts/build-release.sh: $bin is not statically linked" >&2
      exit 1
    fi
    ;;
  *)
    cargo build --release --locked >&2
    bin="$target_dir/release/the-loop"
    ;;
esac
echo "$bin"
