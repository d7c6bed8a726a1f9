//! The hosts the-loop knows, by the names `routing.hosts` gives them: the
//! one vocabulary the config, the plan, the records, the journals and the
//! events share. A new host is a variant here (the config schema follows
//! it) and a line in `hosts::of`.

/// A host of sessions: a place the-loop observes, plans and rolls.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    serde::Deserialize,
    serde::Serialize,
    schemars::JsonSchema,
    clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum Host {
    /// tmux panes, each running a harness.
    Tmux,
    /// Claude Code's background sessions (`claude --bg`), under the one
    /// daemon of a Claude config dir.
    ClaudeBackground,
}

impl Host {
    /// The name the config, the plan and the docs use.
    pub fn name(self) -> &'static str {
        match self {
            Host::Tmux => "tmux",
            Host::ClaudeBackground => "claude-background",
        }
    }
}
