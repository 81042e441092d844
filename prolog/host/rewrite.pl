/*  host/rewrite.pl -- the Rust host's Prolog side (prolog/host/, loaded in order as one text:
    HOST_PL in src/prolog/mod.rs), continued: the host's rewriting of the goal typed and of
    consulted code (kk_halts/2, kk_clause_rewrite/3), and the bounded acyclicity test.
*/

% ---------------------------------------------------------------------------
% Rewriting goals

/*  The host's rewriting of the session's goals, done once: on the goal typed (kk_halts/2) and
    on the clauses of the session's code as they are loaded (a consulted file's, by
    term_expansion/2 in host_expand.pl), asserted, typed after [user] or restored
    (kk_clause_reads/2). Never at run time: Scryer runs user:goal_expansion/2 on every
    meta-call, so as goal expansions these rewrites ran inside kenken.pl's and clpz's
    meta-calls, and kenken/3 took twice the time at the top level (issue 45).

    What is rewritten: halt/0,1 ends the session with its code (the engine's own would only
    fail; in the code of a file, only in a top level's engine); bb_put/2 records its key, so
    that kk_state/1 keeps the value across a restart; read/1,2 and read_term/2,3 give
    end_of_file at the end of the input (kk_read_term/3); use_module/1,2 is recorded when it
    succeeds, to be replayed in a fresh engine (in the goal typed, and in a clause of user,
    not a directive nor a module's clause); and code that reads the input marks the session's
    code as reading (bb kk_code_reads, kk_reader_start/0). Goals are rewritten within control
    constructs and the goal arguments of the meta-predicates kk_meta_spec/2 names; a goal
    built at run time is not (one typed as a variable is, as it runs: kk_var_goal/1). The
    rewritten goals are qualified with user, so that a module's clauses reach them.
*/

% kk_halts(+Goal0, -Goal): the goal typed, rewritten (above); besides, asserting goes through
% kk_assert/2, consulting through kk_consult/1 (remembered for make/0 and a restart) and
% kk_consult_user/0, the recovery of catch/3 lets the session's end pass, and a goal Scryer
% 0.10 would panic on is an error instead: M:G with M bound but not an atom, and asserting a
% cyclic term.
%?- kk_halts(halt, G).
%@ G = throw(kk_halt(0)).
%?- kk_halts(assertz(p(1)), G).
%@ G = user:kk_assert(assertz,p(1)).
kk_halts(G0, G) :- kk_rewrite(typed, G0, G).

% kk_clause_reads(+C0, -C): C0, a clause of user that is asserted, typed after [user] or
% restored, rewritten as a consulted one is.
kk_clause_reads(C0, C) :- kk_clause_rewrite(user, C0, C).

% kk_clause_rewrite(+M, +C0, -C): the clause or directive C0 of module M's code, rewritten.
kk_clause_rewrite(M, C0, C) :-
    (   var(C0) -> C = C0
    ;   C0 = (H :- B0) -> kk_rewrite(code(M), B0, B), C = (H :- B)
    ;   C0 = (:- D0) -> kk_rewrite(directive(M), D0, D), C = (:- D)
    ;   C = C0
    ).

% kk_rewrite(+Where, +G0, -G): the goal G0 rewritten, Where being typed (the goal typed),
% code(M) (a clause body of module M) or directive(M).
%?- kk_rewrite(typed, (halt(3) ; X = 1), G).
%@ G = (user:kk_halt_(3);X=1).
kk_rewrite(Where, G0, G) :-
    (   var(G0) -> kk_rewrite_var(Where, G0, G)
    ;   G0 = (A0, B0) -> G = (A, B), kk_rewrite(Where, A0, A), kk_rewrite(Where, B0, B)
    ;   Where == typed, kk_typed(G0, G1) -> G = G1
    ;   G0 = M:G1
    ->  (   atom(M), nonvar(G1), G1 = _:_ -> kk_rewrite(Where, G1, G)
        ;   atom(M)
        ->  kk_rewrite(Where, G1, G2),
            % (a goal the host's own stands for is called as user:kk_...: M:(user:G) would
            % be an existence error of (:)/2 in Scryer 0.10)
            (   nonvar(G2), G2 = _:_ -> G = G2 ; G = M:G2 )
        ;   G = G0
        )
    ;   kk_meta_spec(G0, Spec)
    ->  functor(G0, F, N),
        functor(G, F, N),
        kk_rewrite_args(1, N, Spec, Where, G0, G)
    ;   kk_leaf(Where, G0, G)
    ).

kk_rewrite_var(typed, G, user:kk_var_goal(G)).
kk_rewrite_var(code(_), G, G).
kk_rewrite_var(directive(_), G, G).

kk_rewrite_args(I, N, Spec, Where, G0, G) :-
    (   I > N -> true
    ;   arg(I, Spec, S),
        arg(I, G0, A0),
        arg(I, G, A),
        (   S == 0 -> kk_rewrite(Where, A0, A)
        ;   S == (^) -> kk_rewrite_bagof(Where, A0, A)
        ;   A = A0
        ),
        I1 is I + 1,
        kk_rewrite_args(I1, N, Spec, Where, G0, G)
    ).

kk_rewrite_bagof(Where, G0, G) :-
    (   nonvar(G0), G0 = V^G1 -> G = V^G2, kk_rewrite_bagof(Where, G1, G2)
    ;   kk_rewrite(Where, G0, G)
    ).

% kk_typed(+G0, -G): what only the goal typed gets (kk_halts/2).
kk_typed(M:_, throw(error(type_error(atom, M), (:)/2))) :- nonvar(M), \+ atom(M).
% (M:assertz(C) asserts C into M)
kk_typed(M:A, G) :- atom(M), nonvar(A), kk_typed(A, G0), kk_assert_into(M, G0, G).
kk_typed(assertz(C), user:kk_assert(assertz, C)).
kk_typed(asserta(C), user:kk_assert(asserta, C)).
kk_typed(assert(C), user:kk_assert(assertz, C)).
% (consult(F) with F unbound as the goal is read consults the file F names as it runs)
kk_typed([F | Fs], G) :- ( [F | Fs] == [user] -> G = user:kk_consult_user ; G = user:kk_consult([F | Fs]) ).
kk_typed(consult(F), G) :- ( F == user -> G = user:kk_consult_user ; G = user:kk_consult(F) ).
kk_typed(catch(A0, E, B0), catch(A, E, user:kk_unless_halt(E, B))) :-
    kk_halts(A0, A),
    kk_halts(B0, B).

kk_assert_into(M, user:kk_assert(How, C), user:kk_assert(How, C1)) :-
    (   nonvar(C), C = _:_ -> C1 = C ; C1 = M:C ).

% kk_meta_spec(?G, -Spec): the arguments of G that are goals (0; ^: a goal behind V^).
%?- kk_meta_spec(findall(_, _, _), S).
%@ S = findall(?,0,?).
kk_meta_spec((_ ; _), (0 ; 0)).
kk_meta_spec((_ -> _), (0 -> 0)).
kk_meta_spec(\+ _, \+ 0).
kk_meta_spec(call(_), call(0)).
kk_meta_spec(once(_), once(0)).
kk_meta_spec(ignore(_), ignore(0)).
kk_meta_spec(findall(_, _, _), findall(?, 0, ?)).
kk_meta_spec(findall(_, _, _, _), findall(?, 0, ?, ?)).
kk_meta_spec(forall(_, _), forall(0, 0)).
kk_meta_spec(bagof(_, _, _), bagof(?, ^, ?)).
kk_meta_spec(setof(_, _, _), setof(?, ^, ?)).
kk_meta_spec(catch(_, _, _), catch(0, ?, 0)).
kk_meta_spec(call_cleanup(_, _), call_cleanup(0, 0)).
kk_meta_spec(setup_call_cleanup(_, _, _), setup_call_cleanup(0, 0, 0)).
kk_meta_spec(call_with_inference_limit(_, _, _), call_with_inference_limit(0, ?, ?)).
kk_meta_spec(time(_), time(0)).
kk_meta_spec(initialization(_), initialization(0)).

% ---------------------------------------------------------------------------
% Goals that are no control construct

% kk_leaf(+Where, +G0, -G): a goal that is no control construct nor meta-call, rewritten.
kk_leaf(Where, G0, G) :-
    (   kk_input_goal(G0)
    ->  kk_marks_reading(Where),
        kk_read_goal(G0, G1),
        (   G1 == G0 -> G = G0 ; G = user:G1 )
    ;   G0 = bb_put(K, V) -> G = user:kk_bb_put(K, V)
    ;   G0 = set_prolog_flag(F, V) -> kk_flag_goal(Where, F, V, G)
    ;   G0 == halt, kk_ends_session(Where) -> G = throw(kk_halt(0))
    ;   G0 = halt(C), kk_ends_session(Where) -> G = user:kk_halt_(C)
    ;   kk_import_goal(G0), kk_records_imports(Where) -> G = user:kk_recorded(G0)
    ;   G = G0
    ).

kk_marks_reading(typed).
kk_marks_reading(code(_)) :- iso_ext:bb_put(kk_code_reads, true).
kk_marks_reading(directive(_)) :- iso_ext:bb_put(kk_code_reads, true).

% (halt/0,1 in the code of a consulted file, its directives and initialization/1 goals: the
% top level ends the session with its code, as for the goal typed, and a query ends with
% End::Halted (a consult with ConsultError::Halted); the engine's own halt would stop the
% embedded machine)
kk_ends_session(typed).
kk_ends_session(code(_)).
kk_ends_session(directive(_)).

kk_records_imports(typed).
kk_records_imports(code(user)).

% kk_var_goal(?G): G, which was a variable where a goal stands when the goal typed was read
% (G = format("~w", [x]), G): any goal, whose name the host did not see, so every lazy library
% is loaded first (as for a goal that calls call/N: src/prolog/toplevel/), and G is called as
% the goal typed is (halt/0,1 in it ends the session ...).
kk_var_goal(G) :-
    (   var(G) -> call(G)
    ;   kk_all_libraries, kk_halts(G, G1), call(G1)
    ).

kk_recorded(G) :-
    call(G),
    (   iso_ext:bb_get(kk_setup, Gs0) -> true ; Gs0 = [] ),
    (   lists:memberchk(G, Gs0) -> Gs = Gs0 ; lists:append(Gs0, [G], Gs) ),
    iso_ext:bb_put(kk_setup, Gs).

% kk_flag_goal(+Where, +F, +V, -G): set_prolog_flag(F, V) rewritten: the flag unknown may not
% be set to warning in the engine of a Session in its program's own process (bb
% kk_no_unknown_warning: Scryer 0.10 writes those warnings to the process's standard output,
% past the engine's streams), which a directive says as it loads.
kk_flag_goal(directive(_), F, V, G) :-
    (   F == unknown, V == warning, iso_ext:bb_get(kk_no_unknown_warning, true)
    ->  kk_unknown_warning_error(E), G = initialization(throw(E))
    ;   G = set_prolog_flag(F, V)
    ).
kk_flag_goal(typed, F, V, user:kk_set_flag(F, V)).
kk_flag_goal(code(_), F, V, user:kk_set_flag(F, V)).

kk_set_flag(F, V) :-
    (   F == unknown, V == warning, iso_ext:bb_get(kk_no_unknown_warning, true)
    ->  kk_unknown_warning_error(E), throw(E)
    ;   set_prolog_flag(F, V)
    ).

kk_unknown_warning_error(error(domain_error(flag_value, unknown+warning), set_prolog_flag/2)).

kk_bb_put(K, V) :-
    iso_ext:bb_put(K, V),
    (   atom(K), \+ atom_concat(kk_, _, K), \+ atom_concat($, _, K)
    ->  (   iso_ext:bb_get(kk_bb_keys, Ks0) -> true ; Ks0 = [] ),
        (   lists:memberchk(K, Ks0) -> Ks = Ks0 ; Ks = [K | Ks0] ),
        iso_ext:bb_put(kk_bb_keys, Ks)
    ;   true
    ).

kk_assert(How, C0) :-
    (   kk_acyclic(C0) -> kk_clause_reads(C0, C), call(How, C), kk_note_module(C)
    ;   throw(error(type_error(acyclic_term, C0), How/1))
    ).

% kk_note_module(+C): the module a clause M:H or (M:H :- B) was asserted into, other than user,
% is noted (bb kk_modules), so that kk_state/1 keeps its dynamic predicates (kk_dynamic/2).
kk_note_module(C) :-
    (   nonvar(C), ( C = M:_ ; C = (M:_ :- _) ), atom(M), M \== user
    ->  (   iso_ext:bb_get(kk_modules, Ms0) -> true ; Ms0 = [] ),
        (   lists:memberchk(M, Ms0) -> true ; iso_ext:bb_put(kk_modules, [M | Ms0]) )
    ;   true
    ).

% ---------------------------------------------------------------------------
% Acyclic terms, in bounded cells

% kk_acyclic(+T): T is acyclic. Scryer 0.10's acyclic_term/1 garbles a list of characters read
% from text inside a compound term (v(1, [a]) becomes v(1, [p|_])), so it is asked only of a
% term of more than 100,000 cells (kk_acyclic/2 counts them first).
%?- kk_acyclic(f(X, [1,2])).
%@ true.
%?- X = f(X), kk_acyclic(X).
%@ false.
kk_acyclic(T) :-
    (   kk_acyclic(T, 100000) -> true
    ;   acyclic_term(T)
    ).

% kk_acyclic(+T, +Cap): T is acyclic, in at most Cap cells (variables, atomic terms, compound
% terms, list cells); a cyclic T, or one past Cap, fails. A cyclic list is seen at once
% ('$skip_max_list'/4); another cycle when Cap cells have been counted. Last call over list
% tails and last arguments: any depth.
kk_acyclic(T, Cap) :-
    catch(kk_cells(T, 0, _, Cap), kk_too_many_cells, fail).

kk_cells(T, N0, N, Cap) :-
    (   var(T) -> kk_cell(N0, N, Cap)
    ;   T = [_ | _]
    ->  '$skip_max_list'(_, _, T, Rest),
        (   nonvar(Rest), Rest = [_ | _] -> throw(kk_too_many_cells) ; true ),
        kk_list_cells(T, N0, N, Cap)
    ;   atomic(T) -> kk_cell(N0, N, Cap)
    ;   kk_cell(N0, N1, Cap),
        functor(T, _, Ar),
        kk_arg_cells(1, Ar, T, N1, N, Cap)
    ).

kk_list_cells(T, N0, N, Cap) :-
    (   nonvar(T), T = [H | Tl]
    ->  kk_cell(N0, N1, Cap),
        kk_cells(H, N1, N2, Cap),
        kk_list_cells(Tl, N2, N, Cap)
    ;   kk_cells(T, N0, N, Cap)
    ).

kk_arg_cells(I, Ar, T, N0, N, Cap) :-
    (   I > Ar -> N = N0
    ;   arg(I, T, X),
        kk_cells(X, N0, N1, Cap),
        I1 is I + 1,
        kk_arg_cells(I1, Ar, T, N1, N, Cap)
    ).

kk_cell(N0, N, Cap) :-
    N is N0 + 1,
    (   N > Cap -> throw(kk_too_many_cells) ; true ).

% ---------------------------------------------------------------------------
% Imports and reading goals

% kk_import_goal(+G): G imports a module (recorded by kk_recorded/1, to be replayed).
kk_import_goal(use_module(_)).
kk_import_goal(use_module(_, _)).

% kk_read_goal(+G0, -G): G0, or the host's reading predicate in place of a reading one.
%?- kk_read_goal(read(T), G).
%@ G = kk_read(T).
kk_read_goal(G, G) :- var(G), !.
kk_read_goal(read(T), kk_read(T)) :- !.
kk_read_goal(read(S, T), kk_read(S, T)) :- !.
kk_read_goal(read_term(T, Os), kk_read_term(T, Os)) :- !.
kk_read_goal(read_term(S, T, Os), kk_read_term(S, T, Os)) :- !.
kk_read_goal(G, G).
