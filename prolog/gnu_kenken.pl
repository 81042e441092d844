/*  gnu_kenken.pl -- Homework 4, KenKen solver, for GNU Prolog (gprolog 1.4 or later).

    The homework's own system: the same predicates as kenken.pl (which is for Scryer Prolog),
    giving the same answers in the same order (lexicographic, the grid read row by row), so
    that `kenken solve`/`bench` can set kenken/3 against plain_kenken/3 on both systems
    (engines gprolog-fd and gprolog-plain, which run this file under the real gprolog).

      kenken(+N, +C, ?T)        GNU Prolog's finite domain solver (fd_* and #=-family):
                                a textbook model, every cage posted as arithmetic.
      plain_kenken(+N, +C, ?T)  Plain enumeration (select/3, is/2, arithmetic comparison; no
                                fd_*): the algorithm of kenken.pl's plain_kenken/3, row by row,
                                each cage checked as soon as its squares are filled (and its
                                sums and products bounded before).

    Cage constraints as in kenken.pl: +(S, L), *(P, L), -(D, J, K), /(Q, J, K), and the
    extensions -(D, L), /(Q, L) (L of 2 or more squares: the largest value first, then every
    other value subtracted, or divided exactly, in turn) and ?(V, L) (an unknown operator: any
    of the four, each grid once). Squares are [I|J], row I, column J, from 1.
*/

% ---------------------------------------------------------------------------
% The grid

% grid(+N, ?T): T is an N x N matrix.
grid(N, T) :-
    length(T, N),
    grid_rows(T, N).

grid_rows([], _).
grid_rows([Row | Rows], N) :-
    length(Row, N),
    grid_rows(Rows, N).

% cells(+T, -Vs): the squares of T, row by row.
cells([], []).
cells([Row | Rows], Vs) :-
    cells(Rows, Vs0),
    append(Row, Vs0, Vs).

% columns(+T, -Cols)
columns([], []).
columns([[] | _], []) :- !.
columns(Rows, [Col | Cols]) :-
    heads_tails(Rows, Col, Rests),
    columns(Rests, Cols).

heads_tails([], [], []).
heads_tails([[X | Xs] | Rows], [X | Col], [Xs | Rests]) :-
    heads_tails(Rows, Col, Rests).

% square_value(+T, +Square, -V)
square_value(T, [I|J], V) :-
    nth(I, T, Row),
    nth(J, Row, V).

squares_values([], _, []).
squares_values([Sq | Sqs], T, [V | Vs]) :-
    square_value(T, Sq, V),
    squares_values(Sqs, T, Vs).

% cage_parts(+Cage, -Op, -Target, -Squares)
cage_parts(+(S, L), +, S, L).
cage_parts(*(P, L), *, P, L).
cage_parts(-(D, J, K), -, D, [J, K]).
cage_parts(/(Q, J, K), /, Q, [J, K]).
cage_parts(-(D, L), -, D, L).
cage_parts(/(Q, L), /, Q, L).
cage_parts(?(T, L), ?, T, L).

% ---------------------------------------------------------------------------
% kenken/3: finite domains

kenken(N, C, T) :-
    N == 0, C == [], !,
    T = [].
kenken(N, C, T) :-
    grid(N, T),
    cells(T, Vs),
    fd_domain(Vs, 1, N),
    all_different_each(T),
    columns(T, Cols),
    all_different_each(Cols),
    cages_fd(C, T),
    fd_labeling(Vs).

all_different_each([]).
all_different_each([L | Ls]) :-
    fd_all_different(L),
    all_different_each(Ls).

cages_fd([], _).
cages_fd([Cage | Cages], T) :-
    cage_parts(Cage, Op, Target, Squares),
    squares_values(Squares, T, Vs),
    cage_fd(Op, Target, Vs),
    cages_fd(Cages, T).

% cage_fd(+Op, +Target, +Vs): posts the cage.
cage_fd(+, S, Vs) :-
    sum_expr(Vs, E),
    E #= S.
cage_fd(*, P, Vs) :-
    product_expr(Vs, E),
    E #= P.
cage_fd(-, D, Vs) :-
    minus_expr(Vs, D, E),
    E.
cage_fd(/, Q, Vs) :-
    divide_expr(Vs, Q, E),
    E.
cage_fd(?, T, [V]) :- !,
    V #= T.
cage_fd(?, T, Vs) :-
    sum_expr(Vs, S),
    product_expr(Vs, P),
    minus_expr(Vs, T, M),
    divide_expr(Vs, T, D),
    S #= T #\/ P #= T #\/ M #\/ D.

sum_expr([V], V).
sum_expr([V, W | Vs], V + E) :- sum_expr([W | Vs], E).

product_expr([V], V).
product_expr([V, W | Vs], V * E) :- product_expr([W | Vs], E).

% minus_expr(+Vs, +D, -E): E holds when one of Vs is the largest and it less every other is D.
minus_expr(Vs, D, E) :-
    minus_choices(Vs, Vs, D, E).

minus_choices([V], All, D, E) :- !,
    minus_choice(V, All, D, E).
minus_choices([V | Vs], All, D, E1 #\/ E) :-
    minus_choice(V, All, D, E1),
    minus_choices(Vs, All, D, E).

% minus_choice(+V, +All, +D, -E): V is the largest of All, and 2 * V - sum(All) is D.
minus_choice(V, All, D, E) :-
    sum_expr(All, S),
    largest(All, V, 2 * V - S #= D, E).

largest([], _, E, E).
largest([W | Ws], V, E0, E) :-
    (   W == V -> E1 = E0 ; E1 = (E0 #/\ V #>= W) ),
    largest(Ws, V, E1, E).

% divide_expr(+Vs, +Q, -E): E holds when one of Vs is Q times the product of the others.
divide_expr(Vs, Q, E) :-
    divide_choices(Vs, [], Q, E).

divide_choices([V], Before, Q, E) :- !,
    divide_choice(V, Before, [], Q, E).
divide_choices([V | Vs], Before, Q, E1 #\/ E) :-
    divide_choice(V, Before, Vs, Q, E1),
    divide_choices(Vs, [V | Before], Q, E).

divide_choice(V, Before, After, Q, V #= Q * P) :-
    append(Before, After, Others),
    product_expr(Others, P).

% ---------------------------------------------------------------------------
% Cage arithmetic on integers (plain_kenken/3)

% op_result(+Op, +Values, -Result): the cage's value under Op (Values nonempty integers).
op_result(+, Vs, S) :- sum_list(Vs, S).
op_result(*, Vs, P) :- product_list(Vs, 1, P).
op_result(-, Vs, D) :-
    Vs = [_, _ | _],
    max_list(Vs, M),
    sum_list(Vs, S),
    D is 2 * M - S.
op_result(/, Vs, Q) :-
    Vs = [_, _ | _],
    max_list(Vs, M),
    product_list(Vs, 1, P),
    Rest is P // M,
    M mod Rest =:= 0,
    Q is M // Rest.

product_list([], P, P).
product_list([V | Vs], P0, P) :-
    P1 is P0 * V,
    product_list(Vs, P1, P).

% op_holds(+Op, +Target, +Values) ('?': once, under any operator).
op_holds(?, T, Vs) :-
    (   Vs = [V] -> V =:= T
    ;   member(Op, [+, -, *, /]), op_holds(Op, T, Vs) -> true
    ).
op_holds(+, T, Vs) :- op_result(+, Vs, T).
op_holds(*, T, Vs) :- op_result(*, Vs, T).
op_holds(-, T, Vs) :- op_result(-, Vs, R), R =:= T.
op_holds(/, T, Vs) :- op_result(/, Vs, R), R =:= T.

% partial_ok(+Op, +Target, +N, +ValuesSoFar, +Left): Left squares of the cage are still empty.
partial_ok(+, T, N, Vs, K) :-
    sum_list(Vs, S),
    S + K =< T,
    S + K * N >= T.
partial_ok(*, T, N, Vs, K) :-
    product_list(Vs, 1, P),
    T mod P =:= 0,
    power(N, K, NK),
    T // P =< NK.
partial_ok(-, _, _, _, _).
partial_ok(/, _, _, _, _).
partial_ok(?, _, _, _, _).

power(_, 0, 1) :- !.
power(B, K, P) :-
    K1 is K - 1,
    power(B, K1, P1),
    P is B * P1.

% ---------------------------------------------------------------------------
% plain_kenken/3: plain enumeration, row by row, smallest value first (the order of kenken/3)

plain_kenken(N, C, T) :-
    grid(N, T),
    plain_cages(C, T, N, Cages),
    plain_checks(Cages, N, Checks),
    findall(D, between(1, N, D), Ds),
    empty_columns(N, Above),
    plain_rows(T, Ds, Above, 1, Checks).

empty_columns(0, []) :- !.
empty_columns(N, [[] | Cols]) :-
    N1 is N - 1,
    empty_columns(N1, Cols).

% plain_cages(+C, +T, +N, -Cages): each cage as cage(Op, Target, Positions-Values), by position.
plain_cages([], _, _, []).
plain_cages([Cage | Cs], T, N, [cage(Op, Target, Pairs) | Cages]) :-
    cage_parts(Cage, Op, Target, Squares),
    squares_values(Squares, T, Vs),
    positions(Squares, N, Ps),
    pairs(Ps, Vs, Pairs0),
    keysort(Pairs0, Pairs),
    plain_cages(Cs, T, N, Cages).

positions([], _, []).
positions([[I|J] | Sqs], N, [P | Ps]) :-
    P is (I - 1) * N + J,
    positions(Sqs, N, Ps).

pairs([], [], []).
pairs([K | Ks], [V | Vs], [K-V | KVs]) :- pairs(Ks, Vs, KVs).

% plain_checks(+Cages, +N, -Checks): Position-Check pairs sorted by position: after filling
% Position, run Check. A cage is checked completely at its last square, partially before.
plain_checks(Cages, N, Checks) :-
    cages_checks(Cages, N, [], Checks0),
    keysort(Checks0, Checks).

cages_checks([], _, Cs, Cs).
cages_checks([cage(Op, Target, Pairs) | Cages], N, Cs0, Cs) :-
    pairs(Ps, Vs, Pairs),
    length(Vs, K),
    prefix_checks(Ps, Vs, [], Op, Target, N, K, Cs0, Cs1),
    cages_checks(Cages, N, Cs1, Cs).

prefix_checks([], [], _, _, _, _, _, Cs, Cs).
prefix_checks([P | Ps], [V | Vs], Done0, Op, Target, N, K, Cs0, Cs) :-
    Done = [V | Done0],
    length(Done, Filled),
    (   Filled =:= K
    ->  Check = complete(Op, Target, Done)
    ;   Rest is K - Filled,
        Check = partial(Op, Target, N, Done, Rest)
    ),
    prefix_checks(Ps, Vs, Done, Op, Target, N, K, [P-Check | Cs0], Cs).

check(complete(Op, Target, Vs)) :- op_holds(Op, Target, Vs).
check(partial(Op, Target, N, Vs, Rest)) :- partial_ok(Op, Target, N, Vs, Rest).

% plain_rows(+Rows, +Digits, +Above, +Position, +Checks)
plain_rows([], _, _, _, _).
plain_rows([Row | Rows], Ds, Above0, P0, Checks0) :-
    plain_row(Row, Ds, Above0, Above, P0, P, Checks0, Checks),
    plain_rows(Rows, Ds, Above, P, Checks).

plain_row([], _, [], [], P, P, Cs, Cs).
plain_row([V | Vs], Ds0, [Col | Cols], [[V | Col] | Cols1], P0, P, Cs0, Cs) :-
    select(V, Ds0, Ds),
    \+ memberchk(V, Col),
    run_checks(Cs0, P0, Cs1),
    P1 is P0 + 1,
    plain_row(Vs, Ds, Cols, Cols1, P1, P, Cs1, Cs).

run_checks([], _, []).
run_checks([Q-Check | Cs0], P, Cs) :-
    (   Q =:= P
    ->  check(Check),
        run_checks(Cs0, P, Cs)
    ;   Cs = [Q-Check | Cs0]
    ).
