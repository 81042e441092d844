//! Every shipped puzzle reads, Keen IDs decode to the cages given, and round trips hold.

use crate::common;

use kenken::format::{self, canonical, Notation};
use kenken::puzzle::{Cage, Cell, Op, Puzzle};
use proptest::prelude::*;

#[test]
fn every_shipped_puzzle_reads_and_validates() {
    let files = common::all_files();
    assert!(files.len() >= 30);
    let mut n = 0;
    for (name, puzzles) in files {
        for e in puzzles {
            let p = &e.puzzle;
            assert!(p.check().is_ok(), "{name}: {:?}", p.validate());
            if let Some(s) = &e.expected.solution {
                assert!(p.is_solution(s), "{name}: given solution does not check");
            }
            n += 1;
        }
    }
    assert!(n >= 650, "{n}");
}

#[test]
fn keen_ids_decode_to_the_cages_given() {
    for (name, puzzles) in common::all_files() {
        if !name.contains("/keen/") {
            continue;
        }
        let text = std::fs::read_to_string(&name).unwrap();
        for (line, p) in text.lines().zip(puzzles) {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let id = v["id"].as_str().unwrap();
            let decoded = format::keen::read_id(id, 1).unwrap();
            assert_eq!(decoded.cages, p.puzzle.cages, "{name}: {id}");
        }
    }
}

fn round_trip(p: &Puzzle, notation: Notation) -> Result<Puzzle, format::FormatError> {
    let text = format::write(std::slice::from_ref(p), notation)?;
    let back = format::read(&text, notation).unwrap_or_else(|e| panic!("{notation}: {e}\n{text}"));
    assert_eq!(back.len(), 1);
    assert_eq!(format::detect(&text), notation, "{text}");
    Ok(back.into_iter().next().unwrap())
}

#[test]
fn shipped_puzzles_round_trip_in_every_notation() {
    for (name, puzzles) in common::all_files() {
        for e in puzzles {
            let p = e.puzzle;
            for notation in Notation::ALL {
                match round_trip(&p, notation) {
                    Ok(back) => {
                        assert_eq!(canonical(&back), canonical(&p), "{name} via {notation}");
                    }
                    Err(e) => {
                        assert_eq!(notation, Notation::Keen, "{name}: {e}");
                        assert!(
                            p.cages.iter().any(|c| c.op == Op::Unknown
                                || (matches!(c.op, Op::Sub | Op::Div) && c.cells.len() > 2)),
                            "{name}: {e}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn keen_says_plainly_what_it_cannot_hold() {
    let p = Puzzle::new(
        2,
        vec![Cage::new(
            Op::Unknown,
            3,
            vec![Cell::new(1, 1), Cell::new(1, 2)],
        )],
    );
    let e = format::write(&[p], Notation::Keen).unwrap_err().to_string();
    assert!(
        e.contains("keen notation cannot hold") && e.contains("'?'"),
        "{e}"
    );
}

#[test]
fn invalid_puzzles_name_cage_and_cell() {
    let c = Cell::new;
    let cases: Vec<(Puzzle, &str)> = vec![
        (
            Puzzle::new(
                2,
                vec![
                    Cage::new(Op::Add, 3, vec![c(1, 1), c(1, 3)]),
                    Cage::new(Op::Add, 3, vec![c(1, 2), c(2, 1), c(2, 2)]),
                ],
            ),
            "cage 1 (3+ at A1 A3): cell A3 [1|3] is outside the 2x2 grid",
        ),
        (
            Puzzle::new(
                2,
                vec![
                    Cage::new(Op::Add, 3, vec![c(1, 1), c(1, 2)]),
                    Cage::new(Op::Add, 3, vec![c(1, 2), c(2, 1), c(2, 2)]),
                ],
            ),
            "cell A2 is in two cages: cage 1 (3+ at A1 A2) and cage 2 (3+ at A2 B1 B2)",
        ),
        (
            Puzzle::new(
                2,
                vec![Cage::new(Op::Add, 6, vec![c(1, 1), c(1, 2), c(2, 1)])],
            ),
            "cell B2 [2|2] is in no cage",
        ),
        (
            Puzzle::new(
                2,
                vec![
                    Cage::new(Op::Add, 6, vec![]),
                    Cage::new(Op::Add, 6, vec![c(1, 1), c(1, 2), c(2, 1), c(2, 2)]),
                ],
            ),
            "cage 1 has no cells",
        ),
        (
            Puzzle::new(
                2,
                vec![
                    Cage::new(Op::Given, 3, vec![c(1, 1), c(1, 2)]),
                    Cage::new(Op::Add, 3, vec![c(2, 1), c(2, 2)]),
                ],
            ),
            "cage 1 (3 at A1 A2): a '=' cage holds exactly one cell, this one has 2",
        ),
        (
            Puzzle::new(
                2,
                vec![
                    Cage::new(Op::Mul, 7, vec![c(1, 1), c(1, 2)]),
                    Cage::new(Op::Add, 3, vec![c(2, 1), c(2, 2)]),
                ],
            ),
            "cage 1 (7* at A1 A2): no 2 values in 1..2 make 7 under '*'",
        ),
        (Puzzle::new(65, vec![]), "grid size 65 is out of range"),
        (
            Puzzle::new(
                2,
                vec![
                    Cage::new(Op::Sub, 1, vec![c(1, 1)]),
                    Cage::new(Op::Add, 5, vec![c(1, 2), c(2, 1), c(2, 2)]),
                ],
            ),
            "cage 1 (1- at A1): a '-' cage needs at least 2 cells",
        ),
        (
            Puzzle::new(
                64,
                vec![Cage::new(
                    Op::Mul,
                    u64::MAX,
                    (1..=64).map(|j| c(1, j)).collect(),
                )],
            ),
            "make 18446744073709551615 under '*'",
        ),
    ];
    for (p, expected) in cases {
        let msgs: Vec<String> = p.validate().iter().map(|x| x.message.clone()).collect();
        assert!(
            msgs.iter().any(|m| m.contains(expected)),
            "expected {expected:?} in {msgs:?}"
        );
    }
    // Disconnected cages are a warning, not an error.
    let p = Puzzle::new(
        2,
        vec![
            Cage::new(Op::Add, 3, vec![c(1, 1), c(2, 2)]),
            Cage::new(Op::Add, 3, vec![c(1, 2), c(2, 1)]),
        ],
    );
    assert!(p.check().is_ok());
    assert!(p.validate()[0].message.contains("not connected"));
}

fn arb_puzzle() -> impl Strategy<Value = Puzzle> {
    (1usize..7)
        .prop_flat_map(|n| {
            let cells = n * n;
            (
                Just(n),
                proptest::collection::vec(0usize..cells, cells),
                proptest::collection::vec((0usize..6, 0u64..500), cells),
            )
        })
        .prop_map(|(n, assign, ops)| {
            // Group cells by a random label into cages (not necessarily connected).
            let mut cages: Vec<Cage> = Vec::new();
            let mut index = std::collections::BTreeMap::new();
            for (cell, &label) in assign.iter().enumerate() {
                let k = *index.entry(label).or_insert_with(|| {
                    let (o, t) = ops[label];
                    let op = [Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Unknown, Op::Given][o];
                    cages.push(Cage::new(op, t, vec![]));
                    cages.len() - 1
                });
                cages[k].cells.push(Cell::new(cell / n + 1, cell % n + 1));
            }
            Puzzle::new(n, cages)
        })
}

proptest! {
    #[test]
    fn random_puzzles_round_trip(p in arb_puzzle()) {
        for notation in Notation::ALL {
            if let Ok(back) = round_trip(&p, notation) {
                prop_assert_eq!(canonical(&back), canonical(&p), "{}", notation);
            }
        }
    }

    #[test]
    fn readers_never_panic_on_arbitrary_text(s in "\\PC{0,200}") {
        for notation in Notation::ALL {
            let _ = format::read(&s, notation);
        }
        let _ = format::read_auto(&s);
    }

    #[test]
    fn readers_never_panic_on_mutated_files(pos in 0usize..2000, byte in 0u8..128, which in 0usize..4) {
        let texts = [
            std::fs::read_to_string(common::data("keen/keen-6dx.jsonl")).unwrap(),
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/spec-6x6.pl")).unwrap(),
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/seed-003-noop.txt")).unwrap(),
            "6dx:_a_3a_3a_a_aa_a_a__4a_aaa_3a,a7m30d2s2a5m15d3m5s2s1s1m24a9s1a6d2".to_string(),
        ];
        let mut bytes = texts[which].clone().into_bytes();
        let i = pos % bytes.len().max(1);
        bytes[i] = byte;
        if let Ok(s) = String::from_utf8(bytes) {
            for p in format::read_auto(&s).unwrap_or_default() {
                let _ = p.validate();
                let _ = kenken::render::render(&p, None, Default::default());
                for notation in Notation::ALL {
                    let _ = format::write(std::slice::from_ref(&p), notation);
                }
            }
        }
    }
}

#[test]
fn examples_agree_across_notations() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/");
    for (base, exts) in [
        ("spec-6x6", &["pl", "txt", "keen", "jsonl"][..]),
        ("spec-4x4", &["pl", "txt", "keen", "jsonl"][..]),
        ("seed-003-noop", &["pl", "txt", "jsonl"][..]),
    ] {
        let read = |ext: &str| {
            let text = std::fs::read_to_string(format!("{dir}{base}.{ext}")).unwrap();
            canonical(&format::read_auto(&text).unwrap()[0])
        };
        let first = read(exts[0]);
        for ext in &exts[1..] {
            assert_eq!(read(ext), first, "{base}.{ext}");
        }
    }
}

/// `str::parse::<Puzzle>()` tells one story: syntax (and sizes past the limit) as a syntax
/// error with its line, everything else that makes a puzzle invalid as `Invalid`, naming the
/// cage and square; only a valid puzzle comes back.
#[test]
fn parse_gives_only_valid_puzzles_and_says_why_not() {
    use kenken::format::FormatError;
    use kenken::Puzzle;
    let invalid = |text: &str| match text.parse::<Puzzle>() {
        Err(FormatError::Invalid(e)) => e.to_string(),
        other => panic!("{text}: {other:?}"),
    };
    assert!(invalid("kenken(0, [], T).").contains("grid size 0"));
    let outside = invalid("kenken(2, [+(3, [[0|1], [1|2]])], T).");
    assert!(outside.contains("[0|1]"), "{outside}");
    let overlap = invalid("kenken(2, [+(3, [[1|1], [1|2]]), +(3, [[1|1], [2|1]])], T).");
    assert!(overlap.contains("cage 2"), "{overlap}");
    match "kenken(100, [], T).".parse::<Puzzle>() {
        Err(FormatError::Syntax { line: 1, .. }) => {}
        other => panic!("{other:?}"),
    }
    let p: Puzzle = "kenken(2, [+(3, [[1|1], [1|2]]), +(3, [[2|1], [2|2]])], T)."
        .parse()
        .unwrap();
    assert_eq!(p.size, 2);
}
