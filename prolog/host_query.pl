/*  host_query.pl -- the Rust host's safe query wrapper (not part of the homework contract),
    loaded after host.pl (whose predicates it uses) by the engines that answer the host's
    queries (src/prolog/mod.rs, Session), not by the top level.

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

kk_host_query(Chars, Limit, Max, Result, Inferences) :-
    '$inference_count'(I0),
    kk_host_query_(Chars, Limit, Max, Result),
    '$inference_count'(I1),
    Inferences is I1 - I0.

kk_host_query_(Chars, Limit, Max, Result) :-
    catch(kk_read_goal(Chars, Goal, VNs), E, true),
    (   nonvar(E) -> Result = syntax_error(E)
    ;   var(Goal) -> Result = syntax_error(goal_is_a_variable)
    ;   kk_collect(kk_qualified(Goal), VNs, Limit, Max, Result)
    ).

% kk_qualified(+Goal): calls Goal; a module qualification M:G whose M is bound but not an atom
% is a type error here (Scryer 0.10 panics on it).
kk_qualified(Goal) :-
    (   nonvar(Goal), Goal = M:_, nonvar(M), \+ atom(M)
    ->  throw(error(type_error(atom, M), (:)/2))
    ;   call(Goal)
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

kk_answer_text(Bindings, Gs, VNs, Text) :-
    % (not findall/3: it would copy the variables and lose their names)
    maplist(kk_binding_item, Bindings, BindingItems),
    maplist(kk_goal_item, Gs, GoalItems),
    append(BindingItems, GoalItems, Items),
    (   Items == [] -> Text = "true"
    ;   maplist(kk_item_text(VNs), Items, Texts),
        kk_join(Texts, Text)
    ).

kk_item_text(VNs, binding(N, V), T) :-
    kk_text(V, VNs, VT),
    atom_chars(N, NC),
    append(NC, [' ', '=', ' ' | VT], T).
kk_item_text(VNs, goal(G), T) :- kk_text(G, VNs, T).

kk_text(Term, VNs, Chars) :-
    kk_need_library(charsio),
    write_term_to_chars(Term, [quoted(true), variable_names(VNs)], Chars).

kk_join([T], T).
kk_join([T1, T2 | Ts], T) :-
    kk_join([T2 | Ts], Rest),
    append(T1, [',', '\n' | Rest], T).
