/*  swi_no_fd.pl -- library(clpfd) as a judged plain_kenken/3 under SWI-Prolog sees it.

    The spec forbids the FD solver in plain_kenken/3, and the judge makes it unreachable there
    rather than reading the file's text for it (as prolog/judge_no_fd.pl does under Scryer):
    each plain_kenken/3 case runs in a swipl where this module, named clpfd, is loaded before
    the judged file, from a folder put first in the library search path (so that
    use_module(library(clpfd)) and, through the judge's clpz.pl, use_module(library(clpz))
    import it; the real library(clpfd) can then not be loaded into module clpfd). Every
    constraint throws kk_judge_no_fd(Name/Arity), which the judge reports as the FD solver
    reached from plain_kenken/3. The operators are clpfd's, so that a file that uses clpfd in
    kenken/3 still loads. transpose/2, a list predicate that library(clpfd) happens to export,
    is no constraint: it is here as clpfd defines it.
*/

:- module(clpfd, [
                  op(760, yfx, #<==>),
                  op(750, xfy, #==>),
                  op(750, yfx, #<==),
                  op(740, yfx, #\/),
                  op(730, yfx, #\),
                  op(720, yfx, #/\),
                  op(710,  fy, #\),
                  op(700, xfx, #>),
                  op(700, xfx, #<),
                  op(700, xfx, #>=),
                  op(700, xfx, #=<),
                  op(700, xfx, #=),
                  op(700, xfx, #\=),
                  op(700, xfx, in),
                  op(700, xfx, ins),
                  op(700, xfx, in_set),
                  op(450, xfx, ..),
                  (#>)/2,
                  (#<)/2,
                  (#>=)/2,
                  (#=<)/2,
                  (#=)/2,
                  (#\=)/2,
                  (#\)/1,
                  (#<==>)/2,
                  (#==>)/2,
                  (#<==)/2,
                  (#\/)/2,
                  (#\)/2,
                  (#/\)/2,
                  (in)/2,
                  (ins)/2,
                  all_different/1,
                  all_distinct/1,
                  sum/3,
                  scalar_product/4,
                  tuples_in/2,
                  labeling/2,
                  label/1,
                  indomain/1,
                  lex_chain/1,
                  serialized/2,
                  global_cardinality/2,
                  global_cardinality/3,
                  circuit/1,
                  cumulative/1,
                  cumulative/2,
                  disjoint2/1,
                  element/3,
                  automaton/3,
                  automaton/8,
                  transpose/2,
                  zcompare/3,
                  chain/2,
                  fd_var/1,
                  fd_inf/2,
                  fd_sup/2,
                  fd_size/2,
                  fd_dom/2,
                  fd_degree/2,
                  (in_set)/2,
                  fd_set/2,
                  is_fdset/1,
                  empty_fdset/1,
                  fdset_parts/4,
                  empty_interval/2,
                  fdset_interval/3,
                  fdset_singleton/2,
                  fdset_min/2,
                  fdset_max/2,
                  fdset_size/2,
                  list_to_fdset/2,
                  fdset_to_list/2,
                  range_to_fdset/2,
                  fdset_to_range/2,
                  fdset_add_element/3,
                  fdset_del_element/3,
                  fdset_disjoint/2,
                  fdset_intersect/2,
                  fdset_intersection/3,
                  fdset_member/2,
                  fdset_eq/2,
                  fdset_subset/2,
                  fdset_subtract/3,
                  fdset_union/3,
                  fdset_union/2,
                  fdset_complement/2
                 ]).

kk_judge_no_fd(PI) :- throw(kk_judge_no_fd(PI)).

'#>'(_, _) :- kk_judge_no_fd(('#>')/2).
'#<'(_, _) :- kk_judge_no_fd(('#<')/2).
'#>='(_, _) :- kk_judge_no_fd(('#>=')/2).
'#=<'(_, _) :- kk_judge_no_fd(('#=<')/2).
'#='(_, _) :- kk_judge_no_fd(('#=')/2).
'#\\='(_, _) :- kk_judge_no_fd(('#\\=')/2).
'#\\'(_) :- kk_judge_no_fd(('#\\')/1).
'#<==>'(_, _) :- kk_judge_no_fd(('#<==>')/2).
'#==>'(_, _) :- kk_judge_no_fd(('#==>')/2).
'#<=='(_, _) :- kk_judge_no_fd(('#<==')/2).
'#\\/'(_, _) :- kk_judge_no_fd(('#\\/')/2).
'#\\'(_, _) :- kk_judge_no_fd(('#\\')/2).
'#/\\'(_, _) :- kk_judge_no_fd(('#/\\')/2).
in(_, _) :- kk_judge_no_fd((in)/2).
ins(_, _) :- kk_judge_no_fd((ins)/2).
all_different(_) :- kk_judge_no_fd((all_different)/1).
all_distinct(_) :- kk_judge_no_fd((all_distinct)/1).
sum(_, _, _) :- kk_judge_no_fd((sum)/3).
scalar_product(_, _, _, _) :- kk_judge_no_fd((scalar_product)/4).
tuples_in(_, _) :- kk_judge_no_fd((tuples_in)/2).
labeling(_, _) :- kk_judge_no_fd((labeling)/2).
label(_) :- kk_judge_no_fd((label)/1).
indomain(_) :- kk_judge_no_fd((indomain)/1).
lex_chain(_) :- kk_judge_no_fd((lex_chain)/1).
serialized(_, _) :- kk_judge_no_fd((serialized)/2).
global_cardinality(_, _) :- kk_judge_no_fd((global_cardinality)/2).
global_cardinality(_, _, _) :- kk_judge_no_fd((global_cardinality)/3).
circuit(_) :- kk_judge_no_fd((circuit)/1).
cumulative(_) :- kk_judge_no_fd((cumulative)/1).
cumulative(_, _) :- kk_judge_no_fd((cumulative)/2).
disjoint2(_) :- kk_judge_no_fd((disjoint2)/1).
element(_, _, _) :- kk_judge_no_fd((element)/3).
automaton(_, _, _) :- kk_judge_no_fd((automaton)/3).
automaton(_, _, _, _, _, _, _, _) :- kk_judge_no_fd((automaton)/8).
zcompare(_, _, _) :- kk_judge_no_fd((zcompare)/3).
chain(_, _) :- kk_judge_no_fd((chain)/2).
fd_var(_) :- kk_judge_no_fd((fd_var)/1).
fd_inf(_, _) :- kk_judge_no_fd((fd_inf)/2).
fd_sup(_, _) :- kk_judge_no_fd((fd_sup)/2).
fd_size(_, _) :- kk_judge_no_fd((fd_size)/2).
fd_dom(_, _) :- kk_judge_no_fd((fd_dom)/2).
fd_degree(_, _) :- kk_judge_no_fd((fd_degree)/2).
in_set(_, _) :- kk_judge_no_fd((in_set)/2).
fd_set(_, _) :- kk_judge_no_fd((fd_set)/2).
is_fdset(_) :- kk_judge_no_fd((is_fdset)/1).
empty_fdset(_) :- kk_judge_no_fd((empty_fdset)/1).
fdset_parts(_, _, _, _) :- kk_judge_no_fd((fdset_parts)/4).
empty_interval(_, _) :- kk_judge_no_fd((empty_interval)/2).
fdset_interval(_, _, _) :- kk_judge_no_fd((fdset_interval)/3).
fdset_singleton(_, _) :- kk_judge_no_fd((fdset_singleton)/2).
fdset_min(_, _) :- kk_judge_no_fd((fdset_min)/2).
fdset_max(_, _) :- kk_judge_no_fd((fdset_max)/2).
fdset_size(_, _) :- kk_judge_no_fd((fdset_size)/2).
list_to_fdset(_, _) :- kk_judge_no_fd((list_to_fdset)/2).
fdset_to_list(_, _) :- kk_judge_no_fd((fdset_to_list)/2).
range_to_fdset(_, _) :- kk_judge_no_fd((range_to_fdset)/2).
fdset_to_range(_, _) :- kk_judge_no_fd((fdset_to_range)/2).
fdset_add_element(_, _, _) :- kk_judge_no_fd((fdset_add_element)/3).
fdset_del_element(_, _, _) :- kk_judge_no_fd((fdset_del_element)/3).
fdset_disjoint(_, _) :- kk_judge_no_fd((fdset_disjoint)/2).
fdset_intersect(_, _) :- kk_judge_no_fd((fdset_intersect)/2).
fdset_intersection(_, _, _) :- kk_judge_no_fd((fdset_intersection)/3).
fdset_member(_, _) :- kk_judge_no_fd((fdset_member)/2).
fdset_eq(_, _) :- kk_judge_no_fd((fdset_eq)/2).
fdset_subset(_, _) :- kk_judge_no_fd((fdset_subset)/2).
fdset_subtract(_, _, _) :- kk_judge_no_fd((fdset_subtract)/3).
fdset_union(_, _, _) :- kk_judge_no_fd((fdset_union)/3).
fdset_union(_, _) :- kk_judge_no_fd((fdset_union)/2).
fdset_complement(_, _) :- kk_judge_no_fd((fdset_complement)/2).

% transpose(?Ls, ?Rs): Rs is the matrix Ls transposed (as library(clpfd) defines it).
transpose(Ls, Rs) :-
    must_be(list(list), Ls),
    lists_transpose(Ls, Rs).

lists_transpose([], []).
lists_transpose([L|Ls], Rs) :-
    maplist(same_length(L), Ls),
    foldl(transpose_, L, Rs, [L|Ls], _).

transpose_(_, Fs, Lists0, Lists) :-
    maplist(list_first_rest, Lists0, Fs, Lists).

list_first_rest([L|Ls], L, Ls).
