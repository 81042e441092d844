% Deletes a file outside its folder.
:- use_module(library(files)).
kenken(_, _, T) :- delete_file("@OUT@/canary.txt"), T = [].
plain_kenken(N, C, T) :- kenken(N, C, T).
