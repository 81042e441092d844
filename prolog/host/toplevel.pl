/*  host/toplevel.pl -- the Rust host's Prolog side (not part of the homework contract): the
    top level (kk_top/4, below) and what host_query.pl's kk_host_query/5 shares with it.

    The host's Prolog side is the files of prolog/host/, loaded in this order as one text
    (HOST_PL in src/prolog/mod.rs), each with its concern:
      toplevel.pl   the libraries loaded when needed, the goal typed read and run (kk_top/4),
                    what the host is told, uncaught errors written;
      rewrite.pl    the rewriting of the goal typed and of consulted code (kk_halts/2);
      consult.pl    [user], consulting files, a file that replaces kenken.pl, load errors;
      commands.pl   make/0, listing/1, statistics/0,2, time/1, help/0, the names completed;
      input.pl      the engine's start and standard input, the relay for goals that read;
      state.pl      the session's state (kk_state/1) and its replay (kk_restore/8);
      answers.pl    running the goal answer by answer, writing the answers, read/1 at the end.
    The examples (%?- and %@ lines) are as `kenken query --no-kenken 'GOAL.'` answers them.

    Libraries: iso_ext, lists and error are loaded with the engine, so importing them costs
    nothing. charsio, format, time and between are not: loading them was half the CPU time of a
    cold `kenken query --no-kenken true.`, so they are loaded when first needed
    (kk_need_libraries/1): the host asks for those whose predicates a goal names before running
    it (src/prolog/toplevel/goals.rs), and all of them are loaded before a file is consulted (it
    may call format/2 ...). With kenken.pl they are all imported at once, as before
    (ALL_LIBRARIES in src/prolog/mod.rs). The host's files themselves do without them (write/1
    rather than format/2, read_term_from_chars/3 from the builtin under it).

    The user's code cannot change ours: a consulted file's clauses replace those of the same
    name in user (member/2 the library gave, or one of ours), so the host's Prolog calls only
    builtins (which a file cannot redefine: permission_error), its own kk_ predicates (which a
    consulted file may not redefine: host_expand.pl), and the libraries' predicates qualified
    (lists:member/2, iso_ext:bb_put/2, ...), the goal arguments of their meta-predicates
    qualified too (lists:maplist(user:kk_..., L): a library calls an unqualified goal in its own
    module). The patterns that match the user's goals (rewrite.pl's tables) stay unqualified.
    tests/data/host_lint.pl checks this of every file here (tests/engines/user_code.rs).
*/

% ---------------------------------------------------------------------------
% Libraries

:- use_module(library(iso_ext)).
:- use_module(library(lists)).
:- use_module(library(error)).

% kk_need_libraries(+Ls): the libraries Ls (of charsio, format, time, between) are loaded and
% imported into user (once each: their predicates are then callable from the top level, and
% format/2,3 are expanded as library(format) does in the goals and files that follow).
kk_need_libraries(Ls) :- lists:maplist(user:kk_need_library, Ls).

kk_need_library(L) :-
    atom_concat(kk_library_, L, Key),
    (   iso_ext:bb_get(Key, true) -> true
    ;   % (read as it was written, whatever the user made of double_quotes: library(process)
        % read with codes panics Scryer in process_create/3)
        current_prolog_flag(double_quotes, DQ),
        DQ \== chars
    ->  iso_ext:setup_call_cleanup(set_prolog_flag(double_quotes, chars),
                                   user:kk_need_library(L),
                                   set_prolog_flag(double_quotes, DQ))
    ;   L == time
    ->  % (statistics/2 and time/1 are the host's own)
        use_module(library(time), [max_sleep_time/1, sleep/1, current_time/1, format_time//2]),
        iso_ext:bb_put(Key, true)
    ;   L == format
    ->  % (listing/1 is the host's own)
        use_module(library(format), [format_//2, format/2, format/3, portray_clause_//1,
                                     portray_clause/1, portray_clause/2]),
        iso_ext:bb_put(Key, true)
    ;   use_module(library(L)), iso_ext:bb_put(Key, true)
    ).

kk_all_libraries :- kk_need_libraries([charsio, format, time, between]).

% ---------------------------------------------------------------------------
% Reading the goal typed and naming its variables

% kk_read_goal(+Chars, -Goal, -VNs): read_term_from_chars/3 of library(charsio), without it.
kk_read_goal(Chars, Goal, VNs) :-
    builtins:parse_read_term_options([variable_names(VNs0)], [S, VNs0, Vs], read_term_from_chars/3),
    '$read_term_from_chars'(Chars, Goal0, S, Vs, VNs0),
    Goal = Goal0,
    VNs = VNs0.

% kk_fresh_names(+Vars, +VNs, +K, -Names): names _A, _B, ... for the variables without one,
% none of them a name of VNs (the query's _A keeps its own).
%?- kk_fresh_names([X, Y], ['Y'=Y, '_A'=_], 0, Ns).
%@ Ns = ['_B'=X].
kk_fresh_names([], _, _, []).
kk_fresh_names([V | Vs], VNs, K, Names) :-
    (   lists:member(_=W, VNs), W == V
    ->  Names = Names1, K1 = K
    ;   kk_free_name(K, VNs, K0, Name), Names = [Name=V | Names1], K1 is K0 + 1
    ),
    kk_fresh_names(Vs, VNs, K1, Names1).

% kk_free_name(+K, +VNs, -K1, -Name): Name, the K1-th fresh name, the first from the K-th that
% is no name of VNs.
kk_free_name(K, VNs, K1, Name) :-
    kk_fresh_name(K, N),
    (   lists:memberchk(N=_, VNs) -> K2 is K + 1, kk_free_name(K2, VNs, K1, Name)
    ;   K1 = K, Name = N
    ).

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
    (   var(Value), \+ ( lists:member(N2=V2, Rest), V2 == Value, N2 \== Name )
    ->  Bs = Bs1
    ;   Bs = [Name=Value | Bs1]
    ),
    kk_bindings(Rest, Bs1).

kk_binding_item(N=V, binding(N, V)).
kk_goal_item(G, goal(G)).

% ---------------------------------------------------------------------------
% One goal of the top level: kk_top/4

/*  kk_top(+Chars, +Mode, +Reads, -Result) -- one goal of the top level (`kenken query`,
    `kenken repl`).

    Parses Chars as a goal and runs it the way a Prolog top level does: each answer is printed
    to user_output as it is found (so a goal's own output comes in order with its answers),
    and the goal is asked for its next answer by backtracking into it, so its side effects
    happen once per answer. Mode is
      ask             after each answer the host is asked (kk_host(ask, Key)) and
                      answers next, all (the rest), five (the next
                      answers up to a multiple of 5), whole (the answer written again in
                      full), print (written again as at first), help (the keys, then the
                      answer again) or stop;
      batch(Limit)    every answer, separated by ' ;', at most Limit of them.
    Reads is true when the goal names a predicate that reads the input, keep when every goal
    reads (`kenken query`: nobody types, and what one goal leaves of the input is the next
    one's), false otherwise (see kk_reader_start/0).
    Result is true (an answer was shown), false, error (a syntax error or uncaught exception,
    printed as Scryer prints it), limit (Limit answers shown, more may exist), swap (a file
    the goal consults replaces kenken.pl: the host runs the goal again in an engine without
    it), swapped (the same, found as the goal ran: it stopped there), interrupted (Ctrl-C or
    a timeout stopped it where it was: src/prolog/toplevel/interrupt.rs), memory (the
    heap could not grow: the host says so) or halt(Code)
    (halt/0,1 was called, even inside ','/2, ;/2, ->/2, \+/1, call/1, findall/3 ...).
    Nothing is left behind: no choice point, no exception.
*/

kk_top(Text, Mode, Reads, Result) :-
    kk_chars(Text, Chars),
    iso_ext:bb_put(kk_top_reads, Reads),
    (   Mode == ask -> iso_ext:bb_put(kk_host_asks, true) ; true ),
    iso_ext:bb_put(kk_top_count, 0),
    (   catch(kk_top_(Chars, Mode, Result0), Ball, kk_top_ball(Ball, Result0))
    ->  Result = Result0
    ;   Result = error
    ),
    (   Reads == keep -> true ; kk_reader_stop ),
    kk_flush.

% kk_burn(+N): N steps that do nothing (an interrupt that came while no goal ran is taken by
% the host here, in a catch/3 of its own: src/prolog/toplevel/engine.rs).
kk_burn(N) :-
    (   N > 0 -> N1 is N - 1, kk_burn(N1) ; true ).

% ---------------------------------------------------------------------------
% What the host is told

% kk_chars(+Text, -Chars): the host's "text" as characters, whatever the flag double_quotes
% made of it (codes, an atom).
%?- kk_chars("ab", Cs).
%@ Cs = "ab".
kk_chars(Text, Chars) :-
    (   atom(Text) -> atom_chars(Text, Chars)
    ;   Text = [C | _], integer(C) -> atom_codes(A, Text), atom_chars(A, Chars)
    ;   Chars = Text
    ).

% kk_fresh_line: the host (src/prolog/toplevel/) turns this control character into a new
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
        kk_swap_first(Goal),
        kk_top_run(Goal, VNs, Mode, Result)
    ).

% ---------------------------------------------------------------------------
% Errors reading or running the goal

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
% (Ctrl-C or a timeout stopped the goal: the host says so)
kk_top_ball(Ball, interrupted) :-
    kk_interrupt(Ball),
    !,
    kk_fresh_line.
% (the file replaces kenken.pl: the host runs the goal again, or not when it stopped there)
kk_top_ball(kk_swap(Name, PI, When), Result) :-
    !,
    kk_fresh_line,
    write('% '), write(Name), write(' defines '), writeq(PI),
    write(': it is loaded in place of the kenken.pl built into this program, whose predicates '),
    write('are all gone (as with kenken repl '), write(Name), write(')'),
    (   When == before -> Result = swap, write('.')
    ;   Result = swapped, write('; the goal stopped there.')
    ),
    nl.
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

% ---------------------------------------------------------------------------
% Uncaught exceptions, as Scryer's top level writes them

% kk_write_error(+Ball): an uncaught exception as Scryer's top level writes it (loader.pl,
% write_error/1): an error(_, _) term as it is, any other ball as throw(Ball), so that it never
% looks like an answer (throw(true) is not true); indented by three spaces when no answer came
% before it; a string as "text" when double_quotes is chars.
kk_write_error(Ball) :-
    (   iso_ext:bb_get(kk_top_count, N), integer(N), N > 0 -> true ; write('   ') ),
    (   current_prolog_flag(double_quotes, chars) -> DQ = true ; DQ = false ),
    (   nonvar(Ball), functor(Ball, error, 2) -> T = Ball ; T = throw(Ball) ),
    write_term(T, [quoted(true), numbervars(true), double_quotes(DQ)]),
    write('.').
