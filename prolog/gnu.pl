/*  gnu.pl -- GNU Prolog 1.4.5 compatibility layer for Scryer Prolog 0.10 (kenken judge).

    Consult this file into `user` BEFORE the judged file.  It loads library(clpz) without
    importing its operators or constraint predicates, switches off clpz's goal expansion
    (which would otherwise rewrite `X #= Y` in later files straight into clpz calls), and
    defines GNU's FD predicates and operators in `user` with GNU's semantics.  A judged file
    that itself does `:- use_module(library(clpz)).` gets clpz's own #=/2 etc. back (the
    import replaces these definitions), so Scryer/SWI-dialect files keep clpz semantics.

    double_quotes: the last directive sets the flag to `codes` (GNU's default); the flag is
    global in Scryer and stays in effect for the judged file.  Set it back to `chars` after
    the judged file is loaded, before the host parses its own goals.

    Covered (GNU semantics checked against gprolog 1.4.5):
      FD: fd_domain/2,3, fd_domain_bool/1, fd_all_different/1, fd_labeling/1,2 (all
        variable_method/value_method options, reorder/1, backtracks/1), fd_labelingff/1,
        fd_set_vector_max/1 (recorded only), fd_vector_max/1, fd_max_integer/1, fd_min/2,
        fd_max/2, fd_size/2, fd_dom/2, fd_has_vector/1, fd_use_vector/1, fd_var/1,
        non_fd_var/1, generic_var/1, non_generic_var/1, fd_element/3, fd_element_var/3,
        fd_atmost/3, fd_atleast/3, fd_exactly/3, fd_cardinality/2,3, fd_at_least_one/1,
        fd_at_most_one/1, fd_only_one/1, fd_relation/2, fd_relationc/2, fd_reified_in/4,
        fd_prime/1, fd_not_prime/1.
      Operators (GNU priorities): #= #\= #< #=< #> #>= and #=# #\=# #<# #=<# #># #>=#
        (700 xfx); #<=> #\<=> (750 xfy); #==> #\==> (740 xfy); ## #\/ #\\/ (730 xfy/yfx);
        #/\ #\/\ (720 yfx); #\ (710 fy).  GNU 1.4.5 has no #<== / #\<==.
      FD expressions: integers, variables, +E, -E, + - * / // rem ** min max dist.
        `/` is exact division (X #= 7/2 fails), as in GNU.  `mod`, `abs`, `^` and other
        terms raise type_error(fd_evaluable, F/A), as in GNU 1.4.5.  Every variable in an
        FD constraint gets the domain 0..268435455 (GNU has no negative FD values, so
        X #= 3-5 fails).
      Other: nth/3, last/2, max_list/2, min_list/2, msort/2, delete/3, subtract/3,
        flatten/2, name/2, tab/1, print/1, g_assign/2, g_assignb/2, g_read/2, g_inc/1,2,
        g_dec/1, statistics/0, statistics/2 (runtime, cpu_time, user_time, system_time,
        real_time), cpu_time/1, user_time/1, system_time/1, real_time/1, format/2,3 that
        accept code lists (format and ~s arguments).  From Scryer libraries: lists
        (append, member, memberchk, reverse, length, nth0, nth1, select, permutation,
        sum_list, maplist/2..8), between/3, succ/2, forall/2.
      Loading: a clause for a GNU built-in predicate is ignored with GNU's error, and a
        clause of a predicate whose clauses were interrupted (not declared discontiguous) is
        ignored with GNU's warning, as gprolog does (term_expansion/2 at the end of this file);
        a clause for a Scryer built-in that GNU lacks (e.g. a use_module/1 fact) is ignored.
    Approximations:
      - the full-consistency operators (#=# ...) post the same clpz constraint as #= ...;
      - value_method(bisect) enumerates as min; variable_method(most_constrained) is
        first_fail (no constraint count); backtracks(B) counts value retries;
      - real_time has 1 s resolution (Scryer 0.10 has no finer wall clock);
        user_time = cpu_time, system_time = 0.
    Not supported: see kk_gnu_unsupported/1 below (an existence error on one of these
    names is reported as "uses NAME/ARITY, which judge does not support").
*/

:- use_module(library(lists), [append/3, member/2, memberchk/2, reverse/2, length/2,
                               nth0/3, nth1/3, select/3, permutation/2, sum_list/2,
                               maplist/2, maplist/3, maplist/4, maplist/5, maplist/6,
                               maplist/7, maplist/8]).
:- use_module(library(between), [between/3]).
:- use_module(library(iso_ext), [succ/2, forall/2, bb_put/2, bb_get/2, bb_b_put/2]).
:- use_module(library(format), [portray_clause/1, listing/1]).
:- use_module(library(time), [current_time/1]).
:- use_module(library(random), [random_integer/3]).
% Loads clpz (an empty import list does not load the module in Scryer 0.10).
:- use_module(library(clpz), [zcompare/3]).

:- initialization(assertz(clpz:goal_expansion(false))).
:- initialization(kk_gnu_stats_init).

%% Unsupported GNU builtins (kept undefined: calling one is an existence error).
kk_gnu_unsupported(fd_maximize/2).
kk_gnu_unsupported(fd_minimize/2).
kk_gnu_unsupported(fd_has_extra_cstr/1).
kk_gnu_unsupported(g_link/2).
kk_gnu_unsupported(g_array_size/2).
kk_gnu_unsupported(sort/4).
kk_gnu_unsupported(read_integer/1).
kk_gnu_unsupported(read_atom/1).
kk_gnu_unsupported(write_pl_state_file/1).
kk_gnu_unsupported(read_pl_state_file/1).
kk_gnu_unsupported(format_to_codes/3).
kk_gnu_unsupported(pause/0).

:- op(700, xfx, #=).
:- op(700, xfx, #\=).
:- op(700, xfx, #<).
:- op(700, xfx, #=<).
:- op(700, xfx, #>).
:- op(700, xfx, #>=).
:- op(700, xfx, #=#).
:- op(700, xfx, #\=#).
:- op(700, xfx, #<#).
:- op(700, xfx, #=<#).
:- op(700, xfx, #>#).
:- op(700, xfx, #>=#).
:- op(750, xfy, #<=>).
:- op(750, xfy, #\<=>).
:- op(740, xfy, #==>).
:- op(740, xfy, #\==>).
:- op(730, xfy, ##).
:- op(730, yfx, #\/).
:- op(730, yfx, #\\/).
:- op(720, yfx, #/\).
:- op(720, yfx, #\/\).
:- op(710, fy, #\).

% kk_gnu_max_integer(-M): GNU's fd_max_integer on 64-bit builds.
kk_gnu_max_integer(268435455).

%%%% FD constraints

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

%%%% Domains

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
    bb_put(kk_gnu_vector_max, N).

fd_vector_max(N) :-
    (   bb_get(kk_gnu_vector_max, N0) -> N = N0 ; N = 127 ).

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

%%%% Global constraints

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
    \+ ( between(2, N, D), D * D =< N, N mod D =:= 0 ).

kk_gnu_list_minus([], _, []).
kk_gnu_list_minus([X | Xs], Ys, Zs) :-
    (   lists:memberchk(X, Ys) -> Zs = Zs1 ; Zs = [X | Zs1] ),
    kk_gnu_list_minus(Xs, Ys, Zs1).

%%%% Labeling

fd_labeling(Vs) :-
    fd_labeling(Vs, []).

fd_labelingff(Vs) :-
    fd_labeling(Vs, [variable_method(ff)]).

% fd_labeling(+Vars, +Options): GNU's labeling.  A variable is chosen (reorder(true):
% the chosen one swaps places with the first remaining one, as GNU does), then its values
% are tried in the value_method's order, each retry posting X #\= V first.
fd_labeling(Vs0, Opts) :-
    kk_gnu_var_list(Vs0, Vs),
    kk_gnu_label_ground(Vs),
    kk_gnu_label_opts(Opts, standard, VarM, min, ValM, true, Reorder, BT),
    bb_put(kk_gnu_backtracks, 0),
    kk_gnu_label(Vs, VarM, ValM, Reorder),
    (   var(BT) -> bb_get(kk_gnu_backtracks, BT) ; true ).

kk_gnu_label_ground([]).
kk_gnu_label_ground([V | Vs]) :-
    (   var(V), \+ kk_gnu_clpz(fd_var(V)) -> throw(error(instantiation_error, fd_labeling/2))
    ;   integer(V) -> true
    ;   var(V) -> true
    ;   throw(error(type_error(fd_variable, V), fd_labeling/2))
    ),
    kk_gnu_label_ground(Vs).

kk_gnu_label_opts(Opts, Var0, Var, Val0, Val, R0, R, BT) :-
    (   var(Opts) -> throw(error(instantiation_error, fd_labeling/2))
    ;   Opts == [] -> Var = Var0, Val = Val0, R = R0
    ;   Opts = [O | Os] ->
        kk_gnu_label_opt(O, Var0, Var1, Val0, Val1, R0, R1, BT),
        kk_gnu_label_opts(Os, Var1, Var, Val1, Val, R1, R, BT)
    ;   throw(error(type_error(list, Opts), fd_labeling/2))
    ).

kk_gnu_label_opt(O, Var0, Var, Val0, Val, R0, R, BT) :-
    (   var(O) -> throw(error(instantiation_error, fd_labeling/2))
    ;   O = variable_method(M), kk_gnu_var_method(M, M1) -> Var = M1, Val = Val0, R = R0
    ;   O = value_method(M), kk_gnu_val_method(M) -> Var = Var0, Val = M, R = R0
    ;   O = reorder(B), ( B == true ; B == false ) -> Var = Var0, Val = Val0, R = B
    ;   O = backtracks(B) -> Var = Var0, Val = Val0, R = R0, B = BT
    ;   throw(error(domain_error(fd_labeling_option, O), fd_labeling/2))
    ).

kk_gnu_var_method(standard, standard).
kk_gnu_var_method(first_fail, ff).
kk_gnu_var_method(ff, ff).
kk_gnu_var_method(most_constrained, ff).
kk_gnu_var_method(smallest, smallest).
kk_gnu_var_method(largest, largest).
kk_gnu_var_method(max_regret, max_regret).
kk_gnu_var_method(random, random).

kk_gnu_val_method(min).
kk_gnu_val_method(max).
kk_gnu_val_method(middle).
kk_gnu_val_method(bisect).
kk_gnu_val_method(limits).
kk_gnu_val_method(random).

kk_gnu_label(Vs0, VarM, ValM, Reorder) :-
    kk_gnu_unbound(Vs0, Vs),
    (   Vs == [] -> true
    ;   kk_gnu_select(VarM, Vs, Reorder, X, Rest),
        kk_gnu_value(ValM, X),
        kk_gnu_label(Rest, VarM, ValM, Reorder)
    ).

kk_gnu_unbound([], []).
kk_gnu_unbound([V | Vs], Us) :-
    (   var(V) -> Us = [V | Us1] ; Us = Us1 ),
    kk_gnu_unbound(Vs, Us1).

% kk_gnu_select(+Method, +Vars, +Reorder, -X, -Rest)
kk_gnu_select(standard, [X | Rest], _, X, Rest).
kk_gnu_select(random, Vs, Reorder, X, Rest) :-
    length(Vs, N),
    N1 is N + 1,
    random_integer(1, N1, K),
    kk_gnu_take(Vs, K, Reorder, X, Rest).
kk_gnu_select(M, [V | Vs], Reorder, X, Rest) :-
    M \== standard,
    M \== random,
    kk_gnu_key(M, V, K0),
    kk_gnu_best(Vs, M, 2, K0, 1, I),
    kk_gnu_take([V | Vs], I, Reorder, X, Rest).

kk_gnu_best([], _, _, _, I, I).
kk_gnu_best([V | Vs], M, J, K0, I0, I) :-
    kk_gnu_key(M, V, K),
    J1 is J + 1,
    (   K < K0 -> kk_gnu_best(Vs, M, J1, K, J, I)
    ;   kk_gnu_best(Vs, M, J1, K0, I0, I)
    ).

% kk_gnu_key(+Method, +X, -Key): the variable with the smallest key is chosen.
kk_gnu_key(ff, X, K) :-
    kk_gnu_clpz(fd_size(X, K)).
kk_gnu_key(smallest, X, K) :-
    kk_gnu_clpz(fd_inf(X, K)).
kk_gnu_key(largest, X, K) :-
    kk_gnu_clpz(fd_sup(X, S)),
    K is -S.
kk_gnu_key(max_regret, X, K) :-
    fd_dom(X, [A, B | _]),
    K is A - B.

% kk_gnu_take(+Vars, +I, +Reorder, -X, -Rest): X is the I-th; with reorder the first one
% takes its place.
kk_gnu_take([V | Vs], 1, _, V, Vs) :-
    !.
kk_gnu_take([V | Vs], I, Reorder, X, Rest) :-
    I0 is I - 1,
    kk_gnu_take_(Vs, I0, X, Vs1, Hole),
    (   Reorder == true -> Hole = V, Rest = Vs1 ; Rest = [V | Vs1], Hole = [] ).

% kk_gnu_take_(+Vars, +I, -X, -Rest, ?Hole): Rest is Vars with the I-th replaced by Hole
% (Hole = [] removes it).
kk_gnu_take_([V | Vs], I, X, Rest, Hole) :-
    (   I =:= 1 ->
        X = V,
        (   Hole == [] -> Rest = Vs ; Rest = [Hole | Vs] )
    ;   I1 is I - 1,
        Rest = [V | Rest1],
        kk_gnu_take_(Vs, I1, X, Rest1, Hole)
    ).

% kk_gnu_value(+Method, ?X): X takes the values of its domain in Method's order.
kk_gnu_value(_, X) :-
    integer(X),
    !.
kk_gnu_value(M, X) :-
    kk_gnu_pick(M, X, V, M1),
    (   X = V
    ;   var(X),
        bb_get(kk_gnu_backtracks, B0),
        B is B0 + 1,
        bb_put(kk_gnu_backtracks, B),
        kk_gnu_clpz(X #\= V),
        kk_gnu_value(M1, X)
    ).

% kk_gnu_pick(+Method, +X, -Value, -NextMethod)
kk_gnu_pick(min, X, V, min) :-
    kk_gnu_clpz(fd_inf(X, V)).
kk_gnu_pick(bisect, X, V, bisect) :-
    kk_gnu_clpz(fd_inf(X, V)).
kk_gnu_pick(max, X, V, max) :-
    kk_gnu_clpz(fd_sup(X, V)).
kk_gnu_pick(limits, X, V, limits_max) :-
    kk_gnu_clpz(fd_inf(X, V)).
kk_gnu_pick(limits_max, X, V, limits) :-
    kk_gnu_clpz(fd_sup(X, V)).
kk_gnu_pick(middle, X, V, middle) :-
    fd_dom(X, L),
    length(L, N),
    K is max(1, N // 2),
    nth1(K, L, V).
kk_gnu_pick(random, X, V, random) :-
    fd_dom(X, L),
    length(L, N),
    N1 is N + 1,
    random_integer(1, N1, K),
    nth1(K, L, V).

%%%% Lists

nth(N, L, X) :-
    nth1(N, L, X).

last([X], X) :-
    !.
last([_ | Xs], X) :-
    last(Xs, X).

max_list([X | Xs], Max) :-
    kk_gnu_max_list(Xs, X, Max).

kk_gnu_max_list([], M, M).
kk_gnu_max_list([X | Xs], M0, M) :-
    M1 is max(M0, X),
    kk_gnu_max_list(Xs, M1, M).

min_list([X | Xs], Min) :-
    kk_gnu_min_list(Xs, X, Min).

kk_gnu_min_list([], M, M).
kk_gnu_min_list([X | Xs], M0, M) :-
    M1 is min(M0, X),
    kk_gnu_min_list(Xs, M1, M).

% msort(+List, -Sorted): sorted, duplicates kept (keysort is stable).
msort(L, S) :-
    kk_gnu_pairs(L, Ps),
    keysort(Ps, Ss),
    kk_gnu_pairs(S, Ss).

kk_gnu_pairs([], []).
kk_gnu_pairs([X | Xs], [X-0 | Ps]) :-
    kk_gnu_pairs(Xs, Ps).

% delete(+List, @X, -Rest): removes every element identical to X (as GNU 1.4.5 does).
delete([], _, []).
delete([Y | Ys], X, Zs) :-
    (   Y \== X -> Zs = [Y | Zs1] ; Zs = Zs1 ),
    delete(Ys, X, Zs1).

subtract([], _, []).
subtract([X | Xs], Ys, Zs) :-
    (   lists:memberchk(X, Ys) -> Zs = Zs1 ; Zs = [X | Zs1] ),
    subtract(Xs, Ys, Zs1).

flatten(L, F) :-
    kk_gnu_flatten(L, F, []).

kk_gnu_flatten(V, [V | F], F) :-
    var(V),
    !.
kk_gnu_flatten([], F, F) :-
    !.
kk_gnu_flatten([X | Xs], F0, F) :-
    !,
    kk_gnu_flatten(X, F0, F1),
    kk_gnu_flatten(Xs, F1, F).
kk_gnu_flatten(X, [X | F], F).

%%%% Miscellaneous builtins

name(X, Codes) :-
    (   var(X) ->
        (   catch(number_codes(X, Codes), _, fail) -> true ; atom_codes(X, Codes) )
    ;   number(X) -> number_codes(X, Codes)
    ;   atom_codes(X, Codes)
    ).

tab(N) :-
    N1 is N,
    kk_gnu_spaces(N1).

kk_gnu_spaces(N) :-
    (   N =< 0 -> true ; put_char(' '), N1 is N - 1, kk_gnu_spaces(N1) ).

print(X) :-
    write(X).

g_assign(K, V) :-
    kk_gnu_gkey(K, Key),
    bb_put(Key, V).

g_assignb(K, V) :-
    kk_gnu_gkey(K, Key),
    bb_b_put(Key, V).

g_read(K, V) :-
    kk_gnu_gkey(K, Key),
    (   bb_get(Key, V0) -> V = V0 ; V = 0 ).

g_inc(K) :-
    g_inc(K, _).

g_inc(K, V) :-
    g_read(K, V0),
    V is V0 + 1,
    g_assign(K, V).

g_dec(K) :-
    g_read(K, V0),
    V is V0 - 1,
    g_assign(K, V).

kk_gnu_gkey(K, Key) :-
    kk_gnu_integer_atom(K),
    atom_concat(kk_gnu_g_, K, Key).

kk_gnu_integer_atom(K) :-
    (   var(K) -> throw(error(instantiation_error, g_assign/2))
    ;   atom(K) -> true
    ;   throw(error(type_error(atom, K), g_assign/2))
    ).

%%%% Times

kk_gnu_stats_init :-
    kk_gnu_now(cpu_time, C),
    kk_gnu_now(real_time, R),
    bb_put(kk_gnu_t0_cpu_time, C),
    bb_put(kk_gnu_t0_real_time, R),
    forall(kk_gnu_time_key(K, _), kk_gnu_set_last(K, 0)).

kk_gnu_time_key(runtime, cpu_time).
kk_gnu_time_key(cpu_time, cpu_time).
kk_gnu_time_key(user_time, cpu_time).
kk_gnu_time_key(system_time, none).
kk_gnu_time_key(real_time, real_time).

kk_gnu_set_last(K, V) :-
    atom_concat(kk_gnu_last_, K, Key),
    bb_put(Key, V).

% kk_gnu_now(+Clock, -Ms)
kk_gnu_now(cpu_time, Ms) :-
    '$cpu_now'(S),
    Ms is truncate(S * 1000).
kk_gnu_now(real_time, Ms) :-
    current_time(T),
    kk_gnu_stamp(T, Ms).
kk_gnu_now(none, 0).

kk_gnu_stamp(T, Ms) :-
    kk_gnu_stamp_field(T, 'Y', Y),
    kk_gnu_stamp_field(T, j, D),
    kk_gnu_stamp_field(T, 'H', H),
    kk_gnu_stamp_field(T, 'M', M),
    kk_gnu_stamp_field(T, 'S', S),
    Ms is ((((Y * 366 + D) * 24 + H) * 60 + M) * 60 + S) * 1000.

kk_gnu_stamp_field(T, K, N) :-
    lists:member(K = Cs, T),
    !,
    (   Cs = [C | _], integer(C) -> number_codes(N, Cs) ; number_chars(N, Cs) ).

% kk_gnu_since(+Key, -Total, -SinceLast)
kk_gnu_since(Key, Total, Last) :-
    kk_gnu_time_key(Key, Clock),
    kk_gnu_now(Clock, Now),
    (   Clock == none -> T0 = 0
    ;   atom_concat(kk_gnu_t0_, Clock, K0), bb_get(K0, T0)
    ),
    Total is Now - T0,
    atom_concat(kk_gnu_last_, Key, KL),
    bb_get(KL, Prev),
    Last is Total - Prev,
    bb_put(KL, Total).

statistics(Key, Value) :-
    (   var(Key) -> kk_gnu_time_key(Key, _) ; true ),
    (   kk_gnu_time_key(Key, _) ->
        kk_gnu_since(Key, T, L),
        Value = [T, L]
    ;   throw(error(domain_error(statistics_key, Key), statistics/2))
    ).

cpu_time(T) :-
    statistics(cpu_time, [T, _]).
user_time(T) :-
    statistics(user_time, [T, _]).
system_time(T) :-
    statistics(system_time, [T, _]).
real_time(T) :-
    statistics(real_time, [T, _]).

statistics :-
    format:format("Times              since start      since last~n~n", []),
    forall(lists:member(K-Label, [user_time-"user   time", system_time-"system time",
                                  cpu_time-"cpu    time", real_time-"real   time"]),
           (   kk_gnu_since(K, T, L),
               TS is T / 1000,
               LS is L / 1000,
               format:format("   ~s ~t~3f~29| sec ~t~3f~45| sec~n", [Label, TS, LS])
           )),
    nl.

%%%% format/2,3 accepting code lists (GNU's double_quotes is codes)

format(F, Args) :-
    kk_gnu_format_args(F, Args, F1, Args1),
    format:format(F1, Args1).

format(S, F, Args) :-
    kk_gnu_format_args(F, Args, F1, Args1),
    format:format(S, F1, Args1).

% kk_gnu_format_args(+Format, +Args, -Chars, -Args1): the format as chars, ~s arguments
% given as codes turned into chars.
kk_gnu_format_args(F, Args, Cs, Args1) :-
    kk_gnu_text_chars(F, Cs),
    (   lists:length(Args, _) -> kk_gnu_directives(Cs, Args, Args1)
    ;   Args1 = Args
    ).

kk_gnu_text_chars(F, Cs) :-
    (   atom(F) -> atom_chars(F, Cs)
    ;   F = [C | _], integer(C) -> kk_gnu_codes_chars(F, Cs)
    ;   Cs = F
    ).

kk_gnu_codes_chars(Codes, Chars) :-
    (   catch(atom_codes(A, Codes), _, fail) -> atom_chars(A, Chars) ; Chars = Codes ).

kk_gnu_directives([], Args, Args).
kk_gnu_directives([C | Cs], Args0, Args) :-
    (   C == (~) -> kk_gnu_directive(Cs, Args0, Args)
    ;   kk_gnu_directives(Cs, Args0, Args)
    ).

kk_gnu_directive([], Args, Args).
kk_gnu_directive([D | Cs0], Args0, Args) :-
    (   D == (*) ->
        (   Args0 = [N | Args1] -> Args = [N | Args2] ; Args1 = Args0, Args = Args2 ),
        kk_gnu_directive(Cs0, Args1, Args2)
    ;   char_code(D, K), K >= 0'0, K =< 0'9 ->
        kk_gnu_directive(Cs0, Args0, Args)
    ;   lists:memberchk(D, [n, (~), t, '|', '+']) ->
        kk_gnu_directives(Cs0, Args0, Args)
    ;   Args0 = [A0 | Args1] ->
        (   D == s, A0 = [X | _], integer(X) -> kk_gnu_codes_chars(A0, A) ; A = A0 ),
        Args = [A | Args2],
        kk_gnu_directives(Cs0, Args1, Args2)
    ;   Args = Args0
    ).

%%%% Loading as GNU Prolog does

% GNU Prolog ignores a clause for one of its built-in predicates ("native code procedure
% member/2 cannot be redefined (ignored)", an error), and a clause of a predicate whose
% clauses were interrupted by another predicate's, unless it is declared discontiguous
% ("discontiguous predicate p/1 - clause ignored", a warning).  Scryer would instead redefine
% the built-in, and replace the predicate's earlier clauses by the later ones.  The judged
% file's clauses go through term_expansion/2 (defined last: this file's own clauses do not),
% which drops those clauses with GNU's message on user_error.

% kk_gnu_builtins(Arity, Names): GNU Prolog 1.4.5's built-in predicates, from
% `predicate_property(H, built_in)`.
kk_gnu_builtins(0, ['!', abort, at_end_of_stream, break, debug, debugging, fail, false,
    flush_output, halt, listing, nl, nodebug, nospyall, notrace, randomize, repeat, seen,
    shell, statistics, stop, told, top_level, trace, true, wam_debug]).
kk_gnu_builtins(1, ['#\\', '\\+', abolish, acyclic_term, add_linedit_completion, append,
    architecture, argument_counter, argument_list, asserta, assertz, at_end_of_stream, atom,
    atomic, call, call_with_args, callable, change_directory, close, close_input_atom_stream,
    close_input_chars_stream, close_input_codes_stream, compound, consult, cpu_time,
    current_atom, current_input, current_output, current_predicate, current_stream, date_time,
    delete_directory, delete_file, display, fd_all_different, fd_at_least_one, fd_at_most_one,
    fd_domain_bool, fd_has_extra_cstr, fd_has_vector, fd_labeling, fd_labelingff,
    fd_max_integer, fd_not_prime, fd_only_one, fd_prime, fd_set_vector_max, fd_use_vector,
    fd_var, fd_vector_max, file_exists, float, flush_output, fork_prolog, g_dec, g_inc,
    generic_var, get, get0, get_byte, get_char, get_code, get_key, get_key_no_echo,
    get_linedit_prompt, get_print_stream, get_seed, ground, halt, host_name, integer,
    is_absolute_file_name, is_list, is_relative_file_name, keysort, leash, list,
    list_or_partial_list, listing, load, make_directory, msort, name_singleton_vars, new_atom,
    nl, non_fd_var, non_generic_var, nonvar, nospy, number, numbervars, once,
    open_output_atom_stream, open_output_chars_stream, open_output_codes_stream, os_version,
    partial_list, peek_byte, peek_char, peek_code, portray_clause, print, prolog_pid, put,
    put_byte, put_char, put_code, random, read, read_atom, read_integer, read_number,
    read_pl_state_file, read_token, real_time, retract, retractall, see, seeing, set_input,
    set_linedit_prompt, set_output, set_seed, shell, skip, sleep, socket_close, sort, spy,
    sr_close, sr_current_descriptor, sr_new_pass, system, system_time, tab, tell, telling,
    throw, unget_byte, unget_char, unget_code, unlink, user_time, var, working_directory,
    write, write_canonical, write_pl_state_file, writeq]).
kk_gnu_builtins(2, ['##', '#/\\', '#<', '#<#', '#<=>', '#=', '#=#', '#=<', '#=<#', '#==>',
    '#>', '#>#', '#>=', '#>=#', '#\\/', '#\\/\\', '#\\<=>', '#\\=', '#\\=#', '#\\==>',
    '#\\\\/', '*->', ',', '->', '.', ';', '<', '=', '=..', '=:=', '=<', '==', '=\\=', '>',
    '>=', '@<', '@=<', '@>', '@>=', '\\=', '\\==', absolute_file_name, add_stream_alias,
    add_stream_mirror, argument_value, atom_chars, atom_codes, atom_length, atom_property,
    bind_variables, call, call_det, call_with_args, char_code, char_conversion,
    character_count, clause, close, close_output_atom_stream, close_output_chars_stream,
    close_output_codes_stream, copy_term, create_pipe, current_alias, current_bip_name,
    current_char_conversion, current_mirror, current_prolog_flag, directory_files, display,
    display_to_atom, display_to_chars, display_to_codes, environ, expand_term, fd_cardinality,
    fd_dom, fd_domain, fd_labeling, fd_max, fd_maximize, fd_min, fd_minimize, fd_relation,
    fd_relationc, fd_size, file_permission, file_property, find_linedit_completion, flatten,
    forall, format, g_array_size, g_assign, g_assignb, g_dec, g_deco, g_inc, g_inco, g_link,
    g_read, g_reset_bit, g_set_bit, g_test_reset_bit, g_test_set_bit, get_byte, get_char,
    get_code, get_key, get_key_no_echo, hostname_address, is, keysort, last,
    last_read_start_line_column, length, line_count, line_position, lower_upper, maplist,
    max_list, member, memberchk, min_list, msort, name, name_query_vars, new_atom,
    number_atom, number_chars, number_codes, open_input_atom_stream, open_input_chars_stream,
    open_input_codes_stream, peek_byte, peek_char, peek_code, permutation, phrase,
    portray_clause, predicate_property, prefix, print, print_to_atom, print_to_chars,
    print_to_codes, prolog_file_name, put_byte, put_char, put_code, read, read_atom,
    read_from_atom, read_from_chars, read_from_codes, read_integer, read_number, read_term,
    read_token, read_token_from_atom, read_token_from_chars, read_token_from_codes,
    remove_stream_mirror, rename_file, reverse, send_signal, set_bip_name, set_prolog_flag,
    set_stream_buffering, set_stream_eof_action, set_stream_position, set_stream_type, shell,
    socket, socket_bind, socket_listen, sort, spawn, sr_change_options,
    sr_error_from_exception, sr_get_file_name, sr_get_include_list,
    sr_get_include_stream_list, sr_get_stream, sr_write_error, statistics, stream_position,
    stream_property, sublist, subsumes_term, succ, suffix, sum_list, system, temporary_name,
    term_hash, term_ref, term_variables, unget_byte, unget_char, unget_code,
    unify_with_occurs_check, wait, write, write_canonical, write_canonical_to_atom,
    write_canonical_to_chars, write_canonical_to_codes, write_term, write_to_atom,
    write_to_chars, write_to_codes, writeq, writeq_to_atom, writeq_to_chars, writeq_to_codes]).
kk_gnu_builtins(3, [append, arg, atom_concat, bagof, between, call, call_with_args, catch,
    compare, current_op, delete, fd_atleast, fd_atmost, fd_cardinality, fd_domain, fd_element,
    fd_element_var, fd_exactly, findall, for, format, format_to_atom, format_to_chars,
    format_to_codes, functor, g_dec, g_inc, maplist, nth, nth0, nth1, numbervars, op, open,
    phrase, popen, random, read_term, read_term_from_atom, read_term_from_chars,
    read_term_from_codes, select, set_stream_line_column, setarg, setof, socket_accept, spawn,
    spypoint_condition, sr_get_error_counters, sr_get_module, sr_get_position,
    sr_get_size_counters, sr_open, sr_set_error_counters, stream_line_column, subtract,
    temporary_file, term_variables, write_term, write_term_to_atom, write_term_to_chars,
    write_term_to_codes]).
kk_gnu_builtins(4, [call, call_with_args, decompose_file_name, exec, fd_reified_in, findall,
    maplist, open, seek, setarg, socket_accept, socket_connect, sr_read_term, sr_write_error,
    sr_write_message, syntax_error_info, term_hash]).
kk_gnu_builtins(5, [call, call_with_args, exec, maplist, select, sub_atom]).
kk_gnu_builtins(6, [call, call_with_args, maplist, sr_write_error, sr_write_message]).
kk_gnu_builtins(7, [call, call_with_args, maplist]).
kk_gnu_builtins(8, [call, call_with_args, maplist, sr_write_message]).
kk_gnu_builtins(9, [call, call_with_args, maplist]).
kk_gnu_builtins(10, [call, call_with_args]).
kk_gnu_builtins(11, [call, call_with_args]).

:- dynamic(kk_gnu_seen/1).
:- dynamic(kk_gnu_last/1).
:- dynamic(kk_gnu_discontiguous/1).
:- dynamic(kk_gnu_warned/1).

% kk_gnu_expand(+Term, -Clauses): [] for a clause GNU ignores; fails for a clause kept.
% GNU Prolog has no use_module/1,2: "unknown directive use_module/1 - maybe use
% initialization/1 - directive ignored".  A stray import of SWI's library(clpfd), which
% Scryer lacks (loading it would fail the whole file), is ignored so too.
kk_gnu_expand((:- D), []) :-
    nonvar(D),
    prolog_load_context(module, user),
    kk_gnu_stray_import(D, PI),
    !,
    kk_gnu_ignored(directive(PI)).
kk_gnu_expand(Term, []) :-
    nonvar(Term),
    Term \== [],
    prolog_load_context(module, user),
    (   Term = (:- D) -> kk_gnu_declare(D), fail
    ;   kk_gnu_clause_key(Term, Key)
    ),
    (   Key = N/A, kk_gnu_builtins(A, Ns), lists:memberchk(N, Ns) ->
        kk_gnu_ignored(builtin(Key))
    ;   kk_gnu_seen(Key), \+ kk_gnu_last(Key), \+ kk_gnu_discontiguous(Key) ->
        kk_gnu_ignored(discontiguous(Key))
    ;   Key = N/A, functor(H, N, A), predicate_property(H, built_in) ->
        % GNU would define it (e.g. a use_module/1 fact); Scryer cannot
        kk_gnu_ignored(scryer(Key))
    ;   retractall(kk_gnu_last(_)),
        assertz(kk_gnu_last(Key)),
        (   kk_gnu_seen(Key) -> true ; assertz(kk_gnu_seen(Key)) ),
        fail
    ).

% kk_gnu_stray_import(+Directive, -Name/Arity)
kk_gnu_stray_import(use_module(L), use_module/1) :- L == library(clpfd).
kk_gnu_stray_import(use_module(L, _), use_module/2) :- L == library(clpfd).
kk_gnu_stray_import(ensure_loaded(L), ensure_loaded/1) :- L == library(clpfd).

% kk_gnu_clause_key(+Clause, -Name/Arity)
kk_gnu_clause_key(Term, Key) :-
    (   Term = (H :- _) -> kk_gnu_head_key(H, 0, Key)
    ;   Term = (H --> _) -> kk_gnu_head_key(H, 2, Key)
    ;   kk_gnu_head_key(Term, 0, Key)
    ).

kk_gnu_head_key(H, Extra, N/A) :-
    (   H = (H1, _), Extra =:= 2 -> true ; H1 = H ),
    callable(H1),
    H1 \= _:_,
    functor(H1, N, A0),
    A is A0 + Extra.

% kk_gnu_declare(+Directive): records discontiguous/1 declarations.
kk_gnu_declare(D) :-
    (   nonvar(D), D = discontiguous(Specs) -> kk_gnu_declare_(Specs) ; true ).

kk_gnu_declare_(S) :-
    (   var(S) -> true
    ;   S = (S1, S2) -> kk_gnu_declare_(S1), kk_gnu_declare_(S2)
    ;   S = [_ | _] -> lists:maplist(kk_gnu_declare_, S)
    ;   S = N/A -> assertz(kk_gnu_discontiguous(N/A))
    ;   true
    ).

% kk_gnu_ignored(+Why): GNU's message, once per predicate (Scryer may expand a term twice).
kk_gnu_ignored(Why) :-
    (   kk_gnu_warned(Why) -> true
    ;   assertz(kk_gnu_warned(Why)),
        (   Why = builtin(PI) ->
            format:format(user_error, "error: native code procedure ~q cannot be redefined (ignored)~n", [PI])
        ;   Why = discontiguous(PI) ->
            format:format(user_error, "warning: discontiguous predicate ~q - clause ignored~n", [PI])
        ;   Why = directive(PI) ->
            format:format(user_error, "warning: unknown directive ~q - maybe use initialization/1 - directive ignored~n", [PI])
        ;   Why = scryer(PI),
            format:format(user_error, "warning: ~q is a Scryer Prolog built-in: the judge ignores this clause (GNU Prolog would not)~n", [PI])
        )
    ).

term_expansion(Term, Clauses) :-
    kk_gnu_expand(Term, Clauses).

:- set_prolog_flag(double_quotes, codes).
