% Asks for a 2 GiB integer.
kenken(_, _, T) :- X is 1 << 17179869184, X > 0, T = [].
plain_kenken(N, C, T) :- kenken(N, C, T).
