/*  host/commands.pl -- the Rust host's Prolog side (prolog/host/, loaded in order as one text:
    HOST_PL in src/prolog/mod.rs), continued: the top level's own commands: make/0, listing/1,
    statistics/0,2, time/1, help/0, and the names the repl completes.
*/

% ---------------------------------------------------------------------------
% make/0

%% make: consults again every file consulted in this session that changed since it was
%  loaded (or did not load), saying which; or says that none did.
make :-
    kk_files(Files),
    (   Files == []
    ->  write('% make: no file was consulted in this session'), nl
    ;   lists:foldl(user:kk_make_one, Files, 0, N),
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

% kk_unchanged(+F): F loaded, and its text is the one it had then (the copy last loaded of it:
% kk_keep_copy/2; or the text noted by kk_remember/1).
kk_unchanged(F) :-
    \+ ( iso_ext:bb_get(kk_broken_files, Bs), lists:memberchk(F, Bs) ),
    (   iso_ext:bb_get(kk_log, Log)
    ->  lists:memberchk(c(F, Name, _, _, _), Log),
        kk_last_copy(Log, Name, Copy),
        kk_file_text(Copy, Cs0),
        kk_file_text(Name, Cs)
    ;   iso_ext:bb_get(kk_file_texts, Ts),
        lists:memberchk(F-Cs0, Ts),
        kk_file_text(F, Cs)
    ),
    Cs == Cs0.

% kk_last_copy(+Log, +Name, -Copy): the copy of the file Name its last consult loaded.
kk_last_copy(Log, Name, Copy) :-
    lists:reverse(Log, RLog),
    lists:memberchk(c(_, Name, Copy, _, _), RLog).

% kk_note(+Key, +F, +V): the list of File-Value pairs that bb_get(Key, _) gives holds F-V.
kk_note(Key, F, V) :-
    (   iso_ext:bb_get(Key, Ps0) -> true ; Ps0 = [] ),
    (   lists:select(F-_, Ps0, Ps1) -> true ; Ps1 = Ps0 ),
    iso_ext:bb_put(Key, [F-V | Ps1]).

% kk_file_clauses(+F, -PITs): the clauses and grammar rules of the file F names, as read, each
% N/A-Term (a term that does not read is left out).
kk_file_clauses(F, PITs) :-
    kk_source_name(F, Name),
    (   catch(iso_ext:setup_call_cleanup(open(Name, read, S),
                                       user:kk_read_items(S, skip, Items), close(S)),
              _, fail)
    ->  findall(PI-T, lists:member(clause(PI, T), Items), PITs)
    ;   PITs = []
    ).

% ---------------------------------------------------------------------------
% listing/1

%% listing(+Spec): the clauses of the predicates Spec names (Name/Arity, Name//Arity or Name,
%  every arity), written as portray_clause/1 writes them: a dynamic predicate's as they are now
%  (after its dynamic/1 declaration), a predicate of a file consulted in this session (static:
%  Scryer's own listing/1 refuses it) as the engine has them, from the text of the file's
%  consult that defined it last, as Scryer loaded it (kk_note_clauses/2: clauses that came
%  apart replaced, what a syntax error stopped left out; a grammar rule translated), as
%  SWI-Prolog lists them. (kk_listing/1, made listing/1 as statistics/2 is.)
kk_listing(Spec) :-
    kk_need_library(format),
    kk_listing_pis(Spec, PIs),
    (   PIs == [] -> throw(error(existence_error(procedure, Spec), listing/1)) ; true ),
    lists:maplist(user:kk_list_pi, PIs).

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
    ;   kk_file_pi_clauses(PI, _),
        current_predicate(user:PI)
    ).

% kk_file_pi_clauses(?PI, -Ts): Ts are the clauses of PI as the engine has them from a file
% consulted in the session (kk_owner/2; or, consulted by kk_remember/1, every file's).
kk_file_pi_clauses(PI, Ts) :-
    (   iso_ext:bb_get(kk_copy_clauses, CPs)
    ->  findall(PI0, ( lists:member(_-PITs, CPs), lists:member(PI0-_, PITs) ), PIs0),
        sort(PIs0, PIs),
        lists:member(PI, PIs),
        kk_owner(PI, Copy),
        lists:memberchk(Copy-PITs, CPs),
        lists:memberchk(PI-Ts, PITs)
    ;   iso_ext:bb_get(kk_file_clauses, FPs)
    ->  findall(PI0, ( lists:member(_-PITs, FPs), lists:member(PI0-_, PITs) ), PIs0),
        sort(PIs0, PIs),
        lists:member(PI, PIs),
        findall(T, ( lists:member(_-PITs, FPs), lists:member(PI-T, PITs) ), Ts)
    ).

kk_hidden(PI) :- lists:memberchk(PI, ['$kk_goal'/1, time/1, statistics/2, listing/1]).

kk_list_pi(N/A) :-
    functor(H, N, A),
    (   \+ kk_hidden(N/A), catch(predicate_property(user:H, dynamic), _, fail)
    ->  write(':- dynamic('), writeq(N/A), write(').'), nl, nl,
        iso_ext:forall(user:clause(H, B), user:kk_portray((H :- B))),
        nl
    ;   kk_file_pi_clauses(N/A, Ts),
        Ts \== [],
        current_predicate(user:N/A)
    ->  lists:maplist(user:kk_portray, Ts),
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
    format:portray_clause(T).

% kk_file_text(+F, -Cs): the text of the file F names (kk_source_name/2), [] if none.
kk_file_text(F, Cs) :-
    kk_source_name(F, Name),
    (   catch(iso_ext:setup_call_cleanup(open(Name, read, S), user:kk_rest_chars(S, Cs0),
                                       close(S)), _, fail)
    ->  Cs = Cs0
    ;   Cs = []
    ).

% ---------------------------------------------------------------------------
% statistics/0,2 and the clocks

%% statistics/0, statistics/2 (kk_statistics0/0, kk_statistics2/2, which the top level
%  makes statistics/0,2: src/prolog/toplevel/): as in GNU Prolog and SWI-Prolog. statistics(K, [Total, Since])
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
    error:must_be(atom, Key),
    throw(error(domain_error(statistics_key, Key), statistics/2)).

kk_statistics_key(K) :-
    lists:member(K, [runtime, cpu_time, process_cputime, real_time, walltime, inferences]).

kk_statistics(inferences, I) :-
    !,
    '$inference_count'(I0),
    (   iso_ext:bb_get(kk_inference_offset, O) -> true ; O = 0 ),
    I is I0 + O.
kk_statistics(Key, [T, D]) :-
    kk_clock(Key, Clock),
    kk_clock_ms(Clock, T),
    atom_concat(kk_statistics_last_, Key, Last),
    (   iso_ext:bb_get(Last, T0) -> true ; T0 = 0 ),
    iso_ext:bb_put(Last, T),
    D is T - T0.

kk_clock(runtime, cpu).
kk_clock(cpu_time, cpu).
kk_clock(process_cputime, cpu).
kk_clock(real_time, wall).
kk_clock(walltime, wall).

kk_clock_ms(cpu, T) :-
    '$cpu_now'(S),
    (   iso_ext:bb_get(kk_cpu_offset, O) -> true ; O = 0 ),
    T is truncate(S * 1000) + O.

kk_clock_ms(wall, T) :- kk_wall_ms(T).

% kk_clock_offsets(+CpuMs, +Inferences): the session's runtime and inferences go on from
% CpuMs and Inferences (where the engine before this one left them, or 0): what the engine
% took to load is not counted.
kk_clock_offsets(C, I) :-
    '$cpu_now'(S),
    O is C - truncate(S * 1000),
    iso_ext:bb_put(kk_cpu_offset, O),
    '$inference_count'(I0),
    IO is I - I0,
    iso_ext:bb_put(kk_inference_offset, IO).

% kk_clocks(-CpuOffset, -Inferences): for the host, to start the next engine's clocks.
kk_clocks(O, I) :-
    (   iso_ext:bb_get(kk_cpu_offset, O) -> true ; O = 0 ),
    kk_statistics(inferences, I).

% kk_wall_ms(-T): milliseconds since the session started (the host tells). Scryer has no wall clock with less
% than a second's precision: the host gives it, as the answer to a request written to
% user_output (see kk_fresh_line) and read from user_input's channel; where no host answers,
% the CPU time stands in.
kk_wall_ms(T) :-
    (   iso_ext:bb_get(kk_clock_stream, S)
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
    iso_ext:forall(user:kk_statistics_key(K), user:kk_statistics_line(K)).

kk_statistics_line(K) :-
    kk_statistics2(K, V),
    write('% '), write(K), write(': '),
    (   V = [T, D] -> write(T), write(' ms ('), write(D), write(' ms since the last call)')
    ;   write(V)
    ),
    nl.

% ---------------------------------------------------------------------------
% time/1

%% time(:Goal) (kk_time/1, made time/1 as statistics/2 is): calls Goal, then writes the CPU time and the inferences it took on a line of
%  its own (library(time)'s time/1 indents it, or the line after it, by three spaces).
:- meta_predicate(kk_time(0)).
kk_time(Goal) :-
    '$cpu_now'(T0), '$inference_count'(I0),
    (   iso_ext:call_cleanup(user:catch(Goal, E, true), Det = true),
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
%?- kk_write_seconds(1234).
%@ 1.234
%@ true.
kk_write_seconds(Ms) :-
    S is Ms // 1000,
    F is Ms mod 1000,
    write(S), write('.'),
    (   F < 10 -> write('00') ; F < 100 -> write('0') ; true ),
    write(F).

% ---------------------------------------------------------------------------
% Names and help

% kk_user_names(-Cs): the names of the predicates user sees (its own and those it imports; not
% the host's, kk_... and $...), each followed by a space: what the repl completes a name with.
kk_user_names(Cs) :-
    findall(N, ( current_predicate(user:N/_), atom(N),
                 \+ atom_concat(kk_, _, N), \+ atom_concat($, _, N) ),
            Ns0),
    sort(Ns0, Ns),
    lists:foldl(user:kk_name_chars, Ns, Cs, []).

kk_name_chars(N, Cs0, Cs) :-
    atom_chars(N, Ns),
    lists:append(Ns, [' ' | Cs], Cs0).

%% help: the top level's commands.
help :-
    lists:maplist(user:kk_help_line, [
        "Goals end with a full stop (they may span lines).",
        "After an answer: ; or space for the next one, a for all the rest, Enter or . to stop.",
        "  consult(File). or [File].  load a Prolog file (again: reload it)",
        "  make.                      consult again the files changed since they were loaded",
        "  help.                      this text",
        "  halt. or halt(Code).       leave (Ctrl-D too)",
        "After an answer, w writes it whole, p as first written, f gives the next answers up to",
        "a multiple of 5, and h lists the keys.",
        "Ctrl-C stops the running goal; consulted files, dynamic clauses, modules imported,",
        "operators, flags and bb_put/2 values stay (a value that cannot is named)."
    ]).

kk_help_line(L) :- atom_chars(A, L), write(A), nl.
