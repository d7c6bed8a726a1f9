//! The fleet: every pane of every `loop-*` session, from one
//! `tmux list-panes -a` call, and beside them the panes of every other
//! session, where a person may run a harness the-loop does not manage.

pub use super::harness_pane::{NoHarnessPane, Pane, PaneCommand};
use crate::tmux::{means_no_server, Tmux};
use serde::Serialize;
use std::collections::BTreeMap;

/// Tab-separated so session names with spaces cannot shift the columns.
/// The start command comes last: it is the one free-text column (tmux
/// renders a tab in it as `\t`, but the parse does not rely on that).
/// Each field costs tmux about 1.5 µs a pane (it looks the name up in six
/// option trees first), so there is none the-loop does not read: tmux
/// lists panes in window and pane order already, so their indices are not
/// asked for.
pub const LIST_PANES_FORMAT: &str = "#{session_name}\t#{pane_id}\t#{pane_pid}\t#{pane_dead}\t#{session_attached}\t#{pane_start_command}";

/// Only sessions with this prefix are the-loop's; no other pid is read or signalled.
pub const SESSION_PREFIX: &str = "loop-";

/// What tmux said about one session.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Probe {
    /// At least one pane is running.
    Live,
    /// Retained by remain-on-exit, every pane exited.
    Dead,
    /// tmux answered and has no such session.
    Absent,
    /// tmux did not answer; never to be read as absent.
    Unknown,
}

impl Probe {
    pub fn as_str(self) -> &'static str {
        match self {
            Probe::Live => "live",
            Probe::Dead => "dead",
            Probe::Absent => "absent",
            Probe::Unknown => "unknown",
        }
    }
}

/// The `loop-*` panes, grouped by session, in tmux's order: by window,
/// then by pane, as `list-panes -a` walks them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fleet {
    sessions: BTreeMap<String, Vec<Pane>>,
    /// The panes of every other session, in tmux's order: an operator's.
    /// Never compared, signalled or counted as a session; looked into only
    /// for harnesses the-loop does not manage ([`super::unmanaged`]).
    outside: Vec<Pane>,
    /// The harness pane a record names (`tmuxPane`, written by `the-loop
    /// import`), by session: it wins over what the start commands say.
    adopted: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FleetView {
    Answered(Fleet),
    /// tmux could not be asked or did not answer; the reason is for humans.
    Unknown(String),
}

impl Fleet {
    pub fn from_panes(panes: impl IntoIterator<Item = Pane>) -> Self {
        let mut sessions: BTreeMap<String, Vec<Pane>> = BTreeMap::new();
        let mut outside = Vec::new();
        for pane in panes {
            if pane.session.starts_with(SESSION_PREFIX) {
                sessions.entry(pane.session.clone()).or_default().push(pane);
            } else {
                outside.push(pane);
            }
        }
        Fleet {
            sessions,
            outside,
            adopted: BTreeMap::new(),
        }
    }

    /// Takes `pane` for `session`'s harness pane, as its record says.
    pub fn adopt(&mut self, session: &str, pane: &str) {
        self.adopted.insert(session.to_owned(), pane.to_owned());
    }

    /// Where the live launcher pane launched for `tmux_name` is now, when a
    /// person renamed its session or moved the pane into another one and
    /// no session holds the name any more: the one live pane anywhere whose
    /// launcher names it. Its session's panes are taken in, so that the
    /// session can be probed and planned under its new name. `None` when
    /// the name still exists, or no such pane, or more than one.
    pub fn relocate(&mut self, tmux_name: &str) -> Option<(String, String)> {
        if self.sessions.contains_key(tmux_name) {
            return None;
        }
        let found: Vec<(String, String)> = self
            .all_panes()
            .filter(|p| !p.dead && p.launched_for.as_deref() == Some(tmux_name))
            .map(|p| (p.session.clone(), p.pane_id.clone()))
            .collect();
        let [(session, pane_id)] = <[_; 1]>::try_from(found).ok()?;
        if !self.sessions.contains_key(&session) {
            let (theirs, rest): (Vec<Pane>, Vec<Pane>) = std::mem::take(&mut self.outside)
                .into_iter()
                .partition(|p| p.session == session);
            self.outside = rest;
            self.sessions.insert(session.clone(), theirs);
        }
        self.adopt(&session, &pane_id);
        Some((session, pane_id))
    }

    /// Whether a live pane outside the session `tmux_name` runs a harness
    /// its launcher started for it: the session was renamed, or its pane
    /// moved, by a person. Read-only, unlike [`Fleet::relocate`].
    pub fn runs_elsewhere(&self, tmux_name: &str) -> bool {
        self.all_panes().any(|p| {
            !p.dead && p.session != tmux_name && p.launched_for.as_deref() == Some(tmux_name)
        })
    }

    /// The pane a record names for `session`'s harness, when the session
    /// lists it.
    pub fn adopted_pane(&self, session: &str) -> Option<&Pane> {
        let id = self.adopted.get(session)?;
        self.panes(session).iter().find(|p| &p.pane_id == id)
    }

    /// The panes of sessions that are not `loop-*` sessions.
    pub fn outside_panes(&self) -> &[Pane] {
        &self.outside
    }

    /// Every pane tmux listed: the `loop-*` sessions' and the others'.
    pub fn all_panes(&self) -> impl Iterator<Item = &Pane> {
        self.sessions.values().flatten().chain(&self.outside)
    }

    pub fn session_names(&self) -> impl Iterator<Item = &str> {
        self.sessions.keys().map(String::as_str)
    }

    /// The pid of every pane tmux listed, managed or not, `loop-*` or not.
    pub fn pane_pids(&self) -> impl Iterator<Item = i32> + '_ {
        self.all_panes().map(|p| p.pid)
    }

    pub fn panes(&self, session: &str) -> &[Pane] {
        self.sessions.get(session).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The pane the harness runs in, found by what runs there (see
    /// [`super::harness_pane`]); `None` when no pane can be taken for it.
    pub fn harness_pane(&self, session: &str) -> Option<&Pane> {
        self.find_harness_pane(session).ok()
    }

    /// [`Fleet::harness_pane`], saying why when there is none. The pane a
    /// record names ([`Fleet::adopt`]) wins when the session lists it.
    pub fn find_harness_pane(&self, session: &str) -> Result<&Pane, NoHarnessPane> {
        match self.adopted_pane(session) {
            Some(pane) => Ok(pane),
            None => super::harness_pane::find(self.panes(session)),
        }
    }

    /// Clients attached to the session; 0 when it is not listed.
    pub fn attached(&self, session: &str) -> u32 {
        self.panes(session).first().map_or(0, |p| p.attached)
    }

    pub fn probe(&self, session: &str) -> Probe {
        let panes = self.panes(session);
        if panes.is_empty() {
            Probe::Absent
        } else if panes.iter().any(|p| !p.dead) {
            Probe::Live
        } else {
            Probe::Dead
        }
    }

    pub fn len(&self) -> usize {
        self.sessions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }
}

impl FleetView {
    pub fn probe(&self, session: &str) -> Probe {
        match self {
            FleetView::Answered(fleet) => fleet.probe(session),
            FleetView::Unknown(_) => Probe::Unknown,
        }
    }

    pub fn harness_pane(&self, session: &str) -> Option<&Pane> {
        match self {
            FleetView::Answered(fleet) => fleet.harness_pane(session),
            FleetView::Unknown(_) => None,
        }
    }

    /// Clients attached to the session; 0 when tmux did not answer (the
    /// probe then says "unknown").
    pub fn attached(&self, session: &str) -> u32 {
        match self {
            FleetView::Answered(fleet) => fleet.attached(session),
            FleetView::Unknown(_) => 0,
        }
    }
}

/// Parses `list-panes -a -F LIST_PANES_FORMAT` output. Lines that do not
/// fit are dropped: a malformed line can never become a pid to signal.
pub fn parse_list_panes(stdout: &str) -> Vec<Pane> {
    stdout.lines().filter_map(parse_line).collect()
}

fn parse_line(line: &str) -> Option<Pane> {
    let mut cols = line.splitn(6, '\t');
    let session = cols.next()?.to_owned();
    let pane_id = cols.next()?.to_owned();
    let pid: i32 = cols.next()?.parse().ok()?;
    let dead = cols.next()? == "1";
    let attached = cols.next()?.parse().ok()?;
    let start_command = cols.next()?;
    let (command, launched_for) = super::harness_pane::read_start_command(start_command);
    if !pane_id.starts_with('%') {
        return None;
    }
    Some(Pane {
        session,
        pane_id,
        pid,
        dead,
        attached,
        command,
        launched_for,
    })
}

/// One tmux call for the whole fleet.
pub fn observe(tmux: &Tmux) -> FleetView {
    match tmux.run(["list-panes", "-a", "-F", LIST_PANES_FORMAT]) {
        Ok(out) if out.success => {
            FleetView::Answered(Fleet::from_panes(parse_list_panes(&out.stdout)))
        }
        // "no current target": a server with no session left (it is exiting).
        Ok(out) if means_no_server(&out.stderr) || out.stderr.contains("no current target") => {
            FleetView::Answered(Fleet::default())
        }
        Ok(out) => FleetView::Unknown(format!("tmux list-panes failed: {}", out.stderr)),
        Err(err) => FleetView::Unknown(err.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_groups_only_loop_sessions() {
        // As tmux lists them: by session, then window, then pane.
        let out = "loop-github-octo-repo-15\t%3\t4830\t0\t0\tclaude --session-id x\n\
                   work\t%1\t100\t0\t1\t\n\
                   loop-github-octo-repo-16\t%4\t4831\t1\t0\tclaude\n\
                   loop-github-octo-repo-17\t%7\t4898\t0\t2\t\n\
                   loop-github-octo-repo-17\t%8\t4899\t0\t2\t/bin/the-loop exec --config /c --work-item github:octo/repo#17 -- claude\n\
                   loop-github-octo-repo-17\t%9\t4900\t1\t2\t\n\
                   garbage line\n\
                   loop-short\t%6\t4897\t0\t0\n\
                   loop-nocount\t%6\t4897\t0\t\t\n\
                   loop-bad\t%5\tnot-a-pid\t0\t0\t\n";
        let fleet = Fleet::from_panes(parse_list_panes(out));
        insta::assert_debug_snapshot!(fleet);
        assert_eq!(fleet.probe("loop-github-octo-repo-15"), Probe::Live);
        assert_eq!(fleet.probe("loop-github-octo-repo-16"), Probe::Dead);
        assert_eq!(fleet.probe("loop-github-octo-repo-17"), Probe::Live);
        assert_eq!(fleet.probe("loop-nope"), Probe::Absent);
        assert_eq!(fleet.attached("loop-github-octo-repo-17"), 2);
        assert_eq!(fleet.attached("loop-github-octo-repo-15"), 0);
        assert_eq!(fleet.attached("loop-nope"), 0);
        assert_eq!(
            fleet.probe("work"),
            Probe::Absent,
            "non-loop sessions are not the-loop's"
        );
        assert_eq!(
            fleet
                .harness_pane("loop-github-octo-repo-17")
                .unwrap()
                .pane_id,
            "%8"
        );
    }

    #[test]
    fn other_sessions_panes_are_kept_apart_and_a_recorded_pane_wins() {
        let out = "work\t%1\t100\t0\t1\t\n\
                   loop-x\t%2\t200\t0\t0\t\n\
                   loop-x\t%3\t201\t0\t0\tsleep 100\n";
        let mut fleet = Fleet::from_panes(parse_list_panes(out));
        assert_eq!(fleet.session_names().collect::<Vec<_>>(), ["loop-x"]);
        assert_eq!(fleet.outside_panes().len(), 1);
        assert_eq!(fleet.outside_panes()[0].pane_id, "%1");
        let mut pids: Vec<i32> = fleet.pane_pids().collect();
        pids.sort_unstable();
        assert_eq!(pids, [100, 200, 201]);
        assert_eq!(fleet.harness_pane("loop-x").unwrap().pane_id, "%3");
        fleet.adopt("loop-x", "%2");
        assert_eq!(fleet.harness_pane("loop-x").unwrap().pane_id, "%2");
        fleet.adopt("loop-x", "%9");
        assert_eq!(
            fleet.harness_pane("loop-x").unwrap().pane_id,
            "%3",
            "a recorded pane the session does not list is not taken"
        );
    }

    #[test]
    fn unknown_view_never_reads_absent() {
        let view = FleetView::Unknown("tmux did not answer".into());
        assert_eq!(view.probe("loop-x"), Probe::Unknown);
    }
}
