% A kenken.pl for 1x1 grids only, ending with a block comment (Scryer 0.10's reader reports a
% syntax error at the end of such a file; the judge must not).
kenken(1, [], [[1]]).
plain_kenken(1, [], [[1]]).
/*
  notes
*/
