/*  kenken.pl -- Homework 4, KenKen solver, for Scryer Prolog with library(clpz).

    Predicates (modes: + input, - output, ? either):

      kenken(+N, +C, ?T)          CLP(FD) solver. N: grid side; C: list of cage constraints;
                                  T: N lists of N integers (may be partly bound, or unbound).
      kenken_constraints(+N, +C, ?T)
                                  The core relation: only posts the constraints of kenken/3
                                  (no search). Label T yourself to enumerate answers.
      plain_kenken(+N, +C, ?T)    The same answers in the same order, by plain enumeration
                                  (member/select, is/2 and arithmetic comparison; no clpz).
      noop_kenken(+N, +C, ?T, ?Ops)
                                  No-op KenKen (see below).
      kenken_testcase(-N, -C)     The spec's 6x6 puzzle.
      kenken_4x4_testcase(-N, -C) The spec's 4x4 puzzle with six answers.
      noop_kenken_testcase        Runs and prints the no-op example call.
      cage_combination(+N, +Op, +Target, +Cells, -Values)
                                  The values (a sorted list, i.e. a multiset) that a cage over
                                  the squares Cells can hold, one answer per multiset.

    Cage constraints (squares are [I|J]: row I, column J, 1-based; [1|1] is top left):
      +(S, L)      the squares of the nonempty list L add up to S
      *(P, L)      the squares of L multiply to P
      -(D, J, K)   D = j - k or D = k - j
      /(Q, J, K)   Q = j / k or Q = k / j, no remainder
    Extensions in the same style:
      -(D, L), /(Q, L)   L has 2 or more squares: the largest value first, then every other value
                         subtracted (divided, exactly) in turn (seed 001); a one-cell cage is
                         +(V, [[I|J]]).

    Answers come in lexicographic order of the grid read row by row, for both solvers.

    No-op KenKen API
    ----------------
      noop_kenken(+N, +C, ?T, ?Ops)
      N:   grid side, as for kenken/3.
      C:   list of cages ?(Target, L) whose operator is unknown (L a nonempty list of squares);
           cages with a known operator (kenken/3 syntax) may be mixed in.
      T:   the grid, as for kenken/3.
      Ops: a list as long as C; its K-th element is the K-th cage of C with its operator chosen,
           in kenken/3 syntax (+(S, L), *(P, L), -(D, J, K), /(Q, J, K), or -(D, L) and /(Q, L) for
           3+ squares). A one-square cage ?(V, [Sq]) becomes +(V, [Sq]).
      On success T is a solution and Ops gives, for each cage, an operator under which T meets
      it, so that kenken(N, Ops, T) holds. Answers are ordered by T (row by row, lexicographic),
      then by the operators of each cage in the order + - * /; a grid that meets a cage under
      several operators is given once per choice. On failure (no grid fits) the call fails,
      leaving T and Ops unbound. Like kenken/3, N and C must be ground.

    Examples
    --------
    Goals to paste into a top level, each followed by its answers as the project's top level
    prints them (%@ lines): `kenken query 'GOAL.'` runs one (`cargo run --release -- query
    'GOAL.'`; `--help` for its options).

    The spec's 4x4 puzzle, whose six answers come in order; the first:

    ?- kenken(4, [+(6, [[1|1], [1|2], [2|1]]), *(96, [[1|3], [1|4], [2|2], [2|3], [2|4]]),
                  -(1, [3|1], [3|2]), -(1, [4|1], [4|2]), +(8, [[3|3], [4|3], [4|4]]),
                  *(2, [[3|4]])], T).
    %@ T = [[1,2,3,4],[3,4,2,1],[4,3,1,2],[2,1,4,3]] ;
    %@ ...

    plain_kenken/3 on the same puzzle (kenken_4x4_testcase/2 holds it): the same six answers in
    the same order.

    ?- kenken_4x4_testcase(_N, _C), plain_kenken(_N, _C, T).
    %@ T = [[1,2,3,4],[3,4,2,1],[4,3,1,2],[2,1,4,3]] ;
    %@ T = [[1,2,4,3],[3,4,2,1],[4,3,1,2],[2,1,3,4]] ;
    %@ T = [[2,1,3,4],[3,4,2,1],[4,3,1,2],[1,2,4,3]] ;
    %@ T = [[2,1,4,3],[3,4,2,1],[4,3,1,2],[1,2,3,4]] ;
    %@ T = [[3,1,2,4],[2,4,3,1],[4,3,1,2],[1,2,4,3]] ;
    %@ T = [[3,2,4,1],[1,4,2,3],[4,3,1,2],[2,1,3,4]] ;
    %@ false.

    The spec's 6x6 puzzle (kenken_testcase/2), with its one answer (no choice point is left):

    ?- kenken_testcase(_N, _C), kenken(_N, _C, T).
    %@ T = [[5,6,3,4,1,2],[6,1,4,5,2,3],[4,5,2,3,6,1],[3,4,1,2,5,6],[2,3,6,1,4,5],[1,2,5,6,3,4]].

    No-op KenKen: the operators are found with the grid, one answer per operator that fits (2 is
    1*2 and 2/1). `?- noop_kenken_testcase.` prints the answers of the example below.

    ?- noop_kenken(2, [?(2, [[1|1], [2|1]]), ?(3, [[1|2], [2|2]])], T, Ops).
    %@ T = [[1,2],[2,1]],
    %@ Ops = [2*[[1|1],[2|1]],3+[[1|2],[2|2]]] ;
    %@ T = [[1,2],[2,1]],
    %@ Ops = [/(2,[1|1],[2|1]),3+[[1|2],[2|2]]] ;
    %@ T = [[2,1],[1,2]],
    %@ Ops = [2*[[1|1],[2|1]],3+[[1|2],[2|2]]] ;
    %@ T = [[2,1],[1,2]],
    %@ Ops = [/(2,[1|1],[2|1]),3+[[1|2],[2|2]]] ;
    %@ false.

    Timing kenken/3 against plain_kenken/3: time/1 prints a line per call (CPU time and
    inferences; the figures below are one run's, release build), and the two findall/3 calls
    agreeing on _Ts shows that both give the same answers in the same order.

    ?- kenken_testcase(_N, _C), time(findall(T, kenken(_N, _C, T), _Ts)),
       time(findall(T, plain_kenken(_N, _C, T), _Ts)), length(_Ts, L).
    %@ % CPU time: 0.045s, 232415 inferences
    %@ % CPU time: 0.005s, 47901 inferences
    %@ L = 1.

    plain_kenken/3 wins on small grids (no constraints to post); kenken/3 grows far more gently
    and is the one that stays bounded on hard 9x9s. For timings over many puzzles, see
    `kenken bench --engines fd,plain` and the README's "Performance" section.

    The model's choices
    -------------------
    kenken_constraints/3's comment "The model." says what it does. What was tried (issue #38),
    kept where it won across sizes: CPU time of posting and all answers, summed over each set
    (Keen: tests/data/keen, 100 puzzles a size, 120 of 9x9; "(1/5)": 4 puzzles of each Keen
    file), the variants run alternately in one process, puzzle by puzzle. "3 cages": the first
    answers (200 at 6x6, 50 at 9x9) of kenken(N, Cs, T), Cs a Keen puzzle's first cages.
    scripts/model-phases.sh gives the phases (tables, posting, labeling) of kenken/3 as it is.

      choice                       puzzles                  before -> after           kept
      labeling step, not enum      kenken(4, [], T), 576    2.3 s -> 1.6 s            yes
                                   Keen 4x4-9x9             even (little search)
        ... under all_distinct     Keen 5x5, 6x6, 8x8, 9x9  medians 4-9 % slower      no: enum
          (kenken bench, enum and step builds alternated, 2-3 rounds; all_different: step)
      all_different, not           kenken(4, [], T)         1.6 s -> 0.65 s           yes
        all_distinct               Keen 4x4                 2.29 s -> 2.16 s          yes
                                   Keen 5x5                 3.75 s -> 3.84 s          no
                                   Keen 6x6 / 9x9 (1/5)     2x / 2.5x slower          no
                                   6x6, 9x9, 3 cages        2.6x / 4.6x faster        yes
                                   6x6, 9x9, half the cages 2x / 2-2.5x faster        yes
                                   6x6, 9x9, 3/4 the cages  even / 1.35x slower       no
      tables up to 500 tuples,     Keen 8x8                 25.3 s -> 21.6 s          no
        not 200 (1000: the same)   Keen 9x9                 33.4 s -> 34.5 s
                                   kenken bench, 8x8 / 9x9  medians 1.15x slower
      tables up to 50              Keen 9x9 (1/5)           4.2 s -> 6.1 s            no
      no tables (arithmetic)       Keen 6x6 / 7x7 (1/5)     12x / 19x slower          no
      no line parts                Keen 6x6 / 9x9 (1/5)     1.4x / 1.7x slower        no
      lines before cages           Keen 4x4 / 6x6 / 9x9     1.3x / 2.2x / 3x slower   no
      labeling ff, ffc, min, max   -                        answers out of order      not allowed
      (leftmost with up keeps the order whatever the branching: step, enum or bisect)

    Posting (with the propagation it runs) is most of the time on every real puzzle: 70-85%
    (Keen 9x9: 0.2 s a puzzle, of which the tables 8 ms); labeling is most of it only where
    answers are many.
*/

:- use_module(library(clpz)).
:- use_module(library(lists)).
:- use_module(library(between)).
:- use_module(library(format)).
:- use_module(library(iso_ext)).

% ---------------------------------------------------------------------------
% The grid

% grid_(+N, ?T): T is an N x N matrix.
grid_(N, T) :-
    length(T, N),
    maplist(same_length(T), T).

% square_value(+T, +Square, -V): V is the entry of T at Square = [I|J].
square_value(T, [I|J], V) :-
    nth1(I, T, Row),
    nth1(J, Row, V).

% cage_parts(+Cage, -Op, -Target, -Squares)
cage_parts(+(S, L), +, S, L).
cage_parts(*(P, L), *, P, L).
cage_parts(-(D, J, K), -, D, [J, K]).
cage_parts(/(Q, J, K), /, Q, [J, K]).
cage_parts(-(D, L), -, D, L).
cage_parts(/(Q, L), /, Q, L).
cage_parts(?(T, L), ?, T, L).

% ---------------------------------------------------------------------------
% Cage arithmetic on integers (shared by both solvers)

% op_result(+Op, +Values, -Result): the cage's value under Op (Values nonempty integers).
op_result(+, Vs, S) :- sum_list(Vs, S).
op_result(*, Vs, P) :- foldl(times_, Vs, 1, P).
op_result(-, Vs, D) :-
    Vs = [_, _ | _],
    list_max(Vs, M),
    sum_list(Vs, S),
    D is 2 * M - S.
op_result(/, Vs, Q) :-
    Vs = [_, _ | _],
    list_max(Vs, M),
    foldl(times_, Vs, 1, P),
    Rest is P // M,
    M mod Rest =:= 0,
    Q is M // Rest.

times_(X, P0, P) :- P is P0 * X.

% op_holds(+Op, +Target, +Values): Values meet Target under Op ('?': under any operator).
% A '?' cage holds once, however many operators fit (so no answer is repeated).
op_holds(?, T, Vs) :- ( Vs = [V] -> V =:= T ; once(( member(Op, [+, -, *, /]), op_holds(Op, T, Vs) )) ).
op_holds(+, T, Vs) :- op_result(+, Vs, T).
op_holds(*, T, Vs) :- op_result(*, Vs, T).
op_holds(-, T, Vs) :- op_result(-, Vs, R), R =:= T.
op_holds(/, T, Vs) :- op_result(/, Vs, R), R =:= T.

% operator_holds(+Op0, +Target, +Values, -Op): Op is Op0, or for '?' each operator that holds.
operator_holds(?, T, [V], +) :- V =:= T.
operator_holds(?, T, Vs, Op) :-
    Vs = [_, _ | _],
    member(Op, [+, -, *, /]),
    op_holds(Op, T, Vs).
operator_holds(Op, T, Vs, Op) :- Op \== ?, op_holds(Op, T, Vs).

% ---------------------------------------------------------------------------
% Admissible tuples of a cage, by plain enumeration

% cage_tuple(+N, +Op, +Target, +Squares, -Values): Values (one per square, in order) meet the
% cage and no two squares in one row or column share a value.
cage_tuple(N, Op, T, Squares, Vs) :-
    numlist(1, N, Ds),
    cage_values_(Squares, [], Op, T, N, Ds, [], Vs),
    op_holds(Op, T, Vs).

% Choose values square by square, pruning sums and products early. The last square's value
% follows from the others (at most two candidates; any value for '?').
cage_values_([], _, _, _, _, _, _, []).
cage_values_([Sq], Placed, Op, T, _, Ds, Acc, [V]) :-
    last_value_(Op, T, Ds, Acc, V),
    \+ clashes_(Placed, Sq, V).
cage_values_([Sq, Sq1 | Sqs], Placed, Op, T, N, Ds, Acc, [V | Vs]) :-
    member(V, Ds),
    \+ clashes_(Placed, Sq, V),
    partial_ok_(Op, T, N, [V | Acc], [Sq1 | Sqs]),
    cage_values_([Sq1 | Sqs], [Sq-V | Placed], Op, T, N, Ds, [V | Acc], Vs).

% last_value_(+Op, +Target, +Ds, +Before, -V): V, one of the digits Ds, is a candidate for
% the last square after the values Before: every V that completes the cage is one (op_holds/3
% then checks). For - and /, either V is the largest value or the largest of Before stays so.
last_value_(+, S, Ds, Before, V) :-
    sum_list(Before, S0),
    V is S - S0,
    memberchk(V, Ds).
last_value_(*, P, Ds, Before, V) :-
    op_result(*, Before, P0),
    P mod P0 =:= 0,
    V is P // P0,
    memberchk(V, Ds).
last_value_(-, D, Ds, Before, V) :-
    list_max(Before, M),
    sum_list(Before, S),
    Largest is S + D,
    NotLargest is 2 * M - S - D,
    sort([Largest, NotLargest], Vs),
    member(V, Vs),
    memberchk(V, Ds).
last_value_(/, Q, Ds, Before, V) :-
    Q > 0,
    list_max(Before, M),
    op_result(*, Before, P),
    Largest is Q * P,
    (   (M * M) mod (Q * P) =:= 0
    ->  NotLargest is M * M // (Q * P),
        sort([Largest, NotLargest], Vs)
    ;   Vs = [Largest]
    ),
    member(V, Vs),
    memberchk(V, Ds).
last_value_(?, _, Ds, _, V) :-
    member(V, Ds).

% clashes_(+Placed, +Square, +V): V at Square contradicts a value placed before: the same
% value elsewhere on Square's row or column, or (a square listed twice) another value there.
clashes_(Placed, [I|J], V) :-
    member([I0|J0]-V0, Placed),
    (   I0 =:= I, J0 =:= J
    ->  V0 =\= V
    ;   V0 =:= V, ( I0 =:= I ; J0 =:= J )
    ).

% partial_ok_(+Op, +Target, +N, +ValuesSoFar, +RemainingSquares)
partial_ok_(+, T, N, Vs, Rest) :-
    sum_list(Vs, S),
    length(Rest, K),
    S + K =< T,
    S + K * N >= T.
partial_ok_(*, T, N, Vs, Rest) :-
    op_result(*, Vs, P),
    T mod P =:= 0,
    length(Rest, K),
    T // P =< N ^ K.
partial_ok_(Op, _, _, _, _) :- member(Op, [-, /, ?]).

% ---------------------------------------------------------------------------
% kenken/3: CLP(FD)

% The empty puzzle: no squares, no cages, one (empty) solution. (numlist(1, 0, _) fails.)
kenken(N, C, T) :-
    N == 0, C == [], !,
    T = [].
kenken(N, C, T) :-
    kenken_constraints_(N, C, T, Branching),
    append(T, Vs),
    label_(Branching, Vs).

% label_(+Branching, +Vs): labels Vs leftmost, up, by Branching. (Each option list is written
% out: with a variable in it, kenken/3 took twice the time in the host's solving engines.)
label_(enum, Vs) :- labeling([leftmost, up, enum], Vs).
label_(step, Vs) :- labeling([leftmost, up, step], Vs).

kenken_constraints(N, C, T) :-
    kenken_constraints_(N, C, T, _).

% kenken_constraints_(+N, +C, ?T, -Branching): kenken_constraints/3, and the branching its
% labeling takes (model_/4, below).
kenken_constraints_(N, C, T, Branching) :-
    grid_(N, T),
    append(T, Vs),
    Vs ins 1..N,
    foldl(cage_constraint_(N, T), C, [], Parts0),
    (   cages_disjoint_(C)
    ->  Parts = Parts0
    ;   Parts = []
    ),
    numlist(1, N, Is),
    maplist(lines_values_(N, T, Parts, Is), [row, col], [RowLines, ColLines]),
    model_(N, C, Distinct, Branching),
    maplist(Distinct, RowLines),
    maplist(Distinct, ColLines).

% The model. Each cage whose admissible tuples are few (at most 200) is posted as their
% table (tuples_in/2), which clpz propagates fully. The table carries, besides the squares'
% values, for each row and each column holding two or more of the cage's squares, the values
% of those squares in ascending order ("line part" variables). The line constraint then
% takes these sorted values in place of the squares: the multiset is the same, but the
% constraint now also sees which values the cage must put somewhere in the line (as Sudoku's
% "pointing" does) and removes them from the line's other squares. Cages with many tuples are
% posted as arithmetic. Cages come before the line constraints, so that these start from the
% narrowed domains. Rows and columns get all_distinct/1 (complete propagation, costly to run)
% on grids of 5 or more whose cages cover at least two thirds of the squares, and
% all_different/1 (removes a value once it is placed) otherwise: on small grids and on grids
% with many answers the search is cheaper than the propagation. Labeling is leftmost, up:
% the only order that gives the answers lexicographically; under all_different/1 it branches
% by step (X = V or X #\= V: a refuted value leaves the domain, which the weaker constraint
% then propagates), under all_distinct/1 by enum (it has pruned that value already, and step's
% extra propagation costs more than it saves). The header says what else was tried.

% model_(+N, +C, -Distinct, -Branching): the constraint on each row and column of an N x N grid
% with the cages C (all_distinct or all_different), and the labeling's branching (enum or step).
model_(N, C, Distinct, Branching) :-
    maplist(cage_squares_, C, Sqss),
    append(Sqss, Sqs0),
    sort(Sqs0, Sqs),
    length(Sqs, Covered),
    (   N >= 5, 3 * Covered >= 2 * N * N
    ->  Distinct = all_distinct, Branching = enum
    ;   Distinct = all_different, Branching = step
    ).

% cage_constraint_(+N, +T, +Cage, +Parts0, -Parts): post Cage on T; Parts is Parts0 plus
% this cage's line parts, part(Line, Squares, SortedValues).
cage_constraint_(N, T, Cage, Parts0, Parts) :-
    cage_parts(Cage, Op, Target, Squares),
    maplist(square_value(T), Squares, Vs),
    (   few_cage_tuples_(N, Op, Target, Squares, Tuples)
    ->  cage_lines_(Squares, Lines),
        maplist(extended_tuple_(Squares, Lines), Tuples, Rows),
        maplist(line_part_(Squares), Lines, LineParts),
        maplist(part_values_, LineParts, Yss),
        append([Vs | Yss], Row),
        tuples_in([Row], Rows),
        append(LineParts, Parts0, Parts)
    ;   cage_arithmetic_(Op, Target, Vs),
        Parts = Parts0
    ).

% few_cage_tuples_(+N, +Op, +Target, +Squares, -Tuples): Tuples are all the cage's
% admissible tuples, and there are at most 200 of them. The enumeration stops at the 201st;
% it is only tried where it is cheap: sums and products prune as they go, other operators
% enumerate all N^K candidates.
few_cage_tuples_(N, Op, Target, Squares, Tuples) :-
    length(Squares, K),
    (   member(Op, [+, *]) -> N ^ K =< 1000000 ; N ^ K =< 40000 ),
    findall(Tuple, first_cage_tuples_(201, N, Op, Target, Squares, Tuple), Tuples),
    length(Tuples, L),
    L =< 200.

% first_cage_tuples_(+Max, +N, +Op, +Target, +Squares, -Tuple): the first Max answers of
% cage_tuple/5 (the cut ends the enumeration at the Max-th).
first_cage_tuples_(Max, N, Op, Target, Squares, Tuple) :-
    call_nth(cage_tuple(N, Op, Target, Squares, Tuple), Nth),
    (   Nth =:= Max -> ! ; true ).

% cage_lines_(+Squares, -Lines): the rows row(I) and columns col(J) holding two or more of
% Squares.
cage_lines_(Squares, Lines) :-
    findall(Line, ( member(Sq, Squares), square_line_(Sq, Line) ), Lines0),
    sort(Lines0, Lines1),
    findall(Line,
            ( member(Line, Lines1),
              findall(x, ( member(Sq, Squares), square_line_(Sq, Line) ), [_, _ | _]) ),
            Lines).

% square_line_(?Square, ?Line): Square lies on Line.
square_line_([I|_], row(I)).
square_line_([_|J], col(J)).

% extended_tuple_(+Squares, +Lines, +Tuple, -Row): Tuple followed by, for each of Lines, the
% values Tuple puts on that line, ascending.
extended_tuple_(Squares, Lines, Tuple, Row) :-
    pairs_keys_values_(Pairs, Squares, Tuple),
    maplist(line_sorted_values_(Pairs), Lines, Sorted),
    append([Tuple | Sorted], Row).

line_sorted_values_(Pairs, Line, Sorted) :-
    findall(V, ( member(Sq-V, Pairs), square_line_(Sq, Line) ), Vs),
    sorted_with_repeats_(Vs, Sorted).

% line_part_(+Squares, +Line, -part(Line, LineSquares, Ys)): Ys are fresh variables, one per
% square of Squares on Line.
line_part_(Squares, Line, part(Line, LineSquares, Ys)) :-
    findall(Sq, ( member(Sq, Squares), square_line_(Sq, Line) ), LineSquares),
    same_length(LineSquares, Ys).

part_values_(part(_, _, Ys), Ys).

% cages_disjoint_(+C): no square is in two cages (nor twice in one). Otherwise line parts are
% not used: a square would be counted twice in its line.
cages_disjoint_(C) :-
    maplist(cage_squares_, C, Sqss),
    append(Sqss, Sqs),
    sort(Sqs, Set),
    same_length(Sqs, Set).

cage_squares_(Cage, Squares) :- cage_parts(Cage, _, _, Squares).

% lines_values_(+N, +T, +Parts, +Is, +Kind, -Lines): for each I of Is, the variables whose
% values are those of line Kind(I) (row or col): its squares outside the parts on it, and
% the parts' sorted values.
lines_values_(N, T, Parts, Is, Kind, Lines) :-
    maplist(line_values_(N, T, Parts, Kind), Is, Lines).

line_values_(N, T, Parts, Kind, I, Values) :-
    Line =.. [Kind, I],
    numlist(1, N, Ks),
    maplist(line_square_(Line), Ks, Squares),
    parts_on_line_(Parts, Line, Covered, Yss),
    findall(Sq, ( member(Sq, Squares), \+ memberchk(Sq, Covered) ), Free),
    maplist(square_value(T), Free, FreeVs),
    append([FreeVs | Yss], Values).

line_square_(row(I), J, [I|J]).
line_square_(col(J), I, [I|J]).

% parts_on_line_(+Parts, +Line, -Squares, -Yss): the squares and value lists of the parts
% on Line.
parts_on_line_([], _, [], []).
parts_on_line_([part(L, Sqs, Ys) | Ps], Line, Covered, Yss) :-
    (   L == Line
    ->  append(Sqs, Covered1, Covered),
        Yss = [Ys | Yss1]
    ;   Covered = Covered1,
        Yss = Yss1
    ),
    parts_on_line_(Ps, Line, Covered1, Yss1).

cage_arithmetic_(+, S, Vs) :- sum(Vs, #=, S).
cage_arithmetic_(*, P, Vs) :- foldl(product_, Vs, 1, P0), P0 #= P.
cage_arithmetic_(-, D, Vs) :-
    foldl(maximum_, Vs, 0, M),
    sum(Vs, #=, S),
    D #= 2 * M - S.
cage_arithmetic_(/, Q, Vs) :-
    foldl(maximum_, Vs, 0, M),
    foldl(product_, Vs, 1, P),
    P #= M * R,
    M #= Q * R.
cage_arithmetic_(?, T, Vs) :-
    foldl(maximum_, Vs, 0, M),
    sum(Vs, #=, S),
    foldl(product_, Vs, 1, P),
    P #= M * R,
    ( S #= T ) #\/ ( P #= T ) #\/ ( T #= 2 * M - S ) #\/ ( M #= T * R ).

product_(V, P0, P) :- P #= P0 * V.
maximum_(V, M0, M) :- M #= max(M0, V).

% ---------------------------------------------------------------------------
% plain_kenken/3: plain enumeration, row by row, smallest value first (the order of kenken/3)

plain_kenken(N, C, T) :-
    grid_(N, T),
    maplist(plain_cage_(T, N), C, Cages),
    plain_checks_(Cages, N, Checks),
    findall(D, between(1, N, D), Ds),   % (numlist(1, 0, _) fails: N = 0 has Ds = [])
    length(Above, N),
    maplist(=([]), Above),
    plain_rows_(T, Ds, Above, 1, Checks).

% plain_cage_(+T, +N, +Cage, -cage(Op, Target, Positions-Values))
plain_cage_(T, N, Cage, cage(Op, Target, Pairs)) :-
    cage_parts(Cage, Op, Target, Squares),
    maplist(square_value(T), Squares, Vs),
    maplist(position_(N), Squares, Ps),
    pairs_keys_values_(Pairs0, Ps, Vs),
    keysort(Pairs0, Pairs).

position_(N, [I|J], P) :- P is (I - 1) * N + J.

pairs_keys_values_([], [], []).
pairs_keys_values_([K-V | KVs], [K | Ks], [V | Vs]) :- pairs_keys_values_(KVs, Ks, Vs).

% plain_checks_(+Cages, +N, -Checks): Position-Check pairs sorted by position: after filling
% Position, run Check. A cage is checked completely at its last square, partially before.
plain_checks_(Cages, N, Checks) :-
    foldl(cage_checks_(N), Cages, [], Checks0),
    keysort(Checks0, Checks).

cage_checks_(N, cage(Op, Target, Pairs), Cs0, Cs) :-
    pairs_keys_values_(Pairs, Ps, Vs),
    length(Vs, K),
    prefix_checks_(Ps, Vs, [], Op, Target, N, K, Cs0, Cs).

prefix_checks_([], [], _, _, _, _, _, Cs, Cs).
prefix_checks_([P | Ps], [V | Vs], Done0, Op, Target, N, K, Cs0, Cs) :-
    Done = [V | Done0],
    length(Done, Filled),
    (   Filled =:= K
    ->  Check = complete(Op, Target, Done)
    ;   Rest is K - Filled,
        Check = partial(Op, Target, N, Done, Rest)
    ),
    prefix_checks_(Ps, Vs, Done, Op, Target, N, K, [P-Check | Cs0], Cs).

check_(complete(Op, Target, Vs)) :- op_holds(Op, Target, Vs).
check_(partial(Op, Target, N, Vs, Rest)) :- length(RestSqs, Rest), partial_ok_(Op, Target, N, Vs, RestSqs).

% plain_rows_(+Rows, +Digits, +Above, +Position, +Checks)
plain_rows_([], _, _, _, _).
plain_rows_([Row | Rows], Ds, Above0, P0, Checks0) :-
    plain_row_(Row, Ds, Above0, Above, P0, P, Checks0, Checks),
    plain_rows_(Rows, Ds, Above, P, Checks).

plain_row_([], _, [], [], P, P, Cs, Cs).
plain_row_([V | Vs], Ds0, [Col | Cols], [[V | Col] | Cols1], P0, P, Cs0, Cs) :-
    select(V, Ds0, Ds),
    \+ memberchk(V, Col),
    run_checks_(Cs0, P0, Cs1),
    P1 is P0 + 1,
    plain_row_(Vs, Ds, Cols, Cols1, P1, P, Cs1, Cs).

run_checks_([], _, []).
run_checks_([Q-Check | Cs0], P, Cs) :-
    (   Q =:= P
    ->  check_(Check),
        run_checks_(Cs0, P, Cs)
    ;   Cs = [Q-Check | Cs0]
    ).

% ---------------------------------------------------------------------------
% No-op KenKen

noop_kenken(N, C, T, Ops) :-
    kenken_constraints(N, C, T),
    append(T, Vs),
    label(Vs),
    maplist(cage_operator_(T), C, Ops).

% cage_operator_(+T, +Cage, -OpCage): OpCage is Cage with an operator under which T meets it.
cage_operator_(T, Cage, OpCage) :-
    cage_parts(Cage, Op0, Target, Squares),
    maplist(square_value(T), Squares, Vs),
    operator_holds(Op0, Target, Vs, Op),
    op_cage_(Op, Target, Squares, OpCage).

op_cage_(+, S, L, +(S, L)).
op_cage_(*, P, L, *(P, L)).
op_cage_(-, D, L, Cage) :- ( L = [J, K] -> Cage = -(D, J, K) ; Cage = -(D, L) ).
op_cage_(/, Q, L, Cage) :- ( L = [J, K] -> Cage = /(Q, J, K) ; Cage = /(Q, L) ).

% ---------------------------------------------------------------------------
% The cage helper: which values can a cage hold?

cage_combination(N, Op, Target, Cells, Values) :-
    findall(Sorted,
            ( cage_tuple(N, Op, Target, Cells, Vs), sorted_with_repeats_(Vs, Sorted) ),
            All),
    sort(All, Set),
    member(Values, Set).

% sorted_with_repeats_(+Vs, -Sorted): Vs in ascending order, repeats kept (keysort is stable).
sorted_with_repeats_(Vs, Sorted) :-
    pairs_keys_values_(Pairs0, Vs, _),
    keysort(Pairs0, Pairs),
    pairs_keys_values_(Pairs, Sorted, _).

% ---------------------------------------------------------------------------
% Test cases

kenken_testcase(
  6,
  [
    +(11, [[1|1], [2|1]]),
    /(2, [1|2], [1|3]),
    *(20, [[1|4], [2|4]]),
    *(6, [[1|5], [1|6], [2|6], [3|6]]),
    -(3, [2|2], [2|3]),
    /(3, [2|5], [3|5]),
    *(240, [[3|1], [3|2], [4|1], [4|2]]),
    *(6, [[3|3], [3|4]]),
    *(6, [[4|3], [5|3]]),
    +(7, [[4|4], [5|4], [5|5]]),
    *(30, [[4|5], [4|6]]),
    *(6, [[5|1], [5|2]]),
    +(9, [[5|6], [6|6]]),
    +(8, [[6|1], [6|2], [6|3]]),
    /(2, [6|4], [6|5])
  ]
).

kenken_4x4_testcase(
  4,
  [
    +(6, [[1|1], [1|2], [2|1]]),
    *(96, [[1|3], [1|4], [2|2], [2|3], [2|4]]),
    -(1, [3|1], [3|2]),
    -(1, [4|1], [4|2]),
    +(8, [[3|3], [4|3], [4|4]]),
    *(2, [[3|4]])
  ]
).

% The no-op example: Keen 4dn puzzle "kk-4dn-0" with its operators removed.
%
% ?- noop_kenken_testcase.
% prints each answer as T = ..., Ops = ..., then `no` when there are no more.
noop_kenken_example(
  4,
  [
    ?(5, [[1|1], [1|2]]),
    ?(4, [[1|3], [1|4]]),
    ?(2, [[2|1], [3|1]]),
    ?(5, [[2|2], [3|2]]),
    ?(6, [[2|3], [2|4]]),
    ?(2, [[3|3], [4|3]]),
    ?(2, [[3|4], [4|4]]),
    ?(1, [[4|1], [4|2]])
  ]
).

noop_kenken_testcase :-
    noop_kenken_example(N, C),
    (   noop_kenken(N, C, T, Ops),
        format("T = ~q,~nOps = ~q~n", [T, Ops]),
        false
    ;   format("no~n", [])
    ).

% ---------------------------------------------------------------------------
% fd_set_vector_max/1: GNU Prolog's bound on the largest FD domain value. clpz needs no such
% bound, so it is accepted and does nothing, and the spec's example queries run verbatim.

fd_set_vector_max(_).
