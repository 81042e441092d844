/*  host_lint.pl -- a test's check that the host's Prolog calls only what a user cannot
    redefine (tests/engines/user_code.rs). Not part of the product.

    lint_files(+Files, -Bad): Bad lists, as Where-Goal, each call in the clause bodies of Files
    (the host's Prolog files) that a consulted file could change:
      - an unqualified goal that is neither a control construct, nor a predicate the files
        define, nor a builtin (predicate_property(user:G, built_in): Scryer refuses to let a
        file redefine those, permission_error(modify, static_procedure, PI));
      - a goal argument of a library's meta-predicate called qualified (lists:maplist/2, ...)
        that is not module-qualified itself: the library would call it in its own module.
    Goal arguments are those of the control constructs and of the meta-predicates (as
    predicate_property/2 declares them: 0..9, ^), walked in the module they run in.
*/

lint_files(Files, Bad) :-
    lists:maplist(user:lint_terms, Files, Tss),
    lists:append(Tss, Ts),
    findall(N/A, ( lists:member(_-T, Ts), lint_head(T, H), functor(H, N, A) ), Own0),
    sort(Own0, Own),
    findall(Where-G, ( lists:member(Where-T, Ts), lint_body(T, B), lint_goal(B, user, Own, G) ),
            Bad0),
    sort(Bad0, Bad).

lint_terms(F, Ts) :-
    open(F, read, S),
    lint_read(S, F, Ts),
    close(S).

lint_read(S, F, Ts) :-
    read_term(S, T, []),
    (   T == end_of_file -> Ts = []
    ;   Ts = [F-T | Ts1], lint_read(S, F, Ts1)
    ).

lint_head((H :- _), H) :- !, callable(H).
lint_head((:- _), _) :- !, fail.
lint_head(H, H) :- callable(H).

lint_body((_ :- B), B).


% lint_goal(+G, +M, +Own, -Bad): Bad is a call of G, run in module M, that a user can change.
% In a library's module (a goal argument of its meta-predicate), only a builtin or a qualified
% goal is ours: the library would look for anything else in its own module.
lint_goal(G, M, Own, Bad) :-
    (   var(G) -> M \== user, Bad = M:G
    ;   G = M1:G1
    ->  (   var(M1) -> Bad = G
        ;   M1 == user -> lint_goal(G1, user, Own, Bad)
        ;   var(G1) -> Bad = G
        ;   lint_meta_args(M1:G1, M1, Own, Bad)
        )
    ;   lint_control(G, Args) -> lists:member(A, Args), lint_goal(A, M, Own, Bad)
    ;   \+ callable(G) -> Bad = M:G
    ;   functor(G, N, Ar), M == user, lists:memberchk(N/Ar, Own)
    ->  % (the host's own meta-predicates pass their goals on: kk_time/1 ...)
        lint_meta_args(user:G, user, Own, Bad)
    ;   predicate_property(user:G, built_in)
    ->  lint_meta_args(user:G, M, Own, Bad)
    ;   Bad = M:G
    ).

lint_control((A, B), [A, B]).
lint_control((A ; B), [A, B]).
lint_control((A -> B), [A, B]).
lint_control(\+ A, [A]).
lint_control(call(A), [A]).

% lint_meta_args(+M:G, +Ctx, +Own, -Bad): a goal argument of G (a predicate of M, whose goal
% arguments run in the module Ctx) that a user can change.
lint_meta_args(M:G, Ctx, Own, Bad) :-
    catch(predicate_property(M:G, meta_predicate(Spec)), _, fail),
    functor(G, _, Ar),
    between:between(1, Ar, I),
    arg(I, Spec, S),
    arg(I, G, A0),
    (   ( integer(S) ; S == (^) )
    ->  lint_strip(S, A0, A1),
        lint_extend(S, A1, A),
        lint_goal(A, Ctx, Own, Bad)
    ;   % (a module-sensitive argument, assertz(:): its module is Ctx's unless qualified)
        S == (:), Ctx \== user, \+ ( nonvar(A0), A0 = _:_ ),
        Bad = Ctx:G
    ).

lint_strip(S, A0, A) :-
    (   S == (^), nonvar(A0), A0 = _^A1 -> lint_strip(S, A1, A) ; A = A0 ).

% lint_extend(+S, +C, -G): the closure C called with S more arguments.
lint_extend(S, C, G) :-
    (   integer(S), S > 0, nonvar(C)
    ->  (   C = M:C1 -> G = M:G1 ; C1 = C, G = G1 ),
        (   callable(C1)
        ->  C1 =.. L0, length(More, S), lists:append(L0, More, L), G1 =.. L
        ;   G1 = C1
        )
    ;   G = C
    ).
