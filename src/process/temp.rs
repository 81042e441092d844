//! The temporary folders of the systems that run judged code (scratch folders, libraries,
//! links): each removed when dropped, and every one still there removable at once
//! ([`remove_temporary_folders`]), so that a program stopped by a signal (Ctrl-C, `SIGTERM`)
//! leaves none in `TMPDIR`.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The folders made by [`TempFolder::new`] and not yet dropped.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A fresh folder in the temporary folder, removed when dropped (as `tempfile::TempDir`), and
/// by [`remove_temporary_folders`] before.
#[derive(Debug)]
pub struct TempFolder {
    dir: Option<tempfile::TempDir>,
}

impl TempFolder {
    /// A fresh folder whose name starts with `prefix`.
    pub fn new(prefix: &str) -> std::io::Result<TempFolder> {
        let dir = tempfile::Builder::new().prefix(prefix).tempdir()?;
        if let Ok(mut live) = LIVE.lock() {
            live.push(dir.path().to_path_buf());
        }
        Ok(TempFolder { dir: Some(dir) })
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        self.dir
            .as_ref()
            .map_or_else(|| Path::new("/nonexistent"), tempfile::TempDir::path)
    }
}

impl Drop for TempFolder {
    fn drop(&mut self) {
        if let Some(dir) = self.dir.take() {
            if let Ok(mut live) = LIVE.lock() {
                live.retain(|p| p != dir.path());
            }
            // (removed here, as TempDir removes it)
            drop(dir);
        }
    }
}

/// Removes every [`TempFolder`] not yet dropped, with what it holds (a few tries each: a
/// child that dies with this process may still be writing there). For a signal handler: the
/// program exits next.
pub fn remove_temporary_folders() {
    let live: Vec<PathBuf> = LIVE.lock().map(|l| l.clone()).unwrap_or_default();
    remove_all(&live);
}

fn remove_all(dirs: &[PathBuf]) {
    for dir in dirs {
        for _ in 0..5 {
            if std::fs::remove_dir_all(dir).is_ok() || !dir.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_not_yet_dropped_are_known_and_removed_with_what_they_hold() {
        let kept = TempFolder::new("kenken-test-").unwrap();
        std::fs::create_dir_all(kept.path().join("a/b")).unwrap();
        std::fs::write(kept.path().join("a/b/c"), "x").unwrap();
        let path = kept.path().to_path_buf();
        let dropped = TempFolder::new("kenken-test-").unwrap();
        let dropped_path = dropped.path().to_path_buf();
        assert!(LIVE.lock().unwrap().contains(&dropped_path));
        drop(dropped);
        assert!(!dropped_path.exists());
        assert!(!LIVE.lock().unwrap().contains(&dropped_path));
        // (the others of this test process's threads are left alone)
        assert!(LIVE.lock().unwrap().contains(&path));
        remove_all(std::slice::from_ref(&path));
        assert!(!path.exists());
        drop(kept);
    }
}
