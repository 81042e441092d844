//! The command that judges a file again: every option that chose its cases and how it ran,
//! and the file's path written for a POSIX shell, so that pasting the command judges that file
//! and runs nothing else, whatever the file is named.

use std::ffi::{OsStr, OsString};
use std::path::Path;

use crate::judge::{size_text, Config, Suite, System};
use crate::process::Limits;
use crate::prolog::Predicate;

/// `arg` as one word of a POSIX shell (`sh`, `dash`, `bash`...), to be pasted: as it is when
/// it holds only characters no shell reads specially (`ann/kenken.pl`); else in single quotes
/// (`'eve'\''s file.pl'`, `'…/$(touch pwned).pl'`: nothing in them is run); and when it holds
/// a byte a reader cannot see or that is not UTF-8 text (a control, a zero-width space, a
/// right-to-left mark, `\xff`), as `"$(printf '…')"` with that byte written in octal, so that
/// the command reads plainly and means the same bytes. (A name ending in a line break loses it
/// that way: the shell drops the last line breaks of a `$(…)`.)
pub fn shell_word(arg: &OsStr) -> String {
    use std::os::unix::ffi::OsStrExt;
    let bytes = arg.as_bytes();
    let plain = |b: &u8| b.is_ascii_alphanumeric() || b"_@%+=:,./-".contains(b);
    if !bytes.is_empty() && bytes.iter().all(plain) {
        return String::from_utf8_lossy(bytes).into_owned();
    }
    let text = std::str::from_utf8(bytes).ok();
    let readable = text.is_some_and(|t| {
        t.chars()
            .all(|c| !c.is_control() && !crate::judge::invisible(c))
    });
    match text {
        Some(t) if readable => format!("'{}'", t.replace('\'', "'\\''")),
        _ => {
            let mut format = String::new();
            for &b in bytes {
                match b {
                    b'\\' => format.push_str("\\\\"),
                    b'%' => format.push_str("%%"),
                    b'\'' => format.push_str("\\047"),
                    b' '..=b'~' => format.push(b as char),
                    b => format.push_str(&format!("\\{b:03o}")),
                }
            }
            format!("\"$(printf '{format}')\"")
        }
    }
}

/// The arguments of `kenken judge` that judge `file` again as `config` did, under `system`
/// (the one it ran under): `--prolog` and `--dialect` (how it ran), the suite (`suite`, as
/// given: `spec`, `standard` or a puzzle file), `--max-size`, `--predicates` and `--only` (the
/// cases), `--timeout`, `--memory`, `--scratch` (its limits, when not the default), `--read`
/// (what it could read), the seed of the random puzzles, last, and `--no-confine`.
pub fn rerun_args(file: &Path, config: &Config, suite: &str, system: System) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec!["kenken".into(), "judge".into()];
    // (a relative path that starts with '-' would read as an option)
    if file.is_relative() && file.as_os_str().as_encoded_bytes().starts_with(b"-") {
        args.push(Path::new(".").join(file).into_os_string());
    } else {
        args.push(file.as_os_str().to_os_string());
    }
    let mut option = |name: &str, value: OsString| {
        args.push(name.into());
        args.push(value);
    };
    option("--prolog", system.name().into());
    if let Some(d) = config.dialect {
        option("--dialect", d.name().into());
    }
    if suite != "standard" {
        option("--suite", suite.into());
    }
    if let Some(n) = config.max_size {
        option("--max-size", n.to_string().into());
    }
    if config.predicates != [Predicate::Fd, Predicate::Plain] {
        let names: Vec<&str> = config.predicates.iter().map(|p| p.name()).collect();
        option("--predicates", names.join(",").into());
    }
    for text in &config.only {
        option("--only", text.into());
    }
    if config.timeout != Config::default().timeout {
        option("--timeout", config.timeout.as_secs_f64().to_string().into());
    }
    let defaults = Limits::default();
    if config.memory != defaults.memory {
        option("--memory", size_text(config.memory).replace(' ', "").into());
    }
    if config.scratch != defaults.scratch {
        option(
            "--scratch",
            size_text(config.scratch).replace(' ', "").into(),
        );
    }
    for p in &config.read {
        option("--read", p.as_os_str().to_os_string());
    }
    if let (Suite::Standard, Some(seed)) = (&config.suite, config.seed) {
        option("--seed", seed.to_string().into());
    }
    if !config.confine {
        args.push("--no-confine".into());
    }
    args
}

/// [`rerun_args`] as one line to paste into a POSIX shell ([`shell_word`] each).
pub fn rerun_command(file: &Path, config: &Config, suite: &str, system: System) -> String {
    rerun_args(file, config, suite, system)
        .iter()
        .map(|a| shell_word(a))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStrExt;

    fn word(bytes: &[u8]) -> String {
        shell_word(OsStr::from_bytes(bytes))
    }

    #[test]
    fn a_word_means_its_bytes_and_runs_nothing() {
        assert_eq!(word(b"class/ann/kenken.pl"), "class/ann/kenken.pl");
        assert_eq!(word(b"a b.pl"), "'a b.pl'");
        assert_eq!(word(b"/x/$(touch pwned).pl"), "'/x/$(touch pwned).pl'");
        assert_eq!(word(b"eve's.pl"), "'eve'\\''s.pl'");
        assert_eq!(word(b"`id`;rm -rf ~"), "'`id`;rm -rf ~'");
        assert_eq!(word("é.pl".as_bytes()), "'é.pl'");
        assert_eq!(word(b""), "''");
        // what cannot be seen, or is no text: printf's octal escapes
        assert_eq!(
            word("ann\u{200b}.pl".as_bytes()),
            "\"$(printf 'ann\\342\\200\\213.pl')\""
        );
        assert_eq!(
            word(b"a\xff'%\\.pl"),
            "\"$(printf 'a\\377\\047%%\\\\.pl')\""
        );
        assert_eq!(word(b"two\nlines.pl"), "\"$(printf 'two\\012lines.pl')\"");
    }

    #[test]
    fn every_option_that_chose_the_cases_is_kept() {
        let config = Config {
            predicates: vec![Predicate::Plain],
            seed: Some(42),
            max_size: Some(5),
            only: vec!["random".into(), "N = 0".into()],
            timeout: std::time::Duration::from_secs(10),
            ..Config::default()
        };
        assert_eq!(
            rerun_command(Path::new("-x.pl"), &config, "standard", System::Swipl),
            "kenken judge ./-x.pl --prolog swipl --max-size 5 --predicates plain_kenken --only \
             random --only 'N = 0' --timeout 10 --seed 42"
        );
        let spec = Config {
            suite: Suite::Spec,
            seed: Some(42),
            ..Config::default()
        };
        assert_eq!(
            rerun_command(Path::new("a.pl"), &spec, "spec", System::Scryer),
            "kenken judge a.pl --prolog scryer --suite spec"
        );
    }
}
