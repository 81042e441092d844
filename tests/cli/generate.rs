//! The generator: uniqueness proved by a brute-force counter of this file's own (no code shared
//! with `src/`), valid solutions, grades, reproducibility from the seed, `--ops`, `--max-cage`,
//! and `kenken generate` on the command line.

use kenken::format;
use kenken::generate::{generate, puzzle_seed, Options};
use kenken::logic::{grade, Grade, Level};
use kenken::puzzle::{Op, Puzzle};
use serde_json::Value;

use crate::common::kenken;

/// Whether `values` meet a cage, written independently of the crate: `-` and `/` take the
/// largest value and subtract or divide the others in turn.
fn cage_holds(op: Op, target: u64, values: &[u64]) -> bool {
    let max = *values.iter().max().unwrap();
    match op {
        Op::Add => values.iter().sum::<u64>() == target,
        Op::Mul => values.iter().product::<u64>() == target,
        Op::Sub => {
            values.len() >= 2
                && max as i64 - (values.iter().sum::<u64>() - max) as i64 == target as i64
        }
        Op::Div => {
            let rest: u64 = values.iter().product::<u64>() / max;
            values.len() >= 2 && max.is_multiple_of(rest) && max / rest == target
        }
        Op::Given => values.len() == 1 && values[0] == target,
        Op::Unknown => [Op::Add, Op::Sub, Op::Mul, Op::Div]
            .into_iter()
            .any(|o| cage_holds(o, target, values)),
    }
}

/// Counts the solutions of `p` up to `limit` by trying every Latin square, row by row and cell
/// by cell, checking each cage once its last cell is filled.
fn brute_count(p: &Puzzle, limit: usize) -> usize {
    let n = p.size;
    let mut last_of = vec![Vec::new(); n * n];
    for (k, cage) in p.cages.iter().enumerate() {
        let last = cage
            .cells
            .iter()
            .map(|c| (c.row - 1) * n + c.col - 1)
            .max()
            .unwrap();
        last_of[last].push(k);
    }
    let mut grid = vec![0u64; n * n];
    let mut count = 0;
    fill(p, &last_of, &mut grid, 0, limit, &mut count);
    count
}

fn fill(
    p: &Puzzle,
    last_of: &[Vec<usize>],
    grid: &mut [u64],
    i: usize,
    limit: usize,
    count: &mut usize,
) {
    let n = p.size;
    if *count >= limit {
        return;
    }
    if i == n * n {
        *count += 1;
        return;
    }
    let (r, c) = (i / n, i % n);
    for v in 1..=n as u64 {
        if (0..c).any(|j| grid[r * n + j] == v) || (0..r).any(|j| grid[j * n + c] == v) {
            continue;
        }
        grid[i] = v;
        let ok = last_of[i].iter().all(|&k| {
            let cage = &p.cages[k];
            let vals: Vec<u64> = cage
                .cells
                .iter()
                .map(|c| grid[(c.row - 1) * n + c.col - 1])
                .collect();
            cage_holds(cage.op, cage.target, &vals)
        });
        if ok {
            fill(p, last_of, grid, i + 1, limit, count);
        }
    }
    grid[i] = 0;
}

/// Whether the cells of a cage are orthogonally connected.
fn connected(cells: &[(usize, usize)]) -> bool {
    let mut seen = vec![cells[0]];
    let mut grew = true;
    while grew {
        grew = false;
        for &c in cells {
            if !seen.contains(&c)
                && seen
                    .iter()
                    .any(|s| s.0.abs_diff(c.0) + s.1.abs_diff(c.1) == 1)
            {
                seen.push(c);
                grew = true;
            }
        }
    }
    seen.len() == cells.len()
}

#[test]
fn small_puzzles_have_exactly_one_solution_by_brute_force() {
    for n in 1..=5 {
        let hardest = match n {
            1 | 2 => 1,
            3 => 2,
            _ => 5,
        };
        for &level in &Level::ALL[..hardest] {
            for seed in 0..3 {
                let mut opts = Options::new(n, level);
                opts.singletons = n == 2;
                let g = generate(&opts, seed, None).unwrap();
                let p = &g.puzzle;
                assert_eq!(brute_count(p, 2), 1, "{n}x{n} {level} seed {seed}: {p:?}");
                // The solution given is a Latin square meeting every cage.
                let flat: Vec<u64> = g.solution.iter().flatten().map(|&v| u64::from(v)).collect();
                for cage in &p.cages {
                    let vals: Vec<u64> = cage
                        .cells
                        .iter()
                        .map(|c| flat[(c.row - 1) * n + c.col - 1])
                        .collect();
                    assert!(cage_holds(cage.op, cage.target, &vals));
                    let cells: Vec<(usize, usize)> =
                        cage.cells.iter().map(|c| (c.row, c.col)).collect();
                    assert!(connected(&cells), "{cells:?}");
                }
                for i in 0..n {
                    let mut row: Vec<u32> = g.solution[i].clone();
                    let mut col: Vec<u32> = (0..n).map(|j| g.solution[j][i]).collect();
                    row.sort_unstable();
                    col.sort_unstable();
                    assert_eq!(row, (1..=n as u32).collect::<Vec<_>>());
                    assert_eq!(col, row);
                }
            }
        }
    }
}

#[test]
fn puzzles_have_the_grade_asked_for() {
    for n in [4, 6, 7] {
        for level in Level::ALL {
            let g = generate(&Options::new(n, level), 11, None).unwrap();
            assert_eq!(g.grade, level);
            let graded = grade(&g.puzzle, None).unwrap();
            assert_eq!(graded.verdict, Grade::Graded(level), "{n}x{n} {level}");
            assert_eq!(graded.solution.as_ref(), Some(&g.solution));
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_puzzle() {
    let opts = Options::new(7, Level::Hard);
    let a = generate(&opts, 99, None).unwrap();
    let b = generate(&opts, 99, None).unwrap();
    assert_eq!(a, b);
    let c = generate(&opts, 100, None).unwrap();
    assert_ne!(a.puzzle, c.puzzle);
    assert_eq!(puzzle_seed(99, 0), 99);
}

#[test]
fn ops_and_max_cage_are_respected() {
    let mut opts = Options::new(6, Level::Easy);
    opts.ops = vec![Op::Add];
    opts.singletons = true;
    for seed in 0..4 {
        let g = generate(&opts, seed, None).unwrap();
        assert!(g
            .puzzle
            .cages
            .iter()
            .all(|c| c.op == Op::Add || c.op == Op::Given && c.cells.len() == 1));
    }
    let mut opts = Options::new(6, Level::Normal);
    opts.ops = vec![Op::Mul, Op::Div];
    opts.max_cage = 3;
    for seed in 0..4 {
        let g = generate(&opts, seed, None).unwrap();
        for c in &g.puzzle.cages {
            assert!(matches!(c.op, Op::Mul | Op::Div), "{c:?}");
            assert!((2..=3).contains(&c.cells.len()), "{c:?}");
        }
    }
}

/// Runs `kenken` with the words of `args`; its standard output, after success.
fn stdout_of(args: &str) -> Vec<u8> {
    kenken()
        .args(args.split_whitespace())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone()
}

fn json_lines(out: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn cli_json_is_reproducible_and_each_seed_remakes_its_puzzle() {
    let args = "generate --size 6 --difficulty hard --seed 5 --count 3 --output json";
    let first = stdout_of(args);
    let second = stdout_of(args);
    assert_eq!(first, second);
    let objs = json_lines(&first);
    assert_eq!(objs.len(), 3);
    for obj in &objs {
        assert_eq!(obj["grade"], "hard");
        assert_eq!(obj["size"], 6);
        assert_eq!(obj["solution"].as_array().unwrap().len(), 6);
        let seed = obj["seed"].as_u64().unwrap();
        let again = stdout_of(&format!(
            "generate --size 6 --difficulty hard --seed {seed} --output json"
        ));
        assert_eq!(&json_lines(&again)[0], obj);
        // The puzzle reads back, and its solution is the one given.
        let p = &format::read_auto(&obj.to_string()).unwrap()[0];
        let g = grade(p, None).unwrap();
        let sol: Vec<Vec<u32>> = serde_json::from_value(obj["solution"].clone()).unwrap();
        assert_eq!(g.solution, Some(sol));
    }
}

#[test]
fn cli_ops_and_outputs() {
    let out = stdout_of("generate --size 5 --ops + --singletons --seed 2 --count 4 --output json");
    for obj in json_lines(&out) {
        for cage in obj["cages"].as_array().unwrap() {
            let op = cage["op"].as_str().unwrap();
            assert!(
                op == "+" || op == "=" && cage["cells"].as_array().unwrap().len() == 1,
                "{cage}"
            );
        }
    }
    // An operator list starting with '-' is a value, not an option.
    for obj in json_lines(&stdout_of(
        "generate --size 5 --ops -* --seed 3 --count 3 --output json",
    )) {
        for cage in obj["cages"].as_array().unwrap() {
            assert!(["-", "*"].contains(&cage["op"].as_str().unwrap()), "{cage}");
        }
    }
    for output in ["grid", "prolog", "text", "keen"] {
        kenken()
            .args(["generate", "--size", "4", "--seed", "1", "--output", output])
            .assert()
            .success();
    }
}

#[test]
fn cli_exit_codes() {
    // Bad usage: exit 2.
    kenken().args(["generate", "--size", "0"]).assert().code(2);
    kenken().args(["generate", "--size", "2"]).assert().code(2);
    kenken()
        .args(["generate", "--size", "4", "--ops", "%"])
        .assert()
        .code(2);
    kenken()
        .args(["generate", "--size", "3", "--difficulty", "extreme"])
        .assert()
        .code(2);
    kenken()
        .args(["generate", "--size", "4", "--max-cage", "1"])
        .assert()
        .code(2);
    // A limit reached: exit 3.
    kenken()
        .args([
            "generate",
            "--size",
            "16",
            "--difficulty",
            "extreme",
            "--timeout",
            "0.001",
        ])
        .assert()
        .code(3);
}
