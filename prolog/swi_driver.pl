/*  swi_driver.pl -- runs one goal of a program under the real SWI-Prolog (the swipl-fd and
    swipl-plain engines; the judge next).

    A module whose name starts with kk_drv_, renamed (with every name here that starts so) by
    the host with a random part for each run of the host (kk_drv_3f9a..._): a program loaded
    into user cannot name it, so it cannot replace it. Its base module is system, so that
    what the program defines in user (a write/2 of its own) is never what the driver calls.
    Then, confined, per goal, in the scratch folder that holds this file:

    swipl -q -f none -F none --no-tty --no-signals --no-packs --no-pce \
          -g kk_drv_:kk_drv_main -t 'halt(3)' driver.pl

    Standard input holds one term, kk_request(Id, Nonce, Program, Library, T, Goal, Max)
    (Nonce a string, Program the file to load, Library [] or a folder put first in the library
    search path before the program loads, Goal shares T, Max >= 1), which the driver reads
    BEFORE it loads the program: nothing of the program runs before the nonce is read and gone
    from the input. When Library holds a clpfd.pl (the judge's, where no FD solver is to be
    reached), it is loaded first, so that module clpfd is that one. The goal is read with the standard operators (the host writes it in the spec's
    canonical terms) and called in user.

    The driver answers in frames, one line each, on user_output (as prolog/gnu_driver.pl does):
      kenken-frame Id Nonce part loaded        the program is loaded, the goal starts;
      kenken-frame Id Nonce part TERM          per answer, as soon as found: a copy of T with
                                               its variables named A, B, ... (written quoted);
      kenken-frame Id Nonce done complete      no more answers;
      kenken-frame Id Nonce done limit         Max answers sent, the rest not searched;
      kenken-frame Id Nonce done exception(B)  Goal raised B.
    Then halt(0). Anything else on the output is what the program printed. A frame always
    starts a line (a newline comes first when the program left one open). The host times the
    goal by its own clock, from the loaded frame to the done frame, and takes no number from
    this side.
*/

:- module(kk_drv_, []).
:- set_module(base(system)).
:- use_module(library(solution_sequences), [call_nth/2]).

% kk_drv_main: reads the request, loads the program, runs the goal.
kk_drv_main :-
    (   catch(read_term(user_input, Request, [double_quotes(string)]), _, fail),
        nonvar(Request),
        Request = kk_request(Id, Nonce, Program, Library, T, Goal, Max)
    ->  true
    ;   halt(3)
    ),
    % (SWI counts what was read from user_input in user_output's column)
    set_stream(user_output, line_position(0)),
    kk_drv_libraries(Library),
    load_files(user:Program, []),
    kk_drv_frame(Id, Nonce, part, loaded),
    catch(kk_drv_solve(Id, Nonce, T, Goal, Max, Status), Ball, Status = exception(Ball)),
    kk_drv_frame(Id, Nonce, done, Status),
    halt(0).

% kk_drv_libraries(+Library): Library's modules found first, its clpfd.pl loaded now.
kk_drv_libraries([]) :- !.
kk_drv_libraries(Library) :-
    asserta(user:file_search_path(library, Library)),
    atom_concat(Library, '/clpfd.pl', NoFd),
    (   exists_file(NoFd) -> load_files(user:NoFd, [imports([])]) ; true ).

% kk_drv_solve(+Id, +Nonce, ?T, +Goal, +Max, -Status): Goal's answers, each sent as found.
kk_drv_solve(Id, Nonce, T, Goal, Max, Status) :-
    (   call_nth(user:Goal, N),
        copy_term_nat(T, C),
        numbervars(C, 0, _),
        kk_drv_frame(Id, Nonce, part, C),
        N >= Max
    ->  Status = limit
    ;   Status = complete
    ).

% kk_drv_frame(+Id, +Nonce, +Kind, +Payload): one frame, on a line of its own.
kk_drv_frame(Id, Nonce, Kind, Payload) :-
    (   line_position(user_output, 0) -> true ; nl(user_output) ),
    format(user_output, "kenken-frame ~w ~w ~w ", [Id, Nonce, Kind]),
    copy_term_nat(Payload, P),
    numbervars(P, 0, _, [singletons(false)]),
    write_term(user_output, P, [quoted(true), numbervars(true), max_depth(0)]),
    nl(user_output),
    flush_output(user_output).
