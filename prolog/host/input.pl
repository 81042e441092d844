/*  host/input.pl -- the Rust host's Prolog side (prolog/host/, loaded in order as one text:
    HOST_PL in src/prolog/mod.rs), continued: the engine's start (kk_top_start/2) and its standard
    input: the input of a goal, and the relay that feeds a goal that reads.
*/

% ---------------------------------------------------------------------------
% The engine's start

% kk_top_start(+Relay, +Scratch): what a top level's engine does once loaded: the host's own
% predicates noted (kk_note_host_predicates/0), the program that relays standard input noted
% (kk_reader_start/0), the session's private directory noted (where the copies of the files
% consulted are kept: kk_keep_copy/2), its flags and operators noted (what differs from them
% later is the user's, kept by kk_state/1), the channel of user_input noted for kk_wall_ms/1,
% and the process's standard input made the current input.
kk_top_start(Relay, Scratch) :-
    kk_note_host_predicates,
    atom_chars(Relay, Exe),
    iso_ext:bb_put(kk_relay, Exe),
    iso_ext:bb_put(kk_scratch, Scratch),
    findall(F-V, current_prolog_flag(F, V), Flags),
    iso_ext:bb_put(kk_flags0, Flags),
    findall(op(P, T, N), current_op(P, T, N), Ops),
    iso_ext:bb_put(kk_ops0, Ops),
    current_input(Clock),
    iso_ext:bb_put(kk_clock_stream, Clock),
    kk_top_input.

% kk_note_host_predicates: the host's own predicates of user (kk_..., '$kk...'), which a
% consulted file may not replace (host_expand.pl), noted in bb kk_host_predicates.
kk_note_host_predicates :-
    findall(N/A, ( current_predicate(user:N/A),
                   ( atom_concat(kk_, _, N) ; atom_concat('$kk', _, N) ) ),
            PIs0),
    sort(PIs0, PIs),
    iso_ext:bb_put(kk_host_predicates, PIs).

% ---------------------------------------------------------------------------
% Standard input

% kk_top_input: the current input of a goal that names no reading predicate (one of a
% consulted file may read) is the process's standard input opened as a file: Scryer's own
% user_input reads nothing without its line editor. Opened again once at its end (Ctrl-D at
% the terminal), so that the next goal can read more. (Scryer 0.10 takes a pipe or a terminal
% opened as a file to end after the first character get_char/1 reads: read/1 reads terms
% well, get_char/1 the first character only; kk_reader_start/0 does better.)
kk_top_input :-
    (   iso_ext:bb_get(kk_stdin, S0),
        catch(stream_property(S0, end_of_stream(not)), _, fail)
    ->  S = S0
    ;   (   iso_ext:bb_get(kk_stdin, S0) -> catch(close(S0), _, true) ; true ),
        catch(open('/dev/stdin', read, S1), _, fail)
    ->  iso_ext:bb_put(kk_stdin, S1),
        S = S1
    ;   true
    ),
    (   nonvar(S) -> catch(set_input(S), _, true) ; true ).

% ---------------------------------------------------------------------------
% The relay of standard input

% kk_reader_start: for a goal that reads (bb kk_top_reads, or any goal once a consulted file's
% code reads: bb kk_code_reads, see kk_leaf/3), the current input is a pipe from a
% relay (this program again, as kk_top_start/2 named it) that copies the process's standard
% input, the terminal or what is piped to query: a pipe reads as it should, where the
% terminal opened as a file (kk_top_input/0) ends after one get_char/1. The relay runs only
% while the goal does, not while the host reads a key or the next goal; it dies with this
% process. kk_reader_stop/0 ends it. In a piped repl (bb kk_feed: a named pipe) the relay
% copies what the host feeds it, the input after the goal typed: at kk_reader_stop/0 the host
% stops, and what the goal did not read goes back to it, to be read as goals, as a Prolog top
% level reading its goals and the goals' input from one stream does.
kk_reader_start :-
    (   (   iso_ext:bb_get(kk_top_reads, R), R \== false
        ;   iso_ext:bb_get(kk_code_reads, true)
        )
    ->  (   iso_ext:bb_get(kk_reader, r(_, S)) -> set_input(S)
        ;   iso_ext:bb_get(kk_relay, Exe),
            catch(( kk_need_library(process),
                    (   iso_ext:bb_get(kk_feed, Fifo) -> atom_chars(Fifo, From) ; From = "1" ),
                    process:process_create(Exe, [],
                                   [stdout(pipe(S)), process(P),
                                    environment(["KENKEN_WORKER"="toplevel",
                                                 "KENKEN_TOPLEVEL_RELAY"=From])]) ),
                  _, fail)
        ->  iso_ext:bb_put(kk_reader, r(P, S)),
            set_input(S)
        ;   kk_top_input
        )
    ;   kk_top_input
    ).

kk_reader_stop :-
    (   iso_ext:bb_get(kk_reader, r(P, S)),
        iso_ext:bb_get(kk_feed, _),
        iso_ext:bb_get(kk_host_asks, true)
    ->  % (fed by the host, which a goal in ask mode asks: what the goal left of the input
        % goes back to it)
        iso_ext:bb_put(kk_reader, none),
        kk_host(drain, _),
        kk_rest_chars(S, Cs),
        catch(process:process_wait(P, _), _, true),
        catch(close(S), _, true),
        kk_host_left(Cs),
        kk_top_input
    ;   iso_ext:bb_get(kk_reader, r(P, S))
    ->  iso_ext:bb_put(kk_reader, none),
        catch(process:process_kill(P), _, true),
        catch(process:process_wait(P, _), _, true),
        catch(close(S), _, true),
        kk_top_input
    ;   true
    ).

% kk_host(+Word, -Answer): Word asked of the host (which key after an answer: ask; stop
% feeding the input: drain), Answer its answer (an atom; none without a host). The question
% is written to user_output after the control byte 4 and ends at the new line; the host (the
% engine's output callback) sends it to the parent as a part of the reply to the request that
% runs, with its ticket, and the parent's answer comes back through user_input's channel, as
% the clock's does (kk_wall_ms/1). No file or pipe is named here: the parent is reached only
% through the process layer's frames.
kk_host(Word, Answer) :-
    put_char(user_output, '\x4\'), write(user_output, Word), nl(user_output),
    flush_output(user_output),
    kk_host_answer(Answer).

kk_host_answer(Answer) :-
    (   iso_ext:bb_get(kk_clock_stream, S)
    ->  kk_clock_digits(S, Cs),
        atom_chars(Answer, Cs)
    ;   Answer = none
    ).

% kk_host_left(+Cs): the characters Cs, which the goal left of the input the host fed it (bb
% kk_feed: a piped repl), given back to the host (`left` and their codes).
kk_host_left(Cs) :-
    put_char(user_output, '\x4\'), write(user_output, left),
    lists:maplist(user:kk_write_code(user_output), Cs),
    nl(user_output),
    flush_output(user_output),
    kk_host_answer(_).

kk_write_code(O, C) :- char_code(C, K), write(O, ' '), write(O, K).
