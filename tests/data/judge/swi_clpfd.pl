% A correct kenken/3 written for SWI-Prolog: library(clpfd), transpose/2 from it.
:- use_module(library(clpfd)).

kenken(N, C, T) :-
    length(T, N),
    maplist(row(N), T),
    transpose(T, Cols),
    maplist(all_distinct, T),
    maplist(all_distinct, Cols),
    maplist(cage(T), C),
    maplist(label, T).

row(N, R) :- length(R, N), R ins 1..N.

cell(T, [I|J], V) :- nth1(I, T, R), nth1(J, R, V).

cage(T, +(S, L)) :- maplist(cell(T), L, Vs), sum(Vs, #=, S).
cage(T, *(P, L)) :- maplist(cell(T), L, Vs), prod(Vs, P).
cage(T, -(D, J, K)) :- cell(T, J, A), cell(T, K, B), (A - B #= D) #\/ (B - A #= D).
cage(T, /(Q, J, K)) :- cell(T, J, A), cell(T, K, B), (A #= B * Q) #\/ (B #= A * Q).

prod([], 1).
prod([V|Vs], P) :- prod(Vs, P0), P #= V * P0.

plain_kenken(N, C, T) :- kenken(N, C, T).
