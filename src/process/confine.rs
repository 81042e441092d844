//! Confinement of code we did not write (a judged file, and GNU Prolog running it): applied by
//! the child process to itself, before it reads the judged file, with no `unsafe` here.
//!
//! The parent describes the confinement ([`Confinement`]) and passes it to the child in the
//! environment variable `KENKEN_CONFINE`; the child (this program started again as a worker,
//! see [`crate::worker::init`]) calls `apply_from_env` first thing, and only then loads the
//! judged file or `exec`s GNU Prolog (which keeps every rule: Landlock domains, seccomp filters
//! and resource limits are inherited across `exec`). What it enforces:
//! - **a world of its own** (a user and a mount namespace): the scratch directory becomes a
//!   size-limited tmpfs private to the child (so the total it writes is bounded, not only each
//!   file), and `/proc` an empty read-only folder (so that no `/proc/self/fd/N` or `/dev/fd/N`
//!   reaches the pipes the child talks to its parent on, which Landlock does not cover);
//! - **files** (Landlock): read only the listed folders and files, write only in the scratch
//!   directory, execute only the listed programs;
//! - **programs and processes** (seccomp): no new process (threads only), no `exec` unless a
//!   program is listed, no new namespace and no mount (nothing that would undo the above);
//! - **network** (seccomp and Landlock): no socket of any kind, no TCP bind or connect, no
//!   abstract UNIX socket or signal outside the sandbox;
//! - **limits** (`setrlimit`): address space, CPU seconds, file size, open files; no core dumps.
//!
//! When the kernel cannot enforce the file rules (no Landlock), the filters (no seccomp) or
//! give the child a namespace of its own (no unprivileged user namespaces), the child refuses
//! to go on and says why: the parent reports it, and `judge` refuses to run
//! unless told `--no-confine`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use landlock::{
    Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope, ABI,
};
use nix::mount::{mount, MsFlags};
use nix::sched::{unshare, CloneFlags};
use nix::sys::resource::{setrlimit, Resource};
use seccompiler::{
    SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
    TargetArch,
};
use serde::{Deserialize, Serialize};

/// The environment variable that carries a child's [`Confinement`] (JSON).
pub(crate) const CONFINE_VAR: &str = "KENKEN_CONFINE";

/// The Landlock ABI this code was written and tested against (Linux 6.12: files, TCP, scopes).
const ABI_USED: ABI = ABI::V6;

/// Resource limits of a confined child.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Address space, in bytes.
    pub memory: u64,
    /// CPU time, in seconds.
    pub cpu_seconds: u64,
    /// The largest file it may write, in bytes.
    pub file_size: u64,
    /// Open files at once.
    pub open_files: u64,
    /// The space of the scratch directory, all files together, in bytes (when it is a
    /// filesystem of its own: see [`Confinement::scratch_size`]).
    pub scratch: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            memory: 2 << 30,
            cpu_seconds: 3600,
            file_size: 64 << 20,
            open_files: 256,
            scratch: 64 << 20,
        }
    }
}

/// What a confined child may do.
///
/// Paths travel to the child as bytes (a name need not be UTF-8): UTF-8 text with `%XX` for
/// the bytes that are not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Confinement {
    /// Folders and files it may read (and list).
    #[serde(with = "os_paths")]
    pub read: Vec<PathBuf>,
    /// Files and folders it may never read, whatever [`Confinement::read`] and the system's
    /// folders hold (links resolved): each folder granted that holds one is granted as what
    /// it holds less that one. A judged `plain_kenken/3`'s SWI-Prolog, say, reads
    /// its home but the constraint libraries.
    #[serde(default, with = "os_paths")]
    pub hidden: Vec<PathBuf>,
    /// The one folder it may write in (and read): a fresh scratch directory.
    #[serde(with = "os_path")]
    pub scratch: PathBuf,
    /// Programs it may `exec` (with the dynamic loader each needs); empty: none.
    #[serde(with = "os_paths")]
    pub exec: Vec<PathBuf>,
    /// Its limits.
    pub limits: Limits,
    /// The size in bytes of the private tmpfs mounted over the scratch directory (holding at
    /// first a copy of the files the scratch directory held): whatever the child writes there
    /// together fits in it, and is gone when the child ends. `None`: the child writes in the
    /// scratch directory itself (each file bounded by [`Limits::file_size`] only), for a child
    /// whose output the parent reads afterwards (a compiler's).
    pub scratch_size: Option<u64>,
}

/// A path as text that keeps every byte of it: a name need not be UTF-8, and JSON holds only
/// UTF-8. Its UTF-8 runs stay as they are, but `%`, which becomes `%25`; each byte that is no
/// UTF-8 becomes `%XX`.
pub(crate) fn path_to_text(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::new();
    for chunk in path.as_os_str().as_bytes().utf8_chunks() {
        out.push_str(&chunk.valid().replace('%', "%25"));
        for b in chunk.invalid() {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The path [`path_to_text`] wrote (a `%` not followed by two hexadecimal digits is kept).
pub(crate) fn path_of_text(text: &str) -> PathBuf {
    use std::os::unix::ffi::OsStringExt;
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    PathBuf::from(std::ffi::OsString::from_vec(out))
}

/// Serde for a path as [`path_to_text`] writes it.
mod os_path {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::path::{Path, PathBuf};

    pub(super) fn serialize<S: Serializer>(path: &Path, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&super::path_to_text(path))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<PathBuf, D::Error> {
        Ok(super::path_of_text(&String::deserialize(d)?))
    }
}

/// Serde for paths as [`path_to_text`] writes them.
mod os_paths {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::path::PathBuf;

    pub(super) fn serialize<S: Serializer>(paths: &[PathBuf], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(paths.iter().map(|p| super::path_to_text(p)))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<PathBuf>, D::Error> {
        let texts = Vec::<String>::deserialize(d)?;
        Ok(texts.iter().map(|t| super::path_of_text(t)).collect())
    }
}

/// `read` less every path of `hidden` (both with links resolved): a path at or below a hidden
/// one is left out, and a folder that holds a hidden path is replaced by what it holds, taken
/// the same way (so that a class folder given to `--read` lets judged code read everything in
/// it but the class's files and the judge, and SWI-Prolog's home can be read but for its
/// constraint libraries).
pub(crate) fn narrow(read: &[PathBuf], hidden: &[PathBuf]) -> Vec<PathBuf> {
    let hidden: Vec<PathBuf> = hidden
        .iter()
        .map(|h| std::fs::canonicalize(h).unwrap_or_else(|_| h.clone()))
        .collect();
    let mut out = Vec::new();
    for p in read {
        narrow_into(p, &hidden, 0, &mut out);
    }
    out
}

/// How deep [`narrow`] goes into folders before it leaves one out whole.
const NARROW_DEPTH: usize = 16;

fn narrow_into(p: &Path, hidden: &[PathBuf], depth: usize, out: &mut Vec<PathBuf>) {
    let real = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    if hidden.iter().any(|h| real.starts_with(h)) {
        return;
    }
    if !hidden.iter().any(|h| h.starts_with(&real)) {
        out.push(real);
        return;
    }
    // (a folder that holds a hidden file: what it holds instead; deeper than this, or
    // unreadable, it is left out, as is a file it would have given)
    if depth >= NARROW_DEPTH {
        return;
    }
    let Ok(entries) = std::fs::read_dir(&real) else {
        return;
    };
    for e in entries.flatten() {
        narrow_into(&e.path(), hidden, depth + 1, out);
    }
}

/// The system folders every confined program reads: shared libraries and the loader's cache.
pub(crate) fn system_paths() -> Vec<PathBuf> {
    [
        "/lib",
        "/lib64",
        "/lib32",
        "/usr/lib",
        "/usr/lib64",
        "/usr/lib32",
        "/etc/ld.so.cache",
    ]
    .iter()
    .map(PathBuf::from)
    .filter(|p| p.exists())
    .collect()
}

/// The program interpreter (dynamic loader) an ELF program names, if it names one.
pub(crate) fn interpreter(program: &Path) -> Option<PathBuf> {
    let bytes = std::fs::read(program).ok()?;
    let u16_at = |i: usize| Some(u16::from_le_bytes(bytes.get(i..i + 2)?.try_into().ok()?));
    let u32_at = |i: usize| Some(u32::from_le_bytes(bytes.get(i..i + 4)?.try_into().ok()?));
    let u64_at = |i: usize| Some(u64::from_le_bytes(bytes.get(i..i + 8)?.try_into().ok()?));
    // 64-bit little-endian ELF only (every target this crate confines on)
    if bytes.get(..6)? != b"\x7fELF\x02\x01" {
        return None;
    }
    let (phoff, phentsize, phnum) = (u64_at(0x20)? as usize, u16_at(0x36)?, u16_at(0x38)?);
    (0..phnum as usize).find_map(|i| {
        let ph = phoff + i * phentsize as usize;
        if u32_at(ph)? != 3 {
            return None; // not PT_INTERP
        }
        let (off, size) = (u64_at(ph + 8)? as usize, u64_at(ph + 32)? as usize);
        let text = bytes.get(off..off + size)?;
        let text = text.strip_suffix(b"\0").unwrap_or(text);
        std::fs::canonicalize(std::str::from_utf8(text).ok()?).ok()
    })
}

/// The most files and folders a scratch tmpfs holds (each costs kernel memory, not space).
const SCRATCH_INODES: u64 = 4096;

/// The regular files directly in `scratch` (links and folders left out), name and content, to
/// be copied into the tmpfs mounted over it; fails when they hold over `size` bytes.
fn scratch_files(scratch: &Path, size: u64) -> Result<Vec<(std::ffi::OsString, Vec<u8>)>, String> {
    let fail = |e: std::io::Error| format!("namespace: reading {}: {e}", scratch.display());
    let mut files = Vec::new();
    let mut total = 0u64;
    for entry in std::fs::read_dir(scratch).map_err(fail)? {
        let entry = entry.map_err(fail)?;
        let meta = entry.metadata().map_err(fail)?;
        if !meta.is_file() {
            continue;
        }
        total = total.saturating_add(meta.len());
        if total > size {
            return Err(format!(
                "the files of {} do not fit in its {size} bytes",
                scratch.display()
            ));
        }
        files.push((
            entry.file_name(),
            std::fs::read(entry.path()).map_err(fail)?,
        ));
    }
    Ok(files)
}

/// Reads the confinement the parent set, if any, and applies it to this process. Call it
/// before any other thread starts and before anything untrusted is read.
pub(crate) fn apply_from_env() -> Result<bool, String> {
    let Ok(text) = std::env::var(CONFINE_VAR) else {
        return Ok(false);
    };
    let c: Confinement =
        serde_json::from_str(&text).map_err(|e| format!("bad {CONFINE_VAR}: {e}"))?;
    c.apply()?;
    // (nothing of the judge's configuration stays where the confined code could read it)
    std::env::remove_var(CONFINE_VAR);
    Ok(true)
}

impl Confinement {
    /// Applies the limits, the file and network rules and the system-call filters to this
    /// thread and every thread and process it starts from now on.
    ///
    /// The namespaces come first: `unshare` wants a process of one thread (which it is, when
    /// [`crate::worker::init`] calls this first thing), and Landlock's rule for the scratch
    /// directory must be taken on the tmpfs mounted over it.
    pub(crate) fn apply(&self) -> Result<(), String> {
        self.apply_limits()?;
        self.apply_namespaces()?;
        self.apply_landlock()?;
        self.apply_seccomp()
    }

    /// A user and a mount namespace of the child's own: the scratch directory a tmpfs of
    /// [`Confinement::scratch_size`] bytes, `/proc` an empty read-only tmpfs.
    fn apply_namespaces(&self) -> Result<(), String> {
        self.enter_namespaces().map_err(|e| {
            format!(
                "this system does not let a program make a user and mount namespace of its \
                 own ({e}; see the settings user.max_user_namespaces and \
                 kernel.apparmor_restrict_unprivileged_userns), so /proc cannot be hidden from \
                 judged code and its scratch space bounded"
            )
        })?;
        self.mount_scratch_and_proc()
    }

    /// A user namespace mapping this process's user and group to themselves, and a mount
    /// namespace whose mounts reach no other.
    fn enter_namespaces(&self) -> Result<(), String> {
        let (uid, gid) = (nix::unistd::getuid(), nix::unistd::getgid());
        unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNS)
            .map_err(|e| format!("unshare: {e}"))?;
        let write = |file: &str, text: String| {
            std::fs::write(file, text).map_err(|e| format!("writing {file}: {e}"))
        };
        write("/proc/self/setgroups", "deny".into())?;
        write("/proc/self/uid_map", format!("{uid} {uid} 1\n"))?;
        write("/proc/self/gid_map", format!("{gid} {gid} 1\n"))?;
        let none = None::<&str>;
        mount(none, "/", none, MsFlags::MS_REC | MsFlags::MS_PRIVATE, none)
            .map_err(|e| format!("making / private: {e}"))
    }

    /// In the namespaces [`Confinement::enter_namespaces`] made: the scratch tmpfs (when
    /// [`Confinement::scratch_size`] asks for one) and the empty `/proc`.
    fn mount_scratch_and_proc(&self) -> Result<(), String> {
        fn mounting(what: &str) -> impl Fn(nix::Error) -> String + '_ {
            move |e| format!("namespace: mounting {what}: {e}")
        }
        let hidden = MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC;
        if let Some(size) = self.scratch_size {
            let kept = scratch_files(&self.scratch, size)?;
            let options = format!("size={size},nr_inodes={SCRATCH_INODES},mode=0700");
            mount(
                Some("kenken-scratch"),
                &self.scratch,
                Some("tmpfs"),
                hidden,
                Some(options.as_str()),
            )
            .map_err(mounting("the scratch directory"))?;
            for (name, bytes) in kept {
                let path = self.scratch.join(name);
                std::fs::write(&path, bytes)
                    .map_err(|e| format!("namespace: copying {}: {e}", path.display()))?;
            }
            // (the working directory was the folder now under the tmpfs)
            std::env::set_current_dir(&self.scratch)
                .map_err(|e| format!("namespace: entering {}: {e}", self.scratch.display()))?;
        }
        mount(
            Some("kenken-no-proc"),
            "/proc",
            Some("tmpfs"),
            hidden | MsFlags::MS_RDONLY,
            Some("size=4k,nr_inodes=2,mode=0555"),
        )
        .map_err(mounting("over /proc"))
    }

    fn apply_limits(&self) -> Result<(), String> {
        let l = &self.limits;
        for (resource, value, name) in [
            (Resource::RLIMIT_AS, l.memory, "memory"),
            (Resource::RLIMIT_CPU, l.cpu_seconds, "CPU time"),
            (Resource::RLIMIT_FSIZE, l.file_size, "file size"),
            (Resource::RLIMIT_NOFILE, l.open_files, "open files"),
            (Resource::RLIMIT_CORE, 0, "core dumps"),
        ] {
            setrlimit(resource, value, value).map_err(|e| format!("cannot limit {name}: {e}"))?;
        }
        Ok(())
    }

    fn apply_landlock(&self) -> Result<(), String> {
        let fail = |e: landlock::RulesetError| format!("Landlock: {e}");
        let read = AccessFs::ReadFile | AccessFs::ReadDir;
        let all = AccessFs::from_all(ABI_USED);
        let file_rights = |p: &Path, rights: BitFlags<AccessFs>| -> BitFlags<AccessFs> {
            if p.is_dir() {
                rights
            } else {
                rights
                    & (AccessFs::ReadFile
                        | AccessFs::WriteFile
                        | AccessFs::Execute
                        | AccessFs::Truncate)
            }
        };
        let mut rules: Vec<(PathBuf, BitFlags<AccessFs>)> = Vec::new();
        let mut readable = self.read.clone();
        readable.extend(system_paths());
        if !self.hidden.is_empty() {
            readable = narrow(&readable, &self.hidden);
        }
        for p in &readable {
            rules.push((p.clone(), file_rights(p, read)));
        }
        rules.push((self.scratch.clone(), all & !AccessFs::Execute));
        for program in &self.exec {
            rules.push((
                program.clone(),
                file_rights(program, read | AccessFs::Execute),
            ));
            if let Some(loader) = interpreter(program) {
                rules.push((
                    loader.clone(),
                    file_rights(&loader, read | AccessFs::Execute),
                ));
            }
        }
        let mut ruleset = Ruleset::default()
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(all)
            .map_err(fail)?
            .handle_access(AccessNet::from_all(ABI_USED))
            .map_err(fail)?
            .scope(Scope::from_all(ABI_USED))
            .map_err(fail)?
            .create()
            .map_err(fail)?;
        for (path, rights) in rules {
            // (a path that does not exist gives no right, and is no error)
            if let Ok(fd) = PathFd::new(&path) {
                ruleset = ruleset
                    .add_rule(PathBeneath::new(fd, rights))
                    .map_err(fail)?;
            }
        }
        let status = ruleset.restrict_self().map_err(fail)?;
        match status.ruleset {
            RulesetStatus::NotEnforced => Err(
                "this kernel does not enforce Landlock (Linux 5.13 or later, with landlock in \
                 the lsm= list), so file access cannot be confined"
                    .into(),
            ),
            RulesetStatus::FullyEnforced | RulesetStatus::PartiallyEnforced => Ok(()),
        }
    }

    fn apply_seccomp(&self) -> Result<(), String> {
        let arch: TargetArch = std::env::consts::ARCH
            .try_into()
            .map_err(|e| format!("seccomp: {e:?}"))?;
        let filter = |rules: BTreeMap<i64, Vec<SeccompRule>>, action: SeccompAction| {
            let f = SeccompFilter::new(rules, SeccompAction::Allow, action, arch)
                .map_err(|e| format!("seccomp: {e}"))?;
            let program: seccompiler::BpfProgram =
                f.try_into().map_err(|e| format!("seccomp: {e:?}"))?;
            seccompiler::apply_filter(&program).map_err(|e| format!("seccomp: {e}"))
        };
        // clone3's flags cannot be read by a filter: say it does not exist, and the C library
        // falls back to clone, whose flags can
        filter(
            [(libc::SYS_clone3, vec![])].into_iter().collect(),
            SeccompAction::Errno(libc::ENOSYS as u32),
        )?;
        let a_new_process = SeccompRule::new(vec![SeccompCondition::new(
            0,
            SeccompCmpArgLen::Qword,
            SeccompCmpOp::MaskedEq(libc::CLONE_THREAD as u64),
            0,
        )
        .map_err(|e| format!("seccomp: {e}"))?])
        .map_err(|e| format!("seccomp: {e}"))?;
        // a new process, or another program: the process is killed (SIGSYS), so that what it
        // tried is known even when the engine would hide a failed call
        let mut killed: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
        killed.insert(libc::SYS_clone, vec![a_new_process]);
        killed.insert(libc::SYS_fork, vec![]);
        killed.insert(libc::SYS_vfork, vec![]);
        if self.exec.is_empty() {
            killed.insert(libc::SYS_execve, vec![]);
            killed.insert(libc::SYS_execveat, vec![]);
        }
        filter(killed, SeccompAction::KillProcess)?;
        // the network, ways around these filters, and ways out of the namespaces (a mount
        // undone, another namespace entered, /proc mounted again): refused
        let mut refused: BTreeMap<i64, Vec<SeccompRule>> = [
            libc::SYS_socket,
            libc::SYS_io_uring_setup,
            libc::SYS_ptrace,
            libc::SYS_unshare,
            libc::SYS_setns,
            libc::SYS_mount,
            libc::SYS_umount2,
            libc::SYS_pivot_root,
            libc::SYS_chroot,
            libc::SYS_open_tree,
            libc::SYS_move_mount,
            libc::SYS_fsopen,
            libc::SYS_fsconfig,
            libc::SYS_fsmount,
            libc::SYS_fspick,
            libc::SYS_mount_setattr,
        ]
        .into_iter()
        .map(|call| (call, vec![]))
        .collect();
        // (a thread in a namespace of its own)
        let new_namespace = [
            libc::CLONE_NEWNS,
            libc::CLONE_NEWUSER,
            libc::CLONE_NEWPID,
            libc::CLONE_NEWNET,
            libc::CLONE_NEWIPC,
            libc::CLONE_NEWUTS,
            libc::CLONE_NEWCGROUP,
        ]
        .into_iter()
        .map(|flag| {
            let flag = flag as u64;
            SeccompCondition::new(
                0,
                SeccompCmpArgLen::Qword,
                SeccompCmpOp::MaskedEq(flag),
                flag,
            )
            .and_then(|c| SeccompRule::new(vec![c]))
            .map_err(|e| format!("seccomp: {e}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
        refused.insert(libc::SYS_clone, new_namespace);
        filter(refused, SeccompAction::Errno(libc::EACCES as u32))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_travel_as_their_bytes() {
        use std::os::unix::ffi::OsStrExt;
        for bytes in [
            &b"/a/b.pl"[..],
            b"/x/ann\xff%41%.pl",
            "/é/\u{200b}".as_bytes(),
            b"%",
        ] {
            let path = Path::new(std::ffi::OsStr::from_bytes(bytes));
            let text = path_to_text(path);
            assert_eq!(path_of_text(&text), path, "{text}");
        }
        assert_eq!(path_to_text(Path::new("/a%b")), "/a%25b");
        let c = Confinement {
            read: vec![PathBuf::from(std::ffi::OsStr::from_bytes(b"/k\xfe.pl"))],
            hidden: Vec::new(),
            scratch: PathBuf::from("/tmp/s"),
            exec: Vec::new(),
            limits: Limits::default(),
            scratch_size: None,
        };
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(serde_json::from_str::<Confinement>(&json).unwrap(), c);
    }

    #[test]
    fn the_loader_of_this_program_is_found() {
        let me = std::env::current_exe().unwrap();
        let loader = interpreter(&me).expect("a dynamically linked test program");
        assert!(loader.is_file(), "{}", loader.display());
        assert_eq!(interpreter(Path::new("/nonexistent")), None);
        assert_eq!(interpreter(Path::new(file!())), None);
    }
}
