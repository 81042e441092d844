/* CS 131 Homework 4: KenKen solver (GNU Prolog), labeling with fd_labeling/2's backtracks(B),
   and defining predicates of its own whose names GNU Prolog does not use but Scryer's libraries
   do (bb_put/2, bb_get/2, random_integer/3): under the GNU layer it must still be judged on its
   answers, whatever the layer calls inside. */

% (this file's own, deliberately unlike the libraries' predicates of the same names)
bb_put(_, _) :- throw(my_own_bb_put).
bb_get(_, _) :- fail.
random_integer(_, _, _) :- throw(my_own_random_integer).

% kenken(+N, +C, ?T): T solves the N x N KenKen puzzle with cages C.
kenken(N, C, T) :-
    length(T, N),
    maplist(row_length(N), T),
    maplist(row_domain(N), T),
    maplist(fd_all_different, T),
    transpose(T, TT),
    maplist(fd_all_different, TT),
    maplist(cage(T), C),
    maplist(label_row, T).

label_row(Row) :- fd_labeling(Row, [backtracks(B)]), integer(B).

row_length(N, Row) :- length(Row, N).
row_domain(N, Row) :- fd_domain(Row, 1, N).

% square(+Square, +T, -V): V is the value at [I|J] in T.
square([I|J], T, V) :-
    nth(I, T, Row),
    nth(J, Row, V).

cage(T, +(S, L)) :- sum_cage(L, T, S).
cage(T, *(P, L)) :- product_cage(L, T, P).
cage(T, -(D, J, K)) :-
    square(J, T, A),
    square(K, T, B),
    (A - B #= D #\/ B - A #= D).
cage(T, /(Q, J, K)) :-
    square(J, T, A),
    square(K, T, B),
    (A #= Q * B #\/ B #= Q * A).

sum_cage([], _, 0).
sum_cage([Sq|L], T, S) :-
    square(Sq, T, V),
    sum_cage(L, T, S0),
    S #= V + S0.

product_cage([], _, 1).
product_cage([Sq|L], T, P) :-
    square(Sq, T, V),
    product_cage(L, T, P0),
    P #= V * P0.

% transpose(+M, -MT)
transpose([], []).
transpose([[]|_], []).
transpose([[X|Xs]|Rows], [Col|Cols]) :-
    firsts_rests([[X|Xs]|Rows], Col, Rest),
    transpose(Rest, Cols).

firsts_rests([], [], []).
firsts_rests([[X|Xs]|Rows], [X|Col], [Xs|Rest]) :-
    firsts_rests(Rows, Col, Rest).

% plain_kenken(+N, +C, ?T): same, without the finite domain solver.
plain_kenken(N, C, T) :-
    numbers(1, N, Ns),
    length(T, N),
    maplist(row_length(N), T),
    maplist(permutation(Ns), T),
    transpose(T, TT),
    maplist(all_unique, TT),
    maplist(plain_cage(T), C).

numbers(I, N, []) :- I > N.
numbers(I, N, [I|Is]) :- I =< N, I1 is I + 1, numbers(I1, N, Is).

all_unique([]).
all_unique([X|Xs]) :- \+ member(X, Xs), all_unique(Xs).

plain_cage(T, +(S, L)) :- plain_sum(L, T, 0, S).
plain_cage(T, *(P, L)) :- plain_product(L, T, 1, P).
plain_cage(T, -(D, J, K)) :-
    square(J, T, A), square(K, T, B),
    (D =:= A - B ; D =:= B - A), !.
plain_cage(T, /(Q, J, K)) :-
    square(J, T, A), square(K, T, B),
    (A =:= Q * B ; B =:= Q * A), !.

plain_sum([], _, S, S).
plain_sum([Sq|L], T, S0, S) :- square(Sq, T, V), S1 is S0 + V, plain_sum(L, T, S1, S).

plain_product([], _, P, P).
plain_product([Sq|L], T, P0, P) :- square(Sq, T, V), P1 is P0 * V, plain_product(L, T, P1, P).

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
