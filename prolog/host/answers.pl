/*  host/answers.pl -- the Rust host's Prolog side (prolog/host/, loaded in order as one text:
    HOST_PL in src/prolog/mod.rs), continued: running the goal answer by answer (kk_top_run/4,
    kk_top_next/4) and writing each answer as Scryer's top level does; read/1 to the end of the
    input.
*/

% ---------------------------------------------------------------------------
% Running the goal, answer by answer

kk_top_run(Goal, VNs, Mode, Result) :-
    iso_ext:bb_put(kk_top_count, 0),
    iso_ext:bb_put(kk_top_all, false),
    iso_ext:bb_put(kk_top_until, 0),
    kk_top_callable(Goal, Call),
    kk_reader_start,
    (   iso_ext:setup_call_cleanup(true, user:Call, Det = true),
        iso_ext:bb_get(kk_top_count, N0),
        N is N0 + 1,
        iso_ext:bb_put(kk_top_count, N),
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
        (   iso_ext:bb_get(kk_top_count, 0) -> Result = false ; Result = true )
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
%?- kk_control_count((a, b ; c -> d), 0, N).
%@ N = 3.
kk_control_count(G, N0, N) :-
    (   N0 > 1000 -> N = N0
    ;   var(G) -> N = N0
    ;   kk_control(G, As)
    ->  N1 is N0 + 1,
        lists:foldl(user:kk_control_count, As, N1, N)
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
kk_top_next(ask, VNs, N, R) :-
    (   (   iso_ext:bb_get(kk_top_all, true)
        ;   iso_ext:bb_get(kk_top_until, U), N < U
        )
    ->  write(' ;'), nl, fail
    ;   write(' '), kk_show,
        % the host reads one key (the reader must not) and answers next, all, stop, whole or
        % help
        kk_reader_stop,
        kk_host(ask, Key),
        (   Key == next
        ->  write(';'), nl, kk_reader_start, fail
        ;   Key == all
        ->  write(';'), nl, iso_ext:bb_put(kk_top_all, true), kk_reader_start, fail
        ;   Key == five
        ->  write(';'), nl, U is N + 5 - N mod 5, iso_ext:bb_put(kk_top_until, U), kk_reader_start,
            fail
        ;   Key == whole
        ->  nl, kk_top_show(VNs, [max_depth(0)]), kk_top_next(ask, VNs, N, R)
        ;   Key == print
        ->  nl, kk_top_show(VNs, []), kk_top_next(ask, VNs, N, R)
        ;   Key == help
        ->  nl, kk_key_help, kk_top_show(VNs, []), kk_top_next(ask, VNs, N, R)
        ;   write('.'), nl, R = true
        )
    ).

kk_key_help :-
    lists:maplist(user:kk_help_line, [
        "% ; n r space tab: the next answer    a: all the other answers",
        "% f: the next answers, up to the next multiple of 5",
        "% w: the whole answer (no ...)        p: the answer as first written",
        "% h: this help                        Enter . c: stop"
    ]).

% ---------------------------------------------------------------------------
% Writing an answer

% kk_top_show(+VNs, +Options): the answer, as Scryer's top level writes it (cyclic terms
% included), written straight to user_output (no copy of a big answer is made), with Options
% last among the write options ([max_depth(0)]: the whole answer). Only the variables shown
% are looked at: a hidden _L bound to a list of twenty million elements costs nothing here.
kk_top_show(VNs, Extra) :-
    kk_visible(VNs, Vis),
    term_variables(Vis, Vs),
    iso_ext:copy_term(Vs, Vs, Gs),
    kk_bindings(Vis, Bindings),
    kk_shown_variables(Bindings, Gs, Extra, All),
    kk_fresh_names(All, VNs, 0, Names),
    lists:reverse(VNs, RVNs),
    lists:append(RVNs, Names, AllVNs),
    lists:maplist(user:kk_binding_item, Bindings, BindingItems),
    lists:maplist(user:kk_goal_item, Gs, GoalItems),
    lists:append(BindingItems, GoalItems, Items),
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
        lists:maplist(user:kk_binding_value, Bindings, Vs0),
        lists:append(Vs0, Gs, Ts),
        lists:maplist(user:kk_vars_within(D1), Ts, Vss),
        lists:append(Vss, Vs),
        term_variables(Vs, All)
    ;   term_variables(Bindings-Gs, All)
    ).

kk_binding_value(_ = V, V).

kk_vars_within(D, T, Vs) :- '$toplevel':term_variables_under_max_depth(T, D, Vs).

kk_last_depth(Os, D) :-
    lists:reverse(Os, ROs),
    lists:memberchk(max_depth(D), ROs),
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
    lists:append(Os0, Extra, Os).

kk_needs_bracketing(Value, Op) :-
    nonvar(Value),
    functor(Value, F, Arity),
    atom(F),
    current_op(FPrec, FSpec, F),
    current_op(EqPrec, EqSpec, Op),
    kk_arity_specifier(Arity, FSpec),
    (   Arity =:= 0
    ;   EqPrec < FPrec
    ;   EqPrec =:= FPrec, lists:memberchk(EqSpec, [fx, xfx, yfx])
    ),
    !.

kk_arity_specifier(0, _).
kk_arity_specifier(1, S) :- atom_chars(S, [_, _]).
kk_arity_specifier(2, S) :- atom_chars(S, [_, _, _]).

kk_trailing_period_is_ambiguous(Value) :-
    atom(Value),
    atom_chars(Value, Cs),
    Cs \== ['.'],
    lists:append(_, [C], Cs),
    lists:memberchk(C, [#, $, &, *, +, -, ., /, :, <, =, >, ?, @, ^, ~, \]).

% ---------------------------------------------------------------------------
% Reading to the end of the input

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
    catch(error:must_be(list, Os), error(E, _), throw(error(E, read_term/3))),
    read_term(S, T0, [variables(Vs) | Os]),
    (   var(T0), Vs == [], kk_at_end(S) -> T = end_of_file ; T = T0 ).

kk_at_end(S) :- catch(peek_char(S, C), _, C = end_of_file), C == end_of_file.

% kk_input_goal(+G): G calls a predicate that reads the input (as goals.rs's INPUT_NAMES).
%?- kk_input_goal(get_char(C)).
%@ true.
%?- kk_input_goal(atom_length(a, N)).
%@ false.
kk_input_goal(G) :-
    callable(G),
    functor(G, N, _),
    lists:memberchk(N, [read, read_term, get_char, get_code, get_byte, peek_char, peek_code,
                  peek_byte, get_single_char, get_line_to_chars, get_n_chars]).
