//! `the-loop history` as text: a block per roll, newest first, then where
//! the rolls were read from. The `--json` view is the history itself
//! (`schemas/history.schema.json`).

use super::{print_json, snake_name, Format, Style};
use crate::events::host::HostRollReport;
use crate::events::roll::Conversation;
use crate::ops::history::{EnvChange, History, Roll, RollEnv, RollResult};
use std::fmt::Write;

/// The env line names this many changed names, then counts the rest: a
/// rotation of hundreds of names is one roll, not a page (`--json` lists all).
const SHOWN_CHANGES: usize = 8;

pub fn show(history: &History, format: Format, style: Style) {
    match format {
        Format::Json => print_json(history),
        Format::Text => crate::out!("{}", render(history, style)),
    }
}

pub fn render(history: &History, style: Style) -> String {
    let mut out = String::new();
    for roll in &history.rolls {
        render_roll(&mut out, roll, style);
        out.push('\n');
    }
    let log = history.events_file.display();
    match history.rolls.len() {
        0 => {
            let _ = writeln!(out, "No rolls recorded in {log}.");
        }
        1 => {
            let _ = writeln!(out, "1 roll in {log}.");
        }
        n => {
            let _ = writeln!(out, "{n} rolls in {log}, newest first.");
        }
    }
    if history.truncated {
        out.push_str("Only the log's last 16 MiB were read: older rolls are not listed.\n");
    }
    if history.unreadable_lines > 0 {
        let _ = writeln!(
            out,
            "{} {} about rolls could not be read (torn by a crash, or edited) and {} skipped.",
            history.unreadable_lines,
            plural(history.unreadable_lines, "line", "lines"),
            plural(history.unreadable_lines, "was", "were"),
        );
    }
    out
}

/// How many seconds a finished roll took: its own monotonic measure, or,
/// for a roll logged before `apply.finished` carried one, the difference of
/// its two wall-clock stamps (which a clock set during the roll distorts).
fn took(roll: &Roll) -> Option<u64> {
    if let Some(ms) = roll.duration_ms {
        return Some(ms / 1000);
    }
    let from = crate::clock::parse_utc(roll.started.as_deref()?)?;
    crate::clock::parse_utc(roll.finished.as_deref()?)?.checked_sub(from)
}

/// `2026-12-03T10:00:05Z  apply  succeeded in 4s`, the env file line, and
/// one line per session.
fn render_roll(out: &mut String, roll: &Roll, style: Style) {
    let result = match roll.result {
        RollResult::Succeeded => style.green("succeeded").to_string(),
        RollResult::Failed => style.red("failed").to_string(),
        RollResult::Interrupted => style.yellow("interrupted").to_string(),
        RollResult::Unfinished => style
            .yellow("unfinished (no apply.finished: killed, or running now)")
            .to_string(),
    };
    let took = took(roll)
        .map(|secs| format!(" in {secs}s"))
        .unwrap_or_default();
    let when = roll
        .started
        .as_deref()
        .or(roll.finished.as_deref())
        .unwrap_or("-");
    let _ = writeln!(
        out,
        "{}  {}  {result}{took}",
        style.bold(when),
        roll.command.as_str()
    );
    if let Some(env) = &roll.env {
        let _ = writeln!(out, "  env file  {}", env_line(env));
    }
    let width = roll
        .sessions
        .iter()
        .map(|s| label(s).len())
        .max()
        .unwrap_or(0);
    for s in &roll.sessions {
        let mut verdict = snake_name(s.outcome).replace('_', " ");
        if let Some(detail) = &s.detail {
            let _ = write!(verdict, " ({detail})");
        }
        let conversation = match s.conversation {
            Some(Conversation::Confirmed) => "  conversation confirmed",
            Some(Conversation::Unconfirmed) => "  conversation unconfirmed",
            None => "",
        };
        let _ = writeln!(out, "  {:<width$}  {verdict}{conversation}", label(s));
    }
    for host in &roll.hosts {
        render_host(out, host);
    }
    let host_acted = roll.hosts.iter().any(HostRollReport::did_anything);
    if roll.sessions.is_empty() && !host_acted {
        match (roll.result, roll.selected) {
            (RollResult::Unfinished, Some(n)) => {
                let _ = writeln!(
                    out,
                    "  {n} {} selected; no outcome was recorded",
                    plural(n, "session", "sessions")
                );
            }
            (RollResult::Unfinished, None) => {}
            _ => out.push_str("  no session was acted on\n"),
        }
    }
}

/// A host beside tmux (`docs/hosts.md`): its layer's outcome (Claude
/// Code's daemon), then each session's, by ref and the host's id.
fn render_host(out: &mut String, host: &HostRollReport) {
    let words = crate::hosts::words(host.host);
    if let Some(daemon) = &host.layer {
        let _ = writeln!(
            out,
            "  {} {}  {}{}",
            words.session,
            words.layer,
            snake_name(&daemon.outcome).replace('_', " "),
            detail(daemon.detail.as_deref())
        );
    }
    for s in &host.sessions {
        let _ = writeln!(
            out,
            "  {} ({} {})  {}{}",
            s.reference.as_deref().unwrap_or(&s.id),
            words.session,
            s.id,
            snake_name(s.outcome).replace('_', " "),
            detail(s.detail.as_deref())
        );
    }
}

fn detail(detail: Option<&str>) -> String {
    detail.map(|d| format!(" ({d})")).unwrap_or_default()
}

fn label(s: &crate::events::SessionOutcome) -> &str {
    s.reference
        .as_deref()
        .or(s.standing.as_deref())
        .unwrap_or(&s.tmux_target)
}

/// `/srv/.env: A 1a2b3c4d → 5e6f7a8b, B absent → 0c1d2e3f`, or that it is
/// unchanged, or that there is nothing earlier to compare it with.
fn env_line(env: &RollEnv) -> String {
    let file = env.file.display();
    let names = plural(env.names, "name", "names");
    match &env.changes {
        None => format!(
            "{file} ({} {names}; no earlier roll in the log to compare with)",
            env.names
        ),
        Some(changes) if changes.is_empty() => {
            format!("{file}: unchanged since the roll before")
        }
        Some(changes) => {
            let mut shown: Vec<String> = changes.iter().take(SHOWN_CHANGES).map(change).collect();
            if changes.len() > SHOWN_CHANGES {
                shown.push(format!("and {} more", changes.len() - SHOWN_CHANGES));
            }
            format!("{file}: {}", shown.join(", "))
        }
    }
}

fn change(c: &EnvChange) -> String {
    let side =
        |f: Option<crate::secret::Shown>| f.map_or_else(|| "absent".to_owned(), |f| f.to_string());
    format!("{} {} → {}", c.name, side(c.before), side(c.after))
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::roll::{Outcome, RollCommand};
    use crate::events::SessionOutcome;
    use crate::secret::Fingerprint;

    fn roll(result: RollResult, changes: Option<Vec<EnvChange>>) -> Roll {
        Roll {
            started: Some("2026-12-03T10:00:05Z".into()),
            finished: (result != RollResult::Unfinished).then(|| "2026-12-03T10:00:09Z".into()),
            duration_ms: None,
            command: RollCommand::SessionsRestart,
            result,
            selected: Some(1),
            env: Some(RollEnv {
                file: "/srv/.env".into(),
                names: 2,
                changes,
            }),
            sessions: vec![SessionOutcome {
                reference: Some("github:octo/repo#15".into()),
                standing: None,
                tmux_target: "loop-github-octo-repo-15".into(),
                outcome: Outcome::ResumeFailed,
                detail: Some("the harness exited".into()),
                conversation: None,
            }],
            hosts: Vec::new(),
        }
    }

    fn history(rolls: Vec<Roll>) -> History {
        History {
            format_version: "1".into(),
            events_file: "/srv/state/events.jsonl".into(),
            rolls,
            truncated: false,
            unreadable_lines: 0,
        }
    }

    #[test]
    fn a_roll_reads_as_when_what_how_the_env_file_changed_and_each_outcome() {
        let many: Vec<EnvChange> = (0..10)
            .map(|i| EnvChange {
                name: format!("N{i}"),
                before: None,
                after: Some(crate::secret::Shown::Fingerprint(Fingerprint::of(b"v"))),
            })
            .collect();
        // Killed mid-roll: its start is all the log has.
        let mut unfinished = roll(RollResult::Unfinished, None);
        unfinished.sessions.clear();
        let text = render(
            &history(vec![roll(RollResult::Failed, Some(many)), unfinished]),
            Style::PLAIN,
        );
        assert_eq!(
            text,
            "2026-12-03T10:00:05Z  sessions restart  failed in 4s\n  \
             env file  /srv/.env: N0 absent → 4c94485e, N1 absent → 4c94485e, N2 absent → 4c94485e, \
             N3 absent → 4c94485e, N4 absent → 4c94485e, N5 absent → 4c94485e, N6 absent → 4c94485e, \
             N7 absent → 4c94485e, and 2 more\n  \
             github:octo/repo#15  resume failed (the harness exited)\n\n\
             2026-12-03T10:00:05Z  sessions restart  unfinished (no apply.finished: killed, or running now)\n  \
             env file  /srv/.env (2 names; no earlier roll in the log to compare with)\n  \
             1 session selected; no outcome was recorded\n\n\
             2 rolls in /srv/state/events.jsonl, newest first.\n"
        );
    }

    #[test]
    fn a_roll_is_timed_by_its_monotonic_duration_not_by_its_wall_clock_stamps() {
        // The wall clock was set a day forward during a 64 s roll.
        let mut jumped = roll(RollResult::Succeeded, Some(Vec::new()));
        jumped.started = Some("2026-12-01T10:00:00Z".into());
        jumped.finished = Some("2026-12-02T10:01:04Z".into());
        jumped.duration_ms = Some(64_400);
        let text = render(&history(vec![jumped]), Style::PLAIN);
        assert!(text.contains("  succeeded in 64s\n"), "{text}");
        assert!(!text.contains("86464"), "{text}");
    }

    #[test]
    fn a_roll_of_the_background_host_lists_its_daemon_and_sessions() {
        use crate::events::host::*;
        let mut watch = roll(RollResult::Succeeded, Some(Vec::new()));
        watch.command = RollCommand::Watch;
        watch.sessions.clear();
        watch.hosts = vec![HostRollReport {
            host: crate::host_kind::Host::ClaudeBackground,
            layer: Some(LayerReport {
                outcome: LayerOutcome::Replaced,
                old_pid: Some(10),
                new_pid: Some(11),
                detail: None,
            }),
            sessions: vec![HostSessionReport {
                id: "a1b2c3d4".into(),
                reference: Some("github:octo/repo#7".into()),
                outcome: HostOutcome::Deferred,
                old_pid: Some(12),
                new_pid: None,
                conversation: None,
                detail: Some("held: a turn runs".into()),
            }],
        }];
        let text = render(&history(vec![watch]), Style::PLAIN);
        assert!(
            text.contains(
                "  background daemon  replaced\n  \
                 github:octo/repo#7 (background a1b2c3d4)  deferred (held: a turn runs)\n"
            ),
            "{text}"
        );
        assert!(!text.contains("no session was acted on"), "{text}");
    }

    #[test]
    fn an_empty_log_says_where_it_looked() {
        let mut h = history(vec![]);
        h.truncated = true;
        h.unreadable_lines = 1;
        assert_eq!(
            render(&h, Style::PLAIN),
            "No rolls recorded in /srv/state/events.jsonl.\n\
             Only the log's last 16 MiB were read: older rolls are not listed.\n\
             1 line about rolls could not be read (torn by a crash, or edited) and was skipped.\n"
        );
    }
}
