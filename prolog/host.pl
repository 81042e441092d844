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
    (   N =:= 0 -> atom_codes(Name, [0'_, L])
    ;   number_codes(N, Ds), atom_codes(Name, [0'_, L | Ds])
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

/*  kk_top(+Chars, +Mode, -Result) -- one goal of the top level (`kenken query`, `kenken repl`).

    Parses Chars as a goal and runs it the way a Prolog top level does: each answer is printed
    to user_output as it is found (so a goal's own output comes in order with its answers),
    and the goal is asked for its next answer by backtracking into it, so its side effects
    happen once per answer. Mode is
      interactive     after each answer one key is read (get_single_char/1): ';', space, 'n',
                      tab ask for the next answer, 'a' for all the rest, anything else stops;
      batch(Limit)    every answer, separated by ' ;', at most Limit of them.
    Result is true (an answer was shown), false, error (a syntax error or uncaught exception,
    printed as Scryer prints it), limit (Limit answers shown, more may exist) or halt(Code)
    (halt/0,1 was called, even inside ','/2, ;/2, ->/2, \+/1, call/1, findall/3 ...).
    Nothing is left behind: no choice point, no exception.
*/

kk_top(Chars, Mode, Result) :-
    (   catch(kk_top_(Chars, Mode, Result0), Ball, kk_top_ball(Ball, Result0))
    ->  Result = Result0
    ;   Result = error
    ),
    flush_output.

kk_top_(Chars, Mode, Result) :-
    catch(kk_read_goal(Chars, Goal0, VNs), E, true),
    (   nonvar(E) -> kk_top_ball(E, Result)
    ;   var(Goal0) -> kk_top_ball(error(instantiation_error, toplevel), Result)
    ;   kk_halts(Goal0, Goal),
        kk_top_run(Goal, VNs, Mode, Result)
    ).

kk_top_ball(kk_halt(Code), halt(Code)) :- !.
kk_top_ball(Ball, error) :-
    write('   '),
    write_term(Ball, [quoted(true), max_depth(20)]),
    write('.'), nl.

% kk_halts(+Goal0, -Goal): halt/0,1 in Goal0's control constructs become kk_halt exceptions,
% so that the host ends the session (after saving what it must) instead of the engine.
kk_halts(G, G) :- var(G), !.
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
kk_halts(consult(F), kk_consult(F)) :- !.
kk_halts(G, G).

% kk_consult(+Files): consults each file and remembers it for make/0 and for the replay after
% an interrupt. A file that does not load is reported on one line (its name, the line of its
% first syntax error) and the session goes on; it is remembered all the same, so that make/0
% loads it once it is fixed.
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
    kk_all_libraries,
    kk_loader_throws,
    catch(( consult(F) -> R = true ; R = false ), E, R = error(E)),
    (   R == true -> kk_remember(F)
    ;   R = error(error(existence_error(source_sink, _), _))
    ->  write('% '), write(F), write(': no such file'), nl,
        fail
    ;   R = error(E), kk_unopened(E) -> throw(E)
    ;   kk_remember(F),
        (   R = error(E) -> kk_consult_error(F, E) ; write('% '), write(F), write(' was not loaded'), nl ),
        fail
    ).

kk_remember(F) :-
    (   bb_get(kk_files, Files0) -> true ; Files0 = [] ),
    (   memberchk(F, Files0) -> Files = Files0 ; append(Files0, [F], Files) ),
    bb_put(kk_files, Files).

% kk_unopened(+E): E says the file could not be opened (it is then not remembered).
kk_unopened(error(permission_error(_, source_sink, _), _)).
kk_unopened(error(type_error(_, _), _)).
kk_unopened(error(instantiation_error, _)).

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

% kk_top_consult(+File, -R): consults File for the host, R = true or false (reported).
kk_top_consult(F, R) :-
    (   catch(kk_consult_one(F), E, (kk_top_ball(E, _), fail)) -> R = true ; R = false ),
    flush_output.

%% make: consults again every file consulted in this session.
make :-
    (   bb_get(kk_files, Files) -> true ; Files = [] ),
    maplist(kk_make_one, Files).

kk_make_one(F) :-
    (   catch(kk_consult_one(F), E, (kk_top_ball(E, _), fail)) -> true ; true ).

%% statistics: the CPU time used so far (the spec measures with statistics/0 or statistics/2;
%  Scryer has only statistics(runtime, [Ms, unsupported]), from library(time), which reads
%  '$cpu_now'/1 as this does), written as format("% ~3f s of CPU time~n", [Ms / 1000]) would.
statistics :-
    '$cpu_now'(T),
    Ms is round(T * 1000),
    S is Ms // 1000,
    F is Ms mod 1000,
    write('% '), write(S), write('.'),
    (   F < 10 -> write('00') ; F < 100 -> write('0') ; true ),
    write(F), write(' s of CPU time'), nl.

%% help: the top level's commands.
help :-
    maplist(kk_help_line, [
        "Goals end with a full stop (they may span lines).",
        "After an answer: ; or space for the next one, a for all the rest, Enter or . to stop.",
        "  consult(File). or [File].  load a Prolog file (again: reload it)",
        "  make.                      consult again every file loaded in this session",
        "  help.                      this text",
        "  halt. or halt(Code).       leave (Ctrl-D too)",
        "Ctrl-C stops the running goal; consulted files and dynamic clauses stay."
    ]).

kk_help_line(L) :- atom_chars(A, L), write(A), nl.

% kk_state(-Chars): the session's state, as the goal that restores it in a fresh engine:
% the files consulted, then every clause of every dynamic predicate of user.
kk_state(Chars) :-
    kk_need_library(charsio),
    (   bb_get(kk_files, Files) -> true ; Files = [] ),
    catch(findall(P-Cs, kk_dynamic(P, Cs), Dyn), _, Dyn = []),
    write_term_to_chars(kk_restore(Files, Dyn), [quoted(true)], Chars).

kk_dynamic(N/A, Cs) :-
    current_predicate(user:N/A),
    N \== '$kk_goal',
    functor(H, N, A),
    predicate_property(user:H, dynamic),
    findall((H :- B), clause(H, B), Cs).

kk_top_restore(Chars, R) :-
    catch(( kk_read_goal(Chars, G, _), call(G), R = true ), E, R = E),
    !.
kk_top_restore(_, false).

kk_restore(Files, Dyn) :-
    maplist(kk_restore_file, Files),
    maplist(kk_restore_, Dyn).

% (quietly: a file that did not load said so when it was consulted)
kk_restore_file(F) :-
    kk_all_libraries,
    kk_remember(F),
    kk_loader_throws,
    (   catch(consult(F), _, fail) -> true ; true ).

kk_restore_(N/A-Cs) :-
    functor(H, N, A),
    retractall(H),
    maplist(assertz, Cs).

kk_unless_halt(E, B) :-
    (   E = kk_halt(_) -> throw(E) ; call(B) ).

kk_halt_(C) :-
    must_be(integer, C),
    throw(kk_halt(C)).

kk_top_run(Goal, VNs, Mode, Result) :-
    bb_put(kk_top_count, 0),
    bb_put(kk_top_all, false),
    kk_top_callable(Goal, Call),
    (   setup_call_cleanup(true, Call, Det = true),
        bb_get(kk_top_count, N0),
        N is N0 + 1,
        bb_put(kk_top_count, N),
        kk_top_show(VNs),
        (   Det == true -> write('.'), nl, R = true
        ;   kk_top_next(Mode, N, R)
        )
    ->  Result = R
    ;   write('false.'), nl, Result = false
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

% kk_top_next(+Mode, +N, -R): fails to ask the goal for its next answer; succeeds to stop.
kk_top_next(batch(Limit), N, R) :-
    (   N >= Limit
    ->  write(' ;'), nl,
        (   N =:= 1 -> Plural = '' ; Plural = s ),
        write('% stopped after '), write(N), write(' answer'), write(Plural),
        write(' (--limit)'), nl,
        R = limit
    ;   write(' ;'), nl, fail
    ).
kk_top_next(ask(In, Out), _, R) :-
    (   bb_get(kk_top_all, true)
    ->  write(' ;'), nl, fail
    ;   write(' '), flush_output,
        % the host reads one key and answers next, all or stop
        open(Out, write, O), write(O, ask), nl(O), close(O),
        open(In, read, I), read(I, Key), close(I),
        (   Key == next
        ->  write(';'), nl, fail
        ;   Key == all
        ->  write(';'), nl, bb_put(kk_top_all, true), fail
        ;   write('.'), nl, R = true
        )
    ).

% kk_top_show(+VNs): the answer, as Scryer's top level writes it (cyclic terms included),
% written straight to user_output (no copy of a big answer is made).
kk_top_show(VNs) :-
    term_variables(VNs, Vs),
    copy_term(Vs, Vs, Gs),
    kk_bindings(VNs, Bindings0),
    kk_visible(Bindings0, Bindings),
    kk_shown_variables(Bindings, Gs, All),
    kk_fresh_names(All, VNs, 0, Names),
    reverse(VNs, RVNs),
    append(RVNs, Names, AllVNs),
    maplist(kk_binding_item, Bindings, BindingItems),
    maplist(kk_goal_item, Gs, GoalItems),
    append(BindingItems, GoalItems, Items),
    (   Items == [] -> write(true)
    ;   kk_top_items(Items, AllVNs)
    ).

% kk_shown_variables(+Bindings, +Goals, -Vars): the variables the answer shows, which get
% names _A, _B, ...: with a depth limit, only those within it (as Scryer's top level does; a
% list of 200,000 fresh variables is not named in full).
kk_shown_variables(Bindings, Gs, All) :-
    kk_answer_options([], Os),
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

kk_top_items([I], VNs) :- !, kk_top_item(I, VNs, last).
kk_top_items([I | Is], VNs) :-
    kk_top_item(I, VNs, more), write(','), nl, kk_top_items(Is, VNs).

% As Scryer's top level writes an answer (toplevel.pl, write_goal/3): at most 20 levels deep
% (a longer list ends in ...|...], a deeper term in ...), unless the flag
% answer_write_options says otherwise (set_prolog_flag(answer_write_options, [max_depth(0)])
% shows whole answers); a list of characters as "text" when double_quotes is chars; an
% operator value in brackets, X = (a:-b).
kk_top_item(binding(N, V), VNs, Last) :-
    write(N), write(' = '),
    kk_answer_options(VNs, Os),
    (   kk_needs_bracketing(V, =)
    ->  write('('), write_term(V, Os), write(')')
    ;   write_term(V, Os),
        (   Last == last, kk_trailing_period_is_ambiguous(V) -> write(' ') ; true )
    ).
kk_top_item(goal(G), VNs, _) :-
    kk_answer_options(VNs, Os),
    write_term(G, Os).

kk_answer_options(VNs, [quoted(true), variable_names(VNs), max_depth(20), double_quotes(DQ) | Os]) :-
    (   current_prolog_flag(double_quotes, chars) -> DQ = true ; DQ = false ),
    (   catch(current_prolog_flag(answer_write_options, Os), _, fail) -> true ; Os = [] ).

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
