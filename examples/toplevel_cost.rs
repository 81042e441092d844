//! scratch: runs top-level goals in this process's engine, one per line of stdin.
use kenken::prolog::toplevel::{Mode, Toplevel};
use std::io::BufRead;

fn main() {
    kenken::worker::init();
    let no_kenken = std::env::args().nth(1).is_some_and(|a| a == "--no-kenken");
    let mut top = Toplevel::new(no_kenken);
    eprintln!("@ready");
    for a in std::io::stdin().lock().lines() {
        let a = a.unwrap();
        match a.as_str() {
            "@state" => {
                let s = top.state().unwrap();
                eprintln!("state: {} bytes", s.len());
            }
            "@names" => {
                let n = top.names().unwrap();
                eprintln!("names: {}", n.len());
            }
            g => {
                let (mode, g) = match g.strip_prefix("@ask ") {
                    Some(g) => (Mode::Ask, g),
                    None => (Mode::Batch(1000), g),
                };
                let r = top.run(g, &mode).unwrap();
                eprintln!("{g} -> {r:?}");
            }
        }
        eprintln!("@done");
    }
}
