#!/usr/bin/env python3
"""The native solver against Google OR-Tools CP-SAT on the same generated puzzles.

Setup (once; the virtual environment is ignored by git and not part of the test command):

    python3 -m venv scripts/cpsat/.venv
    scripts/cpsat/.venv/bin/pip install -r scripts/cpsat/requirements.txt

Run (from the repository root):

    scripts/cpsat/.venv/bin/python scripts/cpsat/compare.py --sizes 12,16,20,25,30 --count 10

What it does:
- builds the release examples `random_puzzles` and `native_times` (unless `--no-build`);
- takes the puzzles from `random_puzzles SIZE --seed S --count K` (the generator of
  `kenken bench --random`: uniform Latin squares by Jacobson-Matthews cut into 1-4-cell cages),
  so both solvers see exactly the same puzzles;
- solves each with CP-SAT, one worker (`--workers W`; by default as many as `--threads`), a plain CP model (`AddAllDifferent` on rows and columns,
  linear sums, `AddMultiplicationEquality`, `AddAbsEquality`, division as a product under an
  enforcement literal), asking for two solutions (a solution callback that stops at the second,
  with `enumerate_all_solutions`), within the time limit per puzzle;
- times the native solver on the same puzzles with `native_times` (one process, asking for two
  solutions, the same limit, one thread or `--threads T`; its time includes preparing the
  solver). `--threads 2` alone compares two native threads with two CP-SAT workers;
  `--threads 2 --workers 1` with the single-worker reference;
- prints a Markdown table per run: for each size and solver, how many puzzles were resolved (two
  solutions found, or one found and the search complete), how many within `--within` seconds
  (10 by default), the median, 90th percentile and maximum time (an unresolved puzzle counts as
  the time limit), and CP-SAT's time over native's. On random puzzles the time has a heavy tail:
  judge the tail on many puzzles (`--count 100`), not on ten.

The CP-SAT time is the wall time of `Solve` (model building excluded). `sat.py`, beside this
script, runs a SAT solver (CaDiCaL) on the same puzzles, as a second reference.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_example(name, args):
    exe = os.path.join(ROOT, "target", "release", "examples", name)
    out = subprocess.run([exe] + args, check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def cpsat_solve(puzzle, limit, workers=1):
    from ortools.sat.python import cp_model

    n = puzzle["size"]
    m = cp_model.CpModel()
    x = {(r, c): m.NewIntVar(1, n, f"x{r}_{c}") for r in range(1, n + 1) for c in range(1, n + 1)}
    for i in range(1, n + 1):
        m.AddAllDifferent([x[i, c] for c in range(1, n + 1)])
        m.AddAllDifferent([x[r, i] for r in range(1, n + 1)])
    for cage in puzzle["cages"]:
        op, t = cage["op"], cage["target"]
        vs = [x[r, c] for r, c in cage["cells"]]
        if op == "=":
            m.Add(vs[0] == t)
        elif op == "+":
            m.Add(sum(vs) == t)
        elif op == "*":
            m.AddMultiplicationEquality(t, vs)
        elif op == "-":
            m.AddAbsEquality(t, vs[0] - vs[1])
        elif op == "/":
            b = m.NewBoolVar("")
            m.Add(vs[0] == t * vs[1]).OnlyEnforceIf(b)
            m.Add(vs[1] == t * vs[0]).OnlyEnforceIf(b.Not())
        else:
            raise ValueError(f"operator {op!r}")

    class Two(cp_model.CpSolverSolutionCallback):
        def __init__(self):
            super().__init__()
            self.count = 0

        def on_solution_callback(self):
            self.count += 1
            if self.count >= 2:
                self.StopSearch()

    s = cp_model.CpSolver()
    s.parameters.num_workers = workers
    s.parameters.max_time_in_seconds = limit
    s.parameters.enumerate_all_solutions = True
    cb = Two()
    start = time.perf_counter()
    status = s.Solve(m, cb)
    elapsed = time.perf_counter() - start
    resolved = cb.count >= 2 or (status in (cp_model.OPTIMAL, cp_model.INFEASIBLE))
    return resolved, elapsed, cb.count


def summary(times, resolved, limit, within):
    """Resolved count, count resolved within `within` s, median, 90th percentile, maximum."""
    ts = sorted(t if ok else limit for t, ok in zip(times, resolved))
    fast = sum(ok and t <= within for t, ok in zip(times, resolved))
    p90 = ts[min(len(ts) - 1, -(-9 * len(ts) // 10) - 1)]
    return sum(resolved), fast, statistics.median(ts), p90, ts[-1]


def fmt(secs):
    if secs < 1e-3:
        return f"{secs * 1e6:.0f} us"
    if secs < 1:
        return f"{secs * 1e3:.2g} ms" if secs < 0.01 else f"{secs * 1e3:.0f} ms"
    return f"{secs:.2f} s"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="12,16,20,25,30")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per puzzle and solver")
    ap.add_argument("--cpsat-timeout", type=float, help="CP-SAT's own limit (default: --timeout)")
    ap.add_argument("--within", type=float, default=10.0, help="seconds: count the puzzles resolved "
                    "within this (default 10)")
    ap.add_argument("--threads", type=int, default=1, help="threads the native solver may use "
                    "per puzzle (default 1; 2 lets a long search go on as two sharing clauses)")
    ap.add_argument("--workers", type=int, help="CP-SAT's workers (default: --threads)")
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--json", help="also write every measurement to this file")
    ap.add_argument("--cpsat-cache", help="JSON lines of CP-SAT results: read (same puzzle and limit "
                    "are not solved again) and appended to")
    ap.add_argument("--cpsat-only", action="store_true", help="fill the cache, no native run")
    a = ap.parse_args()
    cp_limit = a.cpsat_timeout or a.timeout
    workers = a.workers or a.threads
    if not a.no_build:
        subprocess.run(
            ["cargo", "build", "--release", "--example", "random_puzzles", "--example", "native_times"],
            cwd=ROOT,
            check=True,
        )
    cache = {}
    if a.cpsat_cache and os.path.exists(a.cpsat_cache):
        with open(a.cpsat_cache) as f:
            for line in f:
                r = json.loads(line)
                cache[r["name"], r["limit"], r.get("workers", 1)] = r
    rows, records = [], []
    for n in [int(s) for s in a.sizes.split(",")]:
        common = [str(n), "--seed", str(a.seed), "--count", str(a.count)]
        puzzles = run_example("random_puzzles", common)
        cp = []
        for p in puzzles:
            hit = cache.get((p["name"], cp_limit, workers))
            if hit is None:
                ok, secs, found = cpsat_solve(p, cp_limit, workers)
                hit = {"name": p["name"], "limit": cp_limit, "workers": workers, "resolved": ok,
                       "secs": secs, "found": found}
                if a.cpsat_cache:
                    with open(a.cpsat_cache, "a") as f:
                        f.write(json.dumps(hit) + "\n")
            cp.append((hit["resolved"], hit["secs"]))
            print(f"{p['name']}: cp-sat {'ok' if hit['resolved'] else 'unresolved'} "
                  f"{hit['secs']:.3f} s ({hit['found']} found)", file=sys.stderr)
        if a.cpsat_only:
            continue
        native = run_example("native_times", common + ["--timeout", str(a.timeout),
                                                        "--threads", str(a.threads)])
        assert [p["name"] for p in puzzles] == [r["name"] for r in native], "different puzzles"
        for p, r, (ok, secs) in zip(puzzles, native, cp):
            records.append({"name": p["name"], "size": n, "native": r,
                            "cpsat": {"resolved": ok, "secs": secs}})
        nat = summary([r["secs"] for r in native],
                      [r["status"] in ("unique", "two", "none") for r in native], a.timeout,
                      a.within)
        sat = summary([s for _, s in cp], [ok for ok, _ in cp], cp_limit, a.within)
        rows.append((n, len(puzzles), nat, sat))
    print(f"\nSeed {a.seed}, {a.count} puzzles per size, two solutions asked; "
          f"limit {a.timeout:g} s native ({a.threads} thread{'s' if a.threads > 1 else ''}), "
          f"{cp_limit:g} s CP-SAT ({workers} worker{'s' if workers > 1 else ''}).\n")
    w = f"{a.within:g} s"
    print(f"| n | native: resolved, within {w}; median / p90 / max "
          f"| CP-SAT: resolved, within {w}; median / p90 / max | CP-SAT / native, median | max |")
    print("|---|---|---|---|---|")
    for n, k, (nr, nf, nmed, n90, nmax), (sr, sf, smed, s90, smax) in rows:
        print(f"| {n} | {nr}/{k}, {nf}/{k}; {fmt(nmed)} / {fmt(n90)} / {fmt(nmax)} "
              f"| {sr}/{k}, {sf}/{k}; {fmt(smed)} / {fmt(s90)} / {fmt(smax)} "
              f"| {smed / max(nmed, 1e-9):.0f}x | {smax / max(nmax, 1e-9):.1f}x |")
    if a.json:
        with open(a.json, "w") as f:
            for rec in records:
                f.write(json.dumps(rec) + "\n")


if __name__ == "__main__":
    main()
