/*  host_expand.pl -- the load-time rewriting of the files a person consults (not part of the
    homework contract), loaded after prolog/host/ (whose predicates it calls) by the engines that
    answer a person's goals: the top level and the query engines (src/prolog/start.rs).

    The clauses and directives of a file consulted in the session (kk_loading/1: bb
    kk_loading), in user or in a module of that file, are rewritten once, as they are loaded,
    as rewrite.pl's kk_clause_rewrite/3 says (halt/0,1, bb_put/2, read/1,2 and read_term/2,3,
    use_module/1,2, code that reads). This is a term expansion, not a goal expansion: Scryer
    runs user:goal_expansion/2 at run time too, on every meta-call, and with the host's
    rewriting there kenken/3 took twice the time at the top level (issue 45); a term
    expansion runs only while a file loads. (The loader expands what this gives again: it
    fails once there is nothing left to rewrite.)
*/

% A clause of a consulted file that would replace one of the host's own predicates (kk_...,
% noted when the engine started: kk_note_host_predicates/0) is left out, and the load ends
% with the error Scryer gives for a clause of a builtin: permission_error(modify,
% static_procedure, PI) (thrown by an initialization/1 goal, once the rest of the file is
% loaded: Scryer's loader writes an error thrown here and loads the clause as it is). The
% host's Prolog lives in user, where a consulted file's clauses replace those of the same
% name: its goals would run the user's code instead.
term_expansion(T, (:- initialization(throw(E)))) :-
    iso_ext:bb_get(kk_loading, true),
    nonvar(T),
    prolog_load_context(module, user),
    kk_defined(T, PI),
    iso_ext:bb_get(kk_host_predicates, PIs),
    lists:memberchk(PI, PIs),
    E = error(permission_error(modify, static_procedure, PI), load/1).
% A directive halt/0,1 of a consulted file (Scryer 0.10 refuses it: domain_error(directive,
% halt/1)) becomes an initialization/1 goal, which ends the load as halt/0,1 does (kk_halt_/1)
% once the file's clauses are loaded: the top level ends the session with its code, a query's
% consult ends as ConsultError::Halted.
term_expansion((:- G), (:- initialization(H))) :-
    nonvar(G),
    (   G == halt -> H = throw(kk_halt(0)) ; G = halt(C), H = user:kk_halt_(C) ),
    iso_ext:bb_get(kk_loading, true).
% (no cut: a term this leaves is for the other clauses, library(atts)'s for :- attribute ...)
term_expansion(T0, T) :-
    iso_ext:bb_get(kk_loading, true),
    nonvar(T0),
    (   T0 = (_ :- _) -> true ; T0 = (:- _) ),
    prolog_load_context(module, M),
    kk_clause_rewrite(M, T0, T),
    T \== T0.

% kk_defined(+T, -PI): the predicate the clause or grammar rule T of user defines.
kk_defined(T, N/A) :-
    (   T = (H0 :- _) -> Extra = 0
    ;   T = (H0 --> _) -> Extra = 2
    ;   T = (:- _) -> fail
    ;   H0 = T, Extra = 0
    ),
    (   nonvar(H0), H0 = user:H -> true ; H = H0 ),
    callable(H),
    functor(H, N, A0),
    A is A0 + Extra.
