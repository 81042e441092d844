/*  host.pl -- the Rust host's Prolog side (not part of the homework contract): the top level
    (kk_top/3, below) and what host_query.pl's kk_host_query/5 shares with it.

    Libraries: iso_ext, lists and error are loaded with the engine, so importing them costs
    nothing. charsio, format, time and between are not: loading them was half the CPU time of a
    cold `kenken query --no-kenken true.`, so they are loaded when first needed
    (kk_need_libraries/1): the host asks for those whose predicates a goal names before running
    it (src/prolog/toplevel.rs), and all of them are loaded before a file is consulted (it may
    call format/2 ...). With kenken.pl they are all imported at once, as before (ALL_LIBRARIES in
    src/prolog/mod.rs). host.pl itself does without them (write/1 rather than format/2,
    read_term_from_chars/3 from the builtin under it).
*/

:- use_module(library(iso_ext)).
:- use_module(library(lists)).
:- use_module(library(error)).

% kk_need_libraries(+Ls): the libraries Ls (of charsio, format, time, between) are loaded and
% imported into user (once each: their predicates are then callable from the top level, and
% format/2,3 are expanded as library(format) does in the goals and files that follow).
kk_need_libraries(Ls) :- maplist(kk_need_library, Ls).

kk_need_library(L) :-
    atom_concat(kk_library_, L, Key),
    (   bb_get(Key, true) -> true
    ;   L == time
    ->  % (statistics/2 and time/1 are host.pl's own)
        use_module(library(time), [max_sleep_time/1, sleep/1, current_time/1, format_time//2]),
        bb_put(Key, true)
    ;   L == format
    ->  % (listing/1 is host.pl's own)
        use_module(library(format), [format_//2, format/2, format/3, portray_clause_//1,
                                     portray_clause/1, portray_clause/2]),
        bb_put(Key, true)
    ;   use_module(library(L)), bb_put(Key, true)
    ).

kk_all_libraries :- kk_need_libraries([charsio, format, time, between]).

% kk_read_goal(+Chars, -Goal, -VNs): read_term_from_chars/3 of library(charsio), without it.
kk_read_goal(Chars, Goal, VNs) :-
    builtins:parse_read_term_options([variable_names(VNs0)], [S, VNs0, Vs], read_term_from_chars/3),
    '$read_term_from_chars'(Chars, Goal0, S, Vs, VNs0),
    Goal = Goal0,
    VNs = VNs0.

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
    char_code(C, L),
    % (atom_chars/2: atom_codes/2 took 10 us an atom, most of the time to name 100,000 variables)
    (   N =:= 0 -> atom_chars(Name, ['_', C])
    ;   number_chars(N, Ds), atom_chars(Name, ['_', C | Ds])
    ).

kk_bindings([], []).
kk_bindings([Name=Value | Rest], Bs) :-
    (   var(Value), \+ ( member(N2=V2, Rest), V2 == Value, N2 \== Name )
    ->  Bs = Bs1
    ;   Bs = [Name=Value | Bs1]
    ),
    kk_bindings(Rest, Bs1).

kk_binding_item(N=V, binding(N, V)).
kk_goal_item(G, goal(G)).

/*  kk_top(+Chars, +Mode, +Reads, -Result) -- one goal of the top level (`kenken query`,
    `kenken repl`).

    Parses Chars as a goal and runs it the way a Prolog top level does: each answer is printed
    to user_output as it is found (so a goal's own output comes in order with its answers),
    and the goal is asked for its next answer by backtracking into it, so its side effects
    happen once per answer. Mode is
      ask(In, Out)    after each answer the host is asked (ask written to the pipe Out) and
                      answers (read from the pipe In) next, all (the rest), whole (the answer
                      written again in full), help (the keys, then the answer again) or stop;
      batch(Limit)    every answer, separated by ' ;', at most Limit of them.
    Reads is true when the goal names a predicate that reads the input, keep when every goal
    reads (`kenken query`: nobody types, and what one goal leaves of the input is the next
    one's), false otherwise (see kk_reader_start/0).
    Result is true (an answer was shown), false, error (a syntax error or uncaught exception,
    printed as Scryer prints it), limit (Limit answers shown, more may exist), memory (the
    heap could not grow: the host says so) or halt(Code)
    (halt/0,1 was called, even inside ','/2, ;/2, ->/2, \+/1, call/1, findall/3 ...).
    Nothing is left behind: no choice point, no exception.
*/

kk_top(Text, Mode, Reads, Result) :-
    kk_chars(Text, Chars),
    bb_put(kk_top_reads, Reads),
    bb_put(kk_top_count, 0),
    (   catch(kk_top_(Chars, Mode, Result0), Ball, kk_top_ball(Ball, Result0))
    ->  Result = Result0
    ;   Result = error
    ),
    (   Reads == keep -> true ; kk_reader_stop ),
    kk_flush.

% kk_chars(+Text, -Chars): the host's "text" as characters, whatever the flag double_quotes
% made of it (codes, an atom).
kk_chars(Text, Chars) :-
    (   atom(Text) -> atom_chars(Text, Chars)
    ;   Text = [C | _], integer(C) -> atom_codes(A, Text), atom_chars(A, Chars)
    ;   Chars = Text
    ).

% kk_fresh_line: the host (src/prolog/toplevel.rs) turns this control character into a new
% line when what was written last did not end one (and drops it otherwise), so that an answer
% starts on a line of its own after a goal's own output (write(hello) then true.).
kk_fresh_line :- put_char('\x1\').

% kk_show: what was written to user_output is shown now (the host shows it in batches).
kk_show :- put_char('\x3\'), flush_output.

% kk_flush: what the goal wrote to user_error is shown too (its last nl/0 is written out only
% at the next write or flush), then user_output.
kk_flush :-
    catch(flush_output(user_error), _, true),
    flush_output.

kk_top_(Chars, Mode, Result) :-
    kk_top_input,
    catch(kk_read_goal(Chars, Goal0, VNs), E0, true),
    (   nonvar(E0) -> kk_typed_error(E0, E), kk_top_ball(E, Result)
    ;   var(Goal0) -> kk_top_ball(error(instantiation_error, toplevel), Result)
    ;   kk_halts(Goal0, Goal),
        kk_top_run(Goal, VNs, Mode, Result)
    ).

% kk_typed_error(+E0, -E): an error reading the goal typed, as Scryer's top level, which reads
% it from user_input, tells it: in read_term/3, at a line counted from 1 (the builtin under
% kk_read_goal/3 names read_term_from_chars/3 and counts from 0).
kk_typed_error(E0, E) :-
    (   E0 = error(S, read_term_from_chars/3:L0), integer(L0)
    ->  L is L0 + 1, E = error(S, read_term/3:L)
    ;   E0 = error(S, read_term_from_chars/3)
    ->  E = error(S, read_term/3)
    ;   E = E0
    ).

kk_top_ball(kk_halt(Code), halt(Code)) :- !, kk_fresh_line.
kk_top_ball(kk_swap(Name, PI), swap) :-
    !,
    kk_fresh_line,
    write('% '), write(Name), write(' defines '), writeq(PI),
    write(', which kenken.pl defines: it replaces kenken.pl wholly (as in kenken repl '),
    write(Name), write('); the goal stopped there.'), nl.
% The heap could not grow (the memory bound): the host says so (Result memory). Scryer 0.10
% throws the term its heap holds where it meant its resource_error(memory) to be: the goal
% that kk_top/4 runs, built there first.
kk_top_ball(Ball, memory) :-
    nonvar(Ball),
    (   Ball = kk_top(_, _, _, _) ; Ball = resource_error(memory) ),
    !,
    kk_fresh_line.
kk_top_ball(Ball, error) :-
    kk_fresh_line,
    kk_write_error(Ball),
    nl.

% kk_write_error(+Ball): an uncaught exception as Scryer's top level writes it (loader.pl,
% write_error/1): an error(_, _) term as it is, any other ball as throw(Ball), so that it never
% looks like an answer (throw(true) is not true); indented by three spaces when no answer came
% before it; a string as "text" when double_quotes is chars.
kk_write_error(Ball) :-
    (   bb_get(kk_top_count, N), integer(N), N > 0 -> true ; write('   ') ),
    (   current_prolog_flag(double_quotes, chars) -> DQ = true ; DQ = false ),
    (   nonvar(Ball), functor(Ball, error, 2) -> T = Ball ; T = throw(Ball) ),
    write_term(T, [quoted(true), numbervars(true), double_quotes(DQ)]),
    write('.').

% kk_halts(+Goal0, -Goal): halt/0,1 in Goal0's control constructs become kk_halt exceptions,
% so that the host ends the session (after saving what it must) instead of the engine. The
% goals that set up the session are recorded when they succeed, to be replayed in a fresh
% engine after an interrupt (kk_state/1): use_module/1,2 and the keys of bb_put/2 (those set
% by the clauses of a consulted file too: see goal_expansion/2 in host_expand.pl). A goal
% Scryer 0.10 would panic on is an error instead: M:G with M bound but not an atom, and
% asserting a cyclic term.
kk_halts(G, kk_var_goal(G)) :- var(G), !.
kk_halts(M:_, throw(error(type_error(atom, M), (:)/2))) :- nonvar(M), \+ atom(M), !.
kk_halts(use_module(M), kk_recorded(use_module(M))) :- !.
kk_halts(use_module(M, Is), kk_recorded(use_module(M, Is))) :- !.
kk_halts(bb_put(K, V), kk_bb_put(K, V)) :- !.
kk_halts(assertz(C), kk_assert(assertz, C)) :- !.
kk_halts(asserta(C), kk_assert(asserta, C)) :- !.
kk_halts(assert(C), kk_assert(assertz, C)) :- !.
kk_halts([user], kk_consult_user) :- !.
kk_halts(halt, throw(kk_halt(0))) :- !.
kk_halts(halt(C), kk_halt_(C)) :- !.
kk_halts((A, B), (A1, B1)) :- !, kk_halts(A, A1), kk_halts(B, B1).
kk_halts((A ; B), (A1 ; B1)) :- !, kk_halts(A, A1), kk_halts(B, B1).
kk_halts((A -> B), (A1 -> B1)) :- !, kk_halts(A, A1), kk_halts(B, B1).
kk_halts(\+ A, \+ A1) :- !, kk_halts(A, A1).
kk_halts(call(A), call(A1)) :- !, kk_halts(A, A1).
kk_halts(once(A), once(A1)) :- !, kk_halts(A, A1).
kk_halts(findall(T, A, L), findall(T, A1, L)) :- !, kk_halts(A, A1).
kk_halts(forall(A, B), forall(A1, B1)) :- !, kk_halts(A, A1), kk_halts(B, B1).
kk_halts(catch(A, E, B), catch(A1, E, kk_unless_halt(E, B1))) :- !, kk_halts(A, A1), kk_halts(B, B1).
kk_halts([F | Fs], kk_consult([F | Fs])) :- !.
kk_halts(consult(user), kk_consult_user) :- !.
kk_halts(consult(F), kk_consult(F)) :- !.
kk_halts(G, G).

% kk_var_goal(?G): G, which was a variable where a goal stands when the goal typed was read
% (G = format("~w", [x]), G): any goal, whose name the host did not see, so every lazy library
% is loaded first (as for a goal that calls call/N: src/prolog/toplevel.rs), and G is called as
% the goal typed is (halt/0,1 in it ends the session ...).
kk_var_goal(G) :-
    (   var(G) -> call(G)
    ;   kk_all_libraries, kk_halts(G, G1), call(G1)
    ).

kk_recorded(G) :-
    % (call/1 expands G again: goal_expansion/2 is off meanwhile)
    setup_call_cleanup(bb_put(kk_recording, true), call(G), bb_put(kk_recording, false)),
    (   bb_get(kk_setup, Gs0) -> true ; Gs0 = [] ),
    (   memberchk(G, Gs0) -> Gs = Gs0 ; append(Gs0, [G], Gs) ),
    bb_put(kk_setup, Gs).

kk_bb_put(K, V) :-
    iso_ext:bb_put(K, V),
    (   atom(K), \+ atom_concat(kk_, _, K), \+ atom_concat($, _, K)
    ->  (   bb_get(kk_bb_keys, Ks0) -> true ; Ks0 = [] ),
        (   memberchk(K, Ks0) -> Ks = Ks0 ; Ks = [K | Ks0] ),
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
    ->  (   bb_get(kk_modules, Ms0) -> true ; Ms0 = [] ),
        (   memberchk(M, Ms0) -> true ; bb_put(kk_modules, [M | Ms0]) )
    ;   true
    ).

% kk_acyclic(+T): T is acyclic. Scryer 0.10's acyclic_term/1 garbles a list of characters read
% from text inside a compound term (v(1, [a]) becomes v(1, [p|_])), so it is asked only of a
% term of more than 100,000 cells (kk_acyclic/2 counts them first).
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

% kk_clause_reads(+C0, -C): C0 as an asserted or [user] clause is kept, as a consulted one is
% expanded (goal_expansion/2 in host_expand.pl): its read/1,2 and read_term/2,3 goals give
% end_of_file at the end of the input, a goal of it that reads marks the session's code as
% reading, and the modules it imports are recorded for the replay.
kk_clause_reads(C0, C) :-
    (   nonvar(C0), C0 = (H :- B0), callable(B0)
    ->  kk_body_reads(B0, B), C = (H :- B)
    ;   C = C0
    ).

kk_body_reads(G0, G) :-
    (   var(G0) -> G = G0
    ;   kk_control(G0, G, Gs0, Gs) -> maplist(kk_body_reads, Gs0, Gs)
    ;   kk_input_goal(G0) -> bb_put(kk_code_reads, true), kk_read_goal(G0, G)
    ;   kk_import_goal(G0) -> G = kk_recorded(G0)
    ;   G = G0
    ).

% kk_import_goal(+G): G imports a module (recorded by kk_recorded/1, to be replayed).
kk_import_goal(use_module(_)).
kk_import_goal(use_module(_, _)).

kk_control((A, B), (A1, B1), [A, B], [A1, B1]).
kk_control((A ; B), (A1 ; B1), [A, B], [A1, B1]).
kk_control((A -> B), (A1 -> B1), [A, B], [A1, B1]).
kk_control(\+ A, \+ A1, [A], [A1]).
kk_control(call(A), call(A1), [A], [A1]).
kk_control(findall(T, A, L), findall(T, A1, L), [A], [A1]).
kk_control(forall(A, B), forall(A1, B1), [A, B], [A1, B1]).

% kk_read_goal(+G0, -G): G0, or the host's reading predicate in place of a reading one.
kk_read_goal(G, G) :- var(G), !.
kk_read_goal(read(T), kk_read(T)) :- !.
kk_read_goal(read(S, T), kk_read(S, T)) :- !.
kk_read_goal(read_term(T, Os), kk_read_term(T, Os)) :- !.
kk_read_goal(read_term(S, T, Os), kk_read_term(S, T, Os)) :- !.
kk_read_goal(G, G).

% kk_consult_user: [user] -- clauses typed at the terminal (or read from query's standard
% input) up to the end of the input (Ctrl-D), each predicate's clauses replacing the old ones
% (as consult/1 does); they are dynamic, so they survive an interrupt as asserted ones do.
kk_consult_user :-
    write('% reading clauses; end with Ctrl-D'), nl,
    kk_read_clauses(Cs),
    findall(N/A, ( member(C, Cs), kk_clause_head(C, H), functor(H, N, A) ), PIs0),
    sort(PIs0, PIs),
    forall(member(N/A, PIs), ( functor(H, N, A), retractall(H) )),
    forall(member(C, Cs), kk_user_clause(C)).

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

kk_user_clause((:- G)) :- !, ( catch(G, E, (kk_unless_halt(E, (kk_top_ball(E, _), fail)))) -> true ; true ).
kk_user_clause(C) :- kk_assert(assertz, C).

% kk_consult(+Files): consults each file and remembers it for make/0 and for the replay after
% an interrupt. A file that does not load is reported (every syntax error with its line, and
% what was not loaded: kk_syntax_report/1) and the session goes on; it is remembered all the
% same, so that make/0 loads it once it is fixed.
kk_consult(Fs) :-
    (   Fs = [_ | _] -> true ; Fs = [] -> true ; Fs1 = [Fs] ),
    (   var(Fs1) -> Fs1 = Fs ; true ),
    foldl(kk_consult_next, Fs1, true, Ok),
    Ok == true.

kk_consult_next(F, Ok0, Ok) :-
    (   kk_consult_one(F) -> Ok = Ok0 ; Ok = false ).

% Scryer's loader prints a load error itself and fails, unless '$toplevel':started holds
% (Scryer's own top level asserts it): then the error is thrown, with its line, to us. (It is
% asserted at the first consult: asserting it while host.pl loads breaks the engine.)
kk_loader_throws :-
    (   clause('$toplevel':started, _) -> true ; assertz('$toplevel':started) ).

kk_consult_one(F) :-
    must_be(atom, F),
    kk_not_homework(F),
    kk_all_libraries,
    kk_loader_throws,
    catch(( kk_loading(consult(F)) -> R = true ; R = false ), E, R = error(E)),
    (   R == true -> kk_remember(F), kk_broken(F, false)
    ;   R = error(kk_halt(C)) -> kk_remember(F), kk_broken(F, false), throw(kk_halt(C))
    ;   R = error(error(existence_error(source_sink, _), _))
    ->  write('% '), write(F), write(': no such file'), nl,
        fail
    ;   R = error(E), kk_unopened(E) -> throw(E)
    ;   kk_remember(F),
        kk_broken(F, true),
        kk_not_loaded(F, R),
        fail
    ).

% kk_broken(+F, +Broken): whether F's last load failed (bb kk_broken_files), so that a restart
% tells of a file that loaded before and no longer does (kk_restore_file/2).
kk_broken(F, Broken) :-
    (   bb_get(kk_broken_files, Fs0) -> true ; Fs0 = [] ),
    (   select(F, Fs0, Fs1) -> true ; Fs1 = Fs0 ),
    (   Broken == true -> Fs = [F | Fs1] ; Fs = Fs1 ),
    bb_put(kk_broken_files, Fs).

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
    (   bb_get(kk_files, Files0) -> true ; Files0 = [] ),
    (   memberchk(F, Files0) -> Files = Files0 ; append(Files0, [F], Files) ),
    bb_put(kk_files, Files),
    % the flags the file was read with
    kk_changed_flags(Flags),
    (   bb_get(kk_file_flags, FFs0) -> true ; FFs0 = [] ),
    (   select(F-_, FFs0, FFs1) -> true ; FFs1 = FFs0 ),
    bb_put(kk_file_flags, [F-Flags | FFs1]).

% kk_not_homework(+F): F does not define the homework's predicates while kenken.pl is loaded
% (bb kk_homework, set by the host then): a student's own kenken.pl is never mixed with ours
% (their kenken/3 beside our plain_kenken/3). One that does replaces kenken.pl wholly, as when
% it is consulted at the start (Setup::loads_kenken): it is remembered, and kk_swap(Name, PI)
% thrown, which stops the goal; the host then starts an engine without kenken.pl and gives it
% the session's state, this file among its files (Toplevel::run).
kk_not_homework(F) :-
    (   bb_get(kk_homework, PIs),
        kk_source_name(F, Name),
        catch(open(Name, read, S), _, fail),
        call_cleanup(kk_defines_one(S, PIs, PI), close(S))
    ->  kk_remember(F),
        throw(kk_swap(Name, PI))
    ;   true
    ).

% kk_defines_one(+S, +PIs, -PI): a clause read from S (up to its end or a syntax error)
% defines PI, one of PIs.
kk_defines_one(S, PIs, PI) :-
    catch(read_term(S, T, []), _, fail),
    nonvar(T),
    T \== end_of_file,
    (   kk_clause_head(T, H), functor(H, N, A), memberchk(N/A, PIs)
    ->  PI = N/A
    ;   kk_defines_one(S, PIs, PI)
    ).

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
    catch(setup_call_cleanup(open(Name, read, S), kk_read_items(S, run, Items0), close(S)), _, fail),
    catch(setup_call_cleanup(open(Name, read, S2), kk_rest_chars(S2, Cs), close(S2)), _, fail),
    kk_without_trailing_comment(Cs, Items0, Items),
    findall(L-W, ( member(error(L0, W, P), Items), kk_error_line(Cs, L0, P, L) ), Errors),
    Errors = [L1-_ | _],
    length(Errors, N),
    kk_max_reported(Max),
    forall(( nth1(I, Errors, L-W), I =< Max ), kk_syntax_line(Name, L, W)),
    (   N > Max
    ->  More is N - Max,
        write('% '), write(Name), write(': '), write(More), write(' more syntax errors'), nl
    ;   true
    ),
    once(append(Before, [error(L1, _, _) | After], Items)),
    (   append(_, [clause(Last, _)], Before) -> Reading = [Last] ; Reading = [] ),
    findall(PI, member(clause(PI, _), After), PIs0),
    kk_first_each(PIs0, PIs1),
    findall(PI, ( member(PI, PIs1), \+ memberchk(PI, Reading) ), PIs),
    findall(d, member(directive, After), Ds),
    length(Ds, NDs),
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
kk_first_each(Xs, Ys) :- kk_first_each(Xs, [], Ys).

kk_first_each([], _, []).
kk_first_each([X | Xs], Seen, Ys) :-
    (   memberchk(X, Seen) -> Ys = Ys1 ; Ys = [X | Ys1] ),
    kk_first_each(Xs, [X | Seen], Ys1).

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
    (   nonvar(D), memberchk(D, [op(_, _, _), use_module(_), use_module(_, _), ensure_loaded(_)])
    ->  catch(kk_restore_goal(D), _, true)
    ;   true
    ).

% kk_without_trailing_comment(+Cs, +Items0, -Items): Items0 (read from the text Cs) without a
% last error that only a comment (or layout) follows: Scryer 0.10's reader reports one at a
% block comment ending a file, where consult/1 loads the file.
kk_without_trailing_comment(Cs, Items0, Items) :-
    (   append(Items, [error(_, _, position_and_lines_read(P, _))], Items0),
        integer(P),
        length(Before, P),
        append(Before, Rest, Cs),
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
    length(Before, P),
    append(Before, _, Cs),
    !,
    findall(x, member('\n', Before), Ns),
    length(Ns, N),
    L is L0 + N - Read.
kk_error_line(_, L, _, L).

kk_rest_chars(S, Cs) :-
    get_char(S, C),
    (   C == end_of_file -> Cs = [] ; Cs = [C | Cs1], kk_rest_chars(S, Cs1) ).

% kk_blank(+Cs): Cs is layout and comments only.
% (Scryer 0.10 does not read C == '/', ...)
kk_blank([]).
kk_blank([C | Cs]) :-
    memberchk(C, [' ', '\t', '\n', '\r', '\f', '\v']),
    kk_blank(Cs).
kk_blank(['%' | Cs]) :-
    (   once(append(_, ['\n' | Rest], Cs)) -> kk_blank(Rest) ; true ).
kk_blank(['/', '*' | Cs]) :-
    once(append(_, ['*', '/' | Rest], Cs)),
    kk_blank(Rest).

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

% kk_top_consult(+File, -R): consults File for the host, R = true, false (reported) or
% halt(Code) (the file called halt/0,1, in a directive or initialization/1).
kk_top_consult(F, R) :-
    bb_put(kk_top_count, 0),
    (   catch(kk_consult_one(F), E, true)
    ->  (   var(E) -> R = true
        ;   E = kk_halt(C) -> R = halt(C)
        ;   kk_top_ball(E, _), R = false
        )
    ;   R = false
    ),
    kk_fresh_line,
    flush_output.

%% make: consults again every file consulted in this session that changed since it was
%  loaded (or did not load), saying which; or says that none did.
make :-
    (   bb_get(kk_files, Files) -> true ; Files = [] ),
    (   Files == []
    ->  write('% make: no file was consulted in this session'), nl
    ;   foldl(kk_make_one, Files, 0, N),
        (   N =:= 0
        ->  write('% make: nothing changed since the files were loaded'), nl
        ;   true
        )
    ).

kk_make_one(F, N0, N) :-
    (   kk_unchanged(F) -> N = N0
    ;   N is N0 + 1,
        (   catch(kk_consult_one(F), E, kk_unless_halt(E, (kk_top_ball(E, _), fail)))
        ->  kk_source_name(F, Name),
            write('% make: reloaded '), write(Name), nl
        ;   true
        )
    ).

% kk_unchanged(+F): F loaded, and its text is the one it had then.
kk_unchanged(F) :-
    \+ ( bb_get(kk_broken_files, Bs), memberchk(F, Bs) ),
    bb_get(kk_file_texts, Ts),
    memberchk(F-Cs0, Ts),
    kk_file_text(F, Cs),
    Cs == Cs0.

% kk_note(+Key, +F, +V): the list of File-Value pairs that bb_get(Key, _) gives holds F-V.
kk_note(Key, F, V) :-
    (   bb_get(Key, Ps0) -> true ; Ps0 = [] ),
    (   select(F-_, Ps0, Ps1) -> true ; Ps1 = Ps0 ),
    bb_put(Key, [F-V | Ps1]).

% kk_file_clauses(+F, -PITs): the clauses and grammar rules of the file F names, as read, each
% N/A-Term (a term that does not read is left out).
kk_file_clauses(F, PITs) :-
    kk_source_name(F, Name),
    (   catch(setup_call_cleanup(open(Name, read, S), kk_read_items(S, skip, Items), close(S)),
              _, fail)
    ->  findall(PI-T, member(clause(PI, T), Items), PITs)
    ;   PITs = []
    ).

%% listing(+Spec): the clauses of the predicates Spec names (Name/Arity, Name//Arity or Name,
%  every arity), written as portray_clause/1 writes them: a dynamic predicate's as they are now
%  (after its dynamic/1 declaration), a predicate of a file consulted in this session (static:
%  Scryer's own listing/1 refuses it) as the file has them (a grammar rule translated), as
%  SWI-Prolog lists them. (kk_listing/1, made listing/1 as statistics/2 is.)
kk_listing(Spec) :-
    kk_need_library(format),
    kk_listing_pis(Spec, PIs),
    (   PIs == [] -> throw(error(existence_error(procedure, Spec), listing/1)) ; true ),
    maplist(kk_list_pi, PIs).

kk_listing_pis(Spec, PIs) :-
    (   var(Spec) -> throw(error(instantiation_error, listing/1))
    ;   Spec = N/A, atom(N), integer(A) -> PIs = [N/A]
    ;   Spec = N//A0, atom(N), integer(A0) -> A is A0 + 2, PIs = [N/A]
    ;   atom(Spec)
    ->  findall(Spec/A, kk_listable(Spec/A), PIs0),
        sort(PIs0, PIs)
    ;   throw(error(type_error(predicate_indicator, Spec), listing/1))
    ).

% kk_listable(?PI): PI is a user predicate that exists, or a consulted file has clauses of.
kk_listable(PI) :-
    (   current_predicate(user:PI), PI = N/A, functor(H, N, A), \+ kk_hidden(PI),
        predicate_property(user:H, dynamic)
    ;   bb_get(kk_file_clauses, FPs), member(_-PITs, FPs), member(PI-_, PITs),
        current_predicate(user:PI)
    ).

kk_hidden(PI) :- memberchk(PI, ['$kk_goal'/1, time/1, statistics/2, listing/1]).

kk_list_pi(N/A) :-
    functor(H, N, A),
    (   \+ kk_hidden(N/A), catch(predicate_property(user:H, dynamic), _, fail)
    ->  write(':- dynamic('), writeq(N/A), write(').'), nl, nl,
        forall(clause(H, B), kk_portray((H :- B))),
        nl
    ;   (   bb_get(kk_file_clauses, FPs) -> true ; FPs = [] ),
        findall(T, ( member(_-PITs, FPs), member(N/A-T, PITs) ), Ts),
        Ts \== [],
        current_predicate(user:N/A)
    ->  maplist(kk_portray, Ts),
        nl
    ;   current_predicate(user:N/A)
    ->  write('% '), writeq(N/A), write(': not from a file consulted in this session, its clauses are not kept'), nl
    ;   throw(error(existence_error(procedure, N/A), listing/1))
    ).

kk_portray(T0) :-
    (   T0 = (H :- B), B == true -> T = H
    ;   T0 = (_ --> _), catch(dcgs:dcg_rule(T0, T1), _, fail) -> T = T1
    ;   T = T0
    ),
    portray_clause(T).

% kk_file_text(+F, -Cs): the text of the file F names (kk_source_name/2), [] if none.
kk_file_text(F, Cs) :-
    kk_source_name(F, Name),
    (   catch(setup_call_cleanup(open(Name, read, S), kk_rest_chars(S, Cs0), close(S)), _, fail)
    ->  Cs = Cs0
    ;   Cs = []
    ).

%% statistics/0, statistics/2 (kk_statistics0/0, kk_statistics2/2, which the top level
%  makes statistics/0,2: src/prolog/toplevel.rs): as in GNU Prolog and SWI-Prolog. statistics(K, [Total, Since])
%  for K one of runtime, cpu_time, process_cputime (CPU time), real_time, walltime (wall-clock
%  time, from the engine's start): integers, in milliseconds, Since the time since the last
%  call with that key; statistics(inferences, I): the inferences so far. (This one replaces
%  library(time)'s, which gives only runtime, as [Ms, unsupported].) statistics/0 writes them.
kk_statistics2(Key, Value) :-
    (   var(Key) -> kk_statistics_key(Key) ; true ),
    kk_statistics(Key, Value0),
    !,
    Value = Value0.
kk_statistics2(Key, _) :-
    must_be(atom, Key),
    throw(error(domain_error(statistics_key, Key), statistics/2)).

kk_statistics_key(K) :-
    member(K, [runtime, cpu_time, process_cputime, real_time, walltime, inferences]).

kk_statistics(inferences, I) :-
    !,
    '$inference_count'(I0),
    (   bb_get(kk_inference_offset, O) -> true ; O = 0 ),
    I is I0 + O.
kk_statistics(Key, [T, D]) :-
    kk_clock(Key, Clock),
    kk_clock_ms(Clock, T),
    atom_concat(kk_statistics_last_, Key, Last),
    (   bb_get(Last, T0) -> true ; T0 = 0 ),
    bb_put(Last, T),
    D is T - T0.

kk_clock(runtime, cpu).
kk_clock(cpu_time, cpu).
kk_clock(process_cputime, cpu).
kk_clock(real_time, wall).
kk_clock(walltime, wall).

kk_clock_ms(cpu, T) :-
    '$cpu_now'(S),
    (   bb_get(kk_cpu_offset, O) -> true ; O = 0 ),
    T is truncate(S * 1000) + O.

kk_clock_ms(wall, T) :- kk_wall_ms(T).

% kk_clock_offsets(+CpuMs, +Inferences): the session's runtime and inferences go on from
% CpuMs and Inferences (where the engine before this one left them, or 0): what the engine
% took to load is not counted.
kk_clock_offsets(C, I) :-
    '$cpu_now'(S),
    O is C - truncate(S * 1000),
    bb_put(kk_cpu_offset, O),
    '$inference_count'(I0),
    IO is I - I0,
    bb_put(kk_inference_offset, IO).

% kk_clocks(-CpuOffset, -Inferences): for the host, to start the next engine's clocks.
kk_clocks(O, I) :-
    (   bb_get(kk_cpu_offset, O) -> true ; O = 0 ),
    kk_statistics(inferences, I).

% kk_wall_ms(-T): milliseconds since the session started (the host tells). Scryer has no wall clock with less
% than a second's precision: the host gives it, as the answer to a request written to
% user_output (see kk_fresh_line) and read from user_input's channel; where no host answers,
% the CPU time stands in.
kk_wall_ms(T) :-
    (   bb_get(kk_clock_stream, S)
    ->  put_char('\x2\'), flush_output,
        kk_clock_digits(S, Ds),
        (   catch(number_chars(T0, Ds), _, fail), integer(T0) -> T = T0 ; kk_clock_ms(cpu, T) )
    ;   kk_clock_ms(cpu, T)
    ).

kk_clock_digits(S, Ds) :-
    get_char(S, C),
    (   C == '.' -> get_char(S, _), Ds = []
    ;   C == end_of_file -> Ds = []
    ;   Ds = [C | Ds1], kk_clock_digits(S, Ds1)
    ).

kk_statistics0 :-
    forall(kk_statistics_key(K), kk_statistics_line(K)).

kk_statistics_line(K) :-
    kk_statistics2(K, V),
    write('% '), write(K), write(': '),
    (   V = [T, D] -> write(T), write(' ms ('), write(D), write(' ms since the last call)')
    ;   write(V)
    ),
    nl.

%% time(:Goal) (kk_time/1, made time/1 as statistics/2 is): calls Goal, then writes the CPU time and the inferences it took on a line of
%  its own (library(time)'s time/1 indents it, or the line after it, by three spaces).
:- meta_predicate(kk_time(0)).
kk_time(Goal) :-
    '$cpu_now'(T0), '$inference_count'(I0),
    (   call_cleanup(catch(Goal, E, true), Det = true),
        kk_time_report(T0, I0),
        (   nonvar(E) -> throw(E) ; true ),
        (   Det == true -> ! ; true )
    ;   kk_time_report(T0, I0),
        fail
    ).

kk_time_report(T0, I0) :-
    '$cpu_now'(T), '$inference_count'(I),
    Ms is round((T - T0) * 1000),
    N is max(0, I - I0 - 4),
    kk_fresh_line,
    write('% CPU time: '), kk_write_seconds(Ms), write('s, '), write(N),
    (   N =:= 1 -> write(' inference') ; write(' inferences') ),
    nl.

% kk_write_seconds(+Ms): Ms milliseconds written as seconds, with three decimals.
kk_write_seconds(Ms) :-
    S is Ms // 1000,
    F is Ms mod 1000,
    write(S), write('.'),
    (   F < 10 -> write('00') ; F < 100 -> write('0') ; true ),
    write(F).

% kk_user_names(-Cs): the names of the predicates user sees (its own and those it imports; not
% the host's, kk_... and $...), each followed by a space: what the repl completes a name with.
kk_user_names(Cs) :-
    findall(N, ( current_predicate(user:N/_), atom(N),
                 \+ atom_concat(kk_, _, N), \+ atom_concat($, _, N) ),
            Ns0),
    sort(Ns0, Ns),
    foldl(kk_name_chars, Ns, Cs, []).

kk_name_chars(N, Cs0, Cs) :-
    atom_chars(N, Ns),
    append(Ns, [' ' | Cs], Cs0).

%% help: the top level's commands.
help :-
    maplist(kk_help_line, [
        "Goals end with a full stop (they may span lines).",
        "After an answer: ; or space for the next one, a for all the rest, Enter or . to stop.",
        "  consult(File). or [File].  load a Prolog file (again: reload it)",
        "  make.                      consult again the files changed since they were loaded",
        "  help.                      this text",
        "  halt. or halt(Code).       leave (Ctrl-D too)",
        "After an answer, w writes it whole and h lists the keys.",
        "Ctrl-C stops the running goal; consulted files, dynamic clauses, modules imported,",
        "operators, flags and bb_put/2 values stay (a value that cannot is named)."
    ]).

kk_help_line(L) :- atom_chars(A, L), write(A), nl.

% kk_top_start(+Relay): what a top level's engine does once loaded: the program that relays
% standard input noted (kk_reader_start/0), its flags and operators noted
% (what differs from them later is the user's, kept by kk_state/1), the channel of user_input
% noted for kk_wall_ms/1, and the process's standard input made the current input.
kk_top_start(Relay) :-
    atom_chars(Relay, Exe),
    bb_put(kk_relay, Exe),
    findall(F-V, current_prolog_flag(F, V), Flags),
    bb_put(kk_flags0, Flags),
    findall(op(P, T, N), current_op(P, T, N), Ops),
    bb_put(kk_ops0, Ops),
    current_input(Clock),
    bb_put(kk_clock_stream, Clock),
    kk_top_input.

% kk_top_input: the current input of a goal that names no reading predicate (one of a
% consulted file may read) is the process's standard input opened as a file: Scryer's own
% user_input reads nothing without its line editor. Opened again once at its end (Ctrl-D at
% the terminal), so that the next goal can read more. (Scryer 0.10 takes a pipe or a terminal
% opened as a file to end after the first character get_char/1 reads: read/1 reads terms
% well, get_char/1 the first character only; kk_reader_start/0 does better.)
kk_top_input :-
    (   bb_get(kk_stdin, S0),
        catch(stream_property(S0, end_of_stream(not)), _, fail)
    ->  S = S0
    ;   (   bb_get(kk_stdin, S0) -> catch(close(S0), _, true) ; true ),
        catch(open('/dev/stdin', read, S1), _, fail)
    ->  bb_put(kk_stdin, S1),
        S = S1
    ;   true
    ),
    (   nonvar(S) -> catch(set_input(S), _, true) ; true ).

% kk_reader_start: for a goal that reads (bb kk_top_reads, or any goal once a consulted file's
% code reads: bb kk_code_reads, see goal_expansion/2 in host_expand.pl), the current input is a pipe from a
% relay (this program again, as kk_top_start/1 named it) that copies the process's standard
% input, the terminal or what is piped to query: a pipe reads as it should, where the
% terminal opened as a file (kk_top_input/0) ends after one get_char/1. The relay runs only
% while the goal does, not while the host reads a key or the next goal; it dies with this
% process. kk_reader_stop/0 ends it.
kk_reader_start :-
    (   (   bb_get(kk_top_reads, R), R \== false
        ;   bb_get(kk_code_reads, true)
        )
    ->  (   bb_get(kk_reader, r(_, S)) -> set_input(S)
        ;   bb_get(kk_relay, Exe),
            catch(( kk_need_library(process),
                    process_create(Exe, [],
                                   [stdout(pipe(S)), process(P),
                                    environment(["KENKEN_WORKER"="toplevel",
                                                 "KENKEN_TOPLEVEL_RELAY"="1"])]) ),
                  _, fail)
        ->  bb_put(kk_reader, r(P, S)),
            set_input(S)
        ;   kk_top_input
        )
    ;   kk_top_input
    ).

kk_reader_stop :-
    (   bb_get(kk_reader, r(P, S))
    ->  bb_put(kk_reader, none),
        catch(process_kill(P), _, true),
        catch(process_wait(P, _), _, true),
        catch(close(S), _, true),
        kk_top_input
    ;   true
    ).

% kk_changed_flags(-Flags): the flags whose value is not the one they had at the start.
kk_changed_flags(Flags) :-
    (   bb_get(kk_flags0, Flags0) -> true ; Flags0 = [] ),
    findall(F-V, ( current_prolog_flag(F, V), \+ ( member(F-V0, Flags0), V0 == V ) ), Flags).

% kk_changed_ops(-Ops): op/3 goals that give the operators their present definitions.
kk_changed_ops(Ops) :-
    (   bb_get(kk_ops0, Ops0) -> true ; Ops0 = [] ),
    % (both sides ground: memberchk/2 compares, and is a builtin; member/2 with ==/2 took
    % 2.7 ms of a 4 ms snapshot)
    findall(op(P, T, N), ( current_op(P, T, N), \+ memberchk(op(P, T, N), Ops0) ), New),
    findall(op(0, T, N), ( member(op(_, T, N), Ops0), \+ current_op(_, T, N) ), Gone),
    append(New, Gone, Ops).

% kk_state(-Chars): the session's state, as the goal that restores it in a fresh engine:
% the modules imported (use_module/1,2 goals that succeeded), the operators changed, the files
% consulted (each with the flags of its time), every clause of every dynamic predicate of
% user, the flags changed, and the values a goal put with bb_put/2 (those that are ground,
% acyclic and small; the others are named as lost). Written without operators, so that it
% reads back before they are defined.
kk_state(Chars) :-
    kk_need_library(charsio),
    (   bb_get(kk_files, Files) -> true ; Files = [] ),
    (   bb_get(kk_setup, Setup) -> true ; Setup = [] ),
    (   bb_get(kk_bb_keys, Keys) -> true ; Keys = [] ),
    kk_changed_flags(Flags),
    kk_changed_ops(Ops),
    maplist(kk_file_flags, Files, FileFlags),
    catch(findall(P-Cs, kk_dynamic(P, Cs), Dyn), _, Dyn = []),
    kk_globals(Keys, Globals, Lost),
    (   bb_get(kk_broken_files, Broken) -> true ; Broken = [] ),
    write_term_to_chars(kk_restore(Setup, Ops, FileFlags, Dyn, Flags, Globals, Lost, Broken),
                        [quoted(true), ignore_ops(true)], Chars).

kk_file_flags(F, F-Flags) :-
    (   bb_get(kk_file_flags, FFs), memberchk(F-Flags0, FFs) -> Flags = Flags0 ; Flags = [] ).

% kk_globals(+Keys, -Globals, -Lost): the values of Keys that can be kept (K-V), and why the
% others cannot (K-Why).
kk_globals([], [], []).
kk_globals([K | Ks], Gs, Ls) :-
    (   catch(bb_get(K, V), _, fail)
    ->  (   \+ kk_acyclic(V, 10000) -> Gs = Gs1, Ls = [K-'cyclic, or too big' | Ls1]
        ;   \+ ground(V) -> Gs = Gs1, Ls = [K-'not ground' | Ls1]
        ;   Gs = [K-V | Gs1], Ls = Ls1
        )
    ;   Gs = Gs1, Ls = Ls1
    ),
    kk_globals(Ks, Gs1, Ls1).

kk_dynamic(N/A, Cs) :-
    current_predicate(user:N/A),
    \+ kk_hidden(N/A),
    functor(H, N, A),
    predicate_property(user:H, dynamic),
    findall((H :- B), clause(H, B), Cs).
kk_dynamic(m(M, N, A), Cs) :-
    bb_get(kk_modules, Ms),
    member(M, Ms),
    current_predicate(M:(N/A)),
    functor(H, N, A),
    predicate_property(M:H, dynamic),
    findall(M:(H :- B), clause(M:H, B), Cs).

kk_top_restore(Text, R) :-
    kk_chars(Text, Chars),
    catch(( kk_read_goal(Chars, G, _), call(G), R = true ), E, R = E),
    !.
kk_top_restore(_, false).

kk_restore(Setup, Ops, FileFlags, Dyn, Flags, Globals, Lost, Broken) :-
    maplist(kk_restore_goal, Setup),
    bb_put(kk_setup, Setup),
    bb_put(kk_broken_files, Broken),
    maplist(kk_restore_goal, Ops),
    maplist(kk_restore_file(Broken), FileFlags),
    maplist(kk_restore_, Dyn),
    maplist(kk_restore_flag, Flags),
    maplist(kk_restore_global, Globals),
    maplist(kk_report_lost, Lost).

kk_restore_goal(G) :- ( catch(G, _, fail) -> true ; true ).

kk_restore_flag(F-V) :- kk_restore_goal(set_prolog_flag(F, V)).

kk_restore_global(K-V) :- kk_bb_put(K, V).

kk_report_lost(K-Why) :-
    write('% lost in the restart: the value of '), writeq(K), write(' (bb_put/2; '),
    write(Why), write(')'), nl.

% kk_restore_file(+Broken, +F-Flags): F loaded again, with the flags of its time. Quietly,
% unless it loaded when it was consulted (it is not one of Broken, whose failure was told
% then) and no longer does: it was changed since, and what it defined (what answered before the
% restart) is gone or partial, which is said.
kk_restore_file(Broken, F-Flags) :-
    kk_all_libraries,
    maplist(kk_restore_flag, Flags),
    kk_remember(F),
    kk_loader_throws,
    (   catch(kk_loading(consult(F)), E, true)
    ->  (   var(E) -> R = true ; E = kk_halt(_) -> R = true ; R = error(E) )
    ;   R = false
    ),
    (   R == true -> true
    ;   kk_broken(F, true),
        (   memberchk(F, Broken) -> true
        ;   write('% in the restart, '), write(F),
            write(' (changed since it was loaded) did not load as before:'), nl,
            kk_not_loaded(F, R)
        )
    ).

kk_restore_(N/A-Cs) :-
    functor(H, N, A),
    retractall(H),
    maplist(kk_restore_clause, Cs).
kk_restore_(m(M, N, A)-Cs) :-
    functor(H, N, A),
    kk_note_module(M:H),
    retractall(M:H),
    maplist(kk_restore_clause, Cs).

kk_restore_clause(C0) :- kk_clause_reads(C0, C), assertz(C).

% kk_loading(+G): G loads a file: goal_expansion/2 (host_expand.pl) then notes the clauses that
% read the input.
kk_loading(G) :-
    setup_call_cleanup(bb_put(kk_loading, true), G, bb_put(kk_loading, false)).

% kk_unless_halt(+E, :B): B, unless E ends the session or swaps its engine (kk_halt/1,
% kk_swap/2): E is thrown on then.
kk_unless_halt(E, B) :-
    (   ( E = kk_halt(_) ; E = kk_swap(_, _) ) -> throw(E) ; call(B) ).

kk_halt_(C) :-
    must_be(integer, C),
    throw(kk_halt(C)).

kk_top_run(Goal, VNs, Mode, Result) :-
    bb_put(kk_top_count, 0),
    bb_put(kk_top_all, false),
    kk_top_callable(Goal, Call),
    kk_reader_start,
    (   setup_call_cleanup(true, Call, Det = true),
        bb_get(kk_top_count, N0),
        N is N0 + 1,
        bb_put(kk_top_count, N),
        catch(flush_output(user_error), _, true),
        kk_fresh_line,
        kk_top_show(VNs, []),
        (   Det == true -> write('.'), nl, R = true
        ;   kk_top_next(Mode, VNs, N, R)
        )
    ->  Result = R
    ;   kk_fresh_line,
        write('false.'), nl,
        % (no more answers after some: the goal answered)
        (   bb_get(kk_top_count, 0) -> Result = false ; Result = true )
    ),
    flush_output.

% kk_top_callable(+Goal, -Call): what runs Goal. A goal of many control constructs (a
% conjunction 100,000 long) becomes the body of a clause, compiled once: call/1 expands it
% level by level, in minutes.
kk_top_callable(Goal, Call) :-
    (   kk_control_count(Goal, 0, N), N > 1000
    ->  term_variables(Goal, Vs),
        retractall('$kk_goal'(_)),
        assertz(('$kk_goal'(Vs) :- Goal)),
        Call = '$kk_goal'(Vs)
    ;   Call = Goal
    ).

% kk_control_count(+Goal, +N0, -N): N0 plus the control constructs of Goal, counting stops
% past 1000.
kk_control_count(G, N0, N) :-
    (   N0 > 1000 -> N = N0
    ;   var(G) -> N = N0
    ;   kk_control(G, As)
    ->  N1 is N0 + 1,
        foldl(kk_control_count, As, N1, N)
    ;   N = N0
    ).

kk_control((A, B), [A, B]).
kk_control((A ; B), [A, B]).
kk_control((A -> B), [A, B]).
kk_control(\+ A, [A]).
kk_control(call(A), [A]).

% kk_top_next(+Mode, +VNs, +N, -R): fails to ask the goal for its next answer; succeeds to
% stop.
kk_top_next(batch(Limit), _, N, R) :-
    (   N >= Limit
    ->  write(' ;'), nl,
        (   N =:= 1 -> Plural = '' ; Plural = s ),
        write('% stopped after '), write(N), write(' answer'), write(Plural),
        write(' (--limit)'), nl,
        R = limit
    ;   write(' ;'), nl, fail
    ).
kk_top_next(ask(In, Out), VNs, N, R) :-
    (   bb_get(kk_top_all, true)
    ->  write(' ;'), nl, fail
    ;   write(' '), kk_show,
        % the host reads one key (the reader must not) and answers next, all, stop, whole or
        % help
        kk_reader_stop,
        open(Out, write, O), write(O, ask), nl(O), close(O),
        open(In, read, I), read(I, Key), close(I),
        (   Key == next
        ->  write(';'), nl, kk_reader_start, fail
        ;   Key == all
        ->  write(';'), nl, bb_put(kk_top_all, true), kk_reader_start, fail
        ;   Key == whole
        ->  nl, kk_top_show(VNs, [max_depth(0)]), kk_top_next(ask(In, Out), VNs, N, R)
        ;   Key == help
        ->  nl, kk_key_help, kk_top_show(VNs, []), kk_top_next(ask(In, Out), VNs, N, R)
        ;   write('.'), nl, R = true
        )
    ).

kk_key_help :-
    maplist(kk_help_line, [
        "% ; n r space tab: the next answer    a: all the other answers",
        "% w: the whole answer (no ...)        h: this help",
        "% Enter . c: stop"
    ]).

% kk_top_show(+VNs, +Options): the answer, as Scryer's top level writes it (cyclic terms
% included), written straight to user_output (no copy of a big answer is made), with Options
% last among the write options ([max_depth(0)]: the whole answer). Only the variables shown
% are looked at: a hidden _L bound to a list of twenty million elements costs nothing here.
kk_top_show(VNs, Extra) :-
    kk_visible(VNs, Vis),
    term_variables(Vis, Vs),
    copy_term(Vs, Vs, Gs),
    kk_bindings(Vis, Bindings),
    kk_shown_variables(Bindings, Gs, Extra, All),
    kk_fresh_names(All, VNs, 0, Names),
    reverse(VNs, RVNs),
    append(RVNs, Names, AllVNs),
    maplist(kk_binding_item, Bindings, BindingItems),
    maplist(kk_goal_item, Gs, GoalItems),
    append(BindingItems, GoalItems, Items),
    (   Items == [] -> write(true)
    ;   kk_top_items(Items, AllVNs, Extra)
    ).

% kk_shown_variables(+Bindings, +Goals, -Vars): the variables the answer shows, which get
% names _A, _B, ...: with a depth limit, only those within it (as Scryer's top level does; a
% list of 200,000 fresh variables is not named in full).
kk_shown_variables(Bindings, Gs, Extra, All) :-
    kk_answer_options([], Extra, Os),
    (   kk_last_depth(Os, D), D > 0
    ->  D1 is D + 2,
        maplist(kk_binding_value, Bindings, Vs0),
        append(Vs0, Gs, Ts),
        maplist(kk_vars_within(D1), Ts, Vss),
        append(Vss, Vs),
        term_variables(Vs, All)
    ;   term_variables(Bindings-Gs, All)
    ).

kk_binding_value(_ = V, V).

kk_vars_within(D, T, Vs) :- '$toplevel':term_variables_under_max_depth(T, D, Vs).

kk_last_depth(Os, D) :-
    reverse(Os, ROs),
    memberchk(max_depth(D), ROs),
    integer(D).

kk_top_items([I], VNs, Extra) :- !, kk_top_item(I, VNs, Extra, last).
kk_top_items([I | Is], VNs, Extra) :-
    kk_top_item(I, VNs, Extra, more), write(','), nl, kk_top_items(Is, VNs, Extra).

% As Scryer's top level writes an answer (toplevel.pl, write_goal/3): at most 20 levels deep
% (a longer list ends in ...|...], a deeper term in ...), unless the flag
% answer_write_options says otherwise (set_prolog_flag(answer_write_options, [max_depth(0)])
% shows whole answers); a list of characters as "text" when double_quotes is chars; an
% operator value in brackets, X = (a:-b).
kk_top_item(binding(N, V), VNs, Extra, Last) :-
    write(N), write(' = '),
    kk_answer_options(VNs, Extra, Os),
    (   kk_needs_bracketing(V, =)
    ->  write('('), write_term(V, Os), write(')')
    ;   write_term(V, Os),
        (   Last == last, kk_trailing_period_is_ambiguous(V) -> write(' ') ; true )
    ).
kk_top_item(goal(G), VNs, Extra, _) :-
    kk_answer_options(VNs, Extra, Os),
    write_term(G, Os).

kk_answer_options(VNs, Extra, [quoted(true), variable_names(VNs), max_depth(20), double_quotes(DQ) | Os]) :-
    (   current_prolog_flag(double_quotes, chars) -> DQ = true ; DQ = false ),
    (   catch(current_prolog_flag(answer_write_options, Os0), _, fail) -> true ; Os0 = [] ),
    append(Os0, Extra, Os).

kk_needs_bracketing(Value, Op) :-
    nonvar(Value),
    functor(Value, F, Arity),
    atom(F),
    current_op(FPrec, FSpec, F),
    current_op(EqPrec, EqSpec, Op),
    kk_arity_specifier(Arity, FSpec),
    (   Arity =:= 0
    ;   EqPrec < FPrec
    ;   EqPrec =:= FPrec, memberchk(EqSpec, [fx, xfx, yfx])
    ),
    !.

kk_arity_specifier(0, _).
kk_arity_specifier(1, S) :- atom_chars(S, [_, _]).
kk_arity_specifier(2, S) :- atom_chars(S, [_, _, _]).

kk_trailing_period_is_ambiguous(Value) :-
    atom(Value),
    atom_chars(Value, Cs),
    Cs \== ['.'],
    append(_, [C], Cs),
    memberchk(C, [#, $, &, *, +, -, ., /, :, <, =, >, ?, @, ^, ~, \]).

% kk_read(?Term), kk_read(+Stream, ?Term), kk_read_term(?Term, +Options),
% kk_read_term(+Stream, ?Term, +Options): read/1,2 and read_term/2,3, giving end_of_file at
% the end of the input as ISO says. (Scryer 0.10 reads nothing past the end of a pipe, such as
% the relay's, and leaves the term unbound: a loop reading up to end_of_file would never end.)
% A term read unbound with no variable (`_` has none, so the next character tells) at the end
% of the input is the end.
kk_read(T) :- current_input(S), kk_read_term(S, T, []).
kk_read(S, T) :- kk_read_term(S, T, []).
kk_read_term(T, Os) :- current_input(S), kk_read_term(S, T, Os).
kk_read_term(S, T, Os) :-
    catch(must_be(list, Os), error(E, _), throw(error(E, read_term/3))),
    read_term(S, T0, [variables(Vs) | Os]),
    (   var(T0), Vs == [], kk_at_end(S) -> T = end_of_file ; T = T0 ).

kk_at_end(S) :- catch(peek_char(S, C), _, C = end_of_file), C == end_of_file.

% kk_input_goal(+G): G calls a predicate that reads the input (as toplevel.rs's INPUT_NAMES).
kk_input_goal(G) :-
    callable(G),
    functor(G, N, _),
    memberchk(N, [read, read_term, get_char, get_code, get_byte, peek_char, peek_code,
                  peek_byte, get_single_char, get_line_to_chars, get_n_chars]).
