% GNU Prolog: creates a file outside its own folder.
kenken(_, _, T) :-
    open('@OUT@/new.txt', write, S), write(S, hello), close(S), fd_domain(X, 1, 1), T = [[X]].
plain_kenken(N, C, T) :- kenken(N, C, T).
