% KenKen solver, Scryer/SWI dialect (CLP(Z)).
:- use_module(library(clpz)).
:- use_module(library(lists)).
:- use_module(library(between)).

kenken(N, Cages, Grid) :-
    length(Grid, N),
    maplist(same_length(Grid), Grid),
    append(Grid, Cells),
    Cells ins 1..N,
    maplist(all_distinct, Grid),
    transpose(Grid, Columns),
    maplist(all_distinct, Columns),
    maplist(cage(Grid), Cages),
    maplist(label, Grid).

at(Grid, [I|J], V) :- nth1(I, Grid, Row), nth1(J, Row, V).

cage(Grid, +(S, Sqs)) :- maplist(at(Grid), Sqs, Vs), sum(Vs, #=, S).
cage(Grid, *(P, Sqs)) :- maplist(at(Grid), Sqs, Vs), product(Vs, P).
cage(Grid, -(D, J, K)) :- at(Grid, J, A), at(Grid, K, B), abs(A - B) #= D.
cage(Grid, /(Q, J, K)) :- at(Grid, J, A), at(Grid, K, B), (A #= Q * B) #\/ (B #= Q * A).

product([], 1).
product([V|Vs], P) :- product(Vs, P0), P #= V * P0.

% Row by row: each row a permutation of 1..N that shares no value with a row above in any
% column, then the cages checked on the whole grid.
plain_kenken(N, Cages, Grid) :-
    findall(I, between(1, N, I), Ns),
    length(Grid, N),
    rows(Grid, Ns, []),
    maplist(plain_cage(Grid), Cages).

rows([], _, _).
rows([Row|Rows], Ns, Above) :-
    permutation(Ns, Row),
    maplist(differs(Row), Above),
    rows(Rows, Ns, [Row|Above]).

differs(Row, Other) :- maplist(\=, Row, Other).

plain_cage(Grid, +(S, Sqs)) :- maplist(at(Grid), Sqs, Vs), sum_list(Vs, S).
plain_cage(Grid, *(P, Sqs)) :- maplist(at(Grid), Sqs, Vs), foldl(mul, Vs, 1, P).
plain_cage(Grid, -(D, J, K)) :- at(Grid, J, A), at(Grid, K, B), D =:= abs(A - B).
plain_cage(Grid, /(Q, J, K)) :- at(Grid, J, A), at(Grid, K, B), (A =:= Q * B -> true ; B =:= Q * A).

mul(X, P0, P) :- P is P0 * X.
