//! A judged file's text, read bounded: a regular file of at most [`MAX_SOURCE`] bytes, opened so
//! that a named pipe cannot stop the judge (and a device is refused before anything is read),
//! and a path the Prolog systems can name.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::{path_text, JudgeError};

/// The most bytes a judged file may hold (a student's `kenken.pl` holds some KiB; a file that
/// carries a whole FD solver, some 300 KiB). A larger one is not judged: the judge reads what it
/// keeps of a file (its names, for the dialect and the form check) in memory.
pub const MAX_SOURCE: u64 = 1 << 20;

/// The text of `file`: fails, without waiting or reading on, when it is no regular file (a
/// named pipe, a device, a socket, a folder) or holds over [`MAX_SOURCE`] bytes.
pub(crate) fn read(file: &Path) -> Result<Vec<u8>, JudgeError> {
    use std::os::unix::fs::OpenOptionsExt;
    let name = path_text(file);
    let fail = |why: String| JudgeError::Load {
        file: name.clone(),
        why,
    };
    // (non-blocking: opening a named pipe waits for a writer otherwise)
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(file)
        .map_err(|e| fail(format!("cannot be read ({e})")))?;
    let meta = f
        .metadata()
        .map_err(|e| fail(format!("cannot be read ({e})")))?;
    if !meta.is_file() {
        let why = super::class::not_a_file(file).unwrap_or_else(|| "not a regular file".into());
        return Err(fail(why));
    }
    if meta.len() > MAX_SOURCE {
        return Err(fail(too_large(meta.len())));
    }
    let mut text = Vec::new();
    (&mut f)
        .take(MAX_SOURCE + 1)
        .read_to_end(&mut text)
        .map_err(|e| fail(format!("cannot be read ({e})")))?;
    if text.len() as u64 > MAX_SOURCE {
        return Err(fail(too_large(text.len() as u64)));
    }
    Ok(text)
}

/// Why a file of `bytes` bytes is not judged.
fn too_large(bytes: u64) -> String {
    format!(
        "it holds {} or more, over the {} a judged file may hold (a kenken.pl holds some KiB)",
        super::size_text(bytes),
        super::size_text(MAX_SOURCE)
    )
}

/// A path to `real` (a file's path, links resolved) that every Prolog system can name: `real`
/// itself when it is UTF-8 text (a Prolog atom), else a link to it named `kenken.pl` in a
/// folder of its own (kept while the returned folder lives). A file loaded through such a link
/// finds the files it loads by relative paths in the link's folder, not its own.
pub(crate) fn nameable(
    real: &Path,
) -> Result<(PathBuf, Option<crate::process::TempFolder>), JudgeError> {
    if real.to_str().is_some() {
        return Ok((real.to_path_buf(), None));
    }
    let dir = crate::process::TempFolder::new("kenken-judge-name-")
        .map_err(|e| JudgeError::Failed(format!("making a folder for a link: {e}")))?;
    let link = dir.path().join("kenken.pl");
    std::os::unix::fs::symlink(real, &link)
        .map_err(|e| JudgeError::Failed(format!("making a link to {}: {e}", path_text(real))))?;
    Ok((link, Some(dir)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_regular_file_within_the_cap_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let small = dir.path().join("a.pl");
        std::fs::write(&small, "p.\n").unwrap();
        assert_eq!(read(&small).unwrap(), b"p.\n");
        let big = dir.path().join("big.pl");
        std::fs::write(&big, vec![b'a'; MAX_SOURCE as usize + 1]).unwrap();
        let e = read(&big).unwrap_err().to_string();
        assert!(e.contains("over the 1 MiB a judged file may hold"), "{e}");
        // a named pipe: refused at once, no writer waited for
        let fifo = dir.path().join("fifo.pl");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let e = read(&fifo).unwrap_err().to_string();
        assert!(e.contains("not a regular file (a named pipe)"), "{e}");
        let e = read(Path::new("/dev/zero")).unwrap_err().to_string();
        assert!(e.contains("not a regular file (a device)"), "{e}");
        let e = read(dir.path()).unwrap_err().to_string();
        assert!(e.contains("not a regular file"), "{e}");
    }

    #[test]
    fn a_name_that_is_not_utf8_is_linked_to() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let odd = dir.path().join(std::ffi::OsStr::from_bytes(b"ann\xff.pl"));
        std::fs::write(&odd, "p.\n").unwrap();
        let (path, kept) = nameable(&odd).unwrap();
        assert!(kept.is_some());
        assert!(path.to_str().is_some());
        assert_eq!(std::fs::read(&path).unwrap(), b"p.\n");
        let plain = dir.path().join("bob.pl");
        assert_eq!(nameable(&plain).unwrap().0, plain);
    }
}
