/*  gnu_driver.pl -- runs one judged case under the real GNU Prolog (kenken judge).

    The judge compiles the judged file and this driver with pl2wam (gprolog's own compiler,
    which consult/1 runs as a child process) into byte code first, so that gprolog itself
    never needs to start a process. Every name here that starts with kk_drv_ is renamed by the
    judge, for each judged file, with a random part (kk_drv_3f9a..._main): the judged file
    cannot name them, so it cannot replace them. Then, confined, per case:

    gprolog --entry-goal "load(DRIVER.wbc), kk_drv_main(JUDGED.wbc)"

    Standard input holds one term, kk_request(Id, Nonce, T, Goal, Max) (Goal shares T,
    Max >= 1), which the driver reads BEFORE it loads the judged file: nothing of the judged
    file runs before the nonce is read and gone from the input, and the nonce is then only in
    this clause's variables, which no other code can reach. The nonce is a list of integers
    (each below 2^32, written back as 8 hexadecimal digits), never an atom: an atom would stay
    in the atom table, which the judged code can list (current_atom/1). The goal is read with the standard
    operators (the host writes it in the spec's canonical terms).

    The driver answers in frames, one line each, on user_output:
      kenken-frame Id Nonce part loaded        the judged file is loaded, the goal starts;
      kenken-frame Id Nonce part TERM          per answer, as soon as found: a copy of T with
                                               its variables named A, B, ... (written quoted);
      kenken-frame Id Nonce done complete      no more answers;
      kenken-frame Id Nonce done limit         Max answers sent, the rest not searched;
      kenken-frame Id Nonce done exception(B)  Goal raised B.
    Then halt(0). Anything else on the output is what the judged file printed. A frame always
    starts a line (a newline comes first when the judged file left one open). The host times
    the goal by its own clock, from the loaded frame to the done frame, and takes no number
    from this side.
*/

% kk_drv_main(+JudgedByteCode): reads the request, loads the judged file, runs the goal.
kk_drv_main(Judged) :-
    (   catch(read(user_input, Request), _, fail),
        nonvar(Request),
        Request = kk_request(Id, Nonce, T, Goal, Max)
    ->  true
    ;   halt(3)
    ),
    load(Judged),
    kk_drv_frame(Id, Nonce, part, loaded),
    g_assign(kk_drv_count, 0),
    catch(kk_drv_solve(Id, Nonce, T, Goal, Max, Status), Ball, Status = exception(Ball)),
    kk_drv_frame(Id, Nonce, done, Status),
    halt(0).

% kk_drv_solve(+Id, +Nonce, ?T, +Goal, +Max, -Status): a failure-driven loop over Goal's
% answers.
kk_drv_solve(Id, Nonce, T, Goal, Max, Status) :-
    (   call(Goal), kk_drv_answer(Id, Nonce, T, Max) -> Status = limit
    ;   Status = complete
    ).

% kk_drv_answer(+Id, +Nonce, +T, +Max): sends T, then succeeds when Max answers have been sent.
kk_drv_answer(Id, Nonce, T, Max) :-
    g_read(kk_drv_count, N0),
    N is N0 + 1,
    g_assign(kk_drv_count, N),
    copy_term(T, C),
    numbervars(C, 0, _),
    kk_drv_frame(Id, Nonce, part, C),
    N >= Max.

% kk_drv_frame(+Id, +Nonce, +Kind, +Payload): one frame, on a line of its own.
kk_drv_frame(Id, Nonce, Kind, Payload) :-
    (   line_position(user_output, 0) -> true ; nl(user_output) ),
    write(user_output, 'kenken-frame '),
    write(user_output, Id),
    write(user_output, ' '),
    kk_drv_hex(Nonce),
    write(user_output, ' '),
    write(user_output, Kind),
    write(user_output, ' '),
    write_term(user_output, Payload, [quoted(true), numbervars(true)]),
    nl(user_output),
    flush_output(user_output).

% kk_drv_hex(+Integers): each integer (below 2^32) as 8 hexadecimal digits, made no atom of.
kk_drv_hex([]).
kk_drv_hex([N | Ns]) :-
    kk_drv_hex_digits(28, N),
    kk_drv_hex(Ns).

kk_drv_hex_digits(Shift, N) :-
    (   Shift < 0 -> true
    ;   D is (N >> Shift) /\ 15,
        (   D < 10 -> C is 0'0 + D ; C is 0'a + D - 10 ),
        put_code(user_output, C),
        Shift1 is Shift - 4,
        kk_drv_hex_digits(Shift1, N)
    ).
