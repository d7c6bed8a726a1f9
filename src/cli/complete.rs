//! Dynamic shell completion (clap_complete's `unstable-dynamic`): the shell
//! asks the binary itself, so subcommands, flags and REF arguments complete
//! below the top level, REFs to the sessions this machine has registered
//! right now.
//!
//! The switch is `THE_LOOP_COMPLETE`, not clap's default `COMPLETE`: the
//! launcher (`the-loop exec`) runs in every pane, and a generic variable
//! name in a pane's environment must never turn it into a completion printer.
//!
//! `the-loop completions SHELL` prints the same registration script as
//! `THE_LOOP_COMPLETE=SHELL the-loop` ([`registration`]), so a script written
//! to a file (the Debian package's, `scripts/package-deb.sh`) completes as
//! the sourced one does. clap_complete's static scripts are not used: they
//! spell the hyphenated name as `the__loop` and complete nothing below the
//! top level. The dynamic scripts are wrapped for refs (`complete_shells.rs`).

use clap::CommandFactory;
use clap_complete::engine::CompletionCandidate;

pub const VAR: &str = "THE_LOOP_COMPLETE";

/// The command completed, and the program an installed script calls for
/// its answers: found on PATH, as the command being completed is.
const BIN: &str = "the-loop";

/// Answers a completion request and exits when the shell made one;
/// returns at once otherwise.
pub fn answer_if_asked() {
    clap_complete::CompleteEnv::with_factory(offered)
        .var(VAR)
        .shells(super::complete_shells::SHELLS)
        .complete();
}

/// The command tree a shell is offered: `Cli` without its hidden
/// subcommands (`exec`, `api-key-helper`). clap_complete's engine offers a
/// hidden subcommand whenever it is the only one a prefix matches
/// (`the-loop e<TAB>` would give `exec`), so they are left out of the tree
/// it reads rather than marked hidden in it.
pub fn offered() -> clap::Command {
    let full = super::Cli::command();
    debug_assert_eq!(full.get_name(), BIN);
    clap::Command::new(BIN)
        .version(crate::build_info::LONG_VERSION)
        .propagate_version(full.is_propagate_version_set())
        .subcommand_required(full.is_subcommand_required_set())
        .args(full.get_arguments().cloned())
        .subcommands(full.get_subcommands().filter(|c| !c.is_hide_set()).cloned())
}

/// What `the-loop completions SHELL` prints: the registration script
/// `THE_LOOP_COMPLETE=SHELL the-loop` prints, calling `the-loop` from PATH.
/// zsh's gets one more line, so that the file also works autoloaded from
/// `$fpath` as `_the-loop` (where the package puts it): there the file's
/// body is the completion function, which only registers the real one, so
/// without that line the first Tab of every shell would complete nothing.
pub fn registration(shell: clap_complete::Shell) -> std::io::Result<Vec<u8>> {
    let name = shell.to_string();
    let Some(script) = super::complete_shells::SHELLS.completer(&name) else {
        return Err(std::io::Error::other(format!(
            "no dynamic completion for {name}"
        )));
    };
    let mut out = Vec::new();
    script.write_registration(VAR, BIN, BIN, BIN, &mut out)?;
    if shell == clap_complete::Shell::Zsh {
        let function = super::complete_shells::zsh_function(BIN);
        out.extend_from_slice(
            format!(
                "if [[ \"${{funcstack[1]}}\" == \"_{bin}\" ]]; then\n    \
                 {function} \"$@\"\nfi\n",
                bin = BIN,
            )
            .as_bytes(),
        );
    }
    Ok(out)
}

/// Every registered session's ref (or standing name), with its tmux name as
/// the help text. Silent on any error: a completion never prints one. The
/// config is found as without `--config` ($THE_LOOP_CLI_CONFIG first),
/// since the shell has not run the command line yet.
pub fn session_refs() -> Vec<CompletionCandidate> {
    let Some(registry) = registry() else {
        return Vec::new();
    };
    let mut out = work_items(&registry);
    out.extend(standing(&registry));
    out
}

/// Every registered work item's ref, with its tmux name; silent as
/// [`session_refs`] is.
pub fn work_item_refs() -> Vec<CompletionCandidate> {
    registry().map(|r| work_items(&r)).unwrap_or_default()
}

/// Every registered standing session's name, with its tmux name; silent
/// as [`session_refs`] is.
pub fn standing_names() -> Vec<CompletionCandidate> {
    registry().map(|r| standing(&r)).unwrap_or_default()
}

fn registry() -> Option<crate::registry::Registry> {
    let path = crate::desired::config::discover(None).ok()?;
    let config = crate::desired::config::load(&path).ok()?;
    Some(crate::registry::Registry::new(&config.state_root))
}

fn work_items(registry: &crate::registry::Registry) -> Vec<CompletionCandidate> {
    let records = registry.work_items().records.into_iter();
    records
        .map(|(_, record)| {
            let target = record.session.tmux_target().unwrap_or_default();
            CompletionCandidate::new(record.work_item.reference.clone()).help(Some(target.into()))
        })
        .collect()
}

fn standing(registry: &crate::registry::Registry) -> Vec<CompletionCandidate> {
    let records = registry.standing().records.into_iter();
    records
        .map(|(_, record)| {
            let target = record.session.tmux_target().unwrap_or_default();
            CompletionCandidate::new(record.name.clone()).help(Some(target.into()))
        })
        .collect()
}
