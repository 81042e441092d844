#!/usr/bin/env bash
# A sample class for measuring `kenken judge` on a whole class: 20 files as students write
# them, from the judged fixtures (tests/data/judge/) and a few written here: correct files in
# both dialects (GNU style, as CS131 classes write them, and CLP(Z)), a file that answers in
# another order, wrong ones (missing answers, repeats, `/` as integer division), one that loops, halts, uses a built-in
# the GNU layer lacks, does not parse, loops on N = 0, an empty file, a file with a Latin-1
# byte in a comment, and a slow plain_kenken/3 (every grid of permutations, checked at the
# end).
#
#   scripts/class_sample.sh DIR        # writes DIR/NAME/kenken.pl for each student
#
# Measure it (docs/judge-course.md, "A class's time"):
#   /usr/bin/time -f '%e s wall, %U s user, %S s sys' \
#     kenken judge DIR --prolog scryer --jobs 2 --output csv > /dev/null
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/class_sample.sh DIR}
data=tests/data/judge
mkdir -p "$out"
put() { mkdir -p "$out/$1" && cat > "$out/$1/kenken.pl"; }

for i in 1 2 3; do put "gnu_correct_$i" < "$data/gnu_correct.pl"; done
for i in 1 2; do put "clpz_correct_$i" < "$data/clpz_correct.pl"; done
for f in largest_first missing_answer repeats loops halts unsupported syntax_error \
  ignored_clauses loops_on_empty swi_clpfd gnu_with_clpfd_import; do
  put "$f" < "$data/$f.pl"
done
put empty < /dev/null
# (0xD7, the multiplication sign in Latin-1, in a comment)
{ printf '%% kenken.pl: products written 3 \xd7 4\n'; cat "$data/gnu_correct.pl"; } | put latin1
# plain_kenken/3 that makes every grid of row permutations, then checks columns and cages
{
  sed -n '/^plain_kenken/q;p' "$data/gnu_correct.pl"
  cat <<'EOF'
plain_kenken(N, C, T) :-
    numbers(1, N, Ns),
    length(T, N),
    maplist(row_length(N), T),
    maplist(permutation(Ns), T),
    maplist(plain_cage(T), C),
    transpose(T, TT),
    maplist(all_unique, TT).
EOF
  sed -n '/^numbers/,$p' "$data/gnu_correct.pl"
} | put slow_plain
# `/` read as integer division (3 / 2 taken for 1)
sed 's|(A #= Q \* B) #\\/ (B #= Q \* A)|(A // B #= Q) #\\/ (B // A #= Q)|' \
  "$data/clpz_correct.pl" | put integer_division
echo "$out: $(find "$out" -name kenken.pl | wc -l) files"
