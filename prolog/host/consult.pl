/*  host/consult.pl -- the Rust host's Prolog side (prolog/host/, loaded in order as one text:
    HOST_PL in src/prolog/mod.rs), continued: consulting: [user], kk_consult/1 (remembered for
    make/0 and a restart), a file that replaces kenken.pl, and load errors reported with their
    lines.
*/

% ---------------------------------------------------------------------------
% [user]

% kk_consult_user: [user] -- clauses typed at the terminal (or read from query's standard
% input) up to the end of the input (Ctrl-D), each predicate's clauses replacing the old ones
% (as consult/1 does); they are dynamic, so they survive an interrupt as asserted ones do.
kk_consult_user :-
    write('% reading clauses; end with Ctrl-D'), nl,
    kk_read_clauses(Cs),
    findall(N/A, ( lists:member(C, Cs), kk_clause_head(C, H), functor(H, N, A) ), PIs0),
    sort(PIs0, PIs),
    iso_ext:forall(lists:member(N/A, PIs), user:( functor(H, N, A), retractall(H) )),
    iso_ext:forall(lists:member(C, Cs), user:kk_user_clause(C)).

kk_read_clauses(Cs) :-
    write('|: '), flush_output,
    read_term(C, []),
    % (Scryer 0.10 leaves C unbound at the end of a pipe)
    (   ( var(C) ; C == end_of_file ) -> Cs = []
    ;   Cs = [C | Cs1], kk_read_clauses(Cs1)
    ).

kk_clause_head((H :- _), H) :- !, callable(H).
kk_clause_head((:- _), _) :- !, fail.
kk_clause_head(H, H) :- callable(H).

kk_user_clause((:- G0)) :-
    !,
    kk_clause_rewrite(user, (:- G0), (:- G)),
    (   catch(G, E, (kk_unless_halt(E, (kk_top_ball(E, _), fail)))) -> true ; true ).
kk_user_clause(C) :- kk_assert(assertz, C).

% ---------------------------------------------------------------------------
% Consulting files

% kk_consult(+Files): consults each file and remembers it for make/0 and for the replay after
% an interrupt. A file that does not load is reported (every syntax error with its line, and
% what was not loaded: kk_syntax_report/1) and the session goes on; it is remembered all the
% same, so that make/0 loads it once it is fixed.
kk_consult(Fs) :-
    (   Fs = [_ | _] -> true ; Fs = [] -> true ; Fs1 = [Fs] ),
    (   var(Fs1) -> Fs1 = Fs ; true ),
    lists:foldl(user:kk_consult_next, Fs1, true, Ok),
    Ok == true.

kk_consult_next(F, Ok0, Ok) :-
    (   kk_consult_one(F) -> Ok = Ok0 ; Ok = false ).

% Scryer's loader prints a load error itself and fails, unless '$toplevel':started holds
% (Scryer's own top level asserts it): then the error is thrown, with its line, to us. (It is
% asserted at the first consult: asserting it while the host's files load breaks the engine.)
kk_loader_throws :-
    (   clause('$toplevel':started, _) -> true ; assertz('$toplevel':started) ).

/*  kk_consult_one(+F): consults the file F as consult/1 does, and remembers it.

    What is loaded is a copy of the file's text, kept in the session's private directory (bb
    kk_scratch): the file F names is opened as consult/1 opens it (F, or F.pl), its text copied,
    and the copy loaded under the file's own name (Scryer's loader then takes it for that file:
    a later consult of it replaces its predicates, its directory is the load's). The session's
    consults are kept in order in the log (bb kk_log: kk_log_entry/2), each with its copy and
    the flags and operators it was read with: a restart loads the same texts in the same order
    with the same flags and operators (kk_restore_entry/1), never the files as they are then,
    and listing/1 lists a predicate of a file from the copy that defined it last
    (kk_list_pi/1).
*/
kk_consult_one(F) :-
    error:must_be(atom, F),
    kk_not_homework(F),
    kk_all_libraries,
    kk_loader_throws,
    (   iso_ext:bb_get(kk_scratch, _) -> kk_consult_kept(F) ; kk_consult_read(F) ).

kk_consult_kept(F) :-
    catch(kk_keep_copy(F, Entry), E0, true),
    (   var(E0) -> true
    ;   E0 = error(existence_error(source_sink, _), _)
    ->  % (thrown, as Scryer's, SWI's and GNU Prolog's consult/1 do: catch/3 sees it, and the
        % top level writes it when nothing does)
        throw(error(existence_error(source_sink, F), consult/1))
    ;   throw(E0)
    ),
    catch(( kk_loading(kk_load_entry(Entry)) -> R = true ; R = false ), E, R = error(E)),
    (   R == true -> kk_log_entry(Entry, true)
    ;   R = error(kk_halt(C)) -> kk_log_entry(Entry, true), throw(kk_halt(C))
    ;   R = error(I), kk_interrupt(I)
    ->  % (Ctrl-C or a timeout stopped the load where it was: what it loaded stays, and the
        % file is noted as not loaded, which make/0 loads again)
        kk_log_entry(Entry, false), throw(I)
    ;   kk_log_entry(Entry, false),
        Entry = c(_, _, Copy, _, _),
        kk_not_loaded(F, Copy, R),
        fail
    ).

% kk_interrupt(+Ball): Ball is the exception of Scryer's interrupt (Ctrl-C, or a timeout:
% src/prolog/toplevel/interrupt.rs), which no part of the host catches for good.
kk_interrupt(Ball) :- nonvar(Ball), Ball = error(I, _), I == '$interrupt_thrown'.

% kk_consult_read(+F): F consulted as consult/1 does, and remembered by its name
% (kk_remember/1: an engine without a directory for copies, a Session's: its files are
% consulted again at a restart).
kk_consult_read(F) :-
    catch(( kk_loading(consult(F)) -> R = true ; R = false ), E, R = error(E)),
    (   R == true -> kk_remember(F), kk_broken(F, false)
    ;   R = error(I), kk_interrupt(I) -> kk_remember(F), kk_broken(F, true), throw(I)
    ;   R = error(kk_halt(C)) -> kk_remember(F), kk_broken(F, false), throw(kk_halt(C))
    ;   R = error(error(existence_error(source_sink, _), _))
    ->  throw(error(existence_error(source_sink, F), consult/1))
    ;   R = error(E), kk_unopened(E) -> throw(E)
    ;   kk_remember(F),
        kk_broken(F, true),
        kk_not_loaded(F, R),
        fail
    ).

% kk_remember(+F): the file F, consulted from its name, remembered (bb kk_files, in order;
% the flags it was read with, bb kk_file_flags), with its text (for make/0 to tell whether it
% changed) and its clauses (for listing/1).
kk_remember(F) :-
    kk_file_text(F, Cs),
    kk_note(kk_file_texts, F, Cs),
    kk_file_clauses(F, PITs),
    kk_note(kk_file_clauses, F, PITs),
    (   iso_ext:bb_get(kk_files, Files0) -> true ; Files0 = [] ),
    (   lists:memberchk(F, Files0) -> Files = Files0 ; lists:append(Files0, [F], Files) ),
    iso_ext:bb_put(kk_files, Files),
    kk_changed_flags(Flags),
    (   iso_ext:bb_get(kk_file_flags, FFs0) -> true ; FFs0 = [] ),
    (   lists:select(F-_, FFs0, FFs1) -> true ; FFs1 = FFs0 ),
    iso_ext:bb_put(kk_file_flags, [F-Flags | FFs1]).

% kk_keep_copy(+F, -Entry): the file F names, opened as consult/1 opens it (relative to the
% file being loaded, if any; F, else F.pl), its text copied into the session's directory:
% Entry is c(F, Name, Copy, Flags, Ops), Name the file's name as Scryer's loader knows it,
% Copy the copy's, Flags and Ops the flags and operators (those changed since the start)
% it is read with. The same text as the last entry's, read the same way, is that entry's copy.
kk_keep_copy(F, c(F, Name, Copy, Flags, Ops)) :-
    loader:path_atom(F, P0),
    loader:load_context_path(P0, P),
    loader:open_file(P, S),
    stream_property(S, file_name(Name)),
    iso_ext:call_cleanup(user:kk_rest_chars(S, Cs), close(S)),
    kk_changed_flags(Flags),
    kk_changed_ops(Ops),
    (   iso_ext:bb_get(kk_log, Log),
        lists:append(_, [c(_, Name, Copy0, Flags, Ops)], Log),
        kk_file_text(Copy0, Cs0),
        Cs0 == Cs
    ->  Copy = Copy0
    ;   kk_next_copy(Copy),
        iso_ext:setup_call_cleanup(open(Copy, write, O), user:kk_put_chars(O, Cs), close(O))
    ).

kk_put_chars(O, Cs) :- lists:maplist(user:kk_put_char(O), Cs).

kk_put_char(O, C) :- put_char(O, C).

% kk_next_copy(-Copy): the name of the next copy of a file in the session's directory.
kk_next_copy(Copy) :-
    iso_ext:bb_get(kk_scratch, Dir),
    (   iso_ext:bb_get(kk_copies, N0) -> true ; N0 = 0 ),
    N is N0 + 1,
    iso_ext:bb_put(kk_copies, N),
    number_chars(N, Ds),
    atom_chars(D, Ds),
    atom_concat(Dir, '/', Dir1),
    atom_concat(Dir1, D, Base),
    atom_concat(Base, '.pl', Copy).

% kk_load_entry(+Entry): the copy of Entry loaded as its file, as consult/1 loads a file
% (loader:consult_stream/2, what loader:use_module/3 does): the clauses of a file that is no
% module go to user, a module's exports are imported.
% Scryer 0.10's consult_stream/2 imports a module with an export list left unbound, which it
% refuses (invalid_module_declaration) once the module is loaded: the module is then imported
% as a library already loaded is (loader:use_module/1 of library(M) finds it compiled).
kk_load_entry(c(_, Name, Copy, _, _)) :-
    (   catch(iso_ext:setup_call_cleanup(open(Copy, read, S0), read_term(S0, T, []), close(S0)),
              _, fail),
        nonvar(T), T = (:- module(M, _)), atom(M)
    ->  Module = M
    ;   Module = []
    ),
    iso_ext:setup_call_cleanup(open(Copy, read, S), user:kk_load_as(S, Name, Module),
                               catch(close(S), _, true)).

kk_load_as(S, Name, Module) :-
    catch(loader:consult_stream(S, Name), E, true),
    (   var(E) -> true
    ;   E == file_load_error -> fail
    ;   Module \== [], E = error(_, _), catch(current_module(Module), _, fail)
    ->  loader:use_module(library(Module))
    ;   throw(E)
    ).

% kk_log_entry(+Entry, +Loaded): Entry (kk_keep_copy/2) is the last of the session's consults
% (bb kk_log; an entry the same as the last one is not added again), Loaded whether it loaded
% (a file that did not is remembered all the same: make/0 loads it once it is fixed); its
% clauses, as loaded, are noted for listing/1 (kk_note_clauses/2).
kk_log_entry(Entry, Loaded) :-
    Entry = c(F, _, Copy, _, _),
    (   iso_ext:bb_get(kk_log, Log0) -> true ; Log0 = [] ),
    (   lists:append(_, [Entry], Log0) -> Log = Log0 ; lists:append(Log0, [Entry], Log) ),
    iso_ext:bb_put(kk_log, Log),
    (   Loaded == true -> kk_broken(F, false) ; kk_broken(F, true) ),
    kk_note_clauses(Copy, Loaded).

% kk_broken(+F, +Broken): whether F's last load failed (bb kk_broken_files).
kk_broken(F, Broken) :-
    (   iso_ext:bb_get(kk_broken_files, Fs0) -> true ; Fs0 = [] ),
    (   lists:select(F, Fs0, Fs1) -> true ; Fs1 = Fs0 ),
    (   Broken == true -> Fs = [F | Fs1] ; Fs = Fs1 ),
    iso_ext:bb_put(kk_broken_files, Fs).

% kk_not_loaded(+F, +R): says why F did not load (wholly), R being false (consult/1 failed) or
% error(E); kk_not_loaded(+F, +Text, +R): the same, Text the file of the text that was loaded
% (the copy kept of F: kk_keep_copy/2).
kk_not_loaded(F, R) :- kk_source_name(F, Text), kk_not_loaded(F, Text, R).

kk_not_loaded(F, Text, R) :-
    (   R = error(E) -> kk_consult_error(F, Text, E)
    ;   write('% '), write(F), write(' was not loaded'), nl
    ).

% kk_files(-Fs): the files consulted in the session, each once (as first named), in order.
kk_files(Fs) :-
    (   iso_ext:bb_get(kk_log, Log)
    ->  findall(F-N, lists:member(c(F, N, _, _, _), Log), FNs),
        kk_first_names(FNs, [], Fs)
    ;   iso_ext:bb_get(kk_files, Fs) -> true
    ;   Fs = []
    ).

kk_first_names([], _, []).
kk_first_names([F-N | FNs], Seen, Fs) :-
    (   lists:memberchk(N, Seen) -> Fs = Fs1 ; Fs = [F | Fs1] ),
    kk_first_names(FNs, [N | Seen], Fs1).

% ---------------------------------------------------------------------------
% What a file defines, as loaded

/*  kk_note_clauses(+Copy, +Loaded): the clauses the copy Copy of a file defined as it was
    loaded (Loaded: whether it loaded wholly), noted for listing/1 (bb kk_copy_clauses:
    Copy-PITs, PITs a list of N/A-Clauses). As Scryer 0.10 loads a file: a predicate's clauses
    that come after another predicate's or a directive (not declared discontiguous/1 before)
    replace those it had; at the first syntax error the load stops, the predicate it was
    reading then (its clauses are added once all are read) and all after it not loaded.
*/
kk_note_clauses(Copy, Loaded) :-
    (   catch(iso_ext:setup_call_cleanup(open(Copy, read, S),
                                       user:kk_read_items(S, run, Items0), close(S)),
              _, fail)
    ->  true
    ;   Items0 = []
    ),
    (   Loaded == true -> Items = Items0
    ;   lists:append(Before, [error(_, _, _) | _], Items0),
        \+ lists:memberchk(error(_, _, _), Before)
    ->  (   lists:append(_, [clause(Reading, _)], Before)
        ->  findall(clause(PI, T), ( lists:member(clause(PI, T), Before), PI \== Reading ), Items)
        ;   Items = Before
        )
    ;   Items = Items0
    ),
    kk_loaded_clauses(Items, none, [], [], PITs),
    kk_note(kk_copy_clauses, Copy, PITs).

% kk_loaded_clauses(+Items, +Prev, +Discontiguous, +PITs0, -PITs): PITs0 (N/A-Clauses, the
% clauses last first, in the order the predicates first came) and what Items add, Prev being
% the predicate of the item before (none after a directive), Discontiguous those declared so;
% PITs with each predicate's clauses in order.
kk_loaded_clauses([], _, _, PITs0, PITs) :-
    lists:maplist(user:kk_reversed_value, PITs0, PITs).
kk_loaded_clauses([I | Is], Prev, Ds, PITs0, PITs) :-
    (   I = clause(PI, T)
    ->  (   lists:memberchk(PI-Ts0, PITs0)
        ->  (   ( PI == Prev ; lists:memberchk(PI, Ds) ) -> Ts = [T | Ts0] ; Ts = [T] ),
            kk_set_value(PITs0, PI, Ts, PITs1)
        ;   lists:append(PITs0, [PI-[T]], PITs1)
        ),
        kk_loaded_clauses(Is, PI, Ds, PITs1, PITs)
    ;   I = directive(D), nonvar(D), D = discontiguous(Spec)
    ->  kk_pi_list(Spec, New),
        lists:append(Ds, New, Ds1),
        kk_loaded_clauses(Is, none, Ds1, PITs0, PITs)
    ;   kk_loaded_clauses(Is, none, Ds, PITs0, PITs)
    ).

kk_reversed_value(K-Vs0, K-Vs) :- lists:reverse(Vs0, Vs).

% kk_set_value(+KVs0, +K, +V, -KVs): KVs0 with the value of the key K (there) made V.
kk_set_value([K0-V0 | KVs0], K, V, KVs) :-
    (   K0 == K -> KVs = [K-V | KVs0]
    ;   KVs = [K0-V0 | KVs1], kk_set_value(KVs0, K, V, KVs1)
    ).

kk_pi_list(Spec, PIs) :-
    (   var(Spec) -> PIs = []
    ;   Spec = [_ | _] -> findall(PI, ( lists:member(S, Spec), kk_pi_list(S, Ps), lists:member(PI, Ps) ), PIs)
    ;   Spec = (A, B) -> kk_pi_list(A, As), kk_pi_list(B, Bs), lists:append(As, Bs, PIs)
    ;   Spec = N//A0, integer(A0) -> A is A0 + 2, PIs = [N/A]
    ;   Spec = _/_ -> PIs = [Spec]
    ;   PIs = []
    ).

% kk_owner(+PI, -Copy): the copy of a file of the session's consults that defined PI last, as
% the engine has it: a later consult of the same file that no longer defines it removed it.
kk_owner(PI, Copy) :-
    (   iso_ext:bb_get(kk_log, Log) -> true ; Log = [] ),
    (   iso_ext:bb_get(kk_copy_clauses, CPs) -> true ; CPs = [] ),
    lists:foldl(user:kk_owner_step(PI, CPs), Log, none, Owner),
    Owner = c(_, _, Copy, _, _).

kk_owner_step(PI, CPs, Entry, Owner0, Owner) :-
    Entry = c(_, Name, Copy, _, _),
    (   lists:memberchk(Copy-PITs, CPs), lists:memberchk(PI-_, PITs) -> Owner = Entry
    ;   Owner0 = c(_, Name, _, _, _) -> Owner = none
    ;   Owner = Owner0
    ).

% ---------------------------------------------------------------------------
% A file that replaces kenken.pl

% kk_not_homework(+F): F does not define the homework's predicates while kenken.pl is loaded
% (bb kk_homework, set by the host then): a student's own kenken.pl is never mixed with ours
% (their kenken/3 beside our plain_kenken/3). One that does replaces kenken.pl wholly, as when
% it is consulted at the start (Setup::loads_kenken). A goal typed that names such a file is
% not run (kk_swap_first/1): kk_swap(Name, PI, before) is thrown, the host starts an engine
% without kenken.pl, gives it the session's state and runs the goal there (Toplevel::run). A
% file whose name is built as the goal runs is met here: the file is remembered and
% kk_swap(Name, PI, during) thrown, which stops the goal; the fresh engine gets the session's
% state, this file among its files.
kk_not_homework(F) :-
    (   kk_homework_file(F, Name, PI)
    ->  (   iso_ext:bb_get(kk_scratch, _)
        ->  kk_keep_copy(F, Entry), kk_log_entry(Entry, true)
        ;   kk_remember(F)
        ),
        throw(kk_swap(Name, PI, during))
    ;   true
    ).

% kk_homework_file(+F, -Name, -PI): kenken.pl is loaded, and the file F (Name) defines PI, one
% of its predicates.
kk_homework_file(F, Name, PI) :-
    iso_ext:bb_get(kk_homework, PIs),
    kk_source_name(F, Name),
    catch(open(Name, read, S), _, fail),
    iso_ext:call_cleanup(user:kk_defines_one(S, PIs, PI), close(S)).

% kk_swap_first(+Goal): Goal (as kk_halts/2 gives it) consults no file named in its text that
% defines the homework's predicates while kenken.pl is loaded; else kk_swap/3 is thrown
% before Goal runs (kk_not_homework/1).
kk_swap_first(Goal) :-
    (   iso_ext:bb_get(kk_homework, _),
        kk_consulted(Goal, F),
        kk_homework_file(F, Name, PI)
    ->  throw(kk_swap(Name, PI, before))
    ;   true
    ).

% kk_member(-X, +L): X is an element of the list L, perhaps partial (its unbound tail is not
% bound).
kk_member(X, [Y | L]) :- ( X = Y ; nonvar(L), kk_member(X, L) ).

% kk_consulted(+G, -F): F, an atom, names a file the goal G (as kk_halts/2 gives it) consults.
kk_consulted(G, F) :-
    nonvar(G),
    (   G = user:kk_consult(Fs) -> ( nonvar(Fs), Fs = [_ | _] -> kk_member(F, Fs) ; F = Fs ), atom(F)
    ;   G = (A, B) -> ( kk_consulted(A, F) ; kk_consulted(B, F) )
    ;   G = _^G1 -> kk_consulted(G1, F)
    ;   G = _:G1 -> kk_consulted(G1, F)
    ;   kk_meta_spec(G, Spec) -> functor(G, _, N), kk_goal_arg(1, N, Spec, G, A), kk_consulted(A, F)
    ).

% kk_goal_arg(+I, +N, +Spec, +G, -A): A is a goal argument of G, the I-th or one after it up to
% the N-th, as Spec (kk_meta_spec/2) says.
kk_goal_arg(I, N, Spec, G, A) :-
    I =< N,
    (   arg(I, Spec, S), S \== ?, arg(I, G, A)
    ;   I1 is I + 1, kk_goal_arg(I1, N, Spec, G, A)
    ).

% kk_defines_one(+S, +PIs, -PI): a clause read from S (up to its end or a syntax error)
% defines PI, one of PIs.
kk_defines_one(S, PIs, PI) :-
    catch(read_term(S, T, []), _, fail),
    nonvar(T),
    T \== end_of_file,
    (   kk_clause_head(T, H), functor(H, N, A), lists:memberchk(N/A, PIs)
    ->  PI = N/A
    ;   kk_defines_one(S, PIs, PI)
    ).

% ---------------------------------------------------------------------------
% Load errors and syntax errors

% kk_unopened(+E): E says the file could not be opened (it is then not remembered).
kk_unopened(error(permission_error(_, source_sink, _), _)).
kk_unopened(error(type_error(_, _), _)).
kk_unopened(error(instantiation_error, _)).

% kk_consult_error(+F, +Text, +E): says what E, thrown by consulting F (whose text is the
% file Text), means. For a syntax error, every one of the file is reported, with its line and
% column, and what was not loaded (kk_syntax_report/2).
kk_consult_error(F, Text, E) :-
    E = error(syntax_error(_), _),
    kk_syntax_report(F, Text),
    !.
kk_consult_error(F, _, E) :-
    kk_source_name(F, Name),
    write('% '), write(Name),
    (   E = error(syntax_error(S), _)
    ->  % (Scryer's error, its place unknown: reading the file again found none)
        write(': syntax error: '), writeq(S)
    ;   write(' was not loaded: '), write_term(E, [quoted(true), max_depth(20)])
    ),
    nl.

/*  kk_syntax_report(+F, +Text): the syntax errors of the file F (its text read from the file
    Text), every one with its line and column (FILE:LINE:COLUMN, as GNU Prolog and SWI-Prolog
    write them: where the reader stopped, the last character it took that is not layout), and
    what was not loaded: Scryer's consult/1 stops at the first syntax error, dropping the
    clauses of the predicate it was reading then (it adds a predicate's clauses once it has read
    them all) and every clause and directive after it. Fails if reading F finds no syntax error.

    The file is read term by term, reading on after each error (as kk_judge_read_all/3 of
    judge.pl does for the judge); its op/3, use_module/1,2 and ensure_loaded/1 directives are
    run, so that the terms after them read as they would in a load (running them again costs
    nothing when the load ran them already).
*/
kk_syntax_report(F, Text) :-
    kk_source_name(F, Name),
    catch(iso_ext:setup_call_cleanup(open(Text, read, S), user:kk_read_items(S, run, Items0),
                                     close(S)),
          _, fail),
    catch(iso_ext:setup_call_cleanup(open(Text, read, S2), user:kk_rest_chars(S2, Cs), close(S2)),
          _, fail),
    kk_without_trailing_comment(Cs, Items0, Items),
    once(lists:append(Before, [error(P0, W1, P1) | After], Items)),
    findall(error(A, W, B), lists:member(error(A, W, B), [error(P0, W1, P1) | After]), Errors),
    lists:length(Errors, N),
    kk_max_reported(Max),
    iso_ext:forall(user:( lists:nth1(I, Errors, error(A, W, B)), I =< Max ),
                   user:( kk_error_place(Cs, A, B, L, C), kk_syntax_line(Name, L, C, W) )),
    (   N > Max
    ->  More is N - Max,
        write('% '), write(Name), write(': '), write(More), write(' more syntax errors'), nl
    ;   true
    ),
    kk_error_place(Cs, P0, P1, L1, _),
    (   lists:append(_, [clause(Last, _)], Before) -> Reading = [Last] ; Reading = [] ),
    findall(PI, lists:member(clause(PI, _), After), PIs0),
    kk_first_each(PIs0, PIs1),
    findall(PI, ( lists:member(PI, PIs1), \+ lists:memberchk(PI, Reading) ), PIs),
    findall(d, lists:member(directive(_), After), Ds),
    lists:length(Ds, NDs),
    (   Reading == [], PIs == [], NDs =:= 0 -> true
    ;   write('% '), write(Name), write(': loading stopped at the first syntax error (line '),
        write(L1), write('); not loaded: '),
        kk_not_loaded_items(Reading, L1, PIs, NDs),
        nl
    ).

% At most this many syntax errors of a file are written, one a line.
kk_max_reported(20).

kk_syntax_line(Name, L, C, What) :-
    write('% '), write(Name), write(':'), write(L), write(':'), write(C),
    write(': syntax error: '), writeq(What), nl.

% kk_not_loaded_items(+Reading, +L, +PIs, +NDs): the predicate being read at line L (if any),
% then the predicates and the number of directives after it.
kk_not_loaded_items(Reading, L, PIs, NDs) :-
    (   Reading = [PI] -> writeq(PI), write(' (all its clauses: it was being read then)')
    ;   true
    ),
    (   PIs == [], NDs =:= 0 -> true
    ;   (   Reading == [] -> true ; write('; ') ),
        write('after line '), write(L), write(': '),
        (   PIs == [] -> true ; kk_write_list(PIs) ),
        (   NDs =:= 0 -> true
        ;   (   PIs == [] -> true ; write(' and ') ),
            write(NDs), ( NDs =:= 1 -> write(' directive') ; write(' directives') )
        )
    ).

kk_write_list([X | Xs]) :-
    writeq(X),
    (   Xs == [] -> true ; write(', '), kk_write_list(Xs) ).

% kk_first_each(+Xs, -Ys): Xs, each element at its first place only.
%?- kk_first_each([3,1,3,2,1], Ys).
%@ Ys = [3,1,2].
kk_first_each(Xs, Ys) :- kk_first_each(Xs, [], Ys).

kk_first_each([], _, []).
kk_first_each([X | Xs], Seen, Ys) :-
    (   lists:memberchk(X, Seen) -> Ys = Ys1 ; Ys = [X | Ys1] ),
    kk_first_each(Xs, [X | Seen], Ys1).

% ---------------------------------------------------------------------------
% A file read term by term

% kk_read_items(+S, +Run, -Items): what the stream S holds, term by term to its end:
% clause(N/A, T) for a clause or grammar rule T of N/A, directive(D) for a directive :- D, or
% error(P0, What, P1) for a term the reader refused (P0 and P1, the stream's positions before
% that term and after the reader gave up: kk_error_place/5). With Run = run, the directives
% that change how the rest reads are run (kk_reading_directive/1); with skip, not.
kk_read_items(S, Run, Items) :-
    stream_property(S, position(P0)),
    catch(read_term(S, T, []), E, true),
    (   nonvar(E)
    ->  (   E = error(syntax_error(W), _) -> true
        ;   E = error(W, _) -> true
        ;   W = E
        ),
        stream_property(S, position(P1)),
        Items = [error(P0, W, P1) | Items1],
        % (an error that reads nothing more ends the reading)
        (   P1 == P0 -> Items1 = [] ; kk_read_items(S, Run, Items1) )
    ;   ( var(T) ; T == end_of_file )
    ->  Items = []
    ;   kk_term_item(T, Run, Item),
        Items = [Item | Items1],
        kk_read_items(S, Run, Items1)
    ).

kk_term_item((:- D), Run, directive(D)) :- !, kk_run_directive(Run, D).
kk_term_item((?- D), Run, directive(D)) :- !, kk_run_directive(Run, D).
kk_term_item(T, _, Item) :-
    (   kk_term_head(T, H), callable(H)
    ->  functor(H, N, A0),
        (   T = (_ --> _) -> A is A0 + 2 ; A = A0 ),
        Item = clause(N/A, T)
    ;   Item = directive(T)
    ).

kk_run_directive(run, D) :- kk_reading_directive(D).
kk_run_directive(skip, _).

kk_term_head(T, H) :-
    (   T = (H0 --> _) -> true
    ;   T = (H0 :- _) -> true
    ;   H0 = T
    ),
    (   nonvar(H0), H0 = _:H1 -> H = H1 ; H = H0 ),
    nonvar(H).

% kk_reading_directive(+D): D is run when it changes how the rest of a file reads.
kk_reading_directive(D) :-
    (   nonvar(D),
        lists:memberchk(D, [op(_, _, _), use_module(_), use_module(_, _), ensure_loaded(_)])
    ->  catch(kk_restore_goal(D), _, true)
    ;   true
    ).

% kk_without_trailing_comment(+Cs, +Items0, -Items): Items0 (read from the text Cs) without a
% last error that only a comment (or layout) follows: Scryer 0.10's reader reports one at a
% block comment ending a file, where consult/1 loads the file.
kk_without_trailing_comment(Cs, Items0, Items) :-
    (   lists:append(Items, [error(position_and_lines_read(P, _), _, _)], Items0),
        integer(P),
        lists:length(Before, P),
        lists:append(Before, Rest, Cs),
        kk_blank(Rest)
    ->  true
    ;   Items = Items0
    ).

% kk_error_place(+Cs, +P0, +P1, -Line, -Column): where in the text Cs a syntax error is, the
% reader having started the term at the position P0 and given up at P1: the last character it
% took that is not layout (where the term starts, if none), its line and column counted from 1.
% (Scryer 0.10 gives no column, and its line, counted from 0 or 1, falls behind after an error.)
%?- kk_error_place("p.\nq(a.\n", position_and_lines_read(3, 1), position_and_lines_read(9, 2), L, C).
%@ L = 2, C = 5.
kk_error_place(Cs, position_and_lines_read(P0, _), position_and_lines_read(P1, _), L, C) :-
    integer(P0),
    integer(P1),
    P1 >= P0,
    lists:length(Taken, P1),
    lists:append(Taken, _, Cs),
    !,
    lists:length(Before, P0),
    lists:append(Before, Term, Taken),
    (   kk_last_taken(Term, 0, none, I), I \== none -> At is P0 + I ; At = P0 ),
    kk_line_column(Cs, At, L, C).
kk_error_place(Cs, position_and_lines_read(P0, _), _, L, C) :-
    integer(P0),
    !,
    kk_line_column(Cs, P0, L, C).
kk_error_place(_, _, _, 1, 1).

% kk_last_taken(+Cs, +I0, +Last0, -Last): the index (from I0) of the last character of Cs
% that is not layout, or Last0.
kk_last_taken([], _, Last, Last).
kk_last_taken([C | Cs], I, Last0, Last) :-
    (   lists:memberchk(C, [' ', '\t', '\n', '\r', '\f', '\v']) -> Last1 = Last0 ; Last1 = I ),
    I1 is I + 1,
    kk_last_taken(Cs, I1, Last1, Last).

% kk_line_column(+Cs, +At, -L, -C): the line and column (from 1) of the character at index At
% of Cs (at most its length).
kk_line_column(Cs, At, L, C) :-
    kk_line_column(Cs, At, 1, 1, L, C).

kk_line_column(Cs, At, L0, C0, L, C) :-
    (   At =< 0 -> L = L0, C = C0
    ;   Cs = [Ch | Cs1]
    ->  At1 is At - 1,
        (   Ch == '\n' -> L1 is L0 + 1, C1 = 1 ; L1 = L0, C1 is C0 + 1 ),
        kk_line_column(Cs1, At1, L1, C1, L, C)
    ;   L = L0, C = C0
    ).

kk_rest_chars(S, Cs) :-
    get_char(S, C),
    (   C == end_of_file -> Cs = [] ; Cs = [C | Cs1], kk_rest_chars(S, Cs1) ).

% kk_blank(+Cs): Cs is layout and comments only.
% (Scryer 0.10 does not read C == '/', ...)
kk_blank([]).
kk_blank([C | Cs]) :-
    lists:memberchk(C, [' ', '\t', '\n', '\r', '\f', '\v']),
    kk_blank(Cs).
kk_blank(['%' | Cs]) :-
    (   once(lists:append(_, ['\n' | Rest], Cs)) -> kk_blank(Rest) ; true ).
kk_blank(['/', '*' | Cs]) :-
    once(lists:append(_, ['*', '/' | Rest], Cs)),
    kk_blank(Rest).

% ---------------------------------------------------------------------------
% File names

% (not library(files): loading it would slow every start)
kk_readable(F) :-
    catch(open(F, read, S), _, fail),
    close(S).

% kk_source_name(+F, -Name): the file F names, as consult/1 finds it (F or F.pl).
kk_source_name(F, Name) :-
    (   atom_concat(_, '.pl', F) -> Name = F
    ;   atom_concat(F, '.pl', F1), \+ kk_readable(F), kk_readable(F1)
    ->  Name = F1
    ;   Name = F
    ).

% _Name variables are not shown (as in Scryer's and SWI's top levels).
kk_visible([], []).
kk_visible([Name = V | Bs0], Bs) :-
    (   atom_chars(Name, ['_' | _]) -> Bs = Bs1 ; Bs = [Name = V | Bs1] ),
    kk_visible(Bs0, Bs1).

% ---------------------------------------------------------------------------
% Consulting for the host

% kk_top_consult(+File, -R): consults File for the host, R = true, false (reported) or
% halt(Code) (the file called halt/0,1, in a directive or initialization/1).
kk_top_consult(F, R) :-
    iso_ext:bb_put(kk_top_count, 0),
    (   catch(kk_consult_one(F), E, true)
    ->  (   var(E) -> R = true
        ;   E = kk_halt(C) -> R = halt(C)
        ;   kk_top_ball(E, _), R = false
        )
    ;   R = false
    ),
    kk_fresh_line,
    flush_output.
