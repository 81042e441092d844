/*  gnu/labeling.pl -- GNU Prolog layer, part 3 of 5: fd_labeling/1,2 and fd_labelingff/1 with
    GNU's variable and value orders.
*/

% ---------------------------------------------------------------------------
% Labeling

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
    iso_ext:bb_put(kk_gnu_backtracks, 0),
    kk_gnu_label(Vs, VarM, ValM, Reorder),
    (   var(BT) -> iso_ext:bb_get(kk_gnu_backtracks, BT) ; true ).

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
    lists:length(Vs, N),
    N1 is N + 1,
    random:random_integer(1, N1, K),
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
        iso_ext:bb_get(kk_gnu_backtracks, B0),
        B is B0 + 1,
        iso_ext:bb_put(kk_gnu_backtracks, B),
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
    lists:length(L, N),
    K is max(1, N // 2),
    lists:nth1(K, L, V).
kk_gnu_pick(random, X, V, random) :-
    fd_dom(X, L),
    lists:length(L, N),
    N1 is N + 1,
    random:random_integer(1, N1, K),
    lists:nth1(K, L, V).
