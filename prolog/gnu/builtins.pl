/*  gnu/builtins.pl -- GNU Prolog layer, part 4 of 5: GNU's other builtins (lists,
    global variables, statistics and times, format/2,3 accepting code lists).
*/

% ---------------------------------------------------------------------------
% Lists

nth(N, L, X) :-
    lists:nth1(N, L, X).

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

% ---------------------------------------------------------------------------
% Miscellaneous builtins

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
    iso_ext:bb_put(Key, V).

g_assignb(K, V) :-
    kk_gnu_gkey(K, Key),
    iso_ext:bb_b_put(Key, V).

g_read(K, V) :-
    kk_gnu_gkey(K, Key),
    (   iso_ext:bb_get(Key, V0) -> V = V0 ; V = 0 ).

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

% ---------------------------------------------------------------------------
% Times

kk_gnu_stats_init :-
    kk_gnu_now(cpu_time, C),
    kk_gnu_now(real_time, R),
    iso_ext:bb_put(kk_gnu_t0_cpu_time, C),
    iso_ext:bb_put(kk_gnu_t0_real_time, R),
    iso_ext:forall(user:kk_gnu_time_key(K, _), user:kk_gnu_set_last(K, 0)).

kk_gnu_time_key(runtime, cpu_time).
kk_gnu_time_key(cpu_time, cpu_time).
kk_gnu_time_key(user_time, cpu_time).
kk_gnu_time_key(system_time, none).
kk_gnu_time_key(real_time, real_time).

kk_gnu_set_last(K, V) :-
    atom_concat(kk_gnu_last_, K, Key),
    iso_ext:bb_put(Key, V).

% kk_gnu_now(+Clock, -Ms)
kk_gnu_now(cpu_time, Ms) :-
    '$cpu_now'(S),
    Ms is truncate(S * 1000).
kk_gnu_now(real_time, Ms) :-
    time:current_time(T),
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
    ;   atom_concat(kk_gnu_t0_, Clock, K0), iso_ext:bb_get(K0, T0)
    ),
    Total is Now - T0,
    atom_concat(kk_gnu_last_, Key, KL),
    iso_ext:bb_get(KL, Prev),
    Last is Total - Prev,
    iso_ext:bb_put(KL, Total).

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
    iso_ext:forall(lists:member(K-Label, [user_time-"user   time", system_time-"system time",
                                  cpu_time-"cpu    time", real_time-"real   time"]),
           user:(   kk_gnu_since(K, T, L),
               TS is T / 1000,
               LS is L / 1000,
               format:format("   ~s ~t~3f~29| sec ~t~3f~45| sec~n", [Label, TS, LS])
           )),
    nl.

% ---------------------------------------------------------------------------
% format/2,3 accepting code lists (GNU's double_quotes is codes)

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
