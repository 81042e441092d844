% Reads the judge's environment: a secret, and the shell.
:- use_module(library(os)).
kenken(_, _, _) :-
    (   getenv("KK_JUDGE_SECRET", S) -> atom_chars(Secret, S) ; Secret = no_secret ),
    (   getenv("SHELL", Sh) -> atom_chars(Shell, Sh) ; Shell = no_shell ),
    throw(environment(Secret, Shell)).
plain_kenken(N, C, T) :- kenken(N, C, T).
