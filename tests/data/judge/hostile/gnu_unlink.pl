% GNU Prolog: deletes a file outside its folder with unlink/1 (which ignores a refusal).
kenken(_, _, T) :- unlink('@OUT@/canary.txt'), fd_domain(X, 1, 1), T = [[X]].
plain_kenken(N, C, T) :- kenken(N, C, T).
