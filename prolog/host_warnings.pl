/*  host_warnings.pl -- Scryer's loader warnings kept for the query that caused them (not part
    of the homework contract), loaded after host_query.pl by the engines that answer the
    host's queries (HOST_QUERY_PL in src/prolog/mod.rs).

    Scryer 0.10 writes "% Warning: overwriting p/1 because the clauses are discontiguous" with
    Rust's println!, past the engine's streams, to the process's standard output: a library
    must not (the process's standard output is its program's), nor take file descriptor 1
    from the program to keep it. So, where bb kk_keep_warnings is true (kk_keep_warnings/1:
    the engines of a Session and of a QueryWorker), the condition is told here, as the file
    loads, and Scryer is kept from printing: the warning is noted (kk_warnings, taken by the
    wrapper with each item: kk_take_warnings/1), and the predicate is declared dynamic before
    the clauses that would replace it, with which Scryer replaces it as it would have (the
    clauses it had are gone, the file's are there), without a word. The one difference: the
    predicate is dynamic (predicate_property/2 says so, assertz/1 adds to it); the state kept
    for a replacement engine treats it as the static predicate it would be (its clauses are
    its files', consulted again, not kept as asserted ones: kk_made_dynamic/1 of state.pl).

    Scryer warns when the loader compiles a run of clauses of a predicate (clauses one after
    another, up to a clause of another predicate or a directive) that is defined already and
    not dynamic, unless the file declared it dynamic, discontiguous or multifile, or the file
    defined it when it was loaded before (Scryer takes those clauses away first). So, for the
    first clause of each run of M:N/A:
      - a run of a predicate this load of the file had a run of already: warned;
      - else one the file defined when it was loaded before: not;
      - else one that is defined, static (or made dynamic here), is warned.
    Each file's loads are told apart by its stream and the position of its terms
    (kk_load_state/2).
*/

% kk_keep_warnings(+Unknown): the engine keeps Scryer's loader warnings (above); with Unknown
% true, it refuses the flag unknown set to warning, whose warnings Scryer writes as a goal
% runs (kk_set_flag/2 in rewrite.pl): the engine of a Session in the program's own process.
kk_keep_warnings(Unknown) :-
    iso_ext:bb_put(kk_keep_warnings, true),
    iso_ext:bb_put(kk_no_unknown_warning, Unknown),
    iso_ext:bb_put(kk_warnings, []).

% kk_take_warnings(-Ws): the warnings noted since the last call, in order, each as chars.
kk_take_warnings(Ws) :-
    (   iso_ext:bb_get(kk_warnings, Ws0) -> true ; Ws0 = [] ),
    (   Ws0 == [] -> Ws = []
    ;   iso_ext:bb_put(kk_warnings, []),
        lists:reverse(Ws0, Ws)
    ).

% A directive ends a run, and one that declares a predicate dynamic, discontiguous or multifile
% is noted (it is then never warned of in this load). (It fails: the directive is left as it
% is, for the clauses below.)
term_expansion((:- D), _) :-
    iso_ext:bb_get(kk_keep_warnings, true),
    nonvar(D),
    (   iso_ext:bb_get(kk_injected, D)
    ->  % (the declaration kk_overwrite/2 gave: nothing to note)
        iso_ext:bb_put(kk_injected, none)
    ;   kk_load_state(F, l(S, P, Id, _)),
        kk_declare(D, Id),
        kk_put_load_state(F, l(S, P, Id, none))
    ),
    fail.
% The first clause of a run that Scryer would warn of: the warning noted, and the predicate
% declared dynamic first.
term_expansion(T, [(:- dynamic(Q)), T]) :-
    iso_ext:bb_get(kk_keep_warnings, true),
    kk_overwrite(T, Q),
    iso_ext:bb_put(kk_injected, dynamic(Q)).

% kk_overwrite(+T, -Q): T is the first clause of a run that Scryer would warn of (the warning
% is noted), of Q (M:N/A, or N/A in user), a static predicate, to be declared dynamic. The
% load's state is updated for every clause.
kk_overwrite(T, Q) :-
    nonvar(T),
    T \= (:- _),
    T \= (_ --> _),
    prolog_load_context(module, M0),
    kk_clause_key(T, M0, M, PI),
    kk_load_state(F, l(S, P, Id, Last)),
    M:PI \== Last,
    kk_put_load_state(F, l(S, P, Id, M:PI)),
    kk_pred_state(M:PI, K, p(Seen, Declared, Files)),
    (   Declared == Id -> Warn = false, Files1 = Files
    ;   Seen == Id -> Warn = true, Files1 = Files
    ;   lists:memberchk(F, Files) -> Warn = false, Files1 = Files
    ;   Files1 = [F | Files],
        (   kk_static(M, PI) -> Warn = true ; Warn = false )
    ),
    iso_ext:bb_put(K, p(Id, Declared, Files1)),
    Warn == true,
    kk_warn(PI),
    % (declared dynamic only when it is static: the clauses of a dynamic predicate are
    % replaced silently by another file's, and a declaration would add them instead)
    PI = N/A,
    functor(H, N, A),
    \+ catch(predicate_property(M:H, dynamic), _, fail),
    (   iso_ext:bb_get(kk_made_dynamic, Ds) -> true ; Ds = [] ),
    iso_ext:bb_put(kk_made_dynamic, [M:PI | Ds]),
    (   M == user -> Q = PI ; Q = M:PI ).

% kk_warn(+PI): Scryer's warning that PI is replaced, noted.
kk_warn(N/A) :-
    atom_chars(N, Ns),
    number_chars(A, As),
    lists:append(["% Warning: overwriting ", Ns, "/", As,
                  " because the clauses are discontiguous"], W),
    (   iso_ext:bb_get(kk_warnings, Ws) -> true ; Ws = [] ),
    iso_ext:bb_put(kk_warnings, [W | Ws]).

% kk_pred_state(+MPI, -K, -State): what the loads told of the predicate MPI (M:N/A), kept in
% the global variable K of its own: p(Seen, Declared, Files), the number of the load that had
% a run of it last (0: none), of the load that declared it last, and the files that defined
% it. (A variable of its own: asserting as the loader loads broke Scryer 0.10's engine, and
% a list of every predicate of a file, in one variable, was copied at each clause.)
kk_pred_state(MPI, K, State) :-
    charsio:write_term_to_chars(MPI, [quoted(true)], Cs),
    atom_chars(K, ['$', k, k, '_', l, o, a, d, ' ' | Cs]),
    (   catch(iso_ext:bb_get(K, State0), _, fail) -> State = State0
    ;   State = p(0, 0, [])
    ).

% kk_clause_key(+T, +M0, -M, -PI): the clause T, read in module M0, defines PI of module M.
kk_clause_key(T, M0, M, N/A) :-
    (   T = (H0 :- _) -> true ; H0 = T ),
    (   nonvar(H0), H0 = M1:H -> atom(M1), M = M1 ; H = H0, M = M0 ),
    callable(H),
    functor(H, N, A).

% kk_static(+M, +PI): PI is defined in M, and is static (or was made dynamic here only:
% kk_made_dynamic/1 of state.pl).
kk_static(M, N/A) :-
    catch(current_predicate(M:N/A), _, fail),
    functor(H, N, A),
    (   \+ catch(predicate_property(M:H, dynamic), _, fail) -> true ; kk_made_dynamic(M:N/A) ).

% kk_declare(+D, +Id): the predicates the directive D declares dynamic, discontiguous or
% multifile are noted for the load Id.
kk_declare(D, Id) :-
    (   D =.. [Decl, Spec],
        lists:memberchk(Decl, [dynamic, discontiguous, multifile])
    ->  prolog_load_context(module, M),
        kk_declare_spec(Spec, M, Id)
    ;   true
    ).

kk_declare_spec(Spec, M, Id) :-
    (   var(Spec) -> true
    ;   Spec = (A, B) -> kk_declare_spec(A, M, Id), kk_declare_spec(B, M, Id)
    ;   Spec = [_ | _] -> lists:maplist(user:kk_declare_in(M, Id), Spec)
    ;   Spec = M1:PI, atom(M1) -> kk_declare_spec(PI, M1, Id)
    ;   Spec = N/A -> kk_declared(M:N/A, Id)
    ;   Spec = N//A0, integer(A0) -> A is A0 + 2, kk_declared(M:N/A, Id)
    ;   true
    ).

kk_declared(MPI, Id) :-
    kk_pred_state(MPI, K, p(Seen, _, Files)),
    iso_ext:bb_put(K, p(Seen, Id, Files)).

kk_declare_in(M, Id, Spec) :- kk_declare_spec(Spec, M, Id).

% kk_load_state(-F, -State): the state of this load of the file F being loaded
% (l(Stream, Position, Id, Last): the stream and the position of the term read last, the
% load's number, the predicate of the last clause), a new load's (a new number) when the
% stream is another, or the position is before the last one's.
kk_load_state(F, State) :-
    prolog_load_context(source, F),
    prolog_load_context(stream, S),
    (   catch(prolog_load_context(term_position, Pos), _, fail),
        Pos = position_and_lines_read(P, _)
    ->  true
    ;   P = 0
    ),
    (   iso_ext:bb_get(kk_loads, Ls),
        lists:memberchk(F-l(S0, P0, Id0, L), Ls),
        S0 == S,
        P >= P0
    ->  State = l(S, P, Id0, L)
    ;   (   iso_ext:bb_get(kk_load_count, Id0) -> true ; Id0 = 0 ),
        Id is Id0 + 1,
        iso_ext:bb_put(kk_load_count, Id),
        State = l(S, P, Id, none)
    ).

kk_put_load_state(F, State) :-
    (   iso_ext:bb_get(kk_loads, Ls0) -> true ; Ls0 = [] ),
    (   lists:select(F-_, Ls0, Ls1) -> true ; Ls1 = Ls0 ),
    iso_ext:bb_put(kk_loads, [F-State | Ls1]).
