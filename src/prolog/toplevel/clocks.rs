//! The session's clocks (`statistics/2`), carried from one engine to the next.

/// The environment variable that gives a top level's engine the session's clocks as the
/// engine before it left them ([`Clocks`]): `statistics/2` only grows across restarts.
pub(super) const CLOCKS_VAR: &str = "KENKEN_TOPLEVEL_CLOCKS";

/// Where a top level's clocks start (`statistics/2`): `walltime` counts from `wall_origin`
/// (milliseconds since the Unix epoch; `None`: from the engine's start), `runtime` from
/// `cpu_ms` and `inferences` from `inferences`, both counting only what the user's goals take
/// (not the engine's load).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Clocks {
    pub(super) wall_origin: Option<u64>,
    pub(super) cpu_ms: u64,
    pub(super) inferences: u64,
}

impl Clocks {
    /// The clocks [`CLOCKS_VAR`] gives (`ORIGIN CPU INFERENCES`), or fresh ones.
    pub(super) fn from_env() -> Clocks {
        let text = std::env::var(CLOCKS_VAR).unwrap_or_default();
        let n: Vec<u64> = text
            .split_whitespace()
            .filter_map(|w| w.parse().ok())
            .collect();
        match n[..] {
            [w, c, i] => Clocks {
                wall_origin: Some(w),
                cpu_ms: c,
                inferences: i,
            },
            _ => Clocks::default(),
        }
    }
}

/// Milliseconds since the Unix epoch.
pub(super) fn epoch_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The CPU time (user and system) of this process's children that have ended and been
/// reaped, in milliseconds.
pub(super) fn children_cpu_ms() -> u64 {
    use nix::sys::resource::{getrusage, UsageWho};
    use nix::sys::time::TimeValLike;
    getrusage(UsageWho::RUSAGE_CHILDREN).map_or(0, |u| {
        (u.user_time().num_milliseconds() + u.system_time().num_milliseconds()).max(0) as u64
    })
}
