/*  swi_kenken.pl -- Homework 4, KenKen solver, for SWI-Prolog (9 or later) with library(clpfd).

    kenken.pl itself, run under SWI-Prolog: the same predicates (kenken/3 by CLP(FD),
    plain_kenken/3 by plain enumeration, noop_kenken/4), the same model, the same answers in
    the same order (lexicographic, the grid read row by row), so that `kenken solve`/`bench`
    set kenken/3 against plain_kenken/3 on a third system (engines swipl-fd and swipl-plain,
    which run this file under the real swipl). kenken.pl must sit beside this file.

    SWI-Prolog's library(clpfd) is library(clpz)'s parent: the constraints kenken.pl posts
    (#=/2 and the rest, ins/2, all_distinct/1, all_different/1, tuples_in/2, labeling/2 with
    leftmost, up, step or enum) mean the same in both. What differs is only where things are:
    SWI has no library(clpz), library(between), library(format) or library(iso_ext) (their
    predicates are built in, or in clpfd), so kenken.pl's use_module/1 of them is dropped as it
    is read, and the one Scryer list predicate it calls that SWI names otherwise is defined
    here.
*/

:- use_module(library(clpfd)).
:- use_module(library(lists)).
:- use_module(library(apply)).

% scryer_library(?L): a library kenken.pl loads that SWI-Prolog does not need.
scryer_library(clpz).
scryer_library(lists).
scryer_library(between).
scryer_library(format).
scryer_library(iso_ext).

:- multifile user:term_expansion/2.
:- dynamic user:term_expansion/2.

% (only while kenken.pl is read: its use_module/1 of Scryer's libraries is dropped)
:- asserta((user:term_expansion((:- use_module(library(L))), []) :- scryer_library(L)),
           Ref),
   nb_setval(swi_kenken_expansion, Ref).

% list_max(+Xs, -Max): Scryer's library(lists) name of max_list/2.
list_max(Xs, Max) :- max_list(Xs, Max).

:- include(kenken).

:- nb_getval(swi_kenken_expansion, Ref),
   erase(Ref),
   nb_delete(swi_kenken_expansion).
