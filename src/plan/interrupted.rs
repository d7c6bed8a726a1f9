//! What an interrupted roll left behind, as the plan sees it: the intent
//! journal's entries ([`crate::registry::journal`]) are read on the
//! observation side and handed in as data; this decides, purely, which
//! sessions a roll must complete.

use super::{Action, Plan, Reason, SessionKind};
use crate::harness::Harness;
use crate::observed::Probe;
use crate::registry::journal::{Entry, InterruptedRespawn};
use std::path::{Component, Path, PathBuf};

/// What an interrupted roll left behind, as observed now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Left {
    /// The journaled pane is there and dead: respawn it in place.
    DeadPane,
    /// The tmux session is gone: nothing to respawn in place.
    Gone,
}

/// `None` when the entry no longer describes the session: its pane is
/// live (a stale entry, or a roll in flight) or tmux did not answer.
pub fn left_behind(entry: &Entry, probe: Probe, pane_id: Option<&str>) -> Option<Left> {
    match probe {
        Probe::Dead if pane_id == Some(entry.pane_id.as_str()) => Some(Left::DeadPane),
        Probe::Absent => Some(Left::Gone),
        _ => None,
    }
}

/// Marks the sessions an interrupted roll left behind. A pure function of
/// the plan and the journal, applied after [`crate::plan::compute()`].
///
/// Only a dead harness pane with the journaled pane id becomes `resume`:
/// a live pane is planned as usual (the journal is stale, or a roll is in
/// flight), and a missing pane cannot be respawned in place, so it stays a
/// skip whose reason says what was interrupted.
pub fn annotate(plan: &mut Plan, entries: &[Entry]) {
    for session in &mut plan.sessions {
        if session.kind == SessionKind::Unmanaged {
            continue;
        }
        let Some(entry) = entries.iter().find(|e| {
            e.tmux_target == session.tmux_target
                && e.reference == session.reference
                && e.standing == session.standing
        }) else {
            continue;
        };
        if session.reason == Some(Reason::RecordClosed) {
            continue;
        }
        let Some(left) = left_behind(entry, session.probe, session.pane_id.as_deref()) else {
            continue;
        };
        let dead_pane = left == Left::DeadPane;
        session.interrupted_respawn = Some(InterruptedRespawn {
            pane_id: entry.pane_id.clone(),
            harness_session_id: entry.harness_session_id.clone(),
            since: entry.since.clone(),
        });
        if dead_pane {
            session.action = Action::Resume;
            session.reason = Some(Reason::InterruptedDeadPane {
                since: entry.since.clone(),
            });
        } else {
            session.reason = Some(Reason::InterruptedGone {
                since: entry.since.clone(),
                conversation: entry.harness_session_id.clone(),
            });
        }
    }
    plan.summary = super::compute::summarise(&plan.sessions);
}

/// Why `entry` (kept at `file`) cannot be what a roll wrote, naming the
/// file and the field that does not hold; `None` when it holds. An entry is
/// input (whoever can write the state root can write one), so before it is
/// acted on:
/// - `old_pid` names the harness the roll ended, so it is gone: it is the
///   pid tmux keeps for the dead pane (`dead_pane_pid`, the process the roll
///   signalled), or, when the relaunch after it died too, a pid no process
///   holds now (`running` says which do). Pid 1 and below are never a
///   harness, and a running process that is not the dead pane's is not the
///   one the roll ended. The pid reported for the pane is tmux's, never the
///   entry's.
/// - `transcript` must be a plain absolute path ending where `harness`
///   keeps the entry's conversation for its working directory. The
///   directory the session's environment chose (Claude Code's config
///   directory) cannot be checked, as that environment ended with the pane;
///   everything below it is.
pub fn forged(
    file: &Path,
    entry: &Entry,
    dead_pane_pid: Option<i32>,
    running: &dyn Fn(i32) -> bool,
    harness: Option<&dyn Harness>,
) -> Option<String> {
    let pid = entry.old_pid;
    let field = if pid <= 1 {
        "old_pid names init or no process at all, never a harness"
    } else if dead_pane_pid != Some(pid) && running(pid) {
        "old_pid names a running process, not the dead pane's"
    } else if harness.is_some_and(|h| !transcript_fits(h, entry)) {
        "transcript is not where the harness keeps this conversation"
    } else {
        return None;
    };
    Some(format!(
        "the intent journal entry {} looks forged: its {field}; not touched",
        file.display()
    ))
}

/// Whether the entry's transcript is a plain absolute path that ends as the
/// harness's own path for its conversation does, below whatever directory
/// an environment would choose: the part two made-up environments agree on.
fn transcript_fits(harness: &dyn Harness, entry: &Entry) -> bool {
    let at = |root: &str| {
        let env = |_: &str| Some(PathBuf::from(root));
        harness.transcript_path(&env, &entry.cwd, &entry.harness_session_id)
    };
    let (one, other) = (at("/one"), at("/other"));
    let fixed: Vec<Component> = one
        .components()
        .rev()
        .zip(other.components().rev())
        .take_while(|(a, b)| a == b)
        .map(|(a, _)| a)
        .collect();
    let transcript = &entry.transcript;
    let plain = transcript.is_absolute()
        && transcript
            .components()
            .skip(1)
            .all(|c| matches!(c, Component::Normal(_)));
    plain
        && fixed.iter().all(|c| matches!(c, Component::Normal(_)))
        && !fixed.is_empty()
        && transcript
            .components()
            .rev()
            .zip(&fixed)
            .all(|(a, b)| a == *b)
        && transcript.components().count() > fixed.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(old_pid: i32, transcript: &str) -> Entry {
        Entry {
            reference: Some("github:octo/repo#1".into()),
            standing: None,
            tmux_target: "loop-github-octo-repo-1".into(),
            pane_id: "%3".into(),
            old_pid,
            harness_session_id: "0000-abc".into(),
            cwd: PathBuf::from("/work/repo"),
            transcript: PathBuf::from(transcript),
            since: "2026-12-01T00:00:00Z".into(),
        }
    }

    #[test]
    fn an_entry_holds_only_with_a_gone_harness_and_the_conversations_transcript() {
        let claude = crate::harness::by_name("claude");
        let file = Path::new("/state/journal/loop-github-octo-repo-1.json");
        let honest = "/home/me/.claude/projects/-work-repo/0000-abc.jsonl";
        let running = |pid: i32| pid == 4242 || pid == 1;
        let gone = |_: i32| false;
        let check = |pid, transcript, dead, running: &dyn Fn(i32) -> bool| {
            forged(file, &entry(pid, transcript), dead, running, claude)
        };
        // The dead pane's own process, or one long gone (a relaunch after
        // it died too, so the pane's pid is the relaunch's).
        assert_eq!(check(4242, honest, Some(4242), &running), None);
        assert_eq!(check(4242, honest, Some(77), &gone), None);
        // Another config directory is the session's own business.
        let elsewhere = "/srv/claude-config/projects/-work-repo/0000-abc.jsonl";
        assert_eq!(check(4242, elsewhere, Some(4242), &gone), None);
        for (pid, dead) in [
            (1, Some(1)),
            (0, Some(0)),
            (-1, None),
            (4242, Some(77)),
            (4242, None),
        ] {
            let why = check(pid, honest, dead, &running).unwrap();
            assert!(
                why.contains("old_pid") && why.contains(&file.display().to_string()),
                "{why}"
            );
            assert!(!why.contains("4242"), "the pid is not repeated: {why}");
        }
        for transcript in [
            "/etc/passwd",
            "/home/me/.claude/projects/-work-repo/other.jsonl",
            "/home/me/.claude/projects/-elsewhere/0000-abc.jsonl",
            "/home/me/.claude/projects/-work-repo/../../../../etc/0000-abc.jsonl",
            "projects/-work-repo/0000-abc.jsonl",
        ] {
            let why = check(4242, transcript, Some(4242), &gone);
            assert!(
                why.is_some_and(|w| w.contains("transcript")),
                "{transcript}"
            );
        }
    }
}
