% Creates a file outside its own folder.
kenken(_, _, T) :-
    open('@OUT@/new.txt', write, S), write(S, hello), close(S), T = [].
plain_kenken(N, C, T) :- kenken(N, C, T).
