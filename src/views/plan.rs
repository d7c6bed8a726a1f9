//! The plan as people read it, in the spirit of `terraform plan`: one block
//! per session, a symbol for the action, names with fingerprints only. The
//! plan itself (`crate::plan`) only computes; this is its text view, which
//! `plan`, `apply` and the restarts print.

use super::change::{render_args_change, write_change};
use super::Style;
use crate::plan::model::*;
use crate::style::Painted;
use std::fmt::Write;

use super::plan_next::footer;
pub use super::plan_next::Next;

/// The plan as `plan` shows it.
pub fn render_plan(plan: &Plan, style: Style) -> String {
    render_plan_for(plan, Next::Plan, style)
}

pub fn render_plan_for(plan: &Plan, next: Next<'_>, style: Style) -> String {
    let mut out = String::new();
    match &plan.env_file {
        Some(path) => {
            let helper = if plan.delivered_by_helper.is_empty() {
                String::new()
            } else {
                format!(
                    "; {} delivered by helper",
                    plan.delivered_by_helper.join(", ")
                )
            };
            let candidate = match &plan.candidate_for {
                Some(configured) => format!(", a candidate for env.file {}", configured.display()),
                None => String::new(),
            };
            let _ = writeln!(
                out,
                "env file: {} ({}{helper}){candidate}",
                path.display(),
                super::names_declared(plan.env_fingerprints.len())
            );
        }
        None => out.push_str("env file: none configured\n"),
    }
    if let Some(server) = &plan.tmux_server {
        let _ = writeln!(out, "tmux server: {}", server.display());
    }
    if let Some(before) = &plan.fingerprints_changed_from {
        let _ = writeln!(
            out,
            "{} they are now {}, no longer {}. Each one differs from what earlier plans, reports and events showed for the same value; that alone is not drift. (Said once.)",
            style.bold("Fingerprints changed:"),
            describe_fingerprints(&plan.fingerprints),
            describe_fingerprints(before)
        );
    }
    if let Some(reason) = &plan.tmux_unanswered {
        let _ = writeln!(
            out,
            "{} {reason}; every session's state is unknown",
            style.red("tmux could not be read:")
        );
    }
    out.push('\n');
    if plan.sessions.is_empty() {
        out.push_str("No loop-* sessions are registered or running.\n");
    }
    let restart = matches!(next, Next::Restart { .. });
    for session in &plan.sessions {
        render_session(&mut out, session, restart, style);
    }
    for corrupt in &plan.corrupt_records {
        let _ = writeln!(
            out,
            "{} registry record {}: {}",
            style.red("!"),
            corrupt.path.display(),
            corrupt.reason
        );
    }
    if let Some(residue) = &plan.residue {
        out.push_str(&crate::plan::residue::render(residue, style));
    }
    out.push_str(&crate::plan::unmanaged::render(
        &plan.unmanaged_harnesses,
        plan.unmanaged_counted,
        style,
    ));
    for host in &plan.hosts {
        out.push_str(&super::plan_host::render(host, style));
    }
    let s = &plan.summary;
    let left_alone = if s.left_alone > 0 {
        format!(", {} drifted but left alone", s.left_alone)
    } else {
        String::new()
    };
    // The last count is of `loop-*` sessions no record names, not of the
    // harnesses listed above as not managed: named for what it counts, so
    // one word does not mean two things on one screen.
    let _ = writeln!(
        out,
        "\n{} {} to respawn{left_alone}, {}{} up to date, {} skipped, {} unverified, {} loop-* without a record.",
        style.bold("Plan:"),
        s.respawn,
        if s.resume > 0 {
            format!("{} interrupted respawn(s) to complete, ", s.resume)
        } else {
            String::new()
        },
        s.up_to_date,
        s.skipped,
        s.unverified,
        s.unmanaged
    );
    if !plan.down.is_empty() {
        let n = plan.down.len();
        let (what, are) = if n == 1 {
            ("session is", "it")
        } else {
            ("sessions are", "them")
        };
        let _ = writeln!(
            out,
            "{n} registered {what} down (no roll starts {are}): `the-loop sessions start --all` brings {are} back (`--dry-run` lists {are})."
        );
    }
    out.push_str(&footer(plan, next));
    out
}

fn render_session(out: &mut String, session: &SessionPlan, restart: bool, style: Style) {
    let (symbol, verdict) = verdict(session, restart, style);
    let _ = write!(out, "{symbol} {}  ", style.bold(session.label()));
    let _ = match (&session.pane_id, session.pane_pid) {
        (Some(id), Some(pid)) => write!(
            out,
            "{}",
            style.dim_args(format_args!(
                "({}, pane {id}, pid {pid}{})",
                session.tmux_target,
                session
                    .pane_process
                    .map(|shell| format!(" beneath shell pid {shell}"))
                    .unwrap_or_default()
            ))
        ),
        _ => write!(
            out,
            "{}",
            style.dim_args(format_args!("({})", session.tmux_target))
        ),
    };
    let _ = write!(out, "  {verdict}");
    write_safe_point(out, session, style);
    out.push('\n');
    for change in &session.changes {
        out.push_str("    ");
        write_change(out, change, style);
        out.push('\n');
    }
    for change in &session.args_changes {
        let _ = writeln!(out, "    {}", render_args_change(change, style));
    }
    if let Some(moved) = &session.conversation_moved {
        let _ = writeln!(
            out,
            "    {} {} → {}  {}",
            style.dim("conversation"),
            moved.from.as_deref().unwrap_or("(none)"),
            moved.to,
            style.dim(match moved.from {
                Some(_) =>
                    "(moved in the harness: /clear, /new or /resume; a roll resumes the new one)",
                None => "(begun in the harness since its start; a roll resumes it)",
            })
        );
    }
}

/// What the plan says it does with a session: painted words for the usual
/// verdicts, a sentence for the rest.
enum Verdict<'a> {
    Painted(Painted<'a>),
    Sentence(String),
}

impl std::fmt::Display for Verdict<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verdict::Painted(painted) => painted.fmt(f),
            Verdict::Sentence(text) => f.write_str(text),
        }
    }
}

fn verdict(
    session: &SessionPlan,
    restart: bool,
    style: Style,
) -> (Painted<'static>, Verdict<'static>) {
    let reason = || {
        session
            .reason
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default()
    };
    let left_alone = |words: &'static str| {
        Verdict::Sentence(format!(
            "{}: {}",
            style.red(words),
            session.left_alone.as_deref().unwrap_or_default()
        ))
    };
    match session.action {
        // An up-to-date session is left alone by `plan` and `apply` anyway;
        // only a restart would have touched it.
        Action::Respawn | Action::None
            if session.left_alone.is_some() && (restart || session.action == Action::Respawn) =>
        {
            (
                style.red("!"),
                left_alone(if session.action == Action::Respawn {
                    "drifted, but will be left alone"
                } else {
                    "will be left alone"
                }),
            )
        }
        Action::Respawn => (
            style.yellow("~"),
            Verdict::Painted(style.yellow("will be respawned")),
        ),
        Action::None if restart => (
            style.yellow("~"),
            Verdict::Painted(style.yellow("up to date; will be restarted")),
        ),
        Action::None => (
            style.green("="),
            Verdict::Painted(style.green("up to date")),
        ),
        Action::Resume if session.left_alone.is_some() => (
            style.red("!"),
            left_alone("interrupted respawn, but will be left alone"),
        ),
        Action::Resume => (
            style.red("!"),
            Verdict::Sentence(
                style
                    .red(&format!(
                        "will be respawned ({})",
                        session
                            .reason
                            .as_ref()
                            .map_or("interrupted respawn".into(), ToString::to_string)
                    ))
                    .to_string(),
            ),
        ),
        Action::Skip if session.is_unverified() || session.kind == SessionKind::Unmanaged => {
            (style.dim("?"), Verdict::Sentence(reason()))
        }
        Action::Skip => (
            style.dim("-"),
            Verdict::Sentence(format!("skip: {}", reason())),
        ),
    }
}

/// What the harness is doing, by its hooks, or by its screen where the
/// hooks say nothing of it (a `!` command fires no hook; a menu opened by
/// `/exit` neither).
fn doing(session: &SessionPlan) -> &'static str {
    crate::plan::screen::doing(session.activity, session.screen).as_str()
}

/// `  [busy, 1 attached: waits for its turn to end]`: what the harness is
/// doing and what the roll does about it, for a session with a live
/// harness; nothing for the rest.
fn write_safe_point(out: &mut String, session: &SessionPlan, style: Style) {
    if session.kind == SessionKind::Unmanaged
        || session.pane_pid.is_none()
        || session.action == Action::Skip
    {
        return;
    }
    let attached = if session.attached > 0 {
        format!(", {} attached", session.attached)
    } else {
        String::new()
    };
    let will = match session.apply_will {
        None => "",
        Some(SafePoint::RollNow) => ": rolls now",
        Some(SafePoint::WaitBusy) => ": waits for its turn to end",
        Some(SafePoint::WaitWaiting) => ": waits until the person it asks answers",
        Some(SafePoint::WaitScreen) => match session.screen {
            Some(crate::harness::turn_screen::TurnScreen::Draft) => {
                ": waits: a prompt is being written"
            }
            _ => ": waits: a background shell or task runs",
        },
        Some(SafePoint::WaitUnknown) => {
            ": waits: neither its hooks nor its screen say it is between turns"
        }
        Some(SafePoint::LeaveAttached) => ": deferred while attached (--include-attached rolls it)",
        Some(SafePoint::LeaveEnded) => ": left alone: the person ended its harness",
    };
    let since = match &session.busy_since {
        Some(since) if session.activity.in_turn() => format!(" since {since}"),
        _ => String::new(),
    };
    let _ = write!(
        out,
        "  {}",
        style.dim_args(format_args!("[{}{since}{attached}{will}]", doing(session)))
    );
}

/// `plain SHA-256 (env.fingerprint: sha256)`, or keyed with the key's id.
fn describe_fingerprints(label: &crate::secret::FingerprintLabel) -> String {
    match (label.mode, label.key_id) {
        (crate::secret::FingerprintMode::Keyed, Some(id)) => {
            format!("HMAC-SHA-256 under key {id} (env.fingerprint: keyed)")
        }
        (crate::secret::FingerprintMode::Keyed, None) => {
            "HMAC-SHA-256 (env.fingerprint: keyed)".to_owned()
        }
        (crate::secret::FingerprintMode::Sha256, _) => {
            "plain SHA-256 (env.fingerprint: sha256)".to_owned()
        }
    }
}
