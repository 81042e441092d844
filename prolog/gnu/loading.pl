/*  gnu/loading.pl -- GNU Prolog layer, part 5 of 5 (last: its term_expansion/2 must not see
    the layer's own clauses, and it sets double_quotes to codes): clauses GNU ignores while
    loading are ignored, with GNU's messages.
*/

% ---------------------------------------------------------------------------
% Loading as GNU Prolog does

% GNU Prolog ignores a clause for one of its built-in predicates ("native code procedure
% member/2 cannot be redefined (ignored)", an error), and a clause of a predicate whose
% clauses were interrupted by another predicate's, unless it is declared discontiguous
% ("discontiguous predicate p/1 - clause ignored", a warning).  Scryer would instead redefine
% the built-in, and replace the predicate's earlier clauses by the later ones.  The judged
% file's clauses go through term_expansion/2 (defined last: the layer's own clauses do not),
% which drops those clauses with GNU's message on user_error.

% kk_gnu_builtins(Arity, Names): GNU Prolog 1.4.5's built-in predicates, from
% `predicate_property(H, built_in)`.
kk_gnu_builtins(0, ['!', abort, at_end_of_stream, break, debug, debugging, fail, false,
    flush_output, halt, listing, nl, nodebug, nospyall, notrace, randomize, repeat, seen,
    shell, statistics, stop, told, top_level, trace, true, wam_debug]).
kk_gnu_builtins(1, ['#\\', '\\+', abolish, acyclic_term, add_linedit_completion, append,
    architecture, argument_counter, argument_list, asserta, assertz, at_end_of_stream, atom,
    atomic, call, call_with_args, callable, change_directory, close, close_input_atom_stream,
    close_input_chars_stream, close_input_codes_stream, compound, consult, cpu_time,
    current_atom, current_input, current_output, current_predicate, current_stream, date_time,
    delete_directory, delete_file, display, fd_all_different, fd_at_least_one, fd_at_most_one,
    fd_domain_bool, fd_has_extra_cstr, fd_has_vector, fd_labeling, fd_labelingff,
    fd_max_integer, fd_not_prime, fd_only_one, fd_prime, fd_set_vector_max, fd_use_vector,
    fd_var, fd_vector_max, file_exists, float, flush_output, fork_prolog, g_dec, g_inc,
    generic_var, get, get0, get_byte, get_char, get_code, get_key, get_key_no_echo,
    get_linedit_prompt, get_print_stream, get_seed, ground, halt, host_name, integer,
    is_absolute_file_name, is_list, is_relative_file_name, keysort, leash, list,
    list_or_partial_list, listing, load, make_directory, msort, name_singleton_vars, new_atom,
    nl, non_fd_var, non_generic_var, nonvar, nospy, number, numbervars, once,
    open_output_atom_stream, open_output_chars_stream, open_output_codes_stream, os_version,
    partial_list, peek_byte, peek_char, peek_code, portray_clause, print, prolog_pid, put,
    put_byte, put_char, put_code, random, read, read_atom, read_integer, read_number,
    read_pl_state_file, read_token, real_time, retract, retractall, see, seeing, set_input,
    set_linedit_prompt, set_output, set_seed, shell, skip, sleep, socket_close, sort, spy,
    sr_close, sr_current_descriptor, sr_new_pass, system, system_time, tab, tell, telling,
    throw, unget_byte, unget_char, unget_code, unlink, user_time, var, working_directory,
    write, write_canonical, write_pl_state_file, writeq]).
kk_gnu_builtins(2, ['##', '#/\\', '#<', '#<#', '#<=>', '#=', '#=#', '#=<', '#=<#', '#==>',
    '#>', '#>#', '#>=', '#>=#', '#\\/', '#\\/\\', '#\\<=>', '#\\=', '#\\=#', '#\\==>',
    '#\\\\/', '*->', ',', '->', '.', ';', '<', '=', '=..', '=:=', '=<', '==', '=\\=', '>',
    '>=', '@<', '@=<', '@>', '@>=', '\\=', '\\==', absolute_file_name, add_stream_alias,
    add_stream_mirror, argument_value, atom_chars, atom_codes, atom_length, atom_property,
    bind_variables, call, call_det, call_with_args, char_code, char_conversion,
    character_count, clause, close, close_output_atom_stream, close_output_chars_stream,
    close_output_codes_stream, copy_term, create_pipe, current_alias, current_bip_name,
    current_char_conversion, current_mirror, current_prolog_flag, directory_files, display,
    display_to_atom, display_to_chars, display_to_codes, environ, expand_term, fd_cardinality,
    fd_dom, fd_domain, fd_labeling, fd_max, fd_maximize, fd_min, fd_minimize, fd_relation,
    fd_relationc, fd_size, file_permission, file_property, find_linedit_completion, flatten,
    forall, format, g_array_size, g_assign, g_assignb, g_dec, g_deco, g_inc, g_inco, g_link,
    g_read, g_reset_bit, g_set_bit, g_test_reset_bit, g_test_set_bit, get_byte, get_char,
    get_code, get_key, get_key_no_echo, hostname_address, is, keysort, last,
    last_read_start_line_column, length, line_count, line_position, lower_upper, maplist,
    max_list, member, memberchk, min_list, msort, name, name_query_vars, new_atom,
    number_atom, number_chars, number_codes, open_input_atom_stream, open_input_chars_stream,
    open_input_codes_stream, peek_byte, peek_char, peek_code, permutation, phrase,
    portray_clause, predicate_property, prefix, print, print_to_atom, print_to_chars,
    print_to_codes, prolog_file_name, put_byte, put_char, put_code, read, read_atom,
    read_from_atom, read_from_chars, read_from_codes, read_integer, read_number, read_term,
    read_token, read_token_from_atom, read_token_from_chars, read_token_from_codes,
    remove_stream_mirror, rename_file, reverse, send_signal, set_bip_name, set_prolog_flag,
    set_stream_buffering, set_stream_eof_action, set_stream_position, set_stream_type, shell,
    socket, socket_bind, socket_listen, sort, spawn, sr_change_options,
    sr_error_from_exception, sr_get_file_name, sr_get_include_list,
    sr_get_include_stream_list, sr_get_stream, sr_write_error, statistics, stream_position,
    stream_property, sublist, subsumes_term, succ, suffix, sum_list, system, temporary_name,
    term_hash, term_ref, term_variables, unget_byte, unget_char, unget_code,
    unify_with_occurs_check, wait, write, write_canonical, write_canonical_to_atom,
    write_canonical_to_chars, write_canonical_to_codes, write_term, write_to_atom,
    write_to_chars, write_to_codes, writeq, writeq_to_atom, writeq_to_chars, writeq_to_codes]).
kk_gnu_builtins(3, [append, arg, atom_concat, bagof, between, call, call_with_args, catch,
    compare, current_op, delete, fd_atleast, fd_atmost, fd_cardinality, fd_domain, fd_element,
    fd_element_var, fd_exactly, findall, for, format, format_to_atom, format_to_chars,
    format_to_codes, functor, g_dec, g_inc, maplist, nth, nth0, nth1, numbervars, op, open,
    phrase, popen, random, read_term, read_term_from_atom, read_term_from_chars,
    read_term_from_codes, select, set_stream_line_column, setarg, setof, socket_accept, spawn,
    spypoint_condition, sr_get_error_counters, sr_get_module, sr_get_position,
    sr_get_size_counters, sr_open, sr_set_error_counters, stream_line_column, subtract,
    temporary_file, term_variables, write_term, write_term_to_atom, write_term_to_chars,
    write_term_to_codes]).
kk_gnu_builtins(4, [call, call_with_args, decompose_file_name, exec, fd_reified_in, findall,
    maplist, open, seek, setarg, socket_accept, socket_connect, sr_read_term, sr_write_error,
    sr_write_message, syntax_error_info, term_hash]).
kk_gnu_builtins(5, [call, call_with_args, exec, maplist, select, sub_atom]).
kk_gnu_builtins(6, [call, call_with_args, maplist, sr_write_error, sr_write_message]).
kk_gnu_builtins(7, [call, call_with_args, maplist]).
kk_gnu_builtins(8, [call, call_with_args, maplist, sr_write_message]).
kk_gnu_builtins(9, [call, call_with_args, maplist]).
kk_gnu_builtins(10, [call, call_with_args]).
kk_gnu_builtins(11, [call, call_with_args]).

:- dynamic(kk_gnu_seen/1).
:- dynamic(kk_gnu_last/1).
:- dynamic(kk_gnu_discontiguous/1).
:- dynamic(kk_gnu_warned/1).

% kk_gnu_expand(+Term, -Clauses): [] for a clause GNU ignores; fails for a clause kept.
% GNU Prolog has no use_module/1,2: "unknown directive use_module/1 - maybe use
% initialization/1 - directive ignored".  A stray import of SWI's library(clpfd), which
% Scryer lacks (loading it would fail the whole file), is ignored so too.
kk_gnu_expand((:- D), []) :-
    nonvar(D),
    prolog_load_context(module, user),
    kk_gnu_stray_import(D, PI),
    !,
    kk_gnu_ignored(directive(PI)).
kk_gnu_expand(Term, []) :-
    nonvar(Term),
    Term \== [],
    prolog_load_context(module, user),
    (   Term = (:- D) -> kk_gnu_declare(D), fail
    ;   kk_gnu_clause_key(Term, Key)
    ),
    (   Key = N/A, kk_gnu_builtins(A, Ns), lists:memberchk(N, Ns) ->
        kk_gnu_ignored(builtin(Key))
    ;   kk_gnu_seen(Key), \+ kk_gnu_last(Key), \+ kk_gnu_discontiguous(Key) ->
        kk_gnu_ignored(discontiguous(Key))
    ;   Key = N/A, functor(H, N, A), predicate_property(H, built_in) ->
        % GNU would define it (e.g. a use_module/1 fact); Scryer cannot
        kk_gnu_ignored(scryer(Key))
    ;   retractall(kk_gnu_last(_)),
        assertz(kk_gnu_last(Key)),
        (   kk_gnu_seen(Key) -> true ; assertz(kk_gnu_seen(Key)) ),
        fail
    ).

% kk_gnu_stray_import(+Directive, -Name/Arity)
kk_gnu_stray_import(use_module(L), use_module/1) :- L == library(clpfd).
kk_gnu_stray_import(use_module(L, _), use_module/2) :- L == library(clpfd).
kk_gnu_stray_import(ensure_loaded(L), ensure_loaded/1) :- L == library(clpfd).

% kk_gnu_clause_key(+Clause, -Name/Arity)
kk_gnu_clause_key(Term, Key) :-
    (   Term = (H :- _) -> kk_gnu_head_key(H, 0, Key)
    ;   Term = (H --> _) -> kk_gnu_head_key(H, 2, Key)
    ;   kk_gnu_head_key(Term, 0, Key)
    ).

kk_gnu_head_key(H, Extra, N/A) :-
    (   H = (H1, _), Extra =:= 2 -> true ; H1 = H ),
    callable(H1),
    H1 \= _:_,
    functor(H1, N, A0),
    A is A0 + Extra.

% kk_gnu_declare(+Directive): records discontiguous/1 declarations.
kk_gnu_declare(D) :-
    (   nonvar(D), D = discontiguous(Specs) -> kk_gnu_declare_(Specs) ; true ).

kk_gnu_declare_(S) :-
    (   var(S) -> true
    ;   S = (S1, S2) -> kk_gnu_declare_(S1), kk_gnu_declare_(S2)
    ;   S = [_ | _] -> lists:maplist(kk_gnu_declare_, S)
    ;   S = N/A -> assertz(kk_gnu_discontiguous(N/A))
    ;   true
    ).

% kk_gnu_ignored(+Why): GNU's message, once per predicate (Scryer may expand a term twice).
kk_gnu_ignored(Why) :-
    (   kk_gnu_warned(Why) -> true
    ;   assertz(kk_gnu_warned(Why)),
        (   Why = builtin(PI) ->
            format:format(user_error, "error: native code procedure ~q cannot be redefined (ignored)~n", [PI])
        ;   Why = discontiguous(PI) ->
            format:format(user_error, "warning: discontiguous predicate ~q - clause ignored~n", [PI])
        ;   Why = directive(PI) ->
            format:format(user_error, "warning: unknown directive ~q - maybe use initialization/1 - directive ignored~n", [PI])
        ;   Why = scryer(PI),
            format:format(user_error, "warning: ~q is a Scryer Prolog built-in: the judge ignores this clause (GNU Prolog would not)~n", [PI])
        )
    ).

term_expansion(Term, Clauses) :-
    kk_gnu_expand(Term, Clauses).

:- set_prolog_flag(double_quotes, codes).
