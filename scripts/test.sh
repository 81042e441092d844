#!/usr/bin/env bash
# The project's test command (the README's second command; CI runs exactly this).
# Lints, docs, the library without default features, every example, then every test.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo fmt --check
cargo clippy --all-targets -- -D warnings
cargo clippy --no-default-features --lib --tests -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --quiet

# The model, notations and native solver alone: no Scryer, clap or terminal crates.
if cargo tree --no-default-features -e normal --prefix none | grep -Eq '^(scryer-prolog|clap|comfy-table|indicatif|plotters|rustyline) '; then
  echo "test.sh: --no-default-features pulls in a crate of the prolog or cli features" >&2
  exit 1
fi
cargo test --no-default-features --quiet --lib --test native --test formats

# Every example runs bare (each prints what a reader checks by eye; its doc comment says what).
for example in examples/*.rs; do
  name="$(basename "$example" .rs)"
  echo "== example $name"
  cargo run --quiet --example "$name" > "target/example-$name.out"
  head -n 5 "target/example-$name.out"
done

cargo test
