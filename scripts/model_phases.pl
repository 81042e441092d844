/*  model_phases.pl -- kenken/3 phase by phase: what its model costs where.

    Consulted after prolog/kenken.pl and a file of puzzle facts p(N, C) (scripts/
    model-phases.sh writes them from JSON Lines files and runs this). For the puzzles of each
    grid size, the CPU time (ms) and inferences of each phase, summed over them:

      tables  the cage tables alone (few_cage_tuples_/5 for each cage, plain Prolog);
      post    kenken_constraints/3: tables, posting, and the propagation that posting runs
              (clpz propagates as each constraint is posted: the first propagation is here);
      label   all the answers of the labeling kenken/3 does, from the posted store.

    phases: one line per grid size.
    empty_phases(+N): the same for kenken(N, [], T), all its answers (N =< 4 is quick).
*/

:- use_module(library(clpz)).
:- use_module(library(lists)).
:- use_module(library(format)).

% stamp(-Ms, -Inferences): CPU time so far and inferences so far.
stamp(Ms, I) :-
    statistics(cpu_time, [Ms|_]),
    statistics(inferences, I).

% phases_of(+N, +C, -Costs): Costs = costs(Tables, Post, Label, Answers), each phase as Ms-Inf.
phases_of(N, C, costs(TM-TI, PM-PI, LM-LI, Answers)) :-
    stamp(A0, B0),
    forall(( member(Cage, C), cage_parts(Cage, Op, Target, Squares) ),
           ( few_cage_tuples_(N, Op, Target, Squares, _) -> true ; true )),
    stamp(A1, B1),
    kenken_constraints(N, C, T),
    stamp(A2, B2),
    append(T, Vs),
    branching(N, C, Branching),
    findall(x, label(Branching, Vs), Xs),   % as kenken/3 labels
    stamp(A3, B3),
    length(Xs, Answers),
    TM is A1 - A0, TI is B1 - B0,
    PM is A2 - A1, PI is B2 - B1,
    LM is A3 - A2, LI is B3 - B2.

% branching(+N, +C, -B): the labeling's branching kenken/3 uses (model_/4 of the model
% consulted; step for a model without it).
branching(N, C, B) :-
    (   catch(model_(N, C, _, B0), error(existence_error(_, _), _), fail) -> B = B0 ; B = step ).

% label(+Branching, +Vs): labeling leftmost, up, by Branching (the options written out: with
% a variable among them clpz labels far more slowly).
label(enum, Vs) :- labeling([leftmost, up, enum], Vs).
label(step, Vs) :- labeling([leftmost, up, step], Vs).

costs_sum(costs(T1-U1, P1-Q1, L1-M1, S1), costs(T0-U0, P0-Q0, L0-M0, S0),
          costs(T-U, P-Q, L-M, S)) :-
    T is T0 + T1, U is U0 + U1,
    P is P0 + P1, Q is Q0 + Q1,
    L is L0 + L1, M is M0 + M1,
    S is S0 + S1.

phases :-
    findall(N, p(N, _), Ns0),
    sort(Ns0, Ns),
    maplist(size_phases, Ns).

size_phases(N) :-
    findall(Costs, ( p(N, C), once(phases_of(N, C, Costs)) ), Css),
    length(Css, K),
    foldl(costs_sum, Css, costs(0-0, 0-0, 0-0, 0), Sum),
    format("~wx~w ", [N, N]),
    print_costs(K, Sum).

empty_phases(N) :-
    phases_of(N, [], Costs),
    format("kenken(~w, [], T) ", [N]),
    print_costs(1, Costs).

print_costs(K, costs(TM-TI, PM-PI, LM-LI, Answers)) :-
    AM is PM + LM, AI is PI + LI,
    format("~w puzzles, ~w answers; tables ~w ms ~w inf; post ~w ms ~w inf; label ~w ms ~w inf; all ~w ms ~w inf~n",
           [K, Answers, TM, TI, PM, PI, LM, LI, AM, AI]).
