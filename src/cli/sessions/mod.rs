//! `the-loop sessions …`: one file per verb.
//!
//! Import circle: `mod.rs` ↔ `cleanup.rs`, `close.rs`, `reset.rs`. `mod.rs`
//! dispatches to each verb, and those verbs end with its one `exit_code`
//! rule for a report that is not complete.

mod attach;
mod cleanup;
pub(crate) mod close;
pub(crate) mod deliver;
mod forget;
mod link_pr;
pub(crate) mod list;
mod pause;
mod reset;
mod restart;
pub(crate) mod start;

use crate::ops::sessions::pause as ops;
use crate::ops::Context;
use clap::Subcommand;
use std::path::Path;
use std::process::ExitCode;

#[derive(Debug, Subcommand)]
pub enum SessionsCommand {
    /// Start a harness session for a work item, detached in tmux session loop-<slug>.
    ///
    /// The pane runs the-loop's launcher, which reads the env file itself and
    /// starts the harness with the desired environment: withheld names absent
    /// (even when the tmux server holds them), delivered names set, identifiers set.
    ///
    /// Before the harness starts, the-loop writes trust for the working
    /// directory (and, for Claude Code, its own plugin) into the harness's
    /// user settings, so no dialog stops the session; `routing.harnessTrust:
    /// false` and `routing.harnessPlugins: false` turn that off.
    #[command(
        after_help = crate::cli::help::START,
        after_long_help = crate::cli::help::START_LONG
    )]
    Start(start::StartArgs),
    /// List sessions: status, live state, age, last event, cwd, conversation, pull requests.
    ///
    /// Every registered session, plus each `loop-*` tmux session with no
    /// record (shown as unmanaged), from one tmux call. Long refs and paths
    /// are shortened with an ellipsis; --json keeps every field in full.
    #[command(after_help = crate::cli::help::LIST, after_long_help = crate::cli::help::LIST_LONG)]
    List(list::ListArgs),
    /// Respawn running sessions in place on the env file as it is now.
    ///
    /// Every targeted live session is relaunched with its conversation resumed,
    /// then verified. A session whose conversation cannot be resumed is left
    /// alone; one that is not running is skipped, never started.
    #[command(after_help = crate::cli::help::RESTART, after_long_help = crate::cli::help::RESTART_LONG)]
    Restart(restart::RestartArgs),
    /// Deliver text into a work item's session, as if typed and submitted.
    ///
    /// The text is bracketed-pasted into the harness, then submitted by a
    /// separate paste of a carriage return. No client is involved, so an
    /// operator attached read-only never blocks a delivery. Deliveries to one
    /// session are served one at a time, in arrival order.
    ///
    /// When the session is gone (absent, or retained with its harness dead) the
    /// harness is respawned in loop-<slug>, resuming the recorded conversation
    /// when it can (a fresh one otherwise), with the text as its first prompt.
    /// A live session holding the name is never killed or spawned over.
    #[command(
        after_help = "Exit codes: 0 delivered, or the delivery id was already processed; \
1 failed, the id was not recorded, retry later; \
2 not delivered by rule (paused, closed, cleaned up, or a dead session holding the name cannot be cleared).\n\n\
Examples:\n  the-loop sessions deliver github:octo/repo#15 --message 'CI failed on main; please look' --delivery-id 7f3a\n  gh api … | the-loop sessions deliver github:octo/repo#15 --file - --json"
    )]
    Deliver(deliver::DeliverArgs),
    /// Suppress deliveries to a session; its tmux session is left exactly as it is.
    #[command(after_help = crate::cli::help::PAUSE, after_long_help = crate::cli::help::PAUSE_LONG)]
    Pause(pause::PauseArgs),
    /// Let deliveries through to a paused session again.
    #[command(after_help = crate::cli::help::RESUME, after_long_help = crate::cli::help::RESUME_LONG)]
    Resume(pause::PauseArgs),
    /// Close a work item's session: the record is closed and the harness ended.
    ///
    /// By default (routing.tmux.keepSessionOnClose) the tmux session is kept so
    /// its transcript stays readable, and (routing.tmux.killHarnessOnClose) the
    /// harness in it is ended: remain-on-exit re-set, SIGTERM, then SIGKILL after
    /// routing.tmux.harnessKillGraceSeconds. Only that loop-* session's own pane
    /// pids are signalled.
    #[command(after_help = crate::cli::help::STOP, after_long_help = crate::cli::help::STOP_LONG)]
    Stop(close::StopArgs),
    /// Close a work item (as its closure does): stop, then clean up when an authorized actor closed it.
    ///
    /// With --actor LOGIN in routing.authorizedUsers, `sessions cleanup` follows.
    /// Without an actor, or with one not authorized, the cleanup is deferred
    /// (cleanup.deferred) and only the close happens.
    #[command(after_help = crate::cli::help::CLOSE, after_long_help = crate::cli::help::CLOSE_LONG)]
    Close(close::CloseArgs),
    /// End a work item's session through the close path and delete its record, so it starts over.
    ///
    /// Always says whether it ended a live session. A tmux session kept by
    /// policy outlives the record: read it with `tmux attach -r -t loop-<slug>`.
    #[command(after_help = crate::cli::help::RESET, after_long_help = crate::cli::help::RESET_LONG)]
    Reset(reset::ResetArgs),
    /// Release everything local a finished work item holds.
    ///
    /// Ends and kills the tmux session of every endpoint (each linked pull
    /// request's, then the item's own), removes the workspace checkout when it
    /// lies inside routing.workspace.root (never anything else), deletes the
    /// record, and records `cleanup` as the last control command so no later
    /// delivery starts the item again. Works with or without a record or a
    /// running session.
    #[command(after_help = crate::cli::help::CLEANUP, after_long_help = crate::cli::help::CLEANUP_LONG)]
    Cleanup(cleanup::CleanupArgs),
    /// Attach this terminal to a session's tmux session (closed sessions read-only).
    ///
    /// Takes a full ref, a short form that matches one registered session
    /// (#15, repo#15), a standing name or the tmux name. Inside tmux ($TMUX
    /// set, as in the web-terminal hub) it switches the current client to the
    /// session instead of nesting a second client.
    #[command(after_help = crate::cli::help::ATTACH, after_long_help = crate::cli::help::ATTACH_LONG)]
    Attach(attach::AttachArgs),
    /// Link a pull request to a work item: its events are delivered into the item's session.
    #[command(after_help = crate::cli::help::LINK_PR, after_long_help = crate::cli::help::LINK_PR_LONG)]
    LinkPr(link_pr::LinkPrArgs),
    /// Stop managing a session without ending it: its record goes, its harness runs on.
    ///
    /// No tmux call is made and nothing is signalled: the conversation goes
    /// on, and you can still attach with `tmux attach -t loop-<slug>`. From
    /// then on the-loop never plans, rolls or delivers to it; `plan` lists
    /// its harness as unmanaged, and `the-loop import PANE REF` takes it
    /// back under management.
    #[command(
        after_help = "Exit codes: 0 forgotten; 1 no session is registered for REF, or an error (nothing changed).\n\nExamples:\n  the-loop sessions forget github:octo/repo#15\n  the-loop sessions forget '#15' --json"
    )]
    Forget(forget::ForgetArgs),
}

pub fn run(config: Option<&Path>, command: SessionsCommand) -> miette::Result<ExitCode> {
    match command {
        SessionsCommand::Start(args) => start::run(&Context::load(config)?, args),
        SessionsCommand::List(args) => list::run(&Context::load(config)?, args),
        SessionsCommand::Restart(args) => restart::run(config, args),
        SessionsCommand::Deliver(args) => deliver::run(&Context::load(config)?, args),
        SessionsCommand::Pause(args) => {
            pause::run(&Context::load_without_tmux(config)?, args, ops::pause)
        }
        SessionsCommand::Resume(args) => {
            pause::run(&Context::load_without_tmux(config)?, args, ops::resume)
        }
        SessionsCommand::Stop(args) => close::stop_cmd(&Context::load(config)?, args),
        SessionsCommand::Close(args) => close::close_cmd(&Context::load(config)?, args),
        SessionsCommand::Reset(args) => reset::run(&Context::load(config)?, args),
        SessionsCommand::Cleanup(args) => cleanup::run(&Context::load(config)?, args),
        SessionsCommand::Attach(args) => attach::run(&Context::load(config)?, args),
        SessionsCommand::LinkPr(args) => link_pr::run(&Context::load(config)?, args),
        SessionsCommand::Forget(args) => forget::run(&Context::load_without_tmux(config)?, args),
    }
}

/// 0 when the op left nothing behind, else 1 (what it left is in its report).
fn exit_code(complete: bool) -> ExitCode {
    if complete {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
