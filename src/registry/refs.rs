//! STUB: replaced by the registry work. Signatures are the contract.

/// `github:octo/repo#15` or `github:ghe.host/octo/repo#15` (host may carry `:port`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WorkItemRef {
    pub provider: String,
    pub host: Option<String>,
    pub owner: String,
    pub repo: String,
    pub number: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a work-item ref ({reason}); expected provider:owner/repo#number")]
pub struct RefError {
    pub reason: &'static str,
}

impl std::str::FromStr for WorkItemRef {
    type Err = RefError;
    fn from_str(_s: &str) -> Result<Self, RefError> {
        todo!()
    }
}

impl std::fmt::Display for WorkItemRef {
    fn fmt(&self, _f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        todo!()
    }
}

impl WorkItemRef {
    /// `provider-owner-repo-number` (host included when present), runs outside
    /// `[A-Za-z0-9._-]` turned into `-`.
    pub fn slug(&self) -> String {
        todo!()
    }
    /// `loop-<slug>` spelled the way tmux spells it.
    pub fn tmux_name(&self) -> String {
        tmux_session_name(&self.slug())
    }
}

/// `loop-<slug>` with every `.` and `:` rewritten to `_`.
pub fn tmux_session_name(_slug: &str) -> String {
    todo!()
}

/// `loop-standing-<name>`.
pub fn standing_tmux_name(name: &str) -> String {
    format!("loop-standing-{name}")
}

/// Standing names match `^[a-z0-9][a-z0-9-]{0,39}$`.
pub fn validate_standing_name(_name: &str) -> Result<(), RefError> {
    todo!()
}

/// A `tmuxTarget` read back from a record, normalised (`.`/`:` to `_` in the
/// session part) so old records address the session tmux really has.
pub fn normalise_tmux_target(_target: &str) -> String {
    todo!()
}
