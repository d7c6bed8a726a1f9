#!/usr/bin/env bash
# Bounded fuzzing of the-loop's parsers. Not run in CI: run it by hand and
# record the figures in docs/reliability.md.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#
# Targets: envfile (the env file parser), registry (work-item refs, standing
# names, tmux targets, registry records), metrics (the metrics server's
# request handling: src/watch/metrics_http.rs). With a nightly toolchain and
# cargo-fuzz (`cargo install cargo-fuzz`), each target runs under libFuzzer
# with AddressSanitizer for the given time, growing fuzz/corpus/<target>.
# Without them (or with FUZZ_STABLE=1), the same properties run as a bounded
# loop on stable Rust (fuzz/src/bin/smoke.rs). A failure leaves its input in
# fuzz/artifacts/<target>/ and makes this script exit non-zero.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(envfile registry metrics)

libfuzzer=1
if [ "${FUZZ_STABLE:-}" = 1 ]; then
  libfuzzer=0
elif ! cargo +nightly --version >/dev/null 2>&1; then
  echo "no nightly toolchain: running the stable bounded loop" >&2
  libfuzzer=0
elif ! cargo fuzz --version >/dev/null 2>&1; then
  echo "cargo-fuzz is not installed (cargo install cargo-fuzz): running the stable bounded loop" >&2
  libfuzzer=0
fi

for target in "${targets[@]}"; do
  if [ "$libfuzzer" = 1 ]; then
    mkdir -p "corpus/$target"
    cp -n "seeds/$target/"* "corpus/$target/" 2>/dev/null || true
    echo "== $target: cargo +nightly fuzz run, ${seconds}s =="
    cargo +nightly fuzz run "$target" "corpus/$target" -- \
      -max_total_time="$seconds" -max_len=4096 -print_final_stats=1
  else
    echo "== $target: stable bounded loop, ${seconds}s =="
    cargo run --quiet --release --bin smoke -- "$target" "$seconds"
  fi
done
