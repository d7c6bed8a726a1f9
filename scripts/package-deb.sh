#!/usr/bin/env bash
# Builds the Debian package (cargo deb, metadata in Cargo.toml's
# [package.metadata.deb]) and checks it without root side effects: the
# package lists every file it should, and the files unpacked into a
# scratch directory work (the binary runs, man reads the page).
#
#   scripts/package-deb.sh            # builds, checks, prints the .deb's path
#
# The man pages, the completions and the packaged systemd unit are made by
# the release binary itself (`the-loop man`, `the-loop completions`) into
# deb-assets/ beside the binary, where the assets in Cargo.toml name them
# (`target/release/…`, which cargo deb maps onto the real target directory
# and the target's own directory under it, CARGO_TARGET_DIR included).
set -euo pipefail
cd "$(dirname "$0")/.."

# The pinned cargo-deb (.ci/run installs it; `cargo install cargo-deb
# --version 3.8.0 --locked` by hand).
cargo_deb_version="3.8.0"
have=$(cargo deb --version 2>/dev/null || true)
if [ "$have" != "cargo-deb $cargo_deb_version" ]; then
  echo "scripts/package-deb.sh: needs cargo-deb $cargo_deb_version (found: ${have:-none});" \
    "cargo install cargo-deb --version $cargo_deb_version --locked" >&2
  exit 1
fi

target_dir=$(cargo metadata --format-version 1 --no-deps --locked \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
# The shipped build: static where glibc is, in <target dir>/<host>/release
# (scripts/build-release.sh says why); cargo deb is told that target, and
# maps the assets' target/release/ paths onto that directory.
bin=$(scripts/build-release.sh)
release_dir=$(dirname "$bin")
deb_target=()
if [ "$release_dir" != "$target_dir/release" ]; then
  deb_target=(--target "$(basename "$(dirname "$release_dir")")")
fi

assets="$release_dir/deb-assets"
rm -rf "$assets"
mkdir -p "$assets/man" "$assets/completions"
"$bin" man --out-dir "$assets/man" >/dev/null
# Debian's policy: manual pages compressed, and byte-identical from one
# build to the next (-n: no name or time in the gzip header).
gzip -9n "$assets"/man/*.1
"$bin" completions bash >"$assets/completions/the-loop.bash"
"$bin" completions zsh >"$assets/completions/_the-loop"
"$bin" completions fish >"$assets/completions/the-loop.fish"
# The example unit runs a `cargo install`ed binary from ~/.cargo/bin; the
# packaged one runs the package's.
sed 's#%h/\.cargo/bin/the-loop#/usr/bin/the-loop#g' examples/the-loop-watch.service \
  >"$assets/the-loop-watch.service"
grep -q '^ExecStart=/usr/bin/the-loop ' "$assets/the-loop-watch.service"

out_dir="$target_dir/debian"
rm -f "$out_dir"/the-loop_*.deb
# `$auto` in Cargo.toml's depends finds no shared library in a static
# binary (cargo deb warns so) and adds none; a plain `cargo deb` of the
# dynamic build still gets its glibc dependency from it.
cargo deb --no-build --locked "${deb_target[@]}" --output "$out_dir" >/dev/null
deb=$(ls "$out_dir"/the-loop_*.deb)

# What the package depends on: tmux alone, with the binary linked statically.
depends=$(dpkg-deb -f "$deb" Depends)
if [ -n "${deb_target[*]}" ] && [ "$depends" != "tmux (>= 3.0)" ]; then
  echo "scripts/package-deb.sh: $deb depends on '$depends', expected tmux alone" >&2
  exit 1
fi

# Every file in its conventional place.
contents=$(dpkg-deb --contents "$deb")
expected=(
  ./usr/bin/the-loop
  ./usr/share/man/man1/the-loop.1.gz
  ./usr/share/man/man1/the-loop-plan.1.gz
  ./usr/share/man/man1/the-loop-history.1.gz
  ./usr/share/man/man1/the-loop-sessions-list.1.gz
  ./usr/share/bash-completion/completions/the-loop
  ./usr/share/zsh/vendor-completions/_the-loop
  ./usr/share/fish/vendor_completions.d/the-loop.fish
  ./usr/lib/systemd/user/the-loop-watch.service
  ./usr/share/doc/the-loop/examples/cli-config.yaml
  ./usr/share/doc/the-loop/copyright
)
missing=0
for path in "${expected[@]}"; do
  if ! grep -q " ${path}\$" <<<"$contents"; then
    echo "scripts/package-deb.sh: $deb lacks $path" >&2
    missing=1
  fi
done
if [ "$missing" -ne 0 ]; then
  echo "$contents" >&2
  exit 1
fi

# Unpacked, not installed: no root, no dpkg database, nothing started.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
dpkg-deb -x "$deb" "$scratch"
"$scratch/usr/bin/the-loop" --version
# man renders the packaged page itself (-l: this file, not a manpath lookup).
page=$(MANPAGER=cat MANWIDTH=80 man -l "$scratch/usr/share/man/man1/the-loop.1.gz" 2>&1)
head -n 5 <<<"$page"
grep -q 'the-loop' <<<"$page"
page=$(MANPAGER=cat MANWIDTH=80 man -l "$scratch/usr/share/man/man1/the-loop-history.1.gz" 2>&1)
grep -q -- '--json' <<<"$page"
echo "$deb"
