/*  gnu/fd.pl -- GNU Prolog layer, part 2 of 5: GNU's FD constraints and operators' meaning
    (translated to clpz), fd_domain/2,3 and the domain queries, the global constraints.
*/

% ---------------------------------------------------------------------------
% FD constraints

A #= B :- kk_gnu_post(A #= B).
A #\= B :- kk_gnu_post(A #\= B).
A #< B :- kk_gnu_post(A #< B).
A #=< B :- kk_gnu_post(A #=< B).
A #> B :- kk_gnu_post(A #> B).
A #>= B :- kk_gnu_post(A #>= B).
A #=# B :- kk_gnu_post(A #=# B).
A #\=# B :- kk_gnu_post(A #\=# B).
A #<# B :- kk_gnu_post(A #<# B).
A #=<# B :- kk_gnu_post(A #=<# B).
A #># B :- kk_gnu_post(A #># B).
A #>=# B :- kk_gnu_post(A #>=# B).
A #<=> B :- kk_gnu_post(A #<=> B).
A #\<=> B :- kk_gnu_post(A #\<=> B).
A #==> B :- kk_gnu_post(A #==> B).
A #\==> B :- kk_gnu_post(A #\==> B).
A ## B :- kk_gnu_post(A ## B).
A #\/ B :- kk_gnu_post(A #\/ B).
A #\\/ B :- kk_gnu_post(A #\\/ B).
A #/\ B :- kk_gnu_post(A #/\ B).
A #\/\ B :- kk_gnu_post(A #\/\ B).
#\ A :- kk_gnu_post(#\ A).

% kk_gnu_post(+GnuConstraint): translates and posts it through clpz.
kk_gnu_post(C0) :-
    kk_gnu_constraint(C0, C),
    term_variables(C0, Vs),
    kk_gnu_natural(Vs),
    kk_gnu_clpz(C).

% kk_gnu_clpz(+Goal): calls Goal in clpz.  (Scryer 0.10 quirk: a goal written clpz:G in a
% clause body raises existence_error(procedure, (:)/2) when G has a compound argument
% containing a variable, e.g. clpz:in(X, '..'(0, M)); call/1 of a built term works.)
kk_gnu_clpz(G) :-
    call(clpz:G).

% kk_gnu_natural(+Vars): GNU FD variables range over 0..fd_max_integer.
kk_gnu_natural(Vs) :-
    kk_gnu_max_integer(M),
    kk_gnu_natural_(Vs, M).

kk_gnu_natural_([], _).
kk_gnu_natural_([V | Vs], M) :-
    kk_gnu_clpz(in(V, '..'(0, M))),
    kk_gnu_natural_(Vs, M).

% kk_gnu_relation(?GnuOp, ?ClpzOp): arithmetic comparisons.
kk_gnu_relation(#=, #=).
kk_gnu_relation(#\=, #\=).
kk_gnu_relation(#<, #<).
kk_gnu_relation(#=<, #=<).
kk_gnu_relation(#>, #>).
kk_gnu_relation(#>=, #>=).
kk_gnu_relation(#=#, #=).
kk_gnu_relation(#\=#, #\=).
kk_gnu_relation(#<#, #<).
kk_gnu_relation(#=<#, #=<).
kk_gnu_relation(#>#, #>).
kk_gnu_relation(#>=#, #>=).

% kk_gnu_constraint(+Gnu, -Clpz): a GNU (boolean) FD constraint as a clpz one.
kk_gnu_constraint(B, B) :-
    var(B),
    !.
kk_gnu_constraint(B, B) :-
    integer(B),
    !.
kk_gnu_constraint(C0, C) :-
    C0 =.. [Op, A0, B0],
    kk_gnu_relation(Op, COp),
    !,
    kk_gnu_expr(A0, Op, A),
    kk_gnu_expr(B0, Op, B),
    C =.. [COp, A, B].
kk_gnu_constraint(C0, C) :-
    kk_gnu_bool(C0, Op, P0, Q0),
    !,
    kk_gnu_constraint(P0, P),
    kk_gnu_constraint(Q0, Q),
    kk_gnu_bool_clpz(Op, P, Q, C).
kk_gnu_constraint(#\ P0, '#\\'(P)) :-
    !,
    kk_gnu_constraint(P0, P).
kk_gnu_constraint(C, _) :-
    functor(C, F, A),
    throw(error(type_error(fd_bool_evaluable, F/A), (#<=>)/2)).

kk_gnu_bool(P #<=> Q, #<=>, P, Q).
kk_gnu_bool(P #\<=> Q, #\<=>, P, Q).
kk_gnu_bool(P #==> Q, #==>, P, Q).
kk_gnu_bool(P #\==> Q, #\==>, P, Q).
kk_gnu_bool(P ## Q, ##, P, Q).
kk_gnu_bool(P #\/ Q, #\/, P, Q).
kk_gnu_bool(P #\\/ Q, #\\/, P, Q).
kk_gnu_bool(P #/\ Q, #/\, P, Q).
kk_gnu_bool(P #\/\ Q, #\/\, P, Q).

% Written canonically: clpz's operators are not visible here.
kk_gnu_bool_clpz(#<=>, P, Q, '#<==>'(P, Q)).
kk_gnu_bool_clpz(#\<=>, P, Q, '#\\'(P, Q)).
kk_gnu_bool_clpz(#==>, P, Q, '#==>'(P, Q)).
kk_gnu_bool_clpz(#\==>, P, Q, '#/\\'(P, '#\\'(Q))).
kk_gnu_bool_clpz(##, P, Q, '#\\'(P, Q)).
kk_gnu_bool_clpz(#\/, P, Q, '#\\/'(P, Q)).
kk_gnu_bool_clpz(#\\/, P, Q, '#\\'('#\\/'(P, Q))).
kk_gnu_bool_clpz(#/\, P, Q, '#/\\'(P, Q)).
kk_gnu_bool_clpz(#\/\, P, Q, '#\\'('#/\\'(P, Q))).

% kk_gnu_expr(+Gnu, +Op, -Clpz): a GNU FD expression as a clpz one (Op: error context).
kk_gnu_expr(E, _, E) :-
    var(E),
    !.
kk_gnu_expr(E, _, E) :-
    integer(E),
    !.
kk_gnu_expr(E0, Op, E) :-
    kk_gnu_eval(E0, E, Args0, Args),
    !,
    kk_gnu_exprs(Args0, Op, Args).
kk_gnu_expr(E, Op, _) :-
    (   callable(E) -> functor(E, F, A), Culprit = F/A ; Culprit = E ),
    throw(error(type_error(fd_evaluable, Culprit), Op/2)).

kk_gnu_exprs([], _, []).
kk_gnu_exprs([E0 | Es0], Op, [E | Es]) :-
    kk_gnu_expr(E0, Op, E),
    kk_gnu_exprs(Es0, Op, Es).

% kk_gnu_eval(?Gnu, ?Clpz, ?GnuArgs, ?ClpzArgs): the FD evaluable functors.
kk_gnu_eval(+ A0, A, [A0], [A]).
kk_gnu_eval(- A0, - A, [A0], [A]).
kk_gnu_eval(A0 + B0, A + B, [A0, B0], [A, B]).
kk_gnu_eval(A0 - B0, A - B, [A0, B0], [A, B]).
kk_gnu_eval(A0 * B0, A * B, [A0, B0], [A, B]).
kk_gnu_eval(A0 / B0, A / B, [A0, B0], [A, B]).
kk_gnu_eval(A0 // B0, A // B, [A0, B0], [A, B]).
kk_gnu_eval(A0 rem B0, A rem B, [A0, B0], [A, B]).
kk_gnu_eval(A0 ** B0, A ^ B, [A0, B0], [A, B]).
kk_gnu_eval(min(A0, B0), min(A, B), [A0, B0], [A, B]).
kk_gnu_eval(max(A0, B0), max(A, B), [A0, B0], [A, B]).
kk_gnu_eval(dist(A0, B0), abs(A - B), [A0, B0], [A, B]).

% ---------------------------------------------------------------------------
% Domains

% fd_domain(?Vars, +Lo, +Hi): Vars (a variable or a list) range over Lo..Hi.
fd_domain(Vs0, Lo0, Hi0) :-
    kk_gnu_integer(Lo0, fd_domain/3),
    kk_gnu_integer(Hi0, fd_domain/3),
    kk_gnu_max_integer(M),
    Lo is max(0, Lo0),
    Hi is min(M, Hi0),
    kk_gnu_var_list(Vs0, Vs),
    (   Vs == [] -> true            % GNU: fd_domain([], 1, 0) succeeds
    ;   Lo =< Hi,
        kk_gnu_ins(Vs, '..'(Lo, Hi))
    ).

% fd_domain(?Vars, +Values): Vars range over the (nonnegative) integers in Values.
fd_domain(Vs0, Values) :-
    kk_gnu_values_dom(Values, Dom),
    kk_gnu_var_list(Vs0, Vs),
    kk_gnu_ins(Vs, Dom).

kk_gnu_values_dom(Values, Dom) :-
    kk_gnu_max_integer(M),
    kk_gnu_values_dom_(Values, M, none, Dom).

kk_gnu_values_dom_([], _, Dom0, Dom) :-
    Dom0 \== none,
    Dom = Dom0.
kk_gnu_values_dom_([V | Vs], M, Dom0, Dom) :-
    kk_gnu_integer(V, fd_domain/2),
    (   V < 0 -> Dom1 = Dom0
    ;   V > M -> Dom1 = Dom0
    ;   Dom0 == none -> Dom1 = V
    ;   Dom1 = Dom0 \/ V
    ),
    kk_gnu_values_dom_(Vs, M, Dom1, Dom).

kk_gnu_ins([], _).
kk_gnu_ins([V | Vs], Dom) :-
    kk_gnu_clpz(in(V, Dom)),
    kk_gnu_ins(Vs, Dom).

fd_domain_bool(Vs) :-
    fd_domain(Vs, 0, 1).

% kk_gnu_var_list(+VarOrList, -List)
kk_gnu_var_list(V, [V]) :-
    var(V),
    !.
kk_gnu_var_list(V, [V]) :-
    integer(V),
    !.
kk_gnu_var_list(L, L).

kk_gnu_integer(I, Ctx) :-
    (   var(I) -> throw(error(instantiation_error, Ctx))
    ;   integer(I) -> true
    ;   throw(error(type_error(integer, I), Ctx))
    ).

fd_all_different(Vs) :-
    kk_gnu_natural(Vs),
    kk_gnu_clpz(all_different(Vs)).

fd_set_vector_max(N) :-
    kk_gnu_integer(N, fd_set_vector_max/1),
    iso_ext:bb_put(kk_gnu_vector_max, N).

fd_vector_max(N) :-
    (   iso_ext:bb_get(kk_gnu_vector_max, N0) -> N = N0 ; N = 127 ).

fd_max_integer(M) :-
    kk_gnu_max_integer(M).

fd_min(X, Min) :-
    kk_gnu_clpz(fd_inf(X, Min0)),
    (   Min0 == inf -> Min = 0 ; Min = Min0 ).

fd_max(X, Max) :-
    kk_gnu_clpz(fd_sup(X, Max0)),
    (   Max0 == sup -> kk_gnu_max_integer(Max) ; Max = Max0 ).

fd_size(X, Size) :-
    kk_gnu_clpz(fd_size(X, Size0)),
    (   Size0 == sup -> kk_gnu_max_integer(M), Size is M + 1 ; Size = Size0 ).

% fd_dom(?X, -Values): the values of X's domain, as a list.
fd_dom(X, Values) :-
    (   integer(X) -> Values = [X]
    ;   kk_gnu_natural([X]), kk_gnu_clpz(fd_dom(X, Dom)), kk_gnu_dom_list(Dom, Values, [])
    ).

kk_gnu_dom_list(D1 \/ D2, L0, L) :-
    !,
    kk_gnu_dom_list(D1, L0, L1),
    kk_gnu_dom_list(D2, L1, L).
kk_gnu_dom_list('..'(Lo, Hi), L0, L) :-
    !,
    kk_gnu_range(Lo, Hi, L0, L).
kk_gnu_dom_list(N, [N | L], L).

kk_gnu_range(Lo, Hi, L0, L) :-
    (   Lo > Hi -> L0 = L
    ;   L0 = [Lo | L1], Lo1 is Lo + 1, kk_gnu_range(Lo1, Hi, L1, L)
    ).

fd_has_vector(X) :-
    fd_max(X, Max),
    fd_vector_max(V),
    Max =< V.

fd_use_vector(X) :-
    kk_gnu_natural([X]).

fd_var(X) :-
    var(X),
    kk_gnu_clpz(fd_var(X)).

non_fd_var(X) :-
    \+ fd_var(X).

generic_var(X) :-
    var(X).

non_generic_var(X) :-
    nonvar(X).

% ---------------------------------------------------------------------------
% Global constraints

fd_element(I, L, X) :-
    kk_gnu_natural([I, X | L]),
    kk_gnu_clpz(element(I, L, X)).

fd_element_var(I, L, X) :-
    kk_gnu_natural([I, X | L]),
    kk_gnu_clpz(element(I, L, X)).

% fd_atmost(+N, +List, +V): at most N elements of List equal V (also atleast/exactly).
fd_atmost(N, L, V) :-
    kk_gnu_count(L, V, C),
    kk_gnu_clpz(C #=< N).

fd_atleast(N, L, V) :-
    kk_gnu_count(L, V, C),
    kk_gnu_clpz(C #>= N).

fd_exactly(N, L, V) :-
    kk_gnu_count(L, V, C),
    kk_gnu_clpz(C #= N).

kk_gnu_count(L, V, C) :-
    kk_gnu_natural(L),
    kk_gnu_eq_bools(L, V, Bs),
    kk_gnu_clpz(sum(Bs, #=, C)).

kk_gnu_eq_bools([], _, []).
kk_gnu_eq_bools([X | Xs], V, [B | Bs]) :-
    kk_gnu_clpz('#<==>'(X #= V, B)),
    kk_gnu_eq_bools(Xs, V, Bs).

% fd_cardinality(+Constraints, ?N): N of the constraints hold.
fd_cardinality(Cs, N) :-
    kk_gnu_bools(Cs, Bs),
    kk_gnu_clpz(sum(Bs, #=, N)).

fd_cardinality(Lo, Hi, Cs) :-
    kk_gnu_integer(Lo, fd_cardinality/3),
    kk_gnu_integer(Hi, fd_cardinality/3),
    kk_gnu_bools(Cs, Bs),
    kk_gnu_clpz(sum(Bs, #=, N)),
    kk_gnu_clpz(in(N, '..'(Lo, Hi))).

fd_at_least_one(Cs) :-
    kk_gnu_bools(Cs, Bs),
    kk_gnu_clpz(sum(Bs, #>=, 1)).

fd_at_most_one(Cs) :-
    kk_gnu_bools(Cs, Bs),
    kk_gnu_clpz(sum(Bs, #=<, 1)).

fd_only_one(Cs) :-
    kk_gnu_bools(Cs, Bs),
    kk_gnu_clpz(sum(Bs, #=, 1)).

kk_gnu_bools([], []).
kk_gnu_bools([C0 | Cs], [B | Bs]) :-
    kk_gnu_constraint(C0, C),
    term_variables(C0, Vs),
    kk_gnu_natural(Vs),
    kk_gnu_clpz('#<==>'(C, B)),
    kk_gnu_bools(Cs, Bs).

fd_relation(Tuples, Vars) :-
    kk_gnu_natural(Vars),
    kk_gnu_clpz(tuples_in([Vars], Tuples)).

fd_relationc(Columns, Vars) :-
    kk_gnu_transpose(Columns, Tuples),
    fd_relation(Tuples, Vars).

kk_gnu_transpose([], []).
kk_gnu_transpose([C | Cs], Rows) :-
    kk_gnu_transpose_(C, [C | Cs], Rows).

kk_gnu_transpose_([], _, []).
kk_gnu_transpose_([_ | T], Cols, [Row | Rows]) :-
    kk_gnu_heads_tails(Cols, Row, Cols1),
    kk_gnu_transpose_(T, Cols1, Rows).

kk_gnu_heads_tails([], [], []).
kk_gnu_heads_tails([[H | T] | Ls], [H | Hs], [T | Ts]) :-
    kk_gnu_heads_tails(Ls, Hs, Ts).

fd_reified_in(X, Lo, Hi, B) :-
    kk_gnu_natural([X]),
    kk_gnu_clpz('#<==>'(B, '#/\\'(X #>= Lo, X #=< Hi))).

fd_prime(X) :-
    fd_vector_max(M),
    kk_gnu_primes(2, M, Ps),
    fd_domain(X, Ps).

fd_not_prime(X) :-
    fd_vector_max(M),
    kk_gnu_primes(2, M, Ps),
    kk_gnu_range(0, M, All, []),
    kk_gnu_list_minus(All, Ps, NPs),
    fd_domain(X, NPs).

kk_gnu_primes(N, M, Ps) :-
    (   N > M -> Ps = []
    ;   kk_gnu_prime(N) -> Ps = [N | Ps1], N1 is N + 1, kk_gnu_primes(N1, M, Ps1)
    ;   N1 is N + 1, kk_gnu_primes(N1, M, Ps)
    ).

kk_gnu_prime(N) :-
    \+ ( between:between(2, N, D), D * D =< N, N mod D =:= 0 ).

kk_gnu_list_minus([], _, []).
kk_gnu_list_minus([X | Xs], Ys, Zs) :-
    (   lists:memberchk(X, Ys) -> Zs = Zs1 ; Zs = [X | Zs1] ),
    kk_gnu_list_minus(Xs, Ys, Zs1).
