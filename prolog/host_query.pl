/*  host_query.pl -- the Rust host's safe query wrapper (not part of the homework contract),
    loaded after host.pl (whose predicates it uses) by the engines that answer the host's
    queries (src/prolog/session.rs, Session), not by the top level.

    kk_host_stream(+Text, +Params, +InferenceLimit, +MaxAnswers, +Cap, +Mode, -Item,
                   -Inferences, -Warnings)
      Parses Text (chars, codes or an atom: what the flag double_quotes makes of a string) as
      a goal (read_term_from_chars/3 inside catch/3), binds its variables named in Params (a
      list of Name=Value as text, the values written by the host: kk_bind_params/5) and runs
      it with at most
      InferenceLimit inferences per answer; halt/0,1 in its control constructs end the query
      (they do not stop the engine: kk_halts/2 of host.pl, as at the top level). Each solution
      is one Item, in order, as soon as it is found (the host reads them lazily, one by one):
        syntax_error(E)        Chars is not a goal (the only item then);
        param_error(Name)      Params names a variable the goal has not (the only item);
        answer(a(Bindings, Text))
                               one answer, at most MaxAnswers of them: Bindings a list of
                               Name=Value, Value encoded (kk_enc/5, below), Text the answer as
                               a top level prints it, residual constraints included
                               (recovered with copy_term/3), in pieces (kk_answer_text/5);
                               with Mode bindings (not text), an answer whose bindings are
                               ground has Text [] (nothing of it is written: the host's
                               solvers need only the bindings);
        end(Status, State)     the last item: Status is complete, answer_limit (a further
                               answer exists), inference_limit, answer_too_large(Cap) (an
                               answer has more than Cap nodes), halted(Code), or
                               exception(Text, Value), Text the exception as Prolog writes it
                               (chars; its variables numbered, as in an answer's text) and
                               Value the exception term encoded (kk_exception_text/3); State is
                               state(Pieces), the engine's state after the goal as
                               kk_state_pieces/1 of host/state.pl gives it (text in pieces
                               that the host joins, to be replayed in a fresh engine,
                               kk_query_restore/2), when the goal may have changed it
                               (kk_may_change/1), none otherwise.
      The goal is never left with a choice point: after MaxAnswers + 1 answers, an exception,
      the inference limit or an answer too large, it is cut, and end/2 follows. Inferences
      counts the inferences from the start of the query to the item; Warnings are the
      loader's warnings noted since the item before (host_warnings.pl: Scryer would have
      written them to the process's standard output), each as chars. What the goal wrote to
      user_output is flushed with each item (the host reads it from its buffer then).

    kk_query_start, kk_query_restore(+Chars, -Lost) and kk_query_consult(+File, -Result)
    (below) set up an engine, give it the state of the one before, and consult a file.

    The encoding of a value makes its conversion by the Rust host linear in its size, and flat
    for any depth (Scryer's own conversion of a list prepends to a vector at each cell, and
    names each anonymous variable by sorting every name it knows): a list cell [H|T] is
    '$kk'(l, H, T), a variable '$kk'(v, Name) (named as in Text), a compound term whose name
    is '$kk' gets c as its first argument, anything else is itself.
*/

kk_host_stream(Text, Params, Limit, Max, Cap, Mode, Item, Inferences, Warnings) :-
    '$inference_count'(I0),
    kk_chars(Text, Chars),      % (whatever the flag double_quotes made of it)
    kk_chars(Params, PChars),
    kk_host_stream(Chars, PChars, Limit, Max, Cap, Mode, Item),
    '$inference_count'(I1),
    Inferences is I1 - I0,
    kk_take_warnings(Warnings),
    % (what the goal wrote so far reaches the host's buffer with the item)
    catch(flush_output(user_output), _, true).

kk_host_stream(Chars, PChars, Limit, Max, Cap, Mode, Item) :-
    catch(kk_read_goal(Chars, Goal0, VNs0), E, true),
    (   nonvar(E) -> Item = syntax_error(E)
    ;   var(Goal0) -> Item = syntax_error(goal_is_a_variable)
    ;   catch(( kk_read_goal(PChars, Ps, _), kk_params(Ps, Params, [], PVNs) ), E1, true),
        (   nonvar(E1) -> Item = syntax_error(E1)
        ;   % (parameters that do not unify with the goal's variables: the goal fails)
            (   kk_bind_params(Params, PVNs, VNs0, VNs, Unknown) -> Goal1 = Goal0
            ;   VNs = VNs0, Goal1 = fail
            ),
            (   nonvar(Unknown) -> Item = param_error(Unknown)
            ;   (   kk_may_change(Goal1) -> Changes = true ; Changes = false ),
                iso_ext:bb_put(kk_query_changes, Changes),
                kk_halts(Goal1, Goal),
                kk_stream(kk_qualified(Goal), VNs, Limit, Max, Cap, Mode, Item)
            )
        )
    ).

% kk_params(+Ps, -Params, +PVNs0, -PVNs): the parameters Ps (p(Name, Tokens), as the host
% sends them: src/prolog/term/param.rs) as Name=Value, each value built of its tokens in
% post-order (i(Integer), f(Float), r(N, D) a rational, a(Atom), s(Atom) its characters,
% v(Name) a variable, l(N) a list of the N terms before, c(Name, N) a compound term of them):
% the very term the host sent, whatever the operators (no token is read as one), at any
% depth. PVNs names the variables (Name=Var), one for each name.
kk_params([], [], PVNs, PVNs).
kk_params([p(N, Ts) | Ps], [N=V | Params], PVNs0, PVNs) :-
    kk_build(Ts, [], [V], PVNs0, PVNs1),
    kk_params(Ps, Params, PVNs1, PVNs).

kk_build([], S, S, VNs, VNs).
kk_build([T | Ts], S0, S, VNs0, VNs) :-
    kk_token(T, S0, S1, VNs0, VNs1),
    kk_build(Ts, S1, S, VNs1, VNs).

kk_token(i(I), S, [I | S], VNs, VNs) :- integer(I).
kk_token(f(X), S, [X | S], VNs, VNs) :- float(X).
kk_token(r(N, D), S, [R | S], VNs, VNs) :- R is N rdiv D.
kk_token(a(A), S, [A | S], VNs, VNs) :- atom(A).
kk_token(s(A), S, [Cs | S], VNs, VNs) :- atom_chars(A, Cs).
kk_token(v(N), S, [V | S], VNs0, VNs) :-
    (   lists:memberchk(N=V0, VNs0) -> V = V0, VNs = VNs0 ; VNs = [N=V | VNs0] ).
kk_token(l(K), S0, [L | S], VNs, VNs) :- kk_pop(K, S0, [], L, S).
kk_token(c(F, K), S0, [T | S], VNs, VNs) :-
    kk_pop(K, S0, [], Args, S),
    (   F == '.', Args = [H, Tl] -> T = [H | Tl] ; T =.. [F | Args] ).

% kk_pop(+K, +S0, +Acc, -Items, -S): the K terms on top of the stack S0, in the order they
% were pushed, and the stack below them.
kk_pop(K, S0, Acc, Items, S) :-
    (   K =:= 0 -> Items = Acc, S = S0
    ;   S0 = [X | S1], K1 is K - 1, kk_pop(K1, S1, [X | Acc], Items, S)
    ).

% kk_bind_params(+Params, +PVNs, +VNs0, -VNs, -Unknown): each Name=Value of Params binds the
% goal's variable Name (of VNs0) to Value, whose variables are the goal's of the same names
% (PVNs); VNs is VNs0 without the variables bound so (the answers do not show them). Unknown
% is the first name of Params that names no variable of the goal (unbound when there is none).
kk_bind_params(Params, PVNs, VNs0, VNs, Unknown) :-
    (   lists:member(N=_, Params), \+ lists:memberchk(N=_, VNs0)
    ->  Unknown = N, VNs = VNs0
    ;   lists:maplist(user:kk_param_var(VNs0), PVNs),
        lists:maplist(user:kk_bind_param(VNs0), Params),
        findall(N-V, ( lists:member(N=V, VNs0), \+ lists:memberchk(N=_, Params) ), Kept),
        kk_pairs_vns(Kept, VNs0, VNs)
    ).

kk_param_var(VNs, N=V) :- ( lists:memberchk(N=G, VNs) -> V = G ; true ).

kk_bind_param(VNs, N=V) :- lists:memberchk(N=G, VNs), G = V.

% (the variables themselves, not findall/3's copies)
kk_pairs_vns([], _, []).
kk_pairs_vns([N-_ | Ks], VNs0, [N=V | VNs]) :-
    lists:memberchk(N=V, VNs0),
    kk_pairs_vns(Ks, VNs0, VNs).

% kk_qualified(+Goal): calls Goal; a module qualification M:G whose M is bound but not an atom
% is a type error here (Scryer 0.10 panics on it).
kk_qualified(Goal) :-
    (   nonvar(Goal), Goal = M:_, nonvar(M), \+ atom(M)
    ->  throw(error(type_error(atom, M), (:)/2))
    ;   call(Goal)
    ).

% kk_stream(+Goal, +VNs, +Limit, +Max, +Cap, +Mode, -Item): each answer of Goal (at most Max)
% as it is found, then end(Status). How the enumeration stopped is kept in a global variable
% (it survives the backtracking into the last branch).
kk_stream(Goal, VNs, Limit, Max, Cap, Mode, Item) :-
    Max1 is Max + 1,
    iso_ext:bb_put(kk_stream_end, complete),
    (   kk_answers(Goal, VNs, Limit, Max1, Cap, Mode, Item)
    ;   iso_ext:bb_get(kk_stream_end, Status),
        kk_end_state(State),
        Item = end(Status, State)
    ).

% kk_answers(+Goal, +VNs, +Limit, +Max1, +Cap, +Mode, -Item): the items of Goal's answers.
% Asked for the next one, it first reads whether the host wants it (kk_stop_asked/0): when the
% host wants no more (its answers dropped before their end), Goal is cut there, and end/2
% follows (answer_limit), so that the query ends with no choice point left and the engine
% goes on.
kk_answers(Goal, VNs, Limit, Max1, Cap, Mode, Item) :-
    catch(kk_nth(Goal, VNs, Limit, Max1, Cap, Mode, A, R), E, R = exception(E)),
    kk_item(R, A, Item0),
    (   Item = Item0
    ;   kk_stop_asked,
        !,
        iso_ext:bb_put(kk_stream_end, answer_limit),
        fail
    ).

% kk_stop_asked: the host put kk_stop_char/1 in user_input before it asked for the next
% answer, not its character to go on. (user_input is a channel where the host puts nothing
% else: what a goal reads from it ends at once. Once a goal has read its end, Scryer's stream
% stays there, and the host can no longer ask: it then replaces the engine of a query left
% half-run.)
kk_stop_asked :-
    catch(get_char(user_input, C), _, fail),
    kk_stop_char(C).

kk_stop_char('\x18\').

kk_item(answer, A, answer(A)).
kk_item(answer_limit, _, _) :-
    iso_ext:bb_put(kk_stream_end, answer_limit),
    fail.
kk_item(inference_limit_exceeded, _, _) :-
    iso_ext:bb_put(kk_stream_end, inference_limit),
    fail.
kk_item(answer_too_large(Cap), _, _) :-
    iso_ext:bb_put(kk_stream_end, answer_too_large(Cap)),
    fail.
kk_item(exception(kk_halt(Code)), _, _) :-
    !,
    iso_ext:bb_put(kk_stream_end, halted(Code)),
    fail.
kk_item(exception(E), _, _) :-
    kk_exception_text(E, T, Enc),
    iso_ext:bb_put(kk_stream_end, exception(T, Enc)),
    fail.

% kk_exception_text(+E, -Text, -Enc): the exception E as writeq/1 writes it (chars), its
% variables numbered as the K-th variable of an answer's text without a name is (kk_written/5:
% the host names them _A, _B, ...), and E encoded, its variables the same numbers (term(Enc)),
% or none when E is cyclic or has more than a million nodes (written then with the engine's
% own names). No atom is made for a variable (Scryer 0.10 adds one in time that grows with its
% table of atoms): linear in the size of E.
kk_exception_text(E, T, Enc) :-
    (   catch(kk_enc(E, Enc0, 0, _, 1000000), kk_answer_too_large, fail)
    ->  term_variables(E, Vs),
        kk_printable(E, PE, [], PVNs),
        iso_ext:copy_term(PE-PVNs-Vs, CE-CVNs-CVs, _),
        kk_numbered_offset(Off),
        kk_number_fresh(CVs, Off),
        kk_text_numbered(CE, CVNs, T),
        iso_ext:copy_term(Enc0-Vs, Enc1-Vs1, _),
        kk_number_vars(Vs1, 0),
        Enc = term(Enc1)
    ;   kk_text(E, [], T),
        Enc = none
    ).

% kk_nth(+Goal, +VNs, +Limit, +Max1, +Cap, +Mode, -A, -R): the answers of Goal, R = answer and
% A the answer for each of the first Max1 - 1; the Max1-th is R = answer_limit. An exception,
% the inference limit or an answer of more than Cap nodes is the last solution (R says which).
kk_nth(Goal, VNs, Limit, Max1, Cap, Mode, A, R) :-
    iso_ext:call_nth(iso_ext:call_with_inference_limit(user:catch(Goal, E, true), Limit, R0), K),
    (   nonvar(E) -> R = exception(E), A = none, !
    ;   R0 == inference_limit_exceeded -> R = R0, A = none, !
    ;   K >= Max1 -> R = answer_limit, A = none, !
    ;   catch(kk_answer(Mode, VNs, Cap, A0), kk_answer_too_large, A0 = too_large),
        (   A0 == too_large -> R = answer_too_large(Cap), A = none, !
        ;   R = answer, A = A0
        )
    ).

% kk_answer(+Mode, +VNs, +Cap, -A): the answer a(Bindings, Text) of the query's variables VNs
% as they are bound now (Mode: kk_host_stream/7).
kk_answer(Mode, VNs, Cap, a(Bindings, Text)) :-
    kk_bindings(VNs, Bindings0),
    % the values encoded first: one too large (or cyclic) costs no text
    kk_enc_bindings(Bindings0, Bindings1, 0, Cap),
    (   Mode == bindings, ground(Bindings1)
    ->  Bindings = Bindings1, Text = []
    ;   kk_written(VNs, Bindings0, Bindings1, Bindings, Text)
    ).

% kk_written(+VNs, +Bindings0, +Bindings1, -Bindings, -Text): Text, the answer Bindings0 as a
% top level writes it, and Bindings, the encoded Bindings1 with their variables named as there.
kk_written(VNs, Bindings0, Bindings1, Bindings, Text) :-
    term_variables(VNs, Vs),
    iso_ext:copy_term(Vs, Vs, Gs),  % residual goals, over the query's own variables
    term_variables(Bindings0-Gs, All),
    lists:reverse(VNs, RVNs),     % X = Y is shown as X = Y: a variable takes its last name
    (   \+ ( lists:member(N=_, VNs), kk_numbered_name(N) )
    ->  % the variables without a name are numbered: naming each with an atom of its own
        % took quadratic time (Scryer 0.10 copies its table of atoms to add one: 127 s for
        % 400,000 new ones)
        kk_fresh_vars(All, VNs, Fresh),
        AllVNs = RVNs
    ;   % (a name of the query's looks like a numbered one: each variable gets an atom)
        kk_fresh_names(All, VNs, 0, Names),
        Fresh = [],
        lists:append(RVNs, Names, AllVNs)
    ),
    kk_answer_text(Bindings0, Gs, AllVNs, Fresh, Text),
    % the encoded values' variables named as in Text (attributes dropped; the copy is of the
    % encoded values, which hold no partial string for Scryer 0.10 to garble): by their names,
    % or by their numbers, which the host turns into names as it turns those of Text
    kk_var_vns(AllVNs, VarVNs),
    iso_ext:copy_term(Bindings1-VarVNs-Fresh, Bindings-VarVNs1-Fresh1, _),
    kk_name_vars(VarVNs1),
    kk_number_vars(Fresh1, 0).

% kk_fresh_vars(+Vars, +VNs, -Fresh): the variables of Vars without a name in VNs, in order.
kk_fresh_vars([], _, []).
kk_fresh_vars([V | Vs], VNs, Fresh) :-
    (   lists:member(_=W, VNs), W == V -> Fresh = Fresh1 ; Fresh = [V | Fresh1] ),
    kk_fresh_vars(Vs, VNs, Fresh1).

kk_number_vars([], _).
kk_number_vars([K | Ks], K) :-
    K1 is K + 1,
    kk_number_vars(Ks, K1).

% The K-th variable without a name is written as '$VAR'(K + kk_numbered_offset) is (numbervars:
% a capital letter and a number of 13 digits starting with 1), which the host writes as the
% name kk_fresh_name/2 gives it (_A, _B, ... _Z, _A1, ...).
kk_numbered_offset(26000000000000).

% kk_numbered_name(+N): N is a name as '$VAR'(K + kk_numbered_offset) is written.
kk_numbered_name(N) :-
    atom_length(N, 14),
    sub_atom(N, 1, 1, _, '1').

kk_enc_bindings([], [], _, _).
kk_enc_bindings([N=V | Bs], [N=E | Es], K0, Cap) :-
    kk_enc(V, E, K0, K, Cap),
    kk_enc_bindings(Bs, Es, K, Cap).

% kk_var_vns(+VNs, -VarVNs): the Name=Var of VNs whose Var is a variable.
kk_var_vns([], []).
kk_var_vns([N=V | VNs], Vs) :-
    (   var(V) -> Vs = [N=V | Vs1] ; Vs = Vs1 ),
    kk_var_vns(VNs, Vs1).

% kk_name_vars(+VNs): binds the variables of VNs (Name=Var) to their names (a variable with
% several names takes the first).
kk_name_vars([]).
kk_name_vars([N=V | VNs]) :-
    (   var(V) -> V = N ; true ),
    kk_name_vars(VNs).

% kk_enc(+T, -E, +N0, -N, +Cap): E is T encoded (see the head of this file), N - N0 the nodes of
% T (atomic terms, variables, compound terms, list cells); kk_answer_too_large is thrown past
% Cap nodes, for a compound term nested more than a million levels deep (not counting list
% tails), and for a cyclic term (a cyclic list at once, another a thousand levels deep:
% kk_no_cycle/1). (Not acyclic_term/1 of T itself: in Scryer 0.10 it garbles a partial
% string inside a compound term, "ab" in f("ab").) Last call over list tails and last
% arguments: the engine's own stacks hold the rest, at any depth.
kk_enc(T, E, N0, N, Cap) :-
    kk_enc(T, E, N0, N, Cap, 0).

kk_enc(T, E, N0, N, Cap, D) :-
    (   var(T) -> kk_count(N0, N, Cap), E = '$kk'(v, T)
    ;   T = [_ | _]
    ->  '$skip_max_list'(_, _, T, Rest),
        (   nonvar(Rest), Rest = [_ | _] -> throw(kk_answer_too_large) ; true ),    % cyclic
        kk_enc_list(T, E, N0, N, Cap, D)
    ;   atomic(T) -> kk_count(N0, N, Cap), E = T
    ;   D1 is D + 1,
        (   D1 > 1000000 -> throw(kk_answer_too_large)
        ;   D1 =:= 1000 -> kk_no_cycle(T)
        ;   true
        ),
        kk_count(N0, N1, Cap),
        functor(T, F, Ar),
        (   F == '$kk'
        ->  Ar1 is Ar + 1, functor(E, F, Ar1), arg(1, E, c), Off = 1
        ;   functor(E, F, Ar), Off = 0
        ),
        kk_enc_args(1, Ar, Off, T, E, N1, N, Cap, D1)
    ).

% kk_no_cycle(+T): T, a term met a thousand levels deep, is acyclic; a cyclic one is refused
% there (it took 7 s to walk X = f(X) a million levels deep). (acyclic_term/1 of a copy:
% Scryer 0.10's garbles a partial string, "ab" in f("ab"), of the term it is asked of.)
kk_no_cycle(T) :-
    (   copy_term(T, C), acyclic_term(C) -> true ; throw(kk_answer_too_large) ).

kk_count(N0, N, Cap) :-
    N is N0 + 1,
    (   N > Cap -> throw(kk_answer_too_large) ; true ).

kk_enc_list(T, E, N0, N, Cap, D) :-
    (   nonvar(T), T = [H | Tl]
    ->  kk_count(N0, N1, Cap),
        E = '$kk'(l, EH, ET),
        kk_enc(H, EH, N1, N2, Cap, D),
        kk_enc_list(Tl, ET, N2, N, Cap, D)
    ;   kk_enc(T, E, N0, N, Cap, D)
    ).

kk_enc_args(I, Ar, Off, T, E, N0, N, Cap, D) :-
    (   I > Ar -> N = N0
    ;   arg(I, T, X), J is I + Off, arg(J, E, Y),
        kk_enc(X, Y, N0, N1, Cap, D),
        I1 is I + 1,
        kk_enc_args(I1, Ar, Off, T, E, N1, N, Cap, D)
    ).

% kk_answer_text(+Bindings, +Gs, +VNs, +Fresh, -Text): the answer as a top level writes it,
% the variables named by VNs or numbered in the order of Fresh, as text(Pieces, Numbered):
% Pieces a chain '$kk'(l, Piece, Pieces) ending in [], each Piece Name=Chars (a binding,
% "Name = Value") or g(Chars) (a residual goal); the host joins them (",\n"; none is "true"),
% and names the numbered variables when Numbered is numbered(Taken) (Fresh is not []; Taken
% the query's names those names must not be: kk_fresh_looking/1), false else. Built in time
% linear in the answer's size: each piece is written once, never appended to (Scryer's
% conversion of a list's cells into Rust takes quadratic time), and the chain is a nest of
% compound terms (whose conversion is linear).
kk_answer_text(Bindings, Gs, VNs, Fresh, text(Pieces, Numbered)) :-
    % (not findall/3: it would copy the variables and lose their names)
    lists:maplist(user:kk_binding_item, Bindings, BindingItems),
    lists:maplist(user:kk_goal_item, Gs, GoalItems),
    lists:append(BindingItems, GoalItems, Items),
    kk_var_vns(VNs, VarVNs),        % (the names of bound variables are not written)
    kk_printable(Items, PItems, VarVNs, PVNs),
    % (a copy without attributes, whose fresh variables can be bound to their numbers; the
    % printable items hold no partial string for copy_term/3 to garble)
    iso_ext:copy_term(PItems-PVNs-Fresh, CItems-CVNs-CFresh, _),
    kk_numbered_offset(Off),
    kk_number_fresh(CFresh, Off),
    (   Fresh == [] -> Numbered = false
    ;   findall(N, ( lists:member(N=_, VNs), kk_fresh_looking(N) ), Taken),
        Numbered = numbered(Taken)
    ),
    kk_text_pieces(CItems, CVNs, Pieces).

% kk_fresh_looking(+N): N is a name of the sequence _A, ..., _Z, _A1, ... (kk_fresh_name/2),
% which the host leaves out when it names the numbered variables (FreshNames in
% src/prolog/term/mod.rs): a variable of the query never shares its name with another.
kk_fresh_looking(N) :-
    atom_chars(N, ['_', C | Ds]),
    char_code(C, K), K >= 0'A, K =< 0'Z,
    (   Ds == [] -> true
    ;   Ds = [D | _], D \== '0', kk_digits(Ds)
    ).

kk_digits([]).
kk_digits([D | Ds]) :- char_code(D, K), K >= 0'0, K =< 0'9, kk_digits(Ds).

kk_number_fresh([], _).
kk_number_fresh(['$VAR'(K) | Vs], K) :-
    K1 is K + 1,
    kk_number_fresh(Vs, K1).

kk_text_pieces([], _, []).
kk_text_pieces([I | Is], VNs, '$kk'(l, P, Ps)) :-
    kk_item_text(VNs, I, P),
    kk_text_pieces(Is, VNs, Ps).

kk_item_text(VNs, binding(N, V), N=T) :- kk_text_numbered(V, VNs, T).
kk_item_text(VNs, goal(G), g(T)) :- kk_text_numbered(G, VNs, T).

% kk_text_numbered(+Term, +VNs, -Chars): kk_text/3, '$VAR'(K) written as numbervars/3 names.
kk_text_numbered(Term, VNs, Chars) :-
    '$write_term_to_chars'(Chars, Term, false, true, true, VNs, 0, false).

% kk_text(+Term, +VNs, -Chars): write_term_to_chars(Term, [quoted(true), variable_names(VNs)],
% Chars) of library(charsio), without its search of VNs for each variable of Term (quadratic:
% 16 s for a list of 10,000 variables); a variable without a name in VNs is written _G123.
kk_text(Term, VNs, Chars) :-
    '$write_term_to_chars'(Chars, Term, false, false, true, VNs, 0, false).

/*  kk_printable(+T, -P, +VNs, -PVNs): P is T with each one-character atom that is an element
    of a list replaced by a variable named (in PVNs, which extends VNs) as that atom is written
    there, and each '$VAR'(N) (N a natural number) by '$VAR'(V), V named N: P is written as T
    is, in linear time, numbervars or not, and holds no partial string. (Scryer 0.10's writer walks, at each cell of a
    list of characters, the characters left in it: a list of 50,000 one-character atoms took
    20 s to write, and ten times as many, hours.) One variable stands for each character; the
    variables of T are P's. T is acyclic (it was encoded first: kk_enc/5). Last call over list
    tails and last arguments: any depth.
*/
kk_printable(T, P, VNs, PVNs) :-
    kk_pr(T, P, Pairs, []),
    keysort(Pairs, Sorted),
    kk_char_names(Sorted, CharVNs),
    lists:append(VNs, CharVNs, PVNs).

kk_pr(T, P, Ps0, Ps) :-
    (   var(T) -> P = T, Ps0 = Ps
    ;   T = [_ | _] -> kk_pr_list(T, P, none, Ps0, Ps)
    ;   atomic(T) -> P = T, Ps0 = Ps
    ;   T = '$VAR'(N), integer(N), N >= 0
    ->  % (written as it is where '$VAR'(K) are numbered variables: kk_text_numbered/3)
        P = '$VAR'(V), Ps0 = [n(N)-V | Ps]
    ;   functor(T, F, Ar),
        functor(P, F, Ar),
        kk_pr_args(1, Ar, T, P, Ps0, Ps)
    ).

% (Last: c(Char, Var) of the cell before, when its element was a character, so that a run of
% one character costs one pair)
kk_pr_list(T, P, Last, Ps0, Ps) :-
    (   nonvar(T), T = [H | Tl]
    ->  (   atom(H), atom_length(H, 1)
        ->  (   Last = c(C, V), C == H -> Ps0 = Ps1
            ;   Ps0 = [H-V | Ps1]
            ),
            P = [V | PT],
            kk_pr_list(Tl, PT, c(H, V), Ps1, Ps)
        ;   P = [PH | PT],
            kk_pr(H, PH, Ps0, Ps1),
            kk_pr_list(Tl, PT, none, Ps1, Ps)
        )
    ;   kk_pr(T, P, Ps0, Ps)
    ).

kk_pr_args(I, Ar, T, P, Ps0, Ps) :-
    (   I > Ar -> Ps0 = Ps
    ;   arg(I, T, X), arg(I, P, Y),
        kk_pr(X, Y, Ps0, Ps1),
        I1 is I + 1,
        kk_pr_args(I1, Ar, T, P, Ps1, Ps)
    ).

% kk_char_names(+Sorted, -VNs): one variable for each key of Sorted (C-V pairs, sorted),
% named as the character C is written as an element of a list, or as the number N of n(N).
kk_char_names([], []).
kk_char_names([C-V | Ps], [Name=V | VNs]) :-
    (   C = n(N) -> number_chars(N, Cs)
    ;   kk_text([C], [], Written),
        Written = [_ | Cs0],
        lists:append(Cs, [_], Cs0)
    ),
    atom_chars(Name, Cs),
    kk_same_char(Ps, C, V, Rest),
    kk_char_names(Rest, VNs).

kk_same_char([], _, _, []).
kk_same_char([C1-V1 | Ps], C, V, Rest) :-
    (   C1 == C -> V1 = V, kk_same_char(Ps, C, V, Rest)
    ;   Rest = [C1-V1 | Ps]
    ).

/*  The state an engine keeps for the one that replaces it (after a timeout, a crash, a query
    left half-run): the top level's record and replay (kk_state/1, kk_restore/8 of host.pl),
    taken after a goal that may have changed it.
*/

% kk_query_start: what an engine that answers the host's queries does once loaded: the host's
% own predicates noted (kk_note_host_predicates/0), and its flags and operators, so that
% kk_state/1 keeps those the user changed (as kk_top_start/1 does for the top level).
kk_query_start :-
    kk_note_host_predicates,
    findall(F-V, current_prolog_flag(F, V), Flags),
    iso_ext:bb_put(kk_flags0, Flags),
    findall(op(P, T, N), current_op(P, T, N), Ops),
    iso_ext:bb_put(kk_ops0, Ops).

% kk_end_state(-State): state(Pieces) (kk_state_pieces/1) after a goal that may have changed
% the state, none after any other. The names of the user's own predicates are noted then
% (kk_may_change/1).
kk_end_state(State) :-
    (   iso_ext:bb_get(kk_query_changes, true),
        catch(kk_state_pieces(Pieces), _, fail)
    ->  State = state(Pieces),
        kk_note_code_names
    ;   State = none
    ),
    iso_ext:bb_put(kk_query_changes, false).

% kk_may_change(+Goal): Goal may change what kk_state/1 records. It does when it consults (a
% list as a goal), or names anywhere in it (as a goal, or as data: maplist(assertz, Cs)) a
% predicate that changes the state, one that makes names at run time or fetches a goal kept
% elsewhere (the goal it calls is not in its text), or a predicate of the user's own code
% (kk_note_code_names/0), which may do any of these. Linear in the size of Goal, never
% recursive on its depth.
kk_may_change(G) :-
    (   iso_ext:bb_get(kk_code_names, Ns) -> true ; Ns = [] ),
    (   kk_consults(G) -> true
    ;   kk_names_change([G], Ns)
    ).

kk_consults(G) :-
    nonvar(G),
    (   G = [_ | _] -> true
    ;   kk_control(G, As), lists:member(A, As), kk_consults(A)
    ).

kk_names_change([T | Ts], Ns) :-
    (   var(T) -> kk_names_change(Ts, Ns)
    ;   compound(T)
    ->  functor(T, N, _),
        (   kk_changing(N, Ns) -> true
        ;   T =.. [_ | As],
            lists:append(As, Ts, Ts1),
            kk_names_change(Ts1, Ns)
        )
    ;   atom(T), kk_changing(T, Ns) -> true
    ;   kk_names_change(Ts, Ns)
    ).

kk_changing(N, Ns) :-
    (   kk_changing_name(N) -> true ; lists:memberchk(N, Ns) ).

kk_changing_name(N) :-
    lists:memberchk(N, [assert, asserta, assertz, retract, retractall, abolish, consult, load_files,
                  ensure_loaded, use_module, op, set_prolog_flag, char_conversion, bb_put,
                  dynamic, discontiguous, multifile, make, kk_query_consult, kk_query_restore,
                  % (a goal made or fetched at run time)
                  atom_codes, atom_chars, atom_concat, char_code, sub_atom, atomic_list_concat,
                  read, read_term, read_term_from_chars, read_from_chars, term_to_atom,
                  atom_to_term, clause, bb_get, b_getval, nb_getval]).

% kk_note_code_names: the names of the predicates of user that the user's code may hold,
% kept for kk_may_change/1: once a file is consulted, every predicate of user (the file may
% define any); before, the dynamic ones (asserted).
kk_note_code_names :-
    (   iso_ext:bb_get(kk_files, [_ | _])
    ->  findall(N, current_predicate(user:N/_), Ns0)
    ;   findall(N, ( current_predicate(user:N/A),
                     functor(H, N, A),
                     predicate_property(user:H, dynamic) ),
                Ns0)
    ),
    sort(Ns0, Ns),
    iso_ext:bb_put(kk_code_names, Ns).

% kk_query_restore(+Text, -Lost): gives this (fresh) engine the state Text that kk_state/1
% took in the engine before it, with kk_restore/8; its files are consulted one by one
% (kk_query_consult/2) between the modules and operators and the clauses, so that one that no
% longer loads is told. Lost is what could not be given back: global(Key, Why) for a
% bb_put/2 value kk_state/1 could not keep (Why: cyclic, 'not ground', 'too big'),
% predicate(Name, Why) for a predicate whose clauses it could not read (Name: its indicator
% as writeq/1 writes it), and file(File, Why) for
% a file (Why a result of kk_query_consult/2).
kk_query_restore(Text, Lost) :-
    kk_chars(Text, Chars),
    kk_read_goal(Chars, kk_restore(Setup, Ops, FileFlags, Dyn, Flags, Globals, Lost0, Broken), _),
    kk_restore(Setup, Ops, [], [], [], [], [], Broken),
    kk_restore_files(FileFlags, LostFiles),
    kk_restore(Setup, [], [], Dyn, Flags, Globals, [], Broken),
    findall(L, ( lists:member(K-Why, Lost0), kk_lost(K, Why, L) ), LostState),
    lists:append(LostState, LostFiles, Lost),
    kk_note_code_names.

kk_lost(predicate(PI), Why, predicate(Name, Why)) :-
    !,
    kk_text(PI, [], Cs),
    atom_chars(Name, Cs).
kk_lost(K, Why, global(K, Why)).

kk_restore_files([], []).
kk_restore_files([F-Flags | FFs], Lost) :-
    lists:maplist(user:kk_restore_flag, Flags),
    kk_query_consult(F, R),
    (   R == true -> Lost = Lost1 ; Lost = [file(F, R) | Lost1] ),
    kk_restore_files(FFs, Lost1).

% kk_query_consult(+F, -R): consults the file F (an atom, or its name as text) as
% kk_consult_one/1 of host.pl does (it is remembered for make/0 and the replay, even when it
% does not load), R saying how it went: true; no_such_file; syntax_error(Line, Message) (Line
% 0 where the loader does not say); not_loaded(Text) (another error, as Prolog writes it);
% halt(Code).
kk_query_consult(F0, R) :-
    (   atom(F0) -> F = F0 ; kk_chars(F0, Cs), atom_chars(F, Cs) ),
    kk_all_libraries,
    kk_loader_throws,
    catch(( kk_loading(consult(F)) -> R0 = true ; R0 = false ), E, R0 = error(E)),
    kk_consulted(R0, F, R).

kk_consulted(true, F, true) :- kk_remember(F), kk_broken(F, false).
kk_consulted(false, F, not_loaded("the loader failed")) :- kk_remember(F), kk_broken(F, true).
kk_consulted(error(E), F, R) :-
    (   E = error(existence_error(source_sink, _), _) -> R = no_such_file
    ;   kk_unopened(E) -> kk_text(E, [], T), R = not_loaded(T)
    ;   kk_remember(F),
        (   E = kk_halt(C) -> kk_broken(F, false) ; kk_broken(F, true) ),
        (   E = kk_halt(C) -> R = halt(C)
        ;   E = error(syntax_error(S), _:L), integer(L) -> kk_text(S, [], T), R = syntax_error(L, T)
        ;   E = error(syntax_error(S), _) -> kk_text(S, [], T), R = syntax_error(0, T)
        ;   kk_text(E, [], T), R = not_loaded(T)
        )
    ).
