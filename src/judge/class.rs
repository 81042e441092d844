//! A whole class at once: every file of a list (folders searched for `.pl` files), judged a few
//! at a time, each summed up in one [`Row`]. A file that cannot be read or loaded is a row,
//! never the end of the run.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::Serialize;

use super::{judge_among, Config, JudgeError, Judgement, Verdict};
use crate::error::Context;
use crate::prolog::Predicate;

/// How deep folders are searched for `.pl` files.
const MAX_DEPTH: usize = 4;

/// What a list of files and folders holds: the files to judge, the paths given or found that
/// are not judged, each with why (`a link to a file outside the class folder`, `the same file
/// as ann/kenken.pl`, `not a regular file (a named pipe)`), and the helper files of the files
/// judged.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Class {
    /// The files to judge, in order: each file as given, then the `.pl` files of each folder
    /// (sorted).
    pub files: Vec<PathBuf>,
    /// Paths given or found in a folder and not judged, and why.
    pub not_judged: Vec<(PathBuf, String)>,
    /// Helper files, each with the `kenken.pl` it helps: a `.pl` file found in a student's
    /// folder (below the class folder) that holds a `kenken.pl` is that file's (a submission
    /// folder's `kenken.pl` loads it), read by it when it is judged, and not judged alone.
    pub helpers: Vec<(PathBuf, PathBuf)>,
}

/// Why a link whose target leaves the class folder is not judged.
pub const LINK_OUT: &str = "a link to a file outside the class folder";
/// Why a link to a folder outside the class folder is not searched.
pub const FOLDER_LINK_OUT: &str = "a link to a folder outside the class folder";
/// Why a link to nothing is not judged.
pub const BROKEN_LINK: &str = "a link to nothing (a broken link)";
/// Why a folder given holds nothing judged.
pub const NO_PROLOG: &str = "a folder with no .pl file";
/// The name of a submission's main file: the other `.pl` files beside it are its helpers.
pub const MAIN_FILE: &str = "kenken.pl";

/// The files to judge in `paths` (see [`class_of`]).
pub fn files_of(paths: &[PathBuf]) -> Result<Vec<PathBuf>, JudgeError> {
    Ok(class_of(paths)?.files)
}

/// What a path that is no file to judge is, in words (`None`: a regular file, or a folder):
/// `not a regular file (a named pipe)`, `(a device)`, `(a socket)`, `a link to nothing (a broken
/// link)`, `cannot be read (no such file or folder)`.
pub fn not_a_file(path: &Path) -> Option<String> {
    use std::os::unix::fs::FileTypeExt;
    let kind = match std::fs::metadata(path) {
        Err(_) if std::fs::symlink_metadata(path).is_ok() => return Some(BROKEN_LINK.into()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Some("cannot be read (no such file or folder)".into())
        }
        Err(e) => return Some(format!("cannot be read ({e})")),
        Ok(m) if m.is_file() || m.is_dir() => return None,
        Ok(m) => m.file_type(),
    };
    let what = if kind.is_fifo() {
        "a named pipe"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "something else"
    };
    Some(format!("not a regular file ({what})"))
}

/// The files to judge: each file as given, and the `.pl` files below each folder (sorted,
/// hidden ones left out). In a folder, a link (to a file or a folder) whose target is outside
/// that folder is not followed but reported, and a file reached by two paths (two links, or a
/// link and the file) is judged once, by its own path when one is found, the others reported
/// as the same file. A path that is no file to judge (missing, a broken link, a named pipe, a
/// device, a folder with no `.pl` file), given or found, is reported with why; and in a
/// student's folder below a class folder that holds a `kenken.pl`, the other `.pl` files are
/// its helpers ([`Class::helpers`]). Fails only when one path alone is given and it holds
/// nothing to judge.
pub fn class_of(paths: &[PathBuf]) -> Result<Class, JudgeError> {
    let mut class = Class::default();
    let alone = paths.len() == 1;
    let not_judged = |class: &mut Class, p: &Path, why: String| {
        if alone {
            Err(JudgeError::Failed(format!(
                "{}: {why}",
                super::path_text(p)
            )))
        } else {
            class.not_judged.push((p.to_path_buf(), why));
            Ok(())
        }
    };
    for p in paths {
        if let Some(why) = not_a_file(p) {
            not_judged(&mut class, p, why)?;
        } else if p.is_dir() {
            let root = std::fs::canonicalize(p)
                .with_context(|| format!("{}: cannot be read", super::path_text(p)))?;
            let mut found = Vec::new();
            let mut walk = Walk {
                root: &root,
                found: &mut found,
                not_judged: &mut class.not_judged,
            };
            let before = walk.not_judged.len();
            walk.folder(p, 0, false);
            if found.is_empty() && class.not_judged.len() == before {
                not_judged(&mut class, p, NO_PROLOG.into())?;
            }
            let (files, reported) = (class.files.len(), class.not_judged.len());
            once_each(found, &mut class);
            helpers_apart(&mut class, p, files, reported);
        } else {
            class.files.push(p.clone());
        }
    }
    Ok(class)
}

/// Moves the helper files found in the class folder `root` (the files of [`Class::files`] from
/// `files` on, and the paths reported from `reported` on, are what it holds) from
/// [`Class::files`] to [`Class::helpers`]: in a folder below `root` (a student's submission
/// folder) that holds a `kenken.pl`, the other files are its helpers. Not in `root` itself,
/// nor among files named one by one: those are each a student's, whatever their names.
fn helpers_apart(class: &mut Class, root: &Path, files: usize, reported: usize) {
    let mains: Vec<PathBuf> = class.files[files..]
        .iter()
        .chain(class.not_judged[reported..].iter().map(|(p, _)| p))
        .filter(|p| p.file_name().is_some_and(|n| n == MAIN_FILE))
        .filter(|p| p.parent().is_some_and(|d| d != root))
        .cloned()
        .collect();
    let found = class.files.split_off(files);
    for f in found {
        let main = mains.iter().find(|m| **m != f && m.parent() == f.parent());
        match main {
            Some(main) => class.helpers.push((f, main.clone())),
            None => class.files.push(f),
        }
    }
}

/// A `.pl` file found in a folder: the path it was found by, the file it is (device and inode:
/// a hard link is the file too), and whether that path goes through a link.
struct Found {
    path: PathBuf,
    id: (u64, u64),
    linked: bool,
}

/// The files found in a folder, each file judged once: by a path with no link when there
/// is one, else by the first; the other paths (links, hard links) reported as the same file.
fn once_each(found: Vec<Found>, class: &mut Class) {
    let mut judged_by: Vec<((u64, u64), &Path)> = Vec::new();
    for f in &found {
        if judged_by.iter().any(|(id, _)| *id == f.id) {
            continue;
        }
        let by = found
            .iter()
            .filter(|g| g.id == f.id)
            .find(|g| !g.linked)
            .unwrap_or(f);
        judged_by.push((f.id, &by.path));
    }
    for f in &found {
        let Some((_, by)) = judged_by.iter().find(|(id, _)| *id == f.id) else {
            continue;
        };
        if *by == f.path {
            class.files.push(f.path.clone());
        } else {
            class.not_judged.push((
                f.path.clone(),
                format!("the same file as {} (judged there)", super::path_text(by)),
            ));
        }
    }
}

/// A walk of one class folder.
struct Walk<'a> {
    /// The class folder, links resolved.
    root: &'a Path,
    found: &'a mut Vec<Found>,
    not_judged: &'a mut Vec<(PathBuf, String)>,
}

impl Walk<'_> {
    /// Walks `dir`, `depth` folders below the class folder; `linked`: reached through a link.
    fn folder(&mut self, dir: &Path, depth: usize, linked: bool) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut paths: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .filter(|e| !e.file_name().as_encoded_bytes().starts_with(b"."))
            .map(|e| e.path())
            .collect();
        paths.sort();
        for p in paths {
            let Ok(meta) = std::fs::symlink_metadata(&p) else {
                continue;
            };
            let linked = linked || meta.file_type().is_symlink();
            let prolog = p.extension().is_some_and(|e| e == "pl");
            let Ok(real) = std::fs::canonicalize(&p) else {
                if prolog {
                    self.not_judged.push((p, BROKEN_LINK.into()));
                }
                continue;
            };
            let is_dir = real.is_dir();
            if !real.starts_with(self.root) {
                if is_dir {
                    self.not_judged.push((p, FOLDER_LINK_OUT.into()));
                } else if prolog {
                    self.not_judged.push((p, LINK_OUT.into()));
                }
                continue;
            }
            if is_dir {
                let (found, reported) = (self.found.len(), self.not_judged.len());
                if depth + 1 < MAX_DEPTH {
                    self.folder(&p, depth + 1, linked);
                }
                // (a folder named like a Prolog file, holding none: a row says so)
                if prolog && self.found.len() == found && self.not_judged.len() == reported {
                    self.not_judged.push((p, NO_PROLOG.into()));
                }
            } else if prolog && real.is_file() {
                use std::os::unix::fs::MetadataExt;
                let Ok(meta) = std::fs::metadata(&real) else {
                    continue;
                };
                self.found.push(Found {
                    path: p,
                    id: (meta.dev(), meta.ino()),
                    linked,
                });
            } else if prolog {
                // (a named pipe would hang a reader, a device read without end)
                let why = not_a_file(&real).unwrap_or_else(|| "not a regular file".into());
                self.not_judged.push((p, why));
            }
        }
    }
}

/// One file of a class, summed up.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// The file.
    pub file: String,
    /// Per predicate judged: its name, cases passed, cases run.
    pub passed: Vec<(String, usize, usize)>,
    /// The first case that did not pass: `kenken/3 spec 6x6 testcase: wrong: ...`; or why the
    /// file could not be judged.
    pub first_failure: Option<String>,
    /// `kenken/3`'s total time on the cases it passed, in milliseconds.
    pub fd_ms: Option<f64>,
    /// `plain_kenken/3`'s time over `kenken/3`'s on the cases both passed.
    pub plain_over_fd: Option<f64>,
    /// Whether every case passed.
    pub ok: bool,
    /// The file's own exit code (0 passed, 1 failed, 2 not loaded, 3 only timeouts).
    pub exit_code: i32,
    /// Why its `plain_kenken/3` verdicts prove less than they say, when they do (the FD
    /// solver stays reachable where they ran: see [`CaseReport::caveat`](super::CaseReport::caveat)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plain_caveat: Option<String>,
    /// Its helper files ([`Class::helpers`]), read by it and not judged alone (as
    /// [`super::path_text`] names them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub helpers: Vec<String>,
}

impl Row {
    /// The row of a judged file, or of one that could not be judged.
    pub fn of(file: &Path, result: &Result<Judgement, JudgeError>, config: &Config) -> Row {
        let name = super::path_text(file);
        match result {
            Err(e) => Row {
                file: name,
                passed: config
                    .predicates
                    .iter()
                    .map(|p| (p.name().to_string(), 0, 0))
                    .collect(),
                first_failure: Some(format!("not judged: {e}")),
                fd_ms: None,
                plain_over_fd: None,
                ok: false,
                exit_code: 2,
                plain_caveat: None,
                helpers: Vec::new(),
            },
            Ok(j) => {
                let passed = config
                    .predicates
                    .iter()
                    .map(|p| {
                        let cases = j.cases.iter().filter(|c| c.predicate == p.name());
                        let pass = cases.clone().filter(|c| c.verdict == Verdict::Pass).count();
                        (p.name().to_string(), pass, cases.count())
                    })
                    .collect();
                let first_failure = j
                    .cases
                    .iter()
                    .find(|c| c.verdict != Verdict::Pass)
                    .map(|c| {
                        let detail = if c.detail.is_empty() {
                            String::new()
                        } else {
                            format!(": {}", c.detail)
                        };
                        format!("{}/3 {}: {}{detail}", c.predicate, c.case, c.verdict)
                    });
                let fd: Vec<f64> = j
                    .cases
                    .iter()
                    .filter(|c| c.predicate == Predicate::Fd.name() && c.verdict == Verdict::Pass)
                    .filter_map(|c| c.elapsed_ms)
                    .collect();
                Row {
                    file: name,
                    passed,
                    first_failure,
                    fd_ms: (!fd.is_empty()).then(|| fd.iter().sum()),
                    plain_over_fd: j.plain_over_fd(),
                    ok: j.exit_code() == 0,
                    exit_code: j.exit_code(),
                    plain_caveat: j.cases.iter().find_map(|c| c.caveat.clone()),
                    helpers: Vec::new(),
                }
            }
        }
    }
}

/// Judges every file, `jobs` at a time (each file's cases one after the other), calling
/// `on_file` as each is done; results come back in the files' order. A [`JudgeError::
/// CannotConfine`] stops the run: no file can be judged safely.
pub fn judge_class(
    files: &[PathBuf],
    config: &Config,
    jobs: usize,
    on_file: impl Fn(&Path, &Result<Judgement, JudgeError>) + Sync,
) -> Result<Vec<Result<Judgement, JudgeError>>, JudgeError> {
    let class = Class {
        files: files.to_vec(),
        ..Class::default()
    };
    judge_submissions(&class, config, jobs, on_file)
}

/// [`judge_class`] of a [`Class`]: each file may read its helper files too, and no file reads
/// another's, nor another's helpers, whatever [`Config::read`] says.
pub fn judge_submissions(
    class: &Class,
    config: &Config,
    jobs: usize,
    on_file: impl Fn(&Path, &Result<Judgement, JudgeError>) + Sync,
) -> Result<Vec<Result<Judgement, JudgeError>>, JudgeError> {
    let files = &class.files;
    let queue = Mutex::new((0..files.len()).collect::<VecDeque<usize>>());
    let results: Mutex<Vec<Option<Result<Judgement, JudgeError>>>> =
        Mutex::new(vec![None; files.len()]);
    let refused: Mutex<Option<JudgeError>> = Mutex::new(None);
    let everyone: Vec<PathBuf> = files
        .iter()
        .chain(class.helpers.iter().map(|(h, _)| h))
        .cloned()
        .collect();
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, files.len().max(1)) {
            scope.spawn(|| loop {
                if refused.lock().map(|r| r.is_some()).unwrap_or(true) {
                    return;
                }
                let Some(i) = queue.lock().ok().and_then(|mut q| q.pop_front()) else {
                    return;
                };
                let file = &files[i];
                let own: Vec<PathBuf> = class
                    .helpers
                    .iter()
                    .filter(|(_, main)| main == file)
                    .map(|(h, _)| h.clone())
                    .collect();
                let mut one = Config {
                    jobs: 1,
                    ..config.clone()
                };
                one.read.extend(own.iter().cloned());
                // (confined, no file reads another of the class, whatever --read says)
                let others: Vec<PathBuf> = everyone
                    .iter()
                    .filter(|o| !own.contains(o))
                    .cloned()
                    .collect();
                let result = judge_among(file, &others, &one, |_| {});
                if let Err(e @ JudgeError::CannotConfine(_)) = &result {
                    if let Ok(mut r) = refused.lock() {
                        r.get_or_insert(e.clone());
                    }
                    return;
                }
                on_file(file, &result);
                if let Ok(mut r) = results.lock() {
                    r[i] = Some(result);
                }
            });
        }
    });
    if let Some(e) = refused.into_inner().ok().flatten() {
        return Err(e);
    }
    let results = results.into_inner().unwrap_or_default();
    Ok(results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(JudgeError::Failed("not judged".into()))))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_give_their_prolog_files_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("ann")).unwrap();
        std::fs::create_dir_all(d.join(".git")).unwrap();
        for f in [
            "b.pl",
            "a.pl",
            "notes.txt",
            "ann/kenken.pl",
            ".git/x.pl",
            ".hidden.pl",
        ] {
            std::fs::write(d.join(f), "").unwrap();
        }
        let files = files_of(&[d.to_path_buf()]).unwrap();
        let names: Vec<String> = files
            .iter()
            .map(|f| f.strip_prefix(d).unwrap().display().to_string())
            .collect();
        assert_eq!(names, vec!["a.pl", "ann/kenken.pl", "b.pl"]);
        assert!(files_of(&[d.join("missing.pl")]).is_err());
        let empty = tempfile::tempdir().unwrap();
        assert!(files_of(&[empty.path().to_path_buf()]).is_err());
    }

    /// The names of `paths` below `d`.
    fn names(d: &Path, paths: &[PathBuf]) -> Vec<String> {
        paths
            .iter()
            .map(|f| f.strip_prefix(d).unwrap().display().to_string())
            .collect()
    }

    #[test]
    fn links_out_of_the_folder_are_not_judged_but_reported() {
        let dir = tempfile::tempdir().unwrap();
        let (d, out) = (dir.path().join("class"), dir.path().join("elsewhere"));
        for f in [d.join("ann"), d.join("carol"), out.join("sub")] {
            std::fs::create_dir_all(f).unwrap();
        }
        std::fs::write(d.join("ann/kenken.pl"), "").unwrap();
        std::fs::write(out.join("teacher.pl"), "").unwrap();
        std::fs::write(out.join("sub/x.pl"), "").unwrap();
        let link = |target: &Path, name: &str| std::os::unix::fs::symlink(target, d.join(name));
        link(&out.join("teacher.pl"), "carol/kenken.pl").unwrap();
        link(&out.join("sub"), "dave").unwrap();
        link(&out.join("missing.pl"), "eve.pl").unwrap();
        // a link that stays inside is followed
        link(Path::new("ann"), "ann2").unwrap();
        let class = class_of(std::slice::from_ref(&d)).unwrap();
        assert_eq!(names(&d, &class.files), vec!["ann/kenken.pl"]);
        let not_judged: Vec<(String, String)> = class
            .not_judged
            .iter()
            .map(|(p, why)| (names(&d, std::slice::from_ref(p))[0].clone(), why.clone()))
            .collect();
        assert_eq!(
            not_judged,
            vec![
                (
                    "carol/kenken.pl".to_string(),
                    "a link to a file outside the class folder".to_string()
                ),
                (
                    "dave".to_string(),
                    "a link to a folder outside the class folder".to_string()
                ),
                (
                    "eve.pl".to_string(),
                    "a link to nothing (a broken link)".to_string()
                ),
                (
                    "ann2/kenken.pl".to_string(),
                    format!(
                        "the same file as {} (judged there)",
                        d.join("ann/kenken.pl").display()
                    )
                ),
            ]
        );
        // a folder of links out only: reported, no error
        let only = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(out.join("teacher.pl"), only.path().join("a.pl")).unwrap();
        let class = class_of(&[only.path().to_path_buf()]).unwrap();
        assert!(class.files.is_empty());
        assert_eq!(class.not_judged.len(), 1);
    }

    #[test]
    fn a_file_reached_twice_is_judged_once_by_its_own_path() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("zed")).unwrap();
        std::fs::write(d.join("zed/kenken.pl"), "").unwrap();
        // two links, both before the file in order
        std::os::unix::fs::symlink("zed/kenken.pl", d.join("a.pl")).unwrap();
        std::os::unix::fs::symlink("zed/kenken.pl", d.join("b.pl")).unwrap();
        // names with spaces, quotes and a line break are files like any other
        let odd = "it's a \"file\"\nhere.pl";
        std::fs::write(d.join(odd), "").unwrap();
        let class = class_of(&[d.to_path_buf()]).unwrap();
        assert_eq!(names(d, &class.files), vec![odd, "zed/kenken.pl"]);
        let same = format!(
            "the same file as {} (judged there)",
            d.join("zed/kenken.pl").display()
        );
        assert_eq!(
            class.not_judged,
            vec![(d.join("a.pl"), same.clone()), (d.join("b.pl"), same)]
        );
        // files named one by one are judged as named
        let f = d.join("a.pl");
        assert_eq!(
            class_of(&[f.clone(), f.clone()]).unwrap().files,
            vec![f.clone(), f]
        );
    }
}
