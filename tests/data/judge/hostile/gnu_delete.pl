% GNU Prolog: deletes a file outside its folder with delete_file/1 (which reports a refusal).
kenken(_, _, T) :- delete_file('@OUT@/canary.txt'), fd_domain(X, 1, 1), T = [[X]].
plain_kenken(N, C, T) :- kenken(N, C, T).
