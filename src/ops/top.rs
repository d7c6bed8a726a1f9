//! `the-loop top`'s model: one row per session of the fleet, built from
//! the one observation and plan `plan` makes (`plan::gather::plan_now`),
//! so a refresh costs what a plan costs and nothing more. [`model`] is
//! pure; [`snapshot`] is the shell that reads.

use crate::activity::Activity;
use crate::observed::{Observation, Probe};
use crate::ops::Context;
use crate::plan::gather::{plan_now, Looks};
use crate::plan::host::{HostAction, HostActivity, HostPlan};
use crate::plan::{Action, Plan, Reason, SessionKind, SessionPlan, Summary, Targets};
use std::path::PathBuf;
use std::time::SystemTime;

/// Everything one screen of `top` shows.
#[derive(Debug, Clone)]
pub struct TopModel {
    pub header: Header,
    pub rows: Vec<Row>,
    /// The plan the rows came from (fingerprints only): `p` shows a part of it.
    pub plan: Plan,
}

/// The line above the table.
#[derive(Debug, Clone, Default)]
pub struct Header {
    pub env_file: Option<PathBuf>,
    /// Seconds since the env file was last written (its mtime).
    pub env_age: Option<u64>,
    /// The tmux server's version, as its listing reported it.
    pub tmux_version: Option<String>,
    /// The tmux server's socket, the one the plan read.
    pub tmux_socket: Option<PathBuf>,
    /// The counts `plan` prints.
    pub summary: Summary,
    /// Why tmux could not be asked, or which sessions could not be observed.
    pub trouble: Option<String>,
}

/// One session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// Its ref, standing name, or (unmanaged) tmux session name.
    pub label: String,
    pub kind: SessionKind,
    pub tmux_target: String,
    pub harness: Option<String>,
    pub activity: RowActivity,
    pub drift: Drift,
    pub attached: u32,
    /// Seconds since the record was created.
    pub age: Option<u64>,
    /// Seconds since the record last saw an event.
    pub last_event: Option<u64>,
    pub cwd: Option<PathBuf>,
    /// A session of a host beside tmux (`docs/hosts.md`), which no pane
    /// holds; `None` for a pane's.
    pub on_host: Option<OnHost>,
}

/// Where a row's session lives when no pane holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnHost {
    pub host: crate::host_kind::Host,
    /// The host's id for it (Claude Code's short id).
    pub id: String,
    /// How a person opens it (`claude attach <id>`).
    pub open_with: String,
}

/// What the harness is doing, as `sessions list` says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowActivity {
    /// A turn runs, for this many seconds (when the hooks said when it began).
    Busy(Option<u64>),
    /// A turn waits for a person's permission, for this many seconds.
    Waiting(Option<u64>),
    Idle,
    Interrupted,
    /// The harness exited (the person ended it, or its pane is dead).
    Exited,
    /// No harness runs: the tmux session is absent.
    NotRunning,
    Unknown,
}

/// How the session stands against the env file, from the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Drift {
    UpToDate,
    /// Names whose value differs, and whether the launch arguments drifted;
    /// `left_alone` when a roll cannot resume it.
    Stale {
        names: usize,
        args: bool,
        left_alone: bool,
    },
    /// An earlier roll ended the harness and never verified its replacement.
    InterruptedRoll,
    /// Skipped, with the plan's reason in a word or two.
    Skipped(&'static str),
    Unverified,
    Unmanaged,
}

impl RowActivity {
    pub fn text(self) -> String {
        match self {
            RowActivity::Busy(Some(s)) => format!("busy {}", ago(s)),
            RowActivity::Busy(None) => "busy".into(),
            RowActivity::Waiting(Some(s)) => format!("permission {}", ago(s)),
            RowActivity::Waiting(None) => "permission".into(),
            RowActivity::Idle => "idle".into(),
            RowActivity::Interrupted => "interrupted".into(),
            RowActivity::Exited => "exited".into(),
            RowActivity::NotRunning => "not running".into(),
            RowActivity::Unknown => "unknown".into(),
        }
    }
}

impl Drift {
    pub fn text(&self) -> String {
        match self {
            Drift::UpToDate => "up to date".into(),
            Drift::Stale {
                names,
                args,
                left_alone,
            } => {
                let words = match (names, args) {
                    (0, _) => "args drift".to_owned(),
                    (1, false) => "1 name stale".to_owned(),
                    (n, false) => format!("{n} names stale"),
                    (n, true) => format!("{n} stale + args"),
                };
                // The plan (`p`) says what drifted and why it cannot be rolled.
                if *left_alone {
                    "left alone".to_owned()
                } else {
                    words
                }
            }
            Drift::InterruptedRoll => "interrupted roll".into(),
            Drift::Skipped(why) => (*why).to_owned(),
            Drift::Unverified => "unverified".into(),
            Drift::Unmanaged => "unmanaged".into(),
        }
    }

    /// A roll would act on it.
    pub fn drifted(&self) -> bool {
        matches!(self, Drift::Stale { .. } | Drift::InterruptedRoll)
    }
}

/// `12s`, `4m`, `3h`, `2d`: as `sessions list` shortens a duration.
pub fn ago(secs: u64) -> String {
    match secs {
        0..60 => format!("{secs}s"),
        60..3_600 => format!("{}m", secs / 60),
        3_600..86_400 => format!("{}h", secs / 3_600),
        _ => format!("{}d", secs / 86_400),
    }
}

/// Observes once, plans once, and builds the model.
pub fn snapshot(ctx: &Context) -> miette::Result<TopModel> {
    let policy = crate::desired::load_policy_with_key(&ctx.config)?;
    let (mut plan, observed) = plan_now(
        &policy,
        &ctx.registry,
        &ctx.tmux,
        &Targets::default(),
        Looks::Every,
    );
    crate::hosts::annotate(&mut plan, &ctx.config, &policy, &Targets::all());
    let now = SystemTime::now();
    let env_age = plan
        .env_file
        .as_ref()
        .and_then(|p| std::fs::metadata(p).ok()?.modified().ok())
        .and_then(|m| now.duration_since(m).ok())
        .map(|d| d.as_secs());
    let facts = Facts {
        now: crate::clock::now_secs(),
        env_age,
        tmux_socket: plan.tmux_server.clone(),
    };
    Ok(model(plan, &observed, &facts))
}

/// What the model needs besides the plan and the observation.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    /// Seconds since the epoch.
    pub now: Option<u64>,
    pub env_age: Option<u64>,
    pub tmux_socket: Option<PathBuf>,
}

/// The model of one plan and the observation it was computed from.
pub fn model(plan: Plan, observed: &Observation, facts: &Facts) -> TopModel {
    let since = |stamp: Option<&str>| facts.now?.checked_sub(crate::clock::parse_utc(stamp?)?);
    let panes = plan.sessions.iter().map(|s| {
        let record = observed
            .sessions
            .iter()
            .find(|m| s.key.as_ref() == Some(&m.key));
        Row {
            label: s.label().to_owned(),
            kind: s.kind.clone(),
            tmux_target: s.tmux_target.clone(),
            harness: s.record.as_ref().map(|r| r.harness.clone()),
            activity: activity(s, since(s.busy_since.as_deref())),
            drift: drift(s),
            attached: s.attached,
            age: record.and_then(|m| since(m.created_at.as_deref())),
            last_event: record.and_then(|m| since(m.last_event_at.as_deref())),
            cwd: s.record.as_ref().and_then(|r| r.cwd.clone()),
            on_host: None,
        }
    });
    let rows = panes.chain(plan.hosts.iter().flat_map(host_rows)).collect();
    let trouble = plan
        .tmux_unanswered
        .clone()
        .or_else(|| plan.observation_failed.as_ref().map(ToString::to_string));
    TopModel {
        header: Header {
            env_file: plan.env_file.clone(),
            env_age: facts.env_age,
            tmux_version: observed.tmux_version().map(str::to_owned),
            tmux_socket: facts.tmux_socket.clone(),
            summary: plan.summary.clone(),
            trouble,
        },
        rows,
        plan,
    }
}

/// A host's sessions, as rows beside the panes'.
fn host_rows(host: &HostPlan) -> impl Iterator<Item = Row> + '_ {
    let words = crate::hosts::words(host.host);
    host.sessions.iter().map(move |s| Row {
        label: s.reference.clone().unwrap_or_else(|| s.id.clone()),
        kind: match s.action {
            HostAction::Unmanaged => SessionKind::Unmanaged,
            _ => SessionKind::WorkItem,
        },
        tmux_target: format!("{} {}", words.short, s.id),
        harness: words.harness.map(str::to_owned),
        activity: match s.activity {
            HostActivity::Busy => RowActivity::Busy(None),
            HostActivity::Waiting => RowActivity::Waiting(None),
            HostActivity::Idle => RowActivity::Idle,
            HostActivity::Stopped => RowActivity::NotRunning,
        },
        drift: match s.action {
            HostAction::Respawn => Drift::Stale {
                names: s.changes.len(),
                args: false,
                left_alone: false,
            },
            HostAction::None => Drift::UpToDate,
            HostAction::Unmanaged => Drift::Unmanaged,
            HostAction::Stopped => Drift::Skipped("stopped"),
            HostAction::Unverified => Drift::Unverified,
        },
        attached: 0,
        age: None,
        last_event: None,
        cwd: s.cwd.as_ref().map(PathBuf::from),
        on_host: Some(OnHost {
            host: host.host,
            id: s.id.clone(),
            open_with: s.open_with.clone(),
        }),
    })
}

fn activity(s: &SessionPlan, busy_for: Option<u64>) -> RowActivity {
    match s.probe {
        Probe::Absent => return RowActivity::NotRunning,
        Probe::Dead => return RowActivity::Exited,
        Probe::Unknown => return RowActivity::Unknown,
        Probe::Live => {}
    }
    if matches!(s.reason, Some(Reason::PaneExited)) {
        return RowActivity::Exited;
    }
    // The plan's word: `busy` for a `!` command, which no hook tells.
    match crate::plan::screen::doing(s.activity, s.screen) {
        Activity::Busy => RowActivity::Busy(busy_for),
        Activity::Waiting => RowActivity::Waiting(busy_for),
        Activity::Idle => RowActivity::Idle,
        Activity::Interrupted => RowActivity::Interrupted,
        Activity::Ended => RowActivity::Exited,
        Activity::Unknown => RowActivity::Unknown,
    }
}

fn drift(s: &SessionPlan) -> Drift {
    if s.kind == SessionKind::Unmanaged {
        return Drift::Unmanaged;
    }
    if s.action == Action::Resume || s.interrupted_respawn.is_some() {
        return Drift::InterruptedRoll;
    }
    if s.is_unverified() {
        return Drift::Unverified;
    }
    match s.action {
        Action::Respawn => Drift::Stale {
            names: s.changes.len(),
            args: !s.args_changes.is_empty(),
            left_alone: s.left_alone.is_some(),
        },
        Action::Skip => Drift::Skipped(match &s.reason {
            Some(Reason::RecordClosed) => "closed",
            Some(Reason::NotRunning) => "not running",
            Some(Reason::PaneExited) => "pane exited",
            Some(Reason::NoHarnessPane { .. }) => "no harness pane",
            Some(Reason::HeldByAnother { .. }) => "pane held by another",
            Some(Reason::AlreadyClaimed { .. }) => "claimed by another",
            _ => "see plan",
        }),
        Action::None | Action::Resume => Drift::UpToDate,
    }
}

/// The plan of one session, as `plan --target LABEL` would show it
/// (fingerprints only).
pub fn plan_of(plan: &Plan, label: &str) -> Plan {
    let mut one = plan.clone();
    one.sessions.retain(|s| s.label() == label);
    one.hosts = std::mem::take(&mut one.hosts)
        .into_iter()
        .map(|host| host.restricted(|s| s.label() == label))
        .filter(|host| !host.sessions.is_empty())
        .collect();
    one.unmanaged_harnesses.clear();
    one.residue = None;
    one.summary = crate::plan::compute::summarise(&one.sessions);
    one
}
