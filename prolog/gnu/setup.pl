/*  gnu/setup.pl -- GNU Prolog 1.4.5 compatibility layer for Scryer Prolog 0.10 (kenken judge),
    part 1 of 5: what the layer is, the libraries it loads, the unsupported builtins and GNU's
    FD operators.

    The layer is five files loaded as one text in this order (`GNU_PL` in
    src/system/scryer/judged.rs): setup.pl, fd.pl, labeling.pl, builtins.pl, loading.pl.

    Consult the layer into `user` BEFORE the judged file.  It loads library(clpz) without
    importing its operators or constraint predicates, switches off clpz's goal expansion
    (which would otherwise rewrite `X #= Y` in later files straight into clpz calls), and
    defines GNU's FD predicates and operators in `user` with GNU's semantics.  A judged file
    that itself does `:- use_module(library(clpz)).` gets clpz's own #=/2 etc. back (the
    import replaces these definitions), so Scryer/SWI-dialect files keep clpz semantics.

    double_quotes: the last directive sets the flag to `codes` (GNU's default); the flag is
    global in Scryer and stays in effect for the judged file.  Set it back to `chars` after
    the judged file is loaded, before the host parses its own goals.

    Covered (GNU semantics checked against gprolog 1.4.5):
      FD: fd_domain/2,3, fd_domain_bool/1, fd_all_different/1, fd_labeling/1,2 (all
        variable_method/value_method options, reorder/1, backtracks/1), fd_labelingff/1,
        fd_set_vector_max/1 (recorded only), fd_vector_max/1, fd_max_integer/1, fd_min/2,
        fd_max/2, fd_size/2, fd_dom/2, fd_has_vector/1, fd_use_vector/1, fd_var/1,
        non_fd_var/1, generic_var/1, non_generic_var/1, fd_element/3, fd_element_var/3,
        fd_atmost/3, fd_atleast/3, fd_exactly/3, fd_cardinality/2,3, fd_at_least_one/1,
        fd_at_most_one/1, fd_only_one/1, fd_relation/2, fd_relationc/2, fd_reified_in/4,
        fd_prime/1, fd_not_prime/1.
      Operators (GNU priorities): #= #\= #< #=< #> #>= and #=# #\=# #<# #=<# #># #>=#
        (700 xfx); #<=> #\<=> (750 xfy); #==> #\==> (740 xfy); ## #\/ #\\/ (730 xfy/yfx);
        #/\ #\/\ (720 yfx); #\ (710 fy).  GNU 1.4.5 has no #<== / #\<==.
      FD expressions: integers, variables, +E, -E, + - * / // rem ** min max dist.
        `/` is exact division (X #= 7/2 fails), as in GNU.  `mod`, `abs`, `^` and other
        terms raise type_error(fd_evaluable, F/A), as in GNU 1.4.5.  Every variable in an
        FD constraint gets the domain 0..268435455 (GNU has no negative FD values, so
        X #= 3-5 fails).
      Other: nth/3, last/2, max_list/2, min_list/2, msort/2, delete/3, subtract/3,
        flatten/2, name/2, tab/1, print/1, g_assign/2, g_assignb/2, g_read/2, g_inc/1,2,
        g_dec/1, statistics/0, statistics/2 (runtime, cpu_time, user_time, system_time,
        real_time), cpu_time/1, user_time/1, system_time/1, real_time/1, format/2,3 that
        accept code lists (format and ~s arguments).  From Scryer libraries: lists
        (append, member, memberchk, reverse, length, nth0, nth1, select, permutation,
        sum_list, maplist/2..8), between/3, succ/2, forall/2.
      Loading: a clause for a GNU built-in predicate is ignored with GNU's error, and a
        clause of a predicate whose clauses were interrupted (not declared discontiguous) is
        ignored with GNU's warning, as gprolog does (term_expansion/2 in loading.pl, last);
        a clause for a Scryer built-in that GNU lacks (e.g. a use_module/1 fact) is ignored.
    Approximations:
      - the full-consistency operators (#=# ...) post the same clpz constraint as #= ...;
      - value_method(bisect) enumerates as min; variable_method(most_constrained) is
        first_fail (no constraint count); backtracks(B) counts value retries;
      - real_time has 1 s resolution (Scryer 0.10 has no finer wall clock);
        user_time = cpu_time, system_time = 0.
    Not supported: see kk_gnu_unsupported/1 below (an existence error on one of these
    names is reported as "uses NAME/ARITY, which judge does not support").
*/

% ---------------------------------------------------------------------------
% Libraries

:- use_module(library(lists), [append/3, member/2, memberchk/2, reverse/2, length/2,
                               nth0/3, nth1/3, select/3, permutation/2, sum_list/2,
                               maplist/2, maplist/3, maplist/4, maplist/5, maplist/6,
                               maplist/7, maplist/8]).
:- use_module(library(between), [between/3]).
:- use_module(library(iso_ext), [succ/2, forall/2, bb_put/2, bb_get/2, bb_b_put/2]).
:- use_module(library(format), [portray_clause/1, listing/1]).
:- use_module(library(time), [current_time/1]).
:- use_module(library(random), [random_integer/3]).
% Loads clpz (an empty import list does not load the module in Scryer 0.10).
:- use_module(library(clpz), [zcompare/3]).

:- initialization(assertz(clpz:goal_expansion(false))).
:- initialization(kk_gnu_stats_init).

% ---------------------------------------------------------------------------
% Unsupported GNU builtins (kept undefined: calling one is an existence error)

kk_gnu_unsupported(fd_maximize/2).
kk_gnu_unsupported(fd_minimize/2).
kk_gnu_unsupported(fd_has_extra_cstr/1).
kk_gnu_unsupported(g_link/2).
kk_gnu_unsupported(g_array_size/2).
kk_gnu_unsupported(sort/4).
kk_gnu_unsupported(read_integer/1).
kk_gnu_unsupported(read_atom/1).
kk_gnu_unsupported(write_pl_state_file/1).
kk_gnu_unsupported(read_pl_state_file/1).
kk_gnu_unsupported(format_to_codes/3).
kk_gnu_unsupported(pause/0).

% ---------------------------------------------------------------------------
% GNU's FD operators

:- op(700, xfx, #=).
:- op(700, xfx, #\=).
:- op(700, xfx, #<).
:- op(700, xfx, #=<).
:- op(700, xfx, #>).
:- op(700, xfx, #>=).
:- op(700, xfx, #=#).
:- op(700, xfx, #\=#).
:- op(700, xfx, #<#).
:- op(700, xfx, #=<#).
:- op(700, xfx, #>#).
:- op(700, xfx, #>=#).
:- op(750, xfy, #<=>).
:- op(750, xfy, #\<=>).
:- op(740, xfy, #==>).
:- op(740, xfy, #\==>).
:- op(730, xfy, ##).
:- op(730, yfx, #\/).
:- op(730, yfx, #\\/).
:- op(720, yfx, #/\).
:- op(720, yfx, #\/\).
:- op(710, fy, #\).

% kk_gnu_max_integer(-M): GNU's fd_max_integer on 64-bit builds.
kk_gnu_max_integer(268435455).
