#!/usr/bin/env bash
# kenken/3's cost per phase (tables, posting with its propagation, labeling) on puzzle files,
# per grid size, plus kenken(4, [], T). Uses the release build:
#   scripts/model-phases.sh [KENKEN_PL] [FILE.jsonl...]
# KENKEN_PL (default prolog/kenken.pl) may be another version of the model, to compare two
# side by side (run them alternately: the figures are CPU times on a shared machine).
# Default files: the spec's puzzles and the Keen sets of tests/data/keen.
set -euo pipefail
cd "$(dirname "$0")/.."
model=prolog/kenken.pl
if [[ $# -gt 0 && $1 == *.pl ]]; then model=$1; shift; fi
if [[ $# -eq 0 ]]; then set -- examples/spec-6x6.jsonl examples/spec-4x4.jsonl tests/data/keen/keen-*.jsonl; fi
kenken=target/release/kenken
facts=$(mktemp --suffix .pl)
trap 'rm -f "$facts"' EXIT
for f in "$@"; do
  "$kenken" convert "$f" --to prolog | sed 's/^kenken_testcase(/p(/' >> "$facts"
done
"$kenken" query --consult "$model" --consult scripts/model_phases.pl --consult "$facts" \
  'phases, empty_phases(4).'
