% Creates a file while loading, then answers kenken(0, [], T) only.
:- initialization((open('@OUT@/init.txt', write, S), write(S, hello), close(S))).
kenken(0, _, []).
plain_kenken(0, _, []).
