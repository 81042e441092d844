//! JUnit XML for CI systems: a `testsuite` per judged file, a `testcase` per case (named by the
//! case, in a class named by the predicate), a `failure` (or an `error` for an exception, a
//! halt or a crash, a `skipped` for a timeout on a larger grid or a skip) with the verdict and
//! why; the form check is a test case of its own, and a file that cannot be loaded is one
//! failing `load` test case. The seed and the smallest failing puzzle are in `system-out`.

use super::{again, xml_text, Judged, FORM_CHECK};
use crate::judge::Verdict;

/// The JUnit XML document of `files`.
pub fn document(files: &[Judged]) -> String {
    let mut suites = String::new();
    let mut totals = [0usize; 4]; // tests, failures, errors, skipped
    let mut time = 0.0;
    for f in files {
        let (body, counts, elapsed) = suite(f);
        for (t, c) in totals.iter_mut().zip(counts) {
            *t += c;
        }
        time += elapsed;
        suites.push_str(&body);
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"kenken judge\" \
         tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{time:.3}\">\n{suites}\
         </testsuites>\n",
        totals[0], totals[1], totals[2], totals[3]
    )
}

/// One file's `testsuite`, its counts (tests, failures, errors, skipped) and time.
fn suite(f: &Judged) -> (String, [usize; 4], f64) {
    let name = xml_text(f.file);
    let mut cases = String::new();
    let mut counts = [0usize; 4];
    let mut out = String::new();
    let elapsed;
    match f.result {
        Err(e) => {
            elapsed = 0.0;
            counts[0] = 1;
            counts[1] = 1;
            cases.push_str(&format!(
                "    <testcase classname=\"{name}\" name=\"load\" time=\"0\">\n      <failure \
                 message=\"{}\" type=\"load\"/>\n    </testcase>\n",
                xml_text(&e.to_string())
            ));
        }
        Ok(j) => {
            elapsed = j.elapsed_s;
            out.push_str(&j.summary());
            out.push('\n');
            out.push_str(&again(j));
            out.push('\n');
            if let Some(c) = f.counterexample {
                out.push('\n');
                out.push_str(&c.text());
            }
            for c in &j.cases {
                counts[0] += 1;
                let time = c.elapsed_ms.unwrap_or(0.0) / 1000.0;
                let what = match c.verdict {
                    Verdict::Pass => None,
                    Verdict::Timeout | Verdict::Skipped => Some("skipped"),
                    Verdict::Error | Verdict::Halted | Verdict::Crashed => Some("error"),
                    _ => Some("failure"),
                };
                let head = format!(
                    "    <testcase classname=\"{name}.{}/3\" name=\"{}\" time=\"{time:.3}\"",
                    c.predicate,
                    xml_text(&c.case)
                );
                // (a verdict that proves less than it says: where the FD solver stays reachable)
                let caveat = c.caveat.as_deref().map_or_else(String::new, |k| {
                    format!("      <system-out>{}</system-out>\n", xml_text(k))
                });
                let Some(what) = what else {
                    if caveat.is_empty() {
                        cases.push_str(&format!("{head}/>\n"));
                    } else {
                        cases.push_str(&format!("{head}>\n{caveat}    </testcase>\n"));
                    }
                    continue;
                };
                counts[match what {
                    "failure" => 1,
                    "error" => 2,
                    _ => 3,
                }] += 1;
                let message = xml_text(&format!("{}: {}", c.verdict, c.detail));
                let mut body = format!("?- {}.\n{}\n", c.goal, c.detail);
                if let Some(x) = f
                    .counterexample
                    .filter(|x| x.from_case == c.case && x.predicate == c.predicate)
                {
                    body.push('\n');
                    body.push_str(&x.text());
                }
                if what == "skipped" {
                    cases.push_str(&format!(
                        "{head}>\n      <skipped message=\"{message}\"/>\n{caveat}    \
                         </testcase>\n"
                    ));
                } else {
                    cases.push_str(&format!(
                        "{head}>\n      <{what} message=\"{message}\" type=\"{}\">{}</{what}>\n\
                         {caveat}    </testcase>\n",
                        c.verdict,
                        xml_text(&body)
                    ));
                }
            }
            if let Some(form) = &j.form {
                counts[0] += 1;
                let head = format!(
                    "    <testcase classname=\"{name}.plain_kenken/3\" name=\"{FORM_CHECK}\" \
                     time=\"0\""
                );
                if form.passed {
                    cases.push_str(&format!("{head}/>\n"));
                } else {
                    counts[1] += 1;
                    cases.push_str(&format!(
                        "{head}>\n      <failure message=\"{}\" type=\"form\"/>\n    \
                         </testcase>\n",
                        xml_text(&form.detail)
                    ));
                }
            }
        }
    }
    let body = format!(
        "  <testsuite name=\"{name}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" \
         time=\"{elapsed:.3}\">\n{}{cases}    <system-out>{}</system-out>\n  </testsuite>\n",
        counts[0],
        counts[1],
        counts[2],
        counts[3],
        properties(f),
        xml_text(&out)
    );
    (body, counts, elapsed)
}

/// The run's properties: the seed, the suite, the Prolog system.
fn properties(f: &Judged) -> String {
    let Ok(j) = f.result else {
        return String::new();
    };
    let mut p = vec![
        ("suite", j.suite.clone()),
        ("prolog", j.system.name().to_string()),
        ("dialect", j.dialect.name().to_string()),
    ];
    if let Some(seed) = j.seed {
        p.push(("seed", seed.to_string()));
    }
    let lines: Vec<String> = p
        .into_iter()
        .map(|(k, v)| {
            format!(
                "      <property name=\"{k}\" value=\"{}\"/>\n",
                xml_text(&v)
            )
        })
        .collect();
    format!("    <properties>\n{}    </properties>\n", lines.concat())
}
