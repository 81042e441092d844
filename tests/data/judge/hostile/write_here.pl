% Creates a file in its own folder (which a judged file may read, not write).
kenken(_, _, T) :-
    open('@HERE@/new.txt', write, S), write(S, hello), close(S), T = [].
plain_kenken(N, C, T) :- kenken(N, C, T).
