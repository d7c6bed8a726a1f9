//! The one observation a plan is computed from: the registry's records,
//! tmux's panes (with their attached clients) and the layers tmux keeps,
//! each harness process (environment, argv and start time together), and the processes a
//! harness detached. Each is read once; tmux is asked once, and a second
//! time only when its format gate says some session may hold a watched
//! value, or when the env file names too many for the gate to ride with the
//! listing (see [`observe`] and `listing_markers`).

use super::detached::{self, Detached};
use super::fleet::{self, Fleet, FleetView, Probe, LIST_PANES_FORMAT};
use super::harness::{
    read_in_parallel, read_opened_or_unverified, read_process_or_unverified, read_recognised,
    HarnessProcess, ParentImages,
};
use super::registered::{managed_sessions, ManagedSession};
use super::residue::{self, Markers, ResidueView};
use super::script;
use super::session_loop;
use super::unmanaged::{self, UnmanagedHarness};
use super::{EnvRead, ProcessEnv};
use crate::proc_env::{ProcStat, ProcessDir};
use crate::registry::{CorruptRecord, Registry};
use crate::tmux::{argv_bytes, means_no_server, Started, Tmux, TmuxError};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// Everything observed for one plan.
#[derive(Debug, Clone)]
pub struct Observation {
    /// Every registered session, each record read once.
    pub sessions: Vec<ManagedSession>,
    /// Record files that could not be parsed.
    pub corrupt: Vec<CorruptRecord>,
    pub fleet: FleetView,
    /// Each live managed harness pane's process (environment, argv, start
    /// time), by pid; empty when processes were not asked for.
    pub processes: BTreeMap<i32, HarnessProcess>,
    /// tmux's own layers; `None` when not asked for.
    pub residue: Option<ResidueView>,
    /// Processes outside every pane launched under this config; `None`
    /// when not asked for.
    pub detached: Option<Vec<Detached>>,
    /// What each live managed harness (and each unmanaged one) is doing,
    /// by pid, from its hooks (one read of `<state root>/activity/`); a pid
    /// absent here is `unknown`.
    pub activities: BTreeMap<i32, crate::activity::HarnessActivity>,
    /// Harnesses in panes no record's harness pane is; `None` when not
    /// asked for.
    pub unmanaged: Option<Vec<UnmanagedHarness>>,
    /// For each pane a record adopted (`tmuxPane`) whose own process is not
    /// a harness (the shell a person started it from): the harness beneath
    /// it, `None` when there is not exactly one. By the pane's pid.
    pub beneath: BTreeMap<i32, Option<i32>>,
    /// What each adopted pane's harness says itself of its conversation,
    /// by pid ([`unmanaged::said_by_adopted`]).
    pub said: BTreeMap<i32, crate::harness::SaidConversation>,
}

/// What to read besides the records and the pane listing.
#[derive(Default)]
pub struct Wanted<'a> {
    /// Each managed harness's environment and argv.
    pub environments: bool,
    /// tmux's global and session environments and the server process.
    pub residue: bool,
    /// The names the sessions' environments are read for (the withheld and
    /// the delivered ones): with them, the sessions are read one by one
    /// only when a format says some session can hold one of them
    /// ([`super::session_loop`]).
    pub watched: Vec<String>,
    /// Scan `/proc` for detached processes whose environment this accepts
    /// (the policy's "launched under this config").
    pub detached: Option<&'a (dyn Fn(&ProcessEnv) -> bool + Sync)>,
    /// Look for harnesses in every pane that is no record's harness pane.
    pub unmanaged: bool,
}

impl Observation {
    /// An observation of given parts, with nothing else read (for the
    /// pure core's tests and for callers that hold the parts already).
    pub fn of(
        sessions: Vec<ManagedSession>,
        fleet: FleetView,
        processes: BTreeMap<i32, HarnessProcess>,
    ) -> Self {
        Observation {
            sessions,
            corrupt: Vec::new(),
            fleet,
            processes,
            residue: None,
            detached: None,
            activities: BTreeMap::new(),
            unmanaged: None,
            beneath: BTreeMap::new(),
            said: BTreeMap::new(),
        }
    }

    /// The pid of the harness in a managed session's harness pane: the
    /// pane's own process, or the harness beneath it for a pane a record
    /// adopted; `None` when such a pane runs no harness of its own.
    pub fn harness_pid(&self, pane_pid: i32) -> Option<i32> {
        match self.beneath.get(&pane_pid) {
            Some(beneath) => *beneath,
            None => Some(pane_pid),
        }
    }

    /// The environment read from the harness process `pid`, if it was read.
    pub fn env(&self, pid: i32) -> Option<&EnvRead> {
        self.processes.get(&pid).map(|process| &process.env)
    }

    /// The version the tmux server reported in the listing's call; `None`
    /// when layers were not asked for or no server answered.
    pub fn tmux_version(&self) -> Option<&str> {
        match &self.residue {
            Some(ResidueView::Observed(layers)) => layers.tmux_version.as_deref(),
            _ => None,
        }
    }

    /// The pid of every pane tmux listed; `None` when tmux did not answer.
    pub fn pane_pids(&self) -> Option<BTreeSet<i32>> {
        match &self.fleet {
            FleetView::Answered(fleet) => Some(fleet.pane_pids().collect()),
            FleetView::Unknown(_) => None,
        }
    }
}

pub fn observe(registry: &Registry, tmux: &Tmux, wanted: &Wanted) -> Observation {
    let launcher = std::env::current_exe().ok();
    let images = ParentImages::default();
    let reader = HarnessReader {
        launcher: launcher.as_deref(),
        images: &images,
    };
    // Set once tmux has answered: reading ahead then stops, so a machine
    // with many other panes never makes a plan wait for their reads.
    let answered = AtomicBool::new(false);
    std::thread::scope(|scope| {
        // While the records are read and tmux answers, every process's
        // parent is read (the detached scan needs them), and every tmux
        // pane's process is read in the same pass, until tmux has answered.
        let early =
            (wanted.detached.is_some() || wanted.environments || wanted.unmanaged).then(|| {
                scope.spawn(|| {
                    let mut ahead = BTreeMap::new();
                    let table = if wanted.environments {
                        detached::process_table_visiting(|pid, process, stat| {
                            let open = !answered.load(Ordering::Relaxed);
                            if open {
                                ahead.insert(pid, reader.read_opened(process, stat));
                            }
                            open
                        })
                    } else {
                        detached::process_table()
                    };
                    (table, ahead)
                })
            });
        // The listing's call names no session, so it goes before the
        // records are read: tmux answers while they are.
        let markers = listing_markers(&wanted.watched);
        let listing = wanted.residue.then(|| {
            tmux.start_without_input(residue::query_args(&markers, Some(LIST_PANES_FORMAT), &[]))
        });
        let (mut sessions, corrupt) = managed_sessions(registry);
        let (mut fleet, layers) = match listing {
            Some(listing) => {
                // Every record's session, closed ones too: a closed gate
                // clears each one tmux has, and the rest are dropped.
                let mut targets: Vec<String> =
                    sessions.iter().map(|s| s.tmux_target.clone()).collect();
                targets.sort();
                targets.dedup();
                answer_listing(listing, &markers, &targets)
            }
            None => (fleet::observe(tmux), None),
        };
        answered.store(true, Ordering::Relaxed);
        if let FleetView::Answered(listed) = &mut fleet {
            for session in &mut sessions {
                if let Some(pane) = &session.pane {
                    listed.adopt(&session.tmux_target, pane);
                } else if let Some((moved_to, _)) = listed.relocate(&session.tmux_target) {
                    // Renamed or moved: planned where it lives now (see `relocate`).
                    session.tmux_target = moved_to;
                }
            }
        }
        let residue = layers.map(|view| complete_layers(tmux, view, &fleet, &sessions));
        let (table, ahead) = early
            .map(|early| {
                early
                    .join()
                    .unwrap_or_else(|_| (detached::process_table(), BTreeMap::new()))
            })
            .unwrap_or_default();
        let children = unmanaged::children(&table.parents);
        let (beneath, unmanaged) = match &fleet {
            FleetView::Answered(listed) => {
                let beneath = if wanted.environments {
                    unmanaged::beneath_adopted(listed, &sessions, &children)
                } else {
                    BTreeMap::new()
                };
                let managed = unmanaged::managed_panes(listed, &sessions);
                let found = wanted
                    .unmanaged
                    .then(|| unmanaged::scan(listed, &managed, &children));
                (beneath, found)
            }
            FleetView::Unknown(_) => (BTreeMap::new(), None),
        };
        // The detached scan reads other processes than the panes': beside them.
        let detached = match (wanted.detached, &fleet) {
            (Some(ours), FleetView::Answered(listed)) => {
                let panes = detached::Panes::of(listed, unmanaged.as_deref().unwrap_or_default());
                Some(scope.spawn(move || detached::scan(&table.parents, &panes, ours)))
            }
            _ => None,
        };
        let live = live_harness_pids(&fleet, &sessions, &beneath);
        // Each managed session's live harness, as read ahead or read now.
        // Unmanaged `loop-*` sessions' processes are never compared: what
        // was read ahead of them, and of every other pane, is dropped here.
        let processes = if wanted.environments {
            let beneath: BTreeSet<i32> = beneath.values().flatten().copied().collect();
            taken_or_read(live.clone(), ahead, |pid| match beneath.contains(&pid) {
                true => read_recognised(pid),
                false => reader.read(pid),
            })
        } else {
            Default::default()
        };
        let detached = detached.map(|scan| scan.join().unwrap_or_default());
        // Each pid's start time as read with its environment, when it was.
        let unmanaged_pids = unmanaged
            .iter()
            .flatten()
            .map(|found| (found.pid, found.start));
        let activities = crate::activity::store::live_activities_of(
            registry.root(),
            live.iter()
                .copied()
                .map(|pid| (pid, processes.get(&pid).and_then(|p| p.start)))
                .chain(unmanaged_pids),
        );
        let mut said = match &fleet {
            FleetView::Answered(listed) => {
                unmanaged::said_by_adopted(listed, &sessions, &beneath, &processes)
            }
            FleetView::Unknown(_) => BTreeMap::new(),
        };
        unmanaged::said_where_hooks_are_silent(&mut said, &live, &processes, &activities);
        Observation {
            sessions,
            corrupt,
            fleet,
            processes,
            residue,
            detached,
            activities,
            unmanaged,
            beneath,
            said,
        }
    })
}

/// The markers of the listing's call: behind the format gate
/// ([`session_loop::condition`]) only when the gate, which names every
/// watched name, keeps that call within [`residue::ARGV_BUDGET`]. An env file
/// of some hundreds of long names (a thousand short ones) would make tmux
/// refuse the listing itself, and leave every session unknown (issue 35):
/// past the budget no name travels with the listing, and the sessions'
/// layers are asked in calls of their own ([`complete_layers`]), which name
/// sessions only, however many names the env file declares.
fn listing_markers(watched: &[String]) -> Markers {
    let gated = Markers::new().gated(session_loop::condition(watched));
    let call = residue::query_args(&gated, Some(LIST_PANES_FORMAT), &[]);
    if argv_bytes(&call) <= residue::ARGV_BUDGET {
        gated
    } else {
        gated.gated(None)
    }
}

/// The pane listing, tmux's version and its own layers, from the call
/// `listing` started; the sessions' layers read clean when its gate was
/// closed, and unobserved (to be asked, see [`complete_layers`]) otherwise.
fn answer_listing(
    listing: Result<Started, TmuxError>,
    markers: &Markers,
    sessions: &[String],
) -> (FleetView, Option<ResidueView>) {
    let out = match listing.and_then(|client| client.finish(None)) {
        Ok(out) => out,
        Err(err) => return (FleetView::Unknown(err.to_string()), None),
    };
    if !out.success && (means_no_server(&out.stderr) || out.stderr.contains("no current target")) {
        // "no current target": a server with no session left (it is exiting).
        return (
            FleetView::Answered(Fleet::default()),
            Some(ResidueView::NoServer),
        );
    }
    let Some((listing, rest)) = residue::split_panes(markers, &out.stdout) else {
        // tmux's own words: why it refused (or what it printed instead).
        let why = match out.stderr.as_str() {
            "" if out.success => "tmux list-panes answered without the listing's end".into(),
            "" => "tmux list-panes failed without a message".into(),
            said => format!("tmux list-panes failed: {said}"),
        };
        return (FleetView::Unknown(why), None);
    };
    let fleet = FleetView::Answered(Fleet::from_panes(fleet::parse_list_panes(listing)));
    let view = residue::layers_from(rest, &out.stderr, out.success, sessions);
    (fleet, Some(view))
}

/// Drops sessions tmux does not have from the layers (they hold nothing),
/// and asks, in one more call, about the sessions it has that the first
/// call did not clear: all of them when its gate was open.
fn complete_layers(
    tmux: &Tmux,
    view: ResidueView,
    fleet: &FleetView,
    sessions: &[ManagedSession],
) -> ResidueView {
    let (mut layers, listed) = match (view, fleet) {
        (ResidueView::Observed(layers), FleetView::Answered(listed)) => (layers, listed),
        (view, _) => return view,
    };
    let present = |name: &str| matches!(listed.probe(name), Probe::Live | Probe::Dead);
    layers.unobserved_sessions.retain(|s| present(s));
    layers.sessions.retain(|s, _| present(s));
    let mut missing: Vec<String> = sessions
        .iter()
        .map(|s| s.tmux_target.clone())
        .filter(|t| present(t) && !layers.sessions.contains_key(t))
        .collect();
    missing.sort();
    missing.dedup();
    if missing.is_empty() {
        return ResidueView::Observed(layers);
    }
    layers.unobserved_sessions.retain(|s| !missing.contains(s));
    script::ask_sessions(tmux, &mut layers, &missing);
    layers.unobserved_sessions.sort();
    ResidueView::Observed(layers)
}

/// The pid of each managed session's live harness: its harness pane's
/// process, or the harness beneath a pane a record adopted.
fn live_harness_pids(
    fleet: &FleetView,
    sessions: &[ManagedSession],
    beneath: &BTreeMap<i32, Option<i32>>,
) -> Vec<i32> {
    sessions
        .iter()
        .filter(|s| fleet.probe(&s.tmux_target) == Probe::Live)
        .filter_map(|s| fleet.harness_pane(&s.tmux_target))
        .filter(|p| !p.dead)
        .filter_map(|pane| match beneath.get(&pane.pid) {
            Some(harness) => *harness,
            None => Some(pane.pid),
        })
        .collect()
}

/// How one observation reads harness processes: refusing the launcher's
/// own image, and reading each parent's image once.
#[derive(Clone, Copy)]
struct HarnessReader<'a> {
    launcher: Option<&'a Path>,
    images: &'a ParentImages,
}

impl HarnessReader<'_> {
    fn read(&self, pid: i32) -> HarnessProcess {
        read_process_or_unverified(pid, self.launcher, self.images)
    }

    /// A tmux pane's process met by the process table's pass
    /// ([`detached::process_table_visiting`]), before tmux has said which
    /// panes are this server's managed sessions': the read of 500 harnesses
    /// then runs while tmux answers, on the core tmux leaves free (one
    /// thread, so it does not slow tmux down). What the listing does not
    /// name is dropped unread by anything ([`taken_or_read`]).
    fn read_opened(&self, process: &ProcessDir, stat: Option<ProcStat>) -> HarnessProcess {
        read_opened_or_unverified(process, stat, self.launcher, self.images)
    }
}

/// One value for each of `pids` and for no other pid: the one in `ahead`
/// when there is one, else `read`'s.
fn taken_or_read<T: Send>(
    pids: Vec<i32>,
    mut ahead: BTreeMap<i32, T>,
    read: impl Fn(i32) -> T + Sync,
) -> BTreeMap<i32, T> {
    let (known, unread): (Vec<i32>, Vec<i32>) =
        pids.into_iter().partition(|pid| ahead.contains_key(pid));
    let mut values = read_in_parallel(&unread, read);
    for pid in known {
        if let Some(value) = ahead.remove(&pid) {
            values.insert(pid, value);
        }
    }
    values
}

#[cfg(test)]
#[path = "observation_tests.rs"]
mod tests;
