/*  host/state.pl -- the Rust host's Prolog side (prolog/host/, loaded in order as one text:
    HOST_PL in src/prolog/mod.rs), continued: the session's state (kk_state/1), kept after every
    goal, and its replay in a fresh engine (kk_top_restore/2, kk_restore/8).
*/

% ---------------------------------------------------------------------------
% The session's state

% kk_changed_flags(-Flags): the flags whose value is not the one they had at the start.
%?- set_prolog_flag(occurs_check, true), kk_changed_flags(Fs).
%@ Fs = [occurs_check-true].
kk_changed_flags(Flags) :-
    (   iso_ext:bb_get(kk_flags0, Flags0) -> true ; Flags0 = [] ),
    findall(F-V, ( current_prolog_flag(F, V), \+ ( lists:member(F-V0, Flags0), V0 == V ) ), Flags).

% kk_changed_ops(-Ops): op/3 goals that give the operators their present definitions.
kk_changed_ops(Ops) :-
    (   iso_ext:bb_get(kk_ops0, Ops0) -> true ; Ops0 = [] ),
    % (both sides ground: memberchk/2 compares, and is a builtin; member/2 with ==/2 took
    % 2.7 ms of a 4 ms snapshot)
    findall(op(P, T, N), ( current_op(P, T, N), \+ lists:memberchk(op(P, T, N), Ops0) ), New),
    findall(op(0, T, N), ( lists:member(op(_, T, N), Ops0), \+ current_op(_, T, N) ), Gone),
    lists:append(New, Gone, Ops).

% kk_state(-Chars): the session's state, as the goal that restores it in a fresh engine:
% the modules imported (use_module/1,2 goals that succeeded), the operators changed, the files
% consulted (the top level's: its consults in order, each with the copy of the text it loaded
% and the flags and operators of its time, kk_keep_copy/2; a Session's: each file once, with
% the flags of its time), every clause of every dynamic predicate of user (one without
% clauses too), the flags changed, and the values a goal put with bb_put/2 (those that are
% ground, acyclic and small; the others are named as lost). Written without operators, so
% that it reads back before they are defined.
% (The hosts take it in pieces, kk_state_pieces/1, and join them.)
kk_state(Chars) :-
    kk_state_pieces(Pieces),
    kk_pieces_list(Pieces, Css),
    lists:append(Css, Chars).

kk_pieces_list([], []).
kk_pieces_list('$kk'(l, Cs, Ps), [Cs | Css]) :- kk_pieces_list(Ps, Css).

% kk_state_pieces(-Pieces): the text kk_state/1 gives (the goal kk_restore/8), in pieces that
% the host joins: a chain '$kk'(l, Chars, Pieces) ending in [].
% Each part of kk_restore/8 is written on its own, in parentheses, and each predicate's
% clauses as P-Clauses; a predicate's text is written anew only when its clauses changed since
% this engine last wrote it (kept for each predicate P as Raw-Text, Raw the H-B pairs of its
% clauses, in the global variable kk_sent_key/2 names): the writer took 10 of the 25 ms of a
% state at 20,000 facts. Sound whatever the goal did: a text is reused only for clauses that
% are the same (==, or variants of the same).
kk_state_pieces(Pieces) :-
    kk_need_library(charsio),
    (   iso_ext:bb_get(kk_setup, Setup) -> true ; Setup = [] ),
    (   iso_ext:bb_get(kk_bb_keys, Keys) -> true ; Keys = [] ),
    kk_changed_flags(Flags),
    kk_changed_ops(Ops),
    kk_state_files(FileFlags),
    catch(findall(P, kk_dynamic_key(P), Ps), E, true),
    (   var(E) -> LostAll = []
    ;   Ps = [], kk_why(E, Why), LostAll = [predicate(every)-Why]
    ),
    kk_pred_texts(Ps, Texts, LostPreds),
    kk_globals(Keys, Globals, LostGlobals),
    lists:append([LostGlobals, LostAll, LostPreds], Lost),
    (   iso_ext:bb_get(kk_broken_files, Broken) -> true ; Broken = [] ),
    lists:maplist(user:kk_part_text, [Setup, Ops, FileFlags, Flags, Globals, Lost, Broken],
            [T1, T2, T3, T5, T6, T7, T8]),
    kk_commas(Texts, Dyn, ["],(", T5, "),(", T6, "),(", T7, "),(", T8, "))"]),
    kk_chain(["kk_restore((", T1, "),(", T2, "),(", T3, "),[" | Dyn], Pieces).

% kk_pred_texts(+Ps, -Texts, -Lost): the texts of the predicates Ps (kk_pred_text/2); one
% whose clauses cannot be read or written is named in Lost (predicate(PI)-Why), and the
% others are kept.
kk_pred_texts([], [], []).
kk_pred_texts([P | Ps], Ts, Ls) :-
    (   catch(kk_pred_text(P, T), E, true) -> true ; E = failed ),
    (   var(E) -> Ts = [T | Ts1], Ls = Ls1
    ;   Ts = Ts1,
        kk_pred_pi(P, PI),
        kk_why(E, Why),
        Ls = [predicate(PI)-Why | Ls1]
    ),
    kk_pred_texts(Ps, Ts1, Ls1).

kk_pred_pi(N/A, N/A).
kk_pred_pi(m(M, N, A), M:N/A).

% kk_why(+E, -Why): the exception E as an atom, to say why something was not kept.
kk_why(E, Why) :-
    kk_text(E, [], Cs),
    atom_chars(Why, Cs).

% kk_pred_text(+P, -Text): the text of the predicate P and its clauses (P-Clauses), the one
% written last when they did not change since.
kk_pred_text(P, T) :-
    kk_raw_clauses(P, Raw),
    kk_sent_key(P, K),
    (   catch(iso_ext:bb_get(K, Raw0-T0), _, fail), kk_variant(Raw0, Raw) -> T = T0
    ;   kk_stored(P, Raw, Cs),
        kk_part_text(P-Cs, T),
        iso_ext:bb_put(K, Raw-T)
    ).

% kk_sent_key(+P, -K): the name of the global variable that keeps the text of P last written.
kk_sent_key(P, K) :-
    charsio:write_term_to_chars(P, [quoted(true)], Cs),
    atom_chars(K, ['$', k, k, '_', s, e, n, t, ' ' | Cs]).

kk_variant(A, B) :-
    (   A == B -> true
    ;   \+ ground(B), subsumes_term(A, B), subsumes_term(B, A)
    ).

% kk_part_text(+T, -Chars): T written quoted, without operators (so that it reads back before
% they are defined), each part in parentheses in the whole (it reads back as T wherever it
% stands): write_term_to_chars/3 without its parsing of the options and naming of the
% variables (a variable is written _G123; the same name in two parts is one variable in the
% whole, which is harmless: each clause is asserted, a copy, on its own).
kk_part_text(T, Chars) :-
    '$write_term_to_chars'(Chars, T, true, false, true, [], 0, false).

% kk_commas(+Texts, -Pieces, +Rest): the texts, each in parentheses, separated by commas,
% then Rest.
kk_commas([], Rest, Rest).
kk_commas([T | Ts], ["(", T, ")" | Rest0], Rest) :-
    (   Ts == [] -> Rest1 = Rest0 ; Rest0 = ["," | Rest1] ),
    kk_commas(Ts, Rest1, Rest).

kk_chain([], []).
kk_chain([P | Ps], '$kk'(l, P, C)) :- kk_chain(Ps, C).

% kk_state_files(-Files): the files of the state: the top level's log (bb kk_log: its copies'
% count, then its entries, kk_keep_copy/2), or the files consulted from their names, each with
% the flags it was read with (F-Flags: kk_remember/1).
kk_state_files(Files) :-
    (   iso_ext:bb_get(kk_log, Log)
    ->  (   iso_ext:bb_get(kk_copies, N) -> true ; N = 0 ),
        Files = [copies(N) | Log]
    ;   iso_ext:bb_get(kk_files, Fs)
    ->  lists:maplist(user:kk_file_flags, Fs, Files)
    ;   Files = []
    ).

kk_file_flags(F, F-Flags) :-
    (   iso_ext:bb_get(kk_file_flags, FFs), lists:memberchk(F-Flags0, FFs)
    ->  Flags = Flags0
    ;   Flags = []
    ).

% kk_globals(+Keys, -Globals, -Lost): the values of Keys that can be kept (K-V), and why the
% others cannot (K-Why).
%?- bb_put(k, 1), bb_put(j, f(_)), kk_globals([k, j], Gs, Ls).
%@ Gs = [k-1],
%@ Ls = [j-'not ground'].
kk_globals([], [], []).
kk_globals([K | Ks], Gs, Ls) :-
    (   catch(iso_ext:bb_get(K, V), _, fail)
    ->  (   \+ kk_acyclic(V, 10000) -> Gs = Gs1, Ls = [K-'cyclic, or too big' | Ls1]
        ;   \+ ground(V) -> Gs = Gs1, Ls = [K-'not ground' | Ls1]
        ;   Gs = [K-V | Gs1], Ls = Ls1
        )
    ;   Gs = Gs1, Ls = Ls1
    ),
    kk_globals(Ks, Gs1, Ls1).

% kk_dynamic_key(?P): N/A, a dynamic predicate of user, or m(M, N, A), one of a module a goal
% asserted into (bb kk_modules).
kk_dynamic_key(N/A) :-
    current_predicate(user:N/A),
    \+ kk_hidden(N/A),
    functor(H, N, A),
    predicate_property(user:H, dynamic),
    \+ kk_made_dynamic(user:N/A).
kk_dynamic_key(m(M, N, A)) :-
    iso_ext:bb_get(kk_modules, Ms),
    lists:member(M, Ms),
    current_predicate(M:(N/A)),
    functor(H, N, A),
    predicate_property(M:H, dynamic),
    \+ kk_made_dynamic(M:N/A).

% kk_made_dynamic(+M:PI): PI was declared dynamic by the host only, so that Scryer replaces it
% without writing its warning to the process's standard output (host_warnings.pl): a static
% predicate for the state (its clauses are those of its files, consulted again; clause/2 of
% a dynamic predicate that another file replaced gives the clauses replaced too).
kk_made_dynamic(MPI) :-
    iso_ext:bb_get(kk_made_dynamic, Ds),
    lists:memberchk(MPI, Ds).

% kk_raw_clauses(+P, -Raw): the clauses of P (kk_dynamic_key/1) as H-B pairs, in order.
kk_raw_clauses(N/A, Raw) :-
    (   N/A == (:)/2
    ->  % (Scryer 0.10's assertz((M:H :- B)) makes a clause of (:)/2 in user, which clause/2
        % cannot read, an instantiation error: read by retract/1, and asserted back in order)
        findall((M:H)-B, retract((M:H :- B)), Raw),
        lists:maplist(user:kk_assert_back, Raw)
    ;   functor(H, N, A),
        findall(H-B, clause(H, B), Raw)
    ).
kk_raw_clauses(m(M, N, A), Raw) :-
    functor(H, N, A),
    findall(H-B, clause(M:H, B), Raw).

kk_assert_back(H-B) :- assertz((H :- B)).

% kk_stored(+P, +Raw, -Cs): the clauses Raw of P (kk_raw_clauses/2) as kk_restore_/1 asserts
% them: a fact as its head alone, half the text of (H :- true) to write, send and read back
% (unless the predicate's name is (:-) or (:), whose facts would read back as other
% clauses); M:C for a module M's.
kk_stored(N/_, Raw, Cs) :-
    kk_bare_facts(N, Bare),
    kk_stored_clauses(Raw, Bare, Cs).
kk_stored(m(M, N, _), Raw, Cs) :-
    kk_bare_facts(N, Bare),
    kk_stored_clauses(Raw, Bare, Cs0),
    kk_qualified_clauses(Cs0, M, Cs).

kk_bare_facts(N, Bare) :- ( N \== (:-), N \== (:) -> Bare = true ; Bare = false ).

kk_stored_clauses([], _, []).
kk_stored_clauses([H-B | HBs], Bare, [C | Cs]) :-
    (   B == true, Bare == true -> C = H ; C = (H :- B) ),
    kk_stored_clauses(HBs, Bare, Cs).

kk_qualified_clauses([], _, []).
kk_qualified_clauses([C | Cs], M, [M:C | MCs]) :- kk_qualified_clauses(Cs, M, MCs).

% ---------------------------------------------------------------------------
% Restoring it in a fresh engine

% kk_top_restore(+Text, -R): the state Text (kk_state/1) given to this fresh engine of the top
% level (kk_restore_top/8), R true, false or the error it threw.
kk_top_restore(Text, R) :-
    kk_chars(Text, Chars),
    (   catch(( kk_read_goal(Chars, kk_restore(A, B, C, D, E, F, G, H), _),
                kk_restore_top(A, B, C, D, E, F, G, H),
                R0 = true ),
              Err, R0 = Err)
    ->  R = R0
    ;   R = false
    ),
    % (what the restore said is shown now, its last new line too)
    kk_flush.

kk_restore(Setup, Ops, FileFlags, Dyn, Flags, Globals, Lost, Broken) :-
    lists:maplist(user:kk_restore_goal, Setup),
    iso_ext:bb_put(kk_setup, Setup),
    iso_ext:bb_put(kk_broken_files, Broken),
    lists:maplist(user:kk_restore_goal, Ops),
    lists:maplist(user:kk_restore_file(Broken), FileFlags),
    lists:maplist(user:kk_restore_, Dyn),
    lists:maplist(user:kk_restore_flag, Flags),
    lists:maplist(user:kk_restore_global, Globals),
    lists:maplist(user:kk_report_lost, Lost).

/*  kk_restore_top(+Setup, +Ops, +Files, +Dyn, +Flags, +Globals, +Lost, +Broken): the session's
    state (kk_state/1) given to a fresh engine of the top level, exactly: the modules imported;
    the session's consults in their order, each the copy of the text it loaded
    (kk_restore_entry/2), with the flags and operators of its time; then the operators as they
    are, every dynamic predicate with its clauses (one without clauses declared), the flags as
    they are, the globals. What a consult said when it was made (warnings, errors) is not said
    again; a file that did not load then does not now (the same text, read the same way).
*/
kk_restore_top(Setup, Ops, Files, Dyn, Flags, Globals, Lost, Broken) :-
    lists:maplist(user:kk_restore_goal, Setup),
    iso_ext:bb_put(kk_setup, Setup),
    iso_ext:bb_put(kk_broken_files, Broken),
    (   Files = [copies(N) | Log]
    ->  iso_ext:bb_put(kk_copies, N),
        iso_ext:bb_put(kk_log, []),
        lists:maplist(user:kk_restore_entry(Broken), Log)
    ;   lists:maplist(user:kk_restore_goal, Ops),
        lists:maplist(user:kk_restore_file(Broken), Files)
    ),
    kk_set_ops(Ops),
    lists:maplist(user:kk_restore_, Dyn),
    kk_set_flags(Flags),
    lists:maplist(user:kk_restore_global, Globals),
    lists:maplist(user:kk_report_lost, Lost).

% kk_restore_entry(+Broken, +Entry): the copy of Entry (kk_keep_copy/2) loaded again as its
% file, with the flags and operators it was read with, quietly; only a file that loaded then
% (it is not one of Broken: its failure was told then) and does not now is told of (a file
% that replaced kenken.pl, first loaded here).
kk_restore_entry(Broken, Entry) :-
    Entry = c(F, _, Copy, Flags, Ops),
    kk_all_libraries,
    kk_set_flags(Flags),
    kk_set_ops(Ops),
    kk_loader_throws,
    kk_quietly(( catch(kk_loading(kk_load_entry(Entry)), E, true)
               ->  (   var(E) -> R = true ; E = kk_halt(_) -> R = true ; R = error(E) )
               ;   R = false
               )),
    (   R == true -> kk_log_entry(Entry, true)
    ;   kk_log_entry(Entry, false),
        (   lists:memberchk(F, Broken) -> true ; kk_not_loaded(F, Copy, R) )
    ).

% kk_quietly(:G): G, what it writes to the current output dropped.
kk_quietly(G) :-
    current_output(O),
    iso_ext:setup_call_cleanup(( open('/dev/null', write, Null), set_output(Null) ),
                               user:G,
                               ( set_output(O), close(Null) )).

% kk_set_flags(+Flags): the flags are as at the start but Flags (F-V, kk_changed_flags/1).
kk_set_flags(Flags) :-
    kk_changed_flags(Now),
    (   iso_ext:bb_get(kk_flags0, Flags0) -> true ; Flags0 = [] ),
    iso_ext:forall(user:( lists:member(F-_, Now), \+ lists:memberchk(F-_, Flags),
                          lists:memberchk(F-V0, Flags0) ),
                   user:kk_restore_flag(F-V0)),
    lists:maplist(user:kk_restore_flag, Flags).

% kk_set_ops(+Ops): the operators are as at the start but Ops (op/3 goals, kk_changed_ops/1).
kk_set_ops(Ops) :-
    kk_changed_ops(Now),
    iso_ext:forall(user:( lists:member(op(_, T, N), Now), \+ kk_op_in(T, N, Ops) ),
                   user:kk_initial_op(T, N)),
    lists:maplist(user:kk_restore_goal, Ops).

% kk_op_in(+T, +N, +Ops): Ops defines the operator N of T's class (prefix, infix, postfix).
kk_op_in(T, N, Ops) :-
    kk_op_class(T, C),
    lists:member(op(_, T1, N1), Ops),
    N1 == N,
    kk_op_class(T1, C),
    !.

% kk_initial_op(+T, +N): the operator N of T's class as it was at the start (none: priority 0).
kk_initial_op(T, N) :-
    kk_op_class(T, C),
    (   iso_ext:bb_get(kk_ops0, Ops0),
        lists:member(op(P0, T0, N0), Ops0), N0 == N, kk_op_class(T0, C)
    ->  kk_restore_goal(op(P0, T0, N))
    ;   kk_restore_goal(op(0, T, N))
    ).

kk_op_class(T, C) :-
    (   lists:memberchk(T, [fy, fx]) -> C = prefix
    ;   lists:memberchk(T, [xf, yf]) -> C = postfix
    ;   C = infix
    ).

kk_restore_goal(G) :- ( catch(G, _, fail) -> true ; true ).

kk_restore_flag(F-V) :- kk_restore_goal(set_prolog_flag(F, V)).

kk_restore_global(K-V) :- kk_bb_put(K, V).

kk_report_lost(predicate(PI)-Why) :-
    !,
    write('% lost in the restart: the clauses of '), writeq(PI), write(' ('), write(Why),
    write(')'), nl.
kk_report_lost(K-Why) :-
    write('% lost in the restart: the value of '), writeq(K), write(' (bb_put/2; '),
    write(Why), write(')'), nl.

% kk_restore_file(+Broken, +F-Flags): F loaded again, with the flags of its time. Quietly,
% unless it loaded when it was consulted (it is not one of Broken, whose failure was told
% then) and no longer does: it was changed since, and what it defined (what answered before the
% restart) is gone or partial, which is said.
kk_restore_file(Broken, F-Flags) :-
    kk_all_libraries,
    lists:maplist(user:kk_restore_flag, Flags),
    kk_remember(F),
    kk_loader_throws,
    (   catch(kk_loading(consult(F)), E, true)
    ->  (   var(E) -> R = true ; E = kk_halt(_) -> R = true ; R = error(E) )
    ;   R = false
    ),
    (   R == true -> true
    ;   kk_broken(F, true),
        (   lists:memberchk(F, Broken) -> true
        ;   write('% in the restart, '), write(F),
            write(' (changed since it was loaded) did not load as before:'), nl,
            kk_not_loaded(F, R)
        )
    ).

kk_restore_(N/A-Cs) :-
    (   N/A == (:)/2 -> kk_retract_all((_:_ :- _))
    ;   functor(H, N, A), kk_declare_dynamic(user:H), retractall(H)
    ),
    lists:maplist(user:kk_restore_clause, Cs).
kk_restore_(m(M, N, A)-Cs) :-
    functor(H, N, A),
    kk_note_module(M:H),
    kk_declare_dynamic(M:H),
    retractall(M:H),
    lists:maplist(user:kk_restore_clause, Cs).

% kk_declare_dynamic(+M:H): the predicate of H in M is dynamic (it is known, without clauses:
% retractall/1 alone leaves an unknown one unknown in Scryer 0.10).
kk_declare_dynamic(M:H) :-
    (   catch(predicate_property(M:H, dynamic), _, fail) -> true
    ;   catch(( assertz(M:H), retract(M:H) ), _, true)
    ).

% (retractall/1 of a head M:H, (:)/2 in user, is an instantiation error)
kk_retract_all(C) :- ( retract(C), fail ; true ).

kk_restore_clause(C0) :- kk_clause_reads(C0, C), assertz(C).

% ---------------------------------------------------------------------------
% Loading and halting

% kk_loading(+G): G loads a file: term_expansion/2 (host_expand.pl) then rewrites its clauses
% (kk_clause_rewrite/3) as they load.
kk_loading(G) :-
    iso_ext:setup_call_cleanup(iso_ext:bb_put(kk_loading, true), user:G,
                               iso_ext:bb_put(kk_loading, false)).

% kk_unless_halt(+E, :B): B, unless E ends the session or swaps its engine (kk_halt/1,
% kk_swap/3): E is thrown on then.
kk_unless_halt(E, B) :-
    (   ( E = kk_halt(_) ; E = kk_swap(_, _, _) ) -> throw(E) ; call(B) ).

kk_halt_(C) :-
    error:must_be(integer, C),
    throw(kk_halt(C)).
