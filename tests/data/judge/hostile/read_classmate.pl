% Reads a classmate's file in its own folder (a class judged from one folder) and gives its
% text as the answer.
:- use_module(library(pio)).
:- use_module(library(dcgs)).
kenken(_, _, T) :- phrase_from_file(seq(T), '@HERE@/classmate.pl').
plain_kenken(N, C, T) :- kenken(N, C, T).
