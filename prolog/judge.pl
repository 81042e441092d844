/*  judge.pl -- loads and runs a judged kenken.pl for `kenken judge` (not part of the homework
    contract).

    Consulted into `user` of a fresh engine before the judged file (after the GNU Prolog layer,
    prolog/gnu/, for a GNU-dialect file), with no other library: every name here starts with kk_judge_,
    so that an honest file's own predicates (transpose/2, member/2, ...) do not clash with it.

    kk_judge_load(+FileChars, +LastLine, -Result)
      Reads the file term by term first (running the op/3, use_module/1,2, ensure_loaded/1 and
      set_prolog_flag/2 directives it meets, so the file's own operators parse), to find every
      syntax error with its line (an error reported after LastLine, the file's last line of
      code, is dropped: Scryer 0.10's reader reports one when a block comment ends the file);
      then consults it. Result is
        loaded                 the file is loaded;
        syntax_errors(Es)      Es: the first errors, each error(Line, MessageChars);
        error(MessageChars)    it could not be opened or consulted.
    A case's goal is not run by anything here: the host runs it and reads its answers itself
    (src/system/scryer/judged.rs), because the judged file, consulted after this one, can redefine any
    predicate of any module (these included) and expand any goal. What is here serves only the
    load, before the judged file's clauses exist.
*/

:- use_module(library(charsio)).
:- use_module(library(iso_ext)).

% halt/0,1 in the judged file's clauses end its case, not the engine: the engine embedded in
% a library cannot stop its process cleanly.
goal_expansion(halt, throw(kk_judge_halt(0))).
goal_expansion(halt(Code), throw(kk_judge_halt(Code))).

% library(files) fails, silently, when the system refuses to delete, rename or make a file (as
% it does for a confined judged file outside its scratch folder): the judge makes the failure
% an error naming the file, so that the report says what was refused.
% (Scryer expands a goal again when call/1 runs it: kk_judge_refusable/3 turns the expansion
% off while it calls the real predicate.)
goal_expansion(delete_file(F), kk_judge_refusable(delete_file(F), delete, F)) :-
    kk_judge_expanding.
goal_expansion(delete_directory(F), kk_judge_refusable(delete_directory(F), delete, F)) :-
    kk_judge_expanding.
goal_expansion(rename_file(F, G), kk_judge_refusable(rename_file(F, G), rename, F)) :-
    kk_judge_expanding.
goal_expansion(make_directory(F), kk_judge_refusable(make_directory(F), make_directory, F)) :-
    kk_judge_expanding.

kk_judge_expanding :-
    \+ iso_ext:bb_get(kk_judge_refusing, true).

kk_judge_refusable(Goal, Action, File) :-
    iso_ext:setup_call_cleanup(iso_ext:bb_put(kk_judge_refusing, true),
                               user:( call(Goal) -> Done = true ; Done = false ),
                               iso_ext:bb_put(kk_judge_refusing, false)),
    (   Done == true -> true
    ;   functor(Goal, Name, Arity),
        throw(error(permission_error(Action, file, File), Name/Arity))
    ).

% At most this many syntax errors are reported (reading resumes after each one).
kk_judge_max_errors(10).

kk_judge_load(FileText, LastLine, Result) :-
    % the GNU layer reads double-quoted text as codes, as GNU Prolog does
    (   FileText = [C | _], integer(C) -> atom_codes(File, FileText)
    ;   atom_chars(File, FileText)
    ),
    catch(kk_judge_syntax(File, LastLine, Errors), E,
          (kk_judge_text(E, T), Errors = failed(T))),
    (   Errors = failed(T) -> Result = error(T)
    ;   Errors = [_ | _] -> Result = syntax_errors(Errors)
    ;   % (a failing or throwing initialization/1 goal makes Scryer's consult/1 fail after
        % loading the clauses and printing why: the file is judged as it loaded, as gprolog does)
        (   catch(consult(File), E2, true) -> true ; true ),
        % the judged file is read; the host's queries are read with Scryer's flag
        set_prolog_flag(double_quotes, chars),
        (   var(E2) -> Result = loaded
        ;   kk_judge_text(E2, T2), Result = error(T2)
        )
    ).

% kk_judge_syntax(+File, +LastLine, -Errors): the file's syntax errors up to LastLine, each
% error(Line, Message).
kk_judge_syntax(File, LastLine, Errors) :-
    iso_ext:setup_call_cleanup(open(File, read, S),
                               user:( kk_judge_max_errors(Max),
                                      kk_judge_read_all(S, Max, Errors0) ),
                               close(S)),
    kk_judge_up_to(Errors0, LastLine, Errors).

kk_judge_up_to([], _, []).
kk_judge_up_to([error(Line, M) | Es0], LastLine, Es) :-
    (   Line > LastLine -> Es = Es1 ; Es = [error(Line, M) | Es1] ),
    kk_judge_up_to(Es0, LastLine, Es1).

kk_judge_read_all(S, Left, Errors) :-
    catch(read_term(S, Term, []), E, true),
    (   nonvar(E)
    ->  kk_judge_syntax_error(E, Error),
        Errors = [Error | Errors1],
        Left1 is Left - 1,
        (   Left1 =:= 0 -> Errors1 = []
        ;   kk_judge_read_all(S, Left1, Errors1)
        )
    ;   Term == end_of_file
    ->  Errors = []
    ;   kk_judge_directive(Term),
        kk_judge_read_all(S, Left, Errors)
    ).

kk_judge_syntax_error(error(syntax_error(What), _:Line), error(Line, Text)) :-
    integer(Line),
    !,
    kk_judge_text(What, Text).
kk_judge_syntax_error(E, error(0, Text)) :-
    kk_judge_text(E, Text).

% The directives that change how the rest of the file is read are run while reading it.
kk_judge_directive(Term) :-
    (   nonvar(Term), Term = (:- D0), nonvar(D0), kk_judge_reading_directive(D0)
    ->  kk_judge_clpfd_as_clpz(D0, Ds),
        kk_judge_run_directives(Ds)
    ;   true
    ).

% A file written for SWI-Prolog imports library(clpfd), which Scryer calls library(clpz) (and
% SWI's clpfd also exports transpose/2, which Scryer's library(lists) has). Under the Scryer
% dialect (the host adds the fact kk_judge_clpfd_is_clpz), such an import is read as both.
term_expansion((:- D0), Directives) :-
    nonvar(D0),
    catch(kk_judge_clpfd_is_clpz, _, fail),
    kk_judge_clpfd_import(D0, Ds),
    kk_judge_directives(Ds, Directives).

kk_judge_run_directives([]).
kk_judge_run_directives([D | Ds]) :-
    catch(call(D), _, true),
    kk_judge_run_directives(Ds).

kk_judge_directives([], []).
kk_judge_directives([D | Ds], [(:- D) | Cs]) :-
    kk_judge_directives(Ds, Cs).

% kk_judge_clpfd_as_clpz(+Directive, -Directives)
kk_judge_clpfd_as_clpz(D0, Ds) :-
    (   catch(kk_judge_clpfd_is_clpz, _, fail), kk_judge_clpfd_import(D0, Ds1) -> Ds = Ds1
    ;   Ds = [D0]
    ).

kk_judge_clpfd_import(use_module(L), [use_module(library(clpz)), use_module(library(lists))]) :-
    L == library(clpfd).
kk_judge_clpfd_import(use_module(L, Is), [use_module(library(clpz), Is)]) :-
    L == library(clpfd).
kk_judge_clpfd_import(ensure_loaded(L), [use_module(library(clpz)), use_module(library(lists))]) :-
    L == library(clpfd).

kk_judge_reading_directive(op(_, _, _)).
kk_judge_reading_directive(use_module(_)).
kk_judge_reading_directive(use_module(_, _)).
kk_judge_reading_directive(ensure_loaded(_)).
kk_judge_reading_directive(set_prolog_flag(double_quotes, _)).

% A term as a short text (deep or long terms are cut with ...).
kk_judge_text(Term, Chars) :-
    (   acyclic_term(Term)
    ->  charsio:write_term_to_chars(Term, [quoted(true), max_depth(12)], Chars)
    ;   Chars = "a cyclic term"
    ).
