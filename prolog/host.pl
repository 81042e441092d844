/*  host.pl -- the Rust host's safe query wrapper (not part of the homework contract).

    kk_host_query(+Chars, +InferenceLimit, +MaxAnswers, -Result, -Inferences)
      Parses Chars as a goal (read_term_from_chars/3 inside catch/3), runs it with at most
      InferenceLimit inferences per answer and collects at most MaxAnswers answers, leaving no
      choice point behind. Result is one of
        syntax_error(E)        Chars is not a goal;
        answers(As, Status)    As: list of a(Bindings, Text), Bindings a list of Name=Value
                               (residual constraints in Text, recovered with copy_term/3), Text
                               the answer as a top level prints it (chars); Status is complete,
                               answer_limit, inference_limit or exception(E, Text).
      Inferences is the number of inferences the query took.
*/

:- use_module(library(charsio)).
:- use_module(library(iso_ext)).
:- use_module(library(lists)).
:- use_module(library(time)).
:- use_module(library(clpz)).

kk_host_query(Chars, Limit, Max, Result, Inferences) :-
    '$inference_count'(I0),
    kk_host_query_(Chars, Limit, Max, Result),
    '$inference_count'(I1),
    Inferences is I1 - I0.

kk_host_query_(Chars, Limit, Max, Result) :-
    catch(read_term_from_chars(Chars, Goal, [variable_names(VNs)]), E, true),
    (   nonvar(E) -> Result = syntax_error(E)
    ;   var(Goal) -> Result = syntax_error(goal_is_a_variable)
    ;   kk_collect(Goal, VNs, Limit, Max, Result)
    ).

kk_collect(Goal, VNs, Limit, Max, answers(As, Status)) :-
    Max1 is Max + 1,
    catch(findall(A-R, kk_nth(Goal, VNs, Limit, Max1, A, R), Pairs), E, Pairs = [x-exception(E)]),
    kk_status(Pairs, Max1, As, Status).

kk_nth(Goal, VNs, Limit, Max1, A, R) :-
    call_nth(call_with_inference_limit(catch(Goal, E, true), Limit, R0), K),
    (   nonvar(E) -> R = exception(E), A = none, !
    ;   R0 == inference_limit_exceeded -> R = R0, A = none, !
    ;   R = answer, kk_answer(VNs, A),
        ( K >= Max1 -> ! ; true )
    ).

kk_status([], _, [], complete).
kk_status([A-R | Rest], Max1, As, Status) :-
    (   R = exception(E) -> As = [], kk_text(E, [], T), Status = exception(E, T)
    ;   R == inference_limit_exceeded -> As = [], Status = inference_limit
    ;   Rest == [] -> As = [A], Status = complete
    ;   Max1 =:= 2 -> As = [A], Status = answer_limit
    ;   As = [A | As1], Max2 is Max1 - 1, kk_status(Rest, Max2, As1, Status)
    ).

kk_answer(VNs, a(Bindings, Text)) :-
    term_variables(VNs, Vs),
    copy_term(Vs, Vs, Gs),          % residual goals, over the query's own variables
    kk_bindings(VNs, Bindings0),
    copy_term(Bindings0, Bindings, _),
    term_variables(Bindings0-Gs, All),
    kk_fresh_names(All, VNs, 0, Names),
    reverse(VNs, RVNs),             % X = Y is shown as X = Y: a variable takes its last name
    append(RVNs, Names, AllVNs),
    kk_answer_text(Bindings0, Gs, AllVNs, Text).

% kk_fresh_names(+Vars, +VNs, +K, -Names): names _A, _B, ... for the variables without one.
kk_fresh_names([], _, _, []).
kk_fresh_names([V | Vs], VNs, K, Names) :-
    (   member(_=W, VNs), W == V
    ->  Names = Names1, K1 = K
    ;   kk_fresh_name(K, Name), Names = [Name=V | Names1], K1 is K + 1
    ),
    kk_fresh_names(Vs, VNs, K1, Names1).

kk_fresh_name(K, Name) :-
    L is 0'A + K mod 26,
    N is K // 26,
    (   N =:= 0 -> atom_codes(Name, [0'_, L])
    ;   number_codes(N, Ds), atom_codes(Name, [0'_, L | Ds])
    ).

kk_bindings([], []).
kk_bindings([Name=Value | Rest], Bs) :-
    (   var(Value), \+ ( member(N2=V2, Rest), V2 == Value, N2 \== Name )
    ->  Bs = Bs1
    ;   Bs = [Name=Value | Bs1]
    ),
    kk_bindings(Rest, Bs1).

kk_answer_text(Bindings, Gs, VNs, Text) :-
    % (not findall/3: it would copy the variables and lose their names)
    maplist(kk_binding_item, Bindings, BindingItems),
    maplist(kk_goal_item, Gs, GoalItems),
    append(BindingItems, GoalItems, Items),
    (   Items == [] -> Text = "true"
    ;   maplist(kk_item_text(VNs), Items, Texts),
        kk_join(Texts, Text)
    ).

kk_binding_item(N=V, binding(N, V)).
kk_goal_item(G, goal(G)).

kk_item_text(VNs, binding(N, V), T) :-
    kk_text(V, VNs, VT),
    atom_chars(N, NC),
    append(NC, [' ', '=', ' ' | VT], T).
kk_item_text(VNs, goal(G), T) :- kk_text(G, VNs, T).

kk_text(Term, VNs, Chars) :-
    write_term_to_chars(Term, [quoted(true), variable_names(VNs)], Chars).

kk_join([T], T).
kk_join([T1, T2 | Ts], T) :-
    kk_join([T2 | Ts], Rest),
    append(T1, [',', '\n' | Rest], T).
