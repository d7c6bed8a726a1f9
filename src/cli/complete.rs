//! Dynamic shell completion (clap_complete's `unstable-dynamic`): the shell
//! asks the binary itself, so REF arguments complete to the sessions this
//! machine has registered right now.
//!
//! The switch is `THE_LOOP_COMPLETE`, not clap's default `COMPLETE`: the
//! launcher (`the-loop exec`) runs in every pane, and a generic variable
//! name in a pane's environment must never turn it into a completion printer.

use clap::CommandFactory;
use clap_complete::engine::CompletionCandidate;

pub const VAR: &str = "THE_LOOP_COMPLETE";

/// Answers a completion request and exits when the shell made one;
/// returns at once otherwise.
pub fn answer_if_asked() {
    clap_complete::CompleteEnv::with_factory(super::Cli::command)
        .var(VAR)
        .complete();
}

/// Every registered session's ref (or standing name), with its tmux name as
/// the help text. Silent on any error: a completion never prints one. The
/// config is found as without `--config` ($THE_LOOP_CLI_CONFIG first),
/// since the shell has not run the command line yet.
pub fn session_refs() -> Vec<CompletionCandidate> {
    let Ok(path) = crate::desired::config::discover(None) else {
        return Vec::new();
    };
    let Ok(config) = crate::desired::config::load(&path) else {
        return Vec::new();
    };
    let registry = crate::registry::Registry::new(&config.state_root);
    let mut out = Vec::new();
    for (_, record) in registry.work_items().records {
        let target = record.session.tmux_target().unwrap_or_default();
        out.push(
            CompletionCandidate::new(record.work_item.reference.clone()).help(Some(target.into())),
        );
    }
    for (_, record) in registry.standing().records {
        let target = record.session.tmux_target().unwrap_or_default();
        out.push(CompletionCandidate::new(record.name.clone()).help(Some(target.into())));
    }
    out
}
