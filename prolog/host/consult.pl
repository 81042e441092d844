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

kk_consult_one(F) :-
    error:must_be(atom, F),
    kk_not_homework(F),
    kk_all_libraries,
    kk_loader_throws,
    catch(( kk_loading(consult(F)) -> R = true ; R = false ), E, R = error(E)),
    (   R == true -> kk_remember(F), kk_broken(F, false)
    ;   R = error(kk_halt(C)) -> kk_remember(F), kk_broken(F, false), throw(kk_halt(C))
    ;   R = error(error(existence_error(source_sink, _), _))
    ->  % (thrown, as Scryer's, SWI's and GNU Prolog's consult/1 do: catch/3 sees it, and the
        % top level writes it when nothing does)
        throw(error(existence_error(source_sink, F), consult/1))
    ;   R = error(E), kk_unopened(E) -> throw(E)
    ;   kk_remember(F),
        kk_broken(F, true),
        kk_not_loaded(F, R),
        fail
    ).

% kk_broken(+F, +Broken): whether F's last load failed (bb kk_broken_files), so that a restart
% tells of a file that loaded before and no longer does (kk_restore_file/2).
kk_broken(F, Broken) :-
    (   iso_ext:bb_get(kk_broken_files, Fs0) -> true ; Fs0 = [] ),
    (   lists:select(F, Fs0, Fs1) -> true ; Fs1 = Fs0 ),
    (   Broken == true -> Fs = [F | Fs1] ; Fs = Fs1 ),
    iso_ext:bb_put(kk_broken_files, Fs).

% kk_not_loaded(+F, +R): says why F did not load (wholly), R being false (consult/1 failed) or
% error(E).
kk_not_loaded(F, R) :-
    (   R = error(E) -> kk_consult_error(F, E)
    ;   write('% '), write(F), write(' was not loaded'), nl
    ).

kk_remember(F) :-
    % (its text, for make/0 to tell whether it changed, and its clauses, for listing/1)
    kk_file_text(F, Cs),
    kk_note(kk_file_texts, F, Cs),
    kk_file_clauses(F, PITs),
    kk_note(kk_file_clauses, F, PITs),
    (   iso_ext:bb_get(kk_files, Files0) -> true ; Files0 = [] ),
    (   lists:memberchk(F, Files0) -> Files = Files0 ; lists:append(Files0, [F], Files) ),
    iso_ext:bb_put(kk_files, Files),
    % the flags the file was read with
    kk_changed_flags(Flags),
    (   iso_ext:bb_get(kk_file_flags, FFs0) -> true ; FFs0 = [] ),
    (   lists:select(F-_, FFs0, FFs1) -> true ; FFs1 = FFs0 ),
    iso_ext:bb_put(kk_file_flags, [F-Flags | FFs1]).

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
    ->  kk_remember(F),
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

% kk_consult_error(+F, +E): says what E, thrown by consulting F, means. For a syntax error,
% every one of the file is reported, and what was not loaded (kk_syntax_report/1).
kk_consult_error(F, E) :-
    E = error(syntax_error(_), _),
    kk_syntax_report(F),
    !.
kk_consult_error(F, E) :-
    kk_source_name(F, Name),
    write('% '), write(Name),
    (   E = error(syntax_error(S), _:L), integer(L)
    ->  write(':'), write(L), write(': syntax error: '), writeq(S)
    ;   E = error(syntax_error(S), _)
    ->  write(': syntax error: '), writeq(S)
    ;   write(' was not loaded: '), write_term(E, [quoted(true), max_depth(20)])
    ),
    nl.

/*  kk_syntax_report(+F): the syntax errors of the file F, every one with its line, and what was
    not loaded: Scryer's consult/1 stops at the first syntax error, dropping the clauses of the
    predicate it was reading then (it adds a predicate's clauses once it has read them all) and
    every clause and directive after it. Fails if reading F finds no syntax error.

    The file is read term by term, reading on after each error (as kk_judge_read_all/3 of
    judge.pl does for the judge); its op/3, use_module/1,2 and ensure_loaded/1 directives are
    run, so that the terms after them read as they would in a load (running them again costs
    nothing when the load ran them already).
*/
kk_syntax_report(F) :-
    kk_source_name(F, Name),
    catch(iso_ext:setup_call_cleanup(open(Name, read, S), user:kk_read_items(S, run, Items0),
                                     close(S)),
          _, fail),
    catch(iso_ext:setup_call_cleanup(open(Name, read, S2), user:kk_rest_chars(S2, Cs), close(S2)),
          _, fail),
    kk_without_trailing_comment(Cs, Items0, Items),
    findall(L-W, ( lists:member(error(L0, W, P), Items), kk_error_line(Cs, L0, P, L) ), Errors),
    Errors = [L1-_ | _],
    lists:length(Errors, N),
    kk_max_reported(Max),
    iso_ext:forall(user:( lists:nth1(I, Errors, L-W), I =< Max ), user:kk_syntax_line(Name, L, W)),
    (   N > Max
    ->  More is N - Max,
        write('% '), write(Name), write(': '), write(More), write(' more syntax errors'), nl
    ;   true
    ),
    once(lists:append(Before, [error(L1, _, _) | After], Items)),
    (   lists:append(_, [clause(Last, _)], Before) -> Reading = [Last] ; Reading = [] ),
    findall(PI, lists:member(clause(PI, _), After), PIs0),
    kk_first_each(PIs0, PIs1),
    findall(PI, ( lists:member(PI, PIs1), \+ lists:memberchk(PI, Reading) ), PIs),
    findall(d, lists:member(directive, After), Ds),
    lists:length(Ds, NDs),
    (   Reading == [], PIs == [], NDs =:= 0 -> true
    ;   write('% '), write(Name), write(': loading stopped at the first syntax error (line '),
        write(L1), write('); not loaded: '),
        kk_not_loaded_items(Reading, L1, PIs, NDs),
        nl
    ).

% At most this many syntax errors of a file are written, one a line.
kk_max_reported(20).

kk_syntax_line(Name, L, What) :-
    write('% '), write(Name),
    (   integer(L) -> write(':'), write(L) ; true ),
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
% clause(N/A, T) for a clause or grammar rule T of N/A, directive, or error(Line, What, Pos)
% for a term the reader refused (Line from the error; Pos, the stream's position before that
% term). With Run = run, the directives that change how the rest reads are run
% (kk_reading_directive/1); with skip, not.
kk_read_items(S, Run, Items) :-
    stream_property(S, position(P0)),
    catch(read_term(S, T, []), E, true),
    (   nonvar(E)
    ->  (   E = error(syntax_error(W), _:L) -> true
        ;   E = error(W, _), L = none
        ),
        Items = [error(L, W, P0) | Items1],
        stream_property(S, position(P1)),
        % (an error that reads nothing more ends the reading)
        (   P1 == P0 -> Items1 = [] ; kk_read_items(S, Run, Items1) )
    ;   ( var(T) ; T == end_of_file )
    ->  Items = []
    ;   kk_term_item(T, Run, Item),
        Items = [Item | Items1],
        kk_read_items(S, Run, Items1)
    ).

kk_term_item((:- D), Run, directive) :- !, kk_run_directive(Run, D).
kk_term_item((?- D), Run, directive) :- !, kk_run_directive(Run, D).
kk_term_item(T, _, Item) :-
    (   kk_term_head(T, H), callable(H)
    ->  functor(H, N, A0),
        (   T = (_ --> _) -> A is A0 + 2 ; A = A0 ),
        Item = clause(N/A, T)
    ;   Item = directive
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
    (   lists:append(Items, [error(_, _, position_and_lines_read(P, _))], Items0),
        integer(P),
        lists:length(Before, P),
        lists:append(Before, Rest, Cs),
        kk_blank(Rest)
    ->  true
    ;   Items = Items0
    ).

% kk_error_line(+Cs, +L0, +Pos, -L): the line of a syntax error that Scryer 0.10 reports as L0,
% the term having started at Pos of the text Cs. After an error its line count falls behind (the
% lines of the term it refused are not counted): the lines before Pos are counted here.
kk_error_line(Cs, L0, position_and_lines_read(P, Read), L) :-
    integer(L0),
    integer(P),
    lists:length(Before, P),
    lists:append(Before, _, Cs),
    !,
    findall(x, lists:member('\n', Before), Ns),
    lists:length(Ns, N),
    L is L0 + N - Read.
kk_error_line(_, L, _, L).

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
