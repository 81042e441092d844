% Sends data to a listener on this machine.
:- use_module(library(sockets)).
kenken(_, _, T) :-
    socket_client_open('127.0.0.1':@PORT@, S, []),
    format(S, "stolen~n", []), close(S), T = [].
plain_kenken(N, C, T) :- kenken(N, C, T).
