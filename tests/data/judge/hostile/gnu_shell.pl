% GNU Prolog: runs a command.
kenken(_, _, T) :- shell('touch @OUT@/shelled'), fd_domain(X, 1, 1), T = [[X]].
plain_kenken(N, C, T) :- kenken(N, C, T).
