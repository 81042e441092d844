#!/usr/bin/env bash
# The project's test command (the README's second command; CI runs exactly this).
# Lints, docs, the library without default features, every test, then every example.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each phase's start, in seconds since the script's (the README quotes the total).
phase() { echo "== test.sh: $1 at ${SECONDS} s"; }

phase lints

cargo fmt --check
cargo clippy --all-targets -- -D warnings
phase docs
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --quiet

phase "the library without default features"
# The model, notations and native solver alone: no Scryer, clap or terminal crates.
if cargo tree --no-default-features -e normal --prefix none | grep -Eq '^(scryer-prolog|clap|comfy-table|indicatif|plotters|rustyline) '; then
  echo "test.sh: --no-default-features pulls in a crate of the prolog or cli features" >&2
  exit 1
fi
# Built once, linted as it builds: clippy (with -D warnings) is the compiler of our crate here,
# as `cargo clippy` makes it, so no separate `cargo clippy --no-default-features` checks the
# same code again first.
CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__" \
  RUSTC_WORKSPACE_WRAPPER="$(rustup which clippy-driver 2>/dev/null || command -v clippy-driver)" \
  cargo test --no-default-features --quiet --test library -- --skip native_large::

phase tests
# (CI installs optional systems meanwhile and waits for them here)
if [ -n "${KENKEN_BEFORE_TESTS:-}" ]; then bash -c "$KENKEN_BEFORE_TESTS"; fi
cargo test --no-run
# Three test threads on two cores: with two, tests/cli left the cores idle a fifth of the time
# (644 CPU-seconds in 411 s; its tests wait on their children: a Prolog worker's start, a
# deadline, a browser). RUST_TEST_THREADS chooses another number. tests/engines waits more
# than it computes (deadlines, timeouts, killed workers: 149 CPU-seconds in 119 s on three
# threads), so it runs beside the rest, on two threads of its own, its output shown after.
# (--no-fail-fast: every test crate runs, so that one run shows every failure)
cargo test --no-fail-fast --test engines -- --test-threads 2 >target/test-engines.log 2>&1 &
engines=$!
failed=0
RUST_TEST_THREADS="${RUST_TEST_THREADS:-3}" cargo test --no-fail-fast --lib --bins --test cli \
  --test library || failed=1
cargo test --doc || failed=1
wait "$engines" || failed=1
cat target/test-engines.log
if [ "$failed" != 0 ]; then
  echo "test.sh: tests failed (tests/engines' output is above, after the rest)" >&2
  exit 1
fi

# Every example runs (each prints what a reader checks by eye; its doc comment says what), bare
# but for the measurements whose bare run is long: answer_text up to answers of 10^5 (not 10^6:
# three quarters of this phase; tests/engines checks the linear text of #45) and worker_start
# one round (not 3), replay_cost at 2,000 facts (not 20,000) and one round (not 3), layer_cost
# one round on the spec's two puzzles (not 3 on four). `cargo test` has built them already, in
# its own profile: run those builds.
phase examples
declare -A example_args=([answer_text]=5 [worker_start]=1 [replay_cost]="2000 1" [layer_cost]="1 quick")
for example in examples/*.rs; do
  name="$(basename "$example" .rs)"
  echo "== example $name ${example_args[$name]:-}"
  # shellcheck disable=SC2086 # (the arguments are words)
  cargo run --profile test --quiet --example "$name" -- ${example_args[$name]:-} \
    > "target/example-$name.out"
  head -n 5 "target/example-$name.out"
done
phase done
