/*  host_expand.pl -- the goal expansions of the host's Prolog side (not part of the homework
    contract), loaded after host.pl (whose predicates they call) by the engines that answer
    a person's goals: the top level and the query engines (src/prolog/start.rs). The engines
    that only solve puzzles do not load them: Scryer runs user:goal_expansion/2 at run time
    too, on every meta-call it cannot make directly, and with these clauses there kenken/3
    took 3 % more instructions on Keen 8x8 puzzles (and 48 % more under the host's earlier
    query wrapper).
*/

% The files consulted after this one (and the goals typed) are expanded: the keys bb_put/2 sets are recorded too (kk_state/1); read/1,2 and read_term/2,3
% give end_of_file at the end of the input (kk_read_term/3); and a consulted clause that reads
% the input marks the session's code as reading (kk_code_reads, kk_reader_start/0), so that a
% goal calling it reads through the relay whatever it names (user: the clauses of a module
% file are expanded too); use_module/1,2 in a clause of user
% (not a directive, nor a module's clause) is recorded when it runs, so that the module is
% imported again in a fresh engine (kk_state/1). (Clauses asserted or typed after [user] get
% the same from kk_clause_reads/2.)
goal_expansion(G, _) :-
    bb_get(kk_loading, true),
    kk_input_goal(G),
    bb_put(kk_code_reads, true),
    fail.
goal_expansion(bb_put(K, V), user:kk_bb_put(K, V)).
% (halt/0,1 in the code of a consulted file, its directives and initialization/1 goals: the
% top level ends the session with its code, as kk_halts/2 does for the goals typed, and a
% query ends with End::Halted; the engine's own halt would stop the embedded machine.)
goal_expansion(halt, user:throw(kk_halt(0))).
goal_expansion(halt(C), user:kk_halt_(C)).
goal_expansion(G, user:kk_recorded(G)) :-
    kk_import_goal(G),
    bb_get(kk_loading, true),
    \+ bb_get(kk_recording, true),
    prolog_load_context(module, user).
goal_expansion(G0, user:G) :-
    kk_read_goal(G0, G),
    G \== G0.

% A directive halt/0,1 of a consulted file (Scryer 0.10 refuses it: domain_error(directive,
% halt/1)) becomes an initialization/1 goal, which ends the load as halt/0,1 does (kk_halt,
% above) once the file's clauses are loaded.
term_expansion((:- G), (:- initialization(H))) :-
    nonvar(G),
    (   G == halt -> H = throw(kk_halt(0)) ; G = halt(C), H = kk_halt_(C) ),
    bb_get(kk_loading, true).
