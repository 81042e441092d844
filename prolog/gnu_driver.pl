/*  gnu_driver.pl -- runs one judged case under the real GNU Prolog (kenken judge).

    The judge compiles the judged file and this driver with pl2wam (gprolog's own compiler,
    which consult/1 runs as a child process) into byte code first, so that gprolog itself
    never needs to start a process; then, confined, per case:

    gprolog --entry-goal "load(JUDGED.wbc), load(DRIVER.wbc), kk_drv_main(CASE.pl)" </dev/null

    CASE.pl holds exactly one term kk_case(T, Goal, Max) (Goal shares T, Max >= 1), read with
    read/2 (so with the judged file's operators).
    Prints on stdout, one term per line:
      kk_loaded.                  when the driver starts (every file has been loaded);
      kk_answer(TERM).            per answer, as soon as found (flushed); TERM is T written
                                  quoted, a copy of T with its variables named A, B, ...
      then one of
      kk_end(complete, Ms).       no more answers;
      kk_end(limit, Ms).          Max answers printed, the rest not searched;
      kk_exception(BALL, Ms).     Goal raised BALL (written quoted);
    Ms: wall-clock milliseconds of the solve (statistics(real_time, _)).  Then halt(0).
    Every name here starts with kk_drv_ so the judged file cannot clash with it.
*/

% kk_drv_main(+CaseFile): reads the case, then runs it.
kk_drv_main(CaseFile) :-
    kk_drv_line(kk_loaded),
    (   catch(kk_drv_read(CaseFile, Case), E, (kk_drv_line(kk_no_case(E)), halt(0))),
        Case = kk_case(T, Goal, Max) -> true
    ;   kk_drv_line(kk_no_case(none)), halt(0)
    ),
    kk_drv_run(T, Goal, Max).

kk_drv_read(File, Term) :-
    open(File, read, S),
    read(S, Term),
    close(S).

% kk_drv_run(?T, +Goal, +Max): runs the case and prints its answers and how it ended.
kk_drv_run(T, Goal, Max) :-
    g_assign(kk_drv_count, 0),
    statistics(real_time, [T0, _]),
    catch(kk_drv_solve(T, Goal, Max, Status), Ball, Status = exception(Ball)),
    statistics(real_time, [T1, _]),
    Ms is T1 - T0,
    kk_drv_status(Status, Ms),
    halt(0).

% kk_drv_solve(?T, +Goal, +Max, -Status): a failure-driven loop over Goal's answers.
kk_drv_solve(T, Goal, Max, Status) :-
    (   call(Goal), kk_drv_answer(T, Max) -> Status = limit
    ;   Status = complete
    ).

% kk_drv_answer(+T, +Max): prints T, then succeeds when Max answers have been printed.
kk_drv_answer(T, Max) :-
    g_read(kk_drv_count, N0),
    N is N0 + 1,
    g_assign(kk_drv_count, N),
    copy_term(T, C),
    numbervars(C, 0, _),
    write_term(kk_answer(C), [quoted(true), numbervars(true)]),
    write('.'),
    nl,
    flush_output,
    N >= Max.

kk_drv_status(limit, Ms) :-
    kk_drv_line(kk_end(limit, Ms)).
kk_drv_status(complete, Ms) :-
    kk_drv_line(kk_end(complete, Ms)).
kk_drv_status(exception(Ball), Ms) :-
    kk_drv_line(kk_exception(Ball, Ms)).

kk_drv_line(Term) :-
    writeq(Term),
    write('.'),
    nl,
    flush_output.
