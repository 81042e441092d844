#!/usr/bin/env python3
"""A SAT solver (CaDiCaL, through PySAT) on generated puzzles: a second reference beside CP-SAT.

Setup: the virtual environment of `compare.py` (its `requirements.txt` has `python-sat`).

Run (from the repository root), with puzzles as `random_puzzles` prints them (JSON lines):

    cargo build --release --example random_puzzles
    target/release/examples/random_puzzles 25 --seed 12 --count 1 \\
        | scripts/cpsat/.venv/bin/python scripts/cpsat/sat.py --timeout 300

The encoding: a variable per (cell, value); exactly one value per cell and one place per value in
each row and column (pairwise at-most-one); each cage's admissible tuples (values meeting its
target, no repeat in a row or column), enumerated here from the rules, with a selector variable
per tuple (some tuple holds, a tuple fixes its cells, and a cell's value needs a tuple giving it).
CaDiCaL is asked for two solutions (the first is blocked and the solver asked again). One JSON
line per puzzle: its name, `status` (`two`, `unique`, `none` or `timeout`), `secs` (solving only,
building the clauses excluded) and CaDiCaL's counts of conflicts and decisions.
"""

import argparse
import itertools
import json
import sys
import threading
import time


def product(vals):
    out = 1
    for v in vals:
        out *= v
    return out


def meets(op, target, vals):
    """Whether the values meet the cage's target under its operator (`=`, `+`, `*`, `-`, `/`)."""
    if op == "+":
        return sum(vals) == target
    if op == "*":
        return product(vals) == target
    if op == "-":
        return len(vals) == 2 and abs(vals[0] - vals[1]) == target
    if op == "/":
        return len(vals) == 2 and max(vals) == target * min(vals)
    if op == "=":
        return len(vals) == 1 and vals[0] == target
    raise ValueError(f"operator {op!r} not handled")


def tuples(n, cage):
    """Every tuple of values in 1..n meeting the cage, no value twice in a row or column."""
    cells = [tuple(c) for c in cage["cells"]]
    out = []

    def extend(vals):
        i = len(vals)
        if i == len(cells):
            if meets(cage["op"], cage["target"], vals):
                out.append(tuple(vals))
            return
        for v in range(1, n + 1):
            clash = any(
                vals[j] == v and (cells[j][0] == cells[i][0] or cells[j][1] == cells[i][1])
                for j in range(i)
            )
            if clash or (cage["op"] == "+" and sum(vals) + v > cage["target"]):
                continue
            if cage["op"] == "*" and cage["target"] % (v * product(vals)) != 0:
                continue
            extend(vals + [v])

    extend([])
    return out


def encode(puzzle):
    """The clauses of the puzzle, and the variable of each (row, column, value)."""
    n = puzzle["size"]
    var = {}
    for r, c, v in itertools.product(range(1, n + 1), repeat=3):
        var[r, c, v] = len(var) + 1
    top = len(var)
    clauses = []

    def exactly_one(lits):
        clauses.append(list(lits))
        clauses.extend([-a, -b] for a, b in itertools.combinations(lits, 2))

    for i, j in itertools.product(range(1, n + 1), repeat=2):
        exactly_one([var[i, j, v] for v in range(1, n + 1)])  # cell (i, j)
        exactly_one([var[i, c, j] for c in range(1, n + 1)])  # value j in row i
        exactly_one([var[r, i, j] for r in range(1, n + 1)])  # value j in column i
    for cage in puzzle["cages"]:
        cells = [tuple(c) for c in cage["cells"]]
        tups = tuples(n, cage)
        selectors = list(range(top + 1, top + 1 + len(tups)))
        top += len(tups)
        clauses.append(selectors)
        for s, tup in zip(selectors, tups):
            clauses.extend([-s, var[r, c, v]] for (r, c), v in zip(cells, tup))
        for k, (r, c) in enumerate(cells):
            for v in range(1, n + 1):
                clauses.append([-var[r, c, v]] + [s for s, t in zip(selectors, tups) if t[k] == v])
    return clauses, var


def solve(puzzle, limit, name):
    from pysat.solvers import Solver

    clauses, var = encode(puzzle)
    cell_vars = set(var.values())
    solver = Solver(name=name, bootstrap_with=clauses)
    timer = threading.Timer(limit, solver.interrupt)
    start = time.monotonic()
    timer.start()
    found, status = 0, None
    while found < 2:
        answer = solver.solve_limited(expect_interrupt=True)
        if answer is None:
            status = "timeout"
            break
        if not answer:
            status = ["none", "unique"][found]
            break
        found += 1
        solver.add_clause([-lit for lit in solver.get_model() if lit > 0 and lit in cell_vars])
    timer.cancel()
    secs = time.monotonic() - start
    stats = solver.accum_stats()
    solver.delete()
    return {
        "name": puzzle.get("name"),
        "size": puzzle["size"],
        "status": status or "two",
        "secs": secs,
        "conflicts": stats.get("conflicts"),
        "decisions": stats.get("decisions"),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per puzzle")
    ap.add_argument("--solver", default="cd19", help="PySAT solver name (default CaDiCaL 1.9)")
    a = ap.parse_args()
    for line in sys.stdin:
        if line.strip():
            print(json.dumps(solve(json.loads(line), a.timeout, a.solver)), flush=True)


if __name__ == "__main__":
    main()
