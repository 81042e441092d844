/*  judge_no_fd.pl -- library(clpz) as a plain_kenken/3 engine of `kenken judge` sees it.

    The spec forbids the FD solver in plain_kenken/3, and the judge makes it unreachable there
    rather than reading the file's text for it: each plain_kenken/3 case runs in an engine of its
    own where this module, named clpz, is loaded from a file before the judged file (and before
    the GNU layer, whose fd_* predicates post through clpz). `use_module(library(clpz))` then
    imports this module (Scryer loads a library only once), and library(clpfd) of a SWI file is
    read as library(clpz): every constraint, in any module, throws kk_judge_no_fd(Name/Arity),
    which the judge reports as the FD solver reached from plain_kenken/3. The operators are
    clpz's, so that a file that uses clpz in kenken/3 still loads.
*/

:- module(clpz, [op(760, yfx, #<==>),
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
                 op(450, xfx, ..),
                 op(150, fx, #),
                 ('#>')/2,
                 ('#<')/2,
                 ('#>=')/2,
                 ('#=<')/2,
                 ('#=')/2,
                 ('#\\=')/2,
                 ('#\\')/1,
                 ('#<==>')/2,
                 ('#==>')/2,
                 ('#<==')/2,
                 ('#\\/')/2,
                 ('#\\')/2,
                 ('#/\\')/2,
                 (in)/2,
                 (ins)/2,
                 (all_different)/1,
                 (all_distinct)/1,
                 (nvalue)/2,
                 (sum)/3,
                 (scalar_product)/4,
                 (tuples_in)/2,
                 (labeling)/2,
                 (label)/1,
                 (indomain)/1,
                 (lex_chain)/1,
                 (serialized)/2,
                 (global_cardinality)/2,
                 (global_cardinality)/3,
                 (circuit)/1,
                 (cumulative)/1,
                 (cumulative)/2,
                 (disjoint2)/1,
                 (element)/3,
                 (automaton)/3,
                 (automaton)/8,
                 (zcompare)/3,
                 (chain)/2,
                 (fd_var)/1,
                 (fd_inf)/2,
                 (fd_sup)/2,
                 (fd_size)/2,
                 (fd_dom)/2,
                 (clpz_t)/2,
                 ('#=')/3,
                 ('#<')/3
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
nvalue(_, _) :- kk_judge_no_fd((nvalue)/2).
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
clpz_t(_, _) :- kk_judge_no_fd((clpz_t)/2).
'#='(_, _, _) :- kk_judge_no_fd(('#=')/3).
'#<'(_, _, _) :- kk_judge_no_fd(('#<')/3).
