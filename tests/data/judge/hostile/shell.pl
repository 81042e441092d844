% Runs a command.
:- use_module(library(os)).
kenken(_, _, T) :- shell("touch @OUT@/shelled"), T = [].
plain_kenken(N, C, T) :- kenken(N, C, T).
