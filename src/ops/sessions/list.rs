//! `sessions list`: every registered session, plus the `loop-*` tmux
//! sessions nothing is registered for, from one `list-panes` call and one
//! read of each record.

use crate::activity::{store as activity_store, Activity, HarnessActivity};
use crate::lifecycle::key::Record;
use crate::observed::{fleet, FleetView, Probe};
use crate::ops::resolve::resolve_all;
use crate::ops::Context;
use crate::plan::model::CorruptRecordNote;
use crate::registry::{standing_tmux_name, Status};
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// Bumped when a field changes meaning or goes away; new fields keep it.
pub const FORMAT_VERSION: &str = "1";

/// Which rows to keep; each filter left `None` keeps every row.
#[derive(Debug, Default)]
pub struct ListOptions {
    /// Only sessions whose record has this status (unmanaged ones have none).
    pub status: Option<Status>,
    /// Only standing sessions; with a name, only that one.
    pub standing: Option<Option<String>>,
    /// Only work-item sessions; with a text, only those it names.
    pub work_item: Option<Option<String>>,
}

/// `sessions list --json`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SessionsList {
    /// Contract: "1", as in `plan` and `status`; changes only when a field changes meaning or goes away.
    pub format_version: String,
    pub sessions: Vec<Listed>,
    /// Registry files that could not be read; their sessions are missing above.
    pub corrupt_records: Vec<CorruptRecordNote>,
}

/// What a row is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    WorkItem,
    Standing,
    /// A `loop-*` tmux session with no registry record; the-loop leaves it alone.
    Unmanaged,
}

/// One session. Fields the record does not have are null.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Listed {
    pub kind: Kind,
    /// The work-item ref; null for standing and unmanaged sessions.
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    /// The standing-session name; null otherwise.
    pub standing: Option<String>,
    pub harness: Option<String>,
    /// The tmux session the record points at, or the unmanaged session's name.
    /// Null when the record has none yet: then nothing can be attached to.
    pub tmux_target: Option<String>,
    /// The tmux session its harness lives in when a person renamed the
    /// session or moved the harness's pane into another (found by the
    /// launcher it was started with, as `plan` finds it); `live`,
    /// `activity` and `attached` are then that session's. Null otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lives_in: Option<String>,
    /// Other live records naming this one's conversation: neither is
    /// rolled or resumed until a person says whose it is (as `plan` says).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conversation_shared_with: Vec<String>,
    /// Null for unmanaged sessions.
    pub status: Option<Status>,
    /// What tmux says about `tmux_target`; null when there is no target.
    pub live: Option<Probe>,
    /// What the harness in the session is doing, as its hooks last said:
    /// `unknown` when it recorded nothing (a harness started before hooks,
    /// or one that does not call them) or tmux did not answer; null when no
    /// harness runs (no target, or the session is absent or dead).
    pub activity: Option<Activity>,
    /// What the harness's screen showed (as in `plan`): a running turn or
    /// `!` command, a menu or dialog, a background shell, a draft, between
    /// turns, or nothing known; null where it was not looked at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen: Option<crate::harness::turn_screen::TurnScreen>,
    /// When the running turn began, while `activity` is `busy` or
    /// `waiting`: how long a roll would have to hold this session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busy_since: Option<String>,
    /// How many tmux clients are attached to the session (a person may be
    /// watching it); 0 when it is absent or tmux did not answer.
    pub attached: u32,
    pub model: Option<String>,
    pub effort: Option<String>,
    /// When the record was created, as stored.
    pub created_at: Option<String>,
    /// When the record last saw an event, as stored.
    pub last_event_at: Option<String>,
    /// Seconds since `created_at`; null when unknown or in the future.
    pub age_seconds: Option<u64>,
    /// Seconds since `last_event_at`; null when unknown or in the future.
    pub last_event_seconds: Option<u64>,
    pub cwd: Option<PathBuf>,
    /// The harness conversation id (what a respawn resumes): the one the
    /// live harness last started (after a `/clear` or an in-app `/resume`),
    /// else the record's.
    pub conversation_id: Option<String>,
    /// The record's conversation, when the live harness has moved on from
    /// it; the next roll writes the new one into the record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded_conversation_id: Option<String>,
    /// Refs of the pull requests linked to the work item.
    pub pull_requests: Vec<String>,
}

/// What `sessions list` found: the document `--json` prints, and why tmux
/// could not be asked when it could not (the text view says so).
#[derive(Debug)]
pub struct ListReport {
    pub list: SessionsList,
    pub tmux_unanswered: Option<String>,
}

pub fn list(ctx: &Context, options: &ListOptions) -> miette::Result<ListReport> {
    // One tmux call for every row, registered or not.
    let mut view = fleet::observe(&ctx.tmux);
    let now = crate::clock::now_secs();
    let works = ctx.registry.work_items();
    let standing = ctx.registry.standing();
    let records: Vec<Record> = works
        .records
        .into_iter()
        .map(|(_, r)| Record::WorkItem(r))
        .chain(
            standing
                .records
                .into_iter()
                .map(|(_, r)| Record::Standing(r)),
        )
        .collect();
    let moved = relocate(&mut view, &records);
    // The activity files of the harnesses running now, and no other: a
    // file of a process that ended (or never ran) is never read.
    let activities = match &view {
        FleetView::Answered(fleet) => activity_store::live_activities(
            &ctx.config.state_root,
            fleet
                .session_names()
                .filter_map(|session| fleet.harness_pane(session))
                .filter(|pane| !pane.dead)
                .map(|pane| pane.pid),
        ),
        FleetView::Unknown(_) => BTreeMap::new(),
    };
    // A `--work-item` text is matched against the records just read, not
    // the registry again.
    let wanted_items = match &options.work_item {
        Some(Some(text)) => Some(work_item_refs(&records, text)?),
        _ => None,
    };
    let mut rows: Vec<Listed> = records
        .iter()
        .zip(moved)
        .map(|(r, lives_in)| row(r, lives_in, &view, &activities, now))
        .collect();
    for (row, others) in rows.iter_mut().zip(super::shared::shared(&records)) {
        row.conversation_shared_with = others;
    }
    rows.extend(unmanaged(&view, &activities, &rows));
    rows.retain(|r| keep(r, options, wanted_items.as_ref()));
    mark_screens(&mut rows, &view, &activities, &ctx.tmux);
    mark_live_facts(&mut rows, &view, &activities);
    let corrupt_records = works
        .corrupt
        .into_iter()
        .chain(standing.corrupt)
        .map(CorruptRecordNote::from)
        .collect();
    Ok(ListReport {
        list: SessionsList {
            format_version: FORMAT_VERSION.into(),
            sessions: rows,
            corrupt_records,
        },
        tmux_unanswered: match view {
            FleetView::Unknown(why) => Some(why),
            FleetView::Answered(_) => None,
        },
    })
}

/// Where each record's harness lives when a person renamed its session or
/// moved its pane, in the records' order ([`fleet::Fleet::relocate`]).
fn relocate(view: &mut FleetView, records: &[Record]) -> Vec<Option<String>> {
    let FleetView::Answered(fleet) = view else {
        return vec![None; records.len()];
    };
    records
        .iter()
        .map(|r| Some(fleet.relocate(&r.tmux_target()?)?.0))
        .collect()
}

fn row(
    record: &Record,
    lives_in: Option<String>,
    view: &FleetView,
    activities: &BTreeMap<i32, HarnessActivity>,
    now: Option<u64>,
) -> Listed {
    let since = |stamp: &Option<String>| {
        let then = crate::clock::parse_utc(stamp.as_deref()?)?;
        now?.checked_sub(then)
    };
    let target = record.tmux_target();
    let args = record.launch_args();
    let (kind, reference, standing) = match record {
        Record::WorkItem(r) => (Kind::WorkItem, Some(r.work_item.reference.clone()), None),
        Record::Standing(r) => (Kind::Standing, None, Some(r.name.clone())),
    };
    let created_at = record.session().created_at.clone();
    let last_event_at = record.session().last_event_at.clone();
    let at = lives_in.clone().or_else(|| target.clone());
    Listed {
        kind,
        reference,
        standing,
        harness: Some(record.harness().to_owned()),
        // `attach` refuses a record without a target, so no liveness is
        // claimed for one, even when a session of the derived name runs.
        live: at.as_deref().map(|t| view.probe(t)),
        activity: at.as_deref().and_then(|t| activity(view, activities, t)),
        screen: None,
        busy_since: None,
        attached: at.as_deref().map_or(0, |t| view.attached(t)),
        tmux_target: target,
        lives_in,
        conversation_shared_with: Vec::new(),
        status: Some(record.status()),
        model: args.model,
        effort: args.effort,
        age_seconds: since(&created_at),
        last_event_seconds: since(&last_event_at),
        created_at,
        last_event_at,
        cwd: record.cwd().map(PathBuf::from),
        conversation_id: record.harness_session_id().map(String::from),
        recorded_conversation_id: None,
        pull_requests: record.pull_request_refs(),
    }
}

/// `loop-*` sessions that no record points at or would be spawned as.
fn unmanaged(
    view: &FleetView,
    activities: &BTreeMap<i32, HarnessActivity>,
    rows: &[Listed],
) -> Vec<Listed> {
    let FleetView::Answered(fleet) = view else {
        return Vec::new();
    };
    let mut claimed: BTreeSet<String> = BTreeSet::new();
    for r in rows {
        claimed.extend(r.tmux_target.clone());
        claimed.extend(r.lives_in.clone());
        if let Some(Ok(item)) = r
            .reference
            .as_deref()
            .map(str::parse::<crate::registry::WorkItemRef>)
        {
            claimed.insert(item.tmux_name());
        }
        if let Some(name) = &r.standing {
            claimed.insert(standing_tmux_name(name));
        }
    }
    fleet
        .session_names()
        .filter(|name| !claimed.contains(*name))
        .map(|name| Listed {
            kind: Kind::Unmanaged,
            reference: None,
            standing: None,
            harness: None,
            tmux_target: Some(name.to_owned()),
            lives_in: None,
            conversation_shared_with: Vec::new(),
            status: None,
            live: Some(fleet.probe(name)),
            activity: activity(view, activities, name),
            screen: None,
            busy_since: None,
            attached: fleet.attached(name),
            model: None,
            effort: None,
            created_at: None,
            last_event_at: None,
            age_seconds: None,
            last_event_seconds: None,
            cwd: None,
            conversation_id: None,
            recorded_conversation_id: None,
            pull_requests: Vec::new(),
        })
        .collect()
}

/// Each managed row names the conversation its live harness is in, and
/// each row in a turn gets when that turn began, from its harness's hooks.
fn mark_live_facts(
    rows: &mut [Listed],
    view: &FleetView,
    activities: &BTreeMap<i32, HarnessActivity>,
) {
    let FleetView::Answered(fleet) = view else {
        return;
    };
    for row in rows.iter_mut().filter(|r| r.status.is_some()) {
        let live = lives_at(row)
            .and_then(|t| fleet.harness_pane(t))
            .filter(|pane| !pane.dead)
            .and_then(|pane| activities.get(&pane.pid))
            .filter(|a| activity_store::process_start(a.pid) == Some(a.start))
            .and_then(|a| a.conversation.clone())
            .filter(|id| crate::registry::is_valid_session_id(id));
        if let Some(live) = live.filter(|id| row.conversation_id.as_ref() != Some(id)) {
            row.recorded_conversation_id = row.conversation_id.replace(live);
        }
    }
    for row in rows
        .iter_mut()
        .filter(|r| r.activity.is_some_and(Activity::in_turn))
    {
        row.busy_since = lives_at(row)
            .and_then(|t| fleet.harness_pane(t))
            .and_then(|pane| activities.get(&pane.pid))
            .and_then(HarnessActivity::busy_since_ms)
            .map(|ms| crate::clock::format_utc(ms / 1000));
    }
}

/// Each row with a live harness gets what its screen shows, and one whose
/// hooks say a turn runs while its screen shows none becomes
/// `interrupted`: the plan's one batch of looks
/// ([`crate::plan::screen::look_live`]), so the list says what `plan` does.
fn mark_screens(
    rows: &mut [Listed],
    view: &FleetView,
    activities: &BTreeMap<i32, HarnessActivity>,
    tmux: &crate::tmux::Tmux,
) {
    let FleetView::Answered(fleet) = view else {
        return;
    };
    let (at, live): (Vec<usize>, Vec<crate::plan::screen::Live>) = rows
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let activity = r.activity?;
            let pane = fleet.harness_pane(lives_at(r)?).filter(|p| !p.dead)?;
            let last_ms = activities.get(&pane.pid).and_then(|a| a.last_ms);
            let harness = r.harness.as_deref();
            let pane_id = pane.pane_id.as_str();
            Some((
                i,
                crate::plan::screen::Live {
                    pane_id,
                    harness,
                    pid: Some(pane.pid),
                    activity,
                    last_ms,
                },
            ))
        })
        .unzip();
    let seen = crate::plan::screen::look_live(tmux, &live);
    for (index, (activity, screen)) in at.into_iter().zip(seen) {
        rows[index].activity = Some(activity);
        rows[index].screen = screen;
    }
}

/// The tmux session a row's harness runs in: where it lives, else its own.
fn lives_at(row: &Listed) -> Option<&str> {
    row.lives_in.as_deref().or(row.tmux_target.as_deref())
}

/// What the harness in tmux session `session` is doing; `None` when no
/// harness runs there.
fn activity(
    view: &FleetView,
    activities: &BTreeMap<i32, HarnessActivity>,
    session: &str,
) -> Option<Activity> {
    let FleetView::Answered(fleet) = view else {
        return Some(Activity::Unknown);
    };
    if fleet.probe(session) != Probe::Live {
        return None;
    }
    // A live session whose harness pane cannot be told apart still runs
    // something; what it is doing is not known.
    Some(match fleet.harness_pane(session) {
        Some(pane) if !pane.dead => activity_store::live_activity(activities, pane.pid),
        _ => Activity::Unknown,
    })
}

/// The canonical refs `--work-item TEXT` names: a full ref, or every
/// registered work item a short form matches.
fn work_item_refs(records: &[Record], text: &str) -> miette::Result<BTreeSet<String>> {
    Ok(resolve_all(records, text)?
        .iter()
        .filter_map(|key| key.as_work_item().map(|r| r.to_string()))
        .collect())
}

fn keep(r: &Listed, args: &ListOptions, wanted_items: Option<&BTreeSet<String>>) -> bool {
    if let Some(status) = args.status {
        if r.status != Some(status) {
            return false;
        }
    }
    if let Some(name) = &args.standing {
        if r.kind != Kind::Standing
            || name
                .as_ref()
                .is_some_and(|n| r.standing.as_ref() != Some(n))
        {
            return false;
        }
    }
    if args.work_item.is_some() {
        if r.kind != Kind::WorkItem {
            return false;
        }
        if let (Some(wanted), Some(reference)) = (wanted_items, &r.reference) {
            let canonical = reference
                .parse::<crate::registry::WorkItemRef>()
                .map(|w| w.to_string())
                .unwrap_or_else(|_| reference.clone());
            return wanted.contains(&canonical);
        }
    }
    true
}
