/*  host_query.pl -- the Rust host's safe query wrapper (not part of the homework contract),
    loaded after host.pl (whose predicates it uses) by the engines that answer the host's
    queries (src/prolog/session.rs, Session), not by the top level.

    kk_host_stream(+Chars, +InferenceLimit, +MaxAnswers, -Item, -Inferences)
      Parses Chars as a goal (read_term_from_chars/3 inside catch/3) and runs it with at most
      InferenceLimit inferences per answer. Each solution of kk_host_stream/4 is one Item, in
      order, as soon as it is found (the host reads them lazily, one by one):
        syntax_error(E)        Chars is not a goal (the only item then);
        answer(a(Bindings, Text))
                               one answer, at most MaxAnswers of them: Bindings a list of
                               Name=Value (residual constraints in Text, recovered with
                               copy_term/3), Text the answer as a top level prints it (chars);
        end(Status)            the last item: Status is complete, answer_limit (a further
                               answer exists), inference_limit or exception(Text), Text the
                               exception as Prolog writes it (chars).
      The goal is never left with a choice point: after MaxAnswers + 1 answers, an exception
      or the inference limit, it is cut, and end/1 follows. Inferences counts the inferences
      from the start of the query to the item.
*/

kk_host_stream(Chars, Limit, Max, Item, Inferences) :-
    '$inference_count'(I0),
    kk_host_stream(Chars, Limit, Max, Item),
    '$inference_count'(I1),
    Inferences is I1 - I0.

kk_host_stream(Chars, Limit, Max, Item) :-
    catch(kk_read_goal(Chars, Goal, VNs), E, true),
    (   nonvar(E) -> Item = syntax_error(E)
    ;   var(Goal) -> Item = syntax_error(goal_is_a_variable)
    ;   kk_stream(kk_qualified(Goal), VNs, Limit, Max, Item)
    ).

% kk_qualified(+Goal): calls Goal; a module qualification M:G whose M is bound but not an atom
% is a type error here (Scryer 0.10 panics on it).
kk_qualified(Goal) :-
    (   nonvar(Goal), Goal = M:_, nonvar(M), \+ atom(M)
    ->  throw(error(type_error(atom, M), (:)/2))
    ;   call(Goal)
    ).

% kk_stream(+Goal, +VNs, +Limit, +Max, -Item): each answer of Goal (at most Max) as it is found,
% then end(Status). How the enumeration stopped is kept in a global variable (it survives the
% backtracking into the last branch).
kk_stream(Goal, VNs, Limit, Max, Item) :-
    Max1 is Max + 1,
    bb_put(kk_stream_end, complete),
    (   catch(kk_nth(Goal, VNs, Limit, Max1, A, R), E, R = exception(E)),
        kk_item(R, A, Item)
    ;   bb_get(kk_stream_end, Status),
        Item = end(Status)
    ).

kk_item(answer, A, answer(A)).
kk_item(answer_limit, _, _) :-
    bb_put(kk_stream_end, answer_limit),
    fail.
kk_item(inference_limit_exceeded, _, _) :-
    bb_put(kk_stream_end, inference_limit),
    fail.
kk_item(exception(E), _, _) :-
    kk_text(E, [], T),
    bb_put(kk_stream_end, exception(T)),
    fail.

% kk_nth(+Goal, +VNs, +Limit, +Max1, -A, -R): the answers of Goal, R = answer and A the answer
% for each of the first Max1 - 1; the Max1-th is R = answer_limit. An exception or the inference
% limit is the last solution (R says which).
kk_nth(Goal, VNs, Limit, Max1, A, R) :-
    call_nth(call_with_inference_limit(catch(Goal, E, true), Limit, R0), K),
    (   nonvar(E) -> R = exception(E), A = none, !
    ;   R0 == inference_limit_exceeded -> R = R0, A = none, !
    ;   K >= Max1 -> R = answer_limit, A = none, !
    ;   R = answer, kk_answer(VNs, A)
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
