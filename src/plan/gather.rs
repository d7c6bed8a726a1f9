//! The imperative shell around [`super::compute()`]: observe once, compute,
//! then the two steps that need the filesystem and so cannot be pure: the
//! intent journal's interrupted respawns, and whether each selected
//! session's conversation can be resumed (the roll's own decision).

use super::compute::{compute, Targets};
use super::model::{Action, Plan, SessionPlan};
use crate::desired::policy::Policy;
pub use crate::observed::harness::{read_harness, read_harness_environment, StillLauncher};
pub use crate::observed::registered::managed_sessions;
use crate::observed::{observe, Observation, ProcessEnv, Wanted};
use crate::registry::Registry;
use crate::tmux::Tmux;

/// The observation a plan was computed from (the roll reads its
/// environments and fleet).
pub type Observed = Observation;

/// Observes everything a plan compares, for this policy.
pub fn observe_for(policy: &Policy, registry: &Registry, tmux: &Tmux) -> Observation {
    let launched_here: &(dyn Fn(&ProcessEnv) -> bool + Sync) =
        &|env: &ProcessEnv| policy.launched_here(env);
    observe(
        registry,
        tmux,
        &Wanted {
            environments: true,
            residue: true,
            watched: policy
                .withheld_names()
                .into_iter()
                .chain(policy.delivered_names())
                .collect(),
            // Nothing is withheld or delivered without an env file: nothing
            // to look for in detached processes.
            detached: policy.env_file().is_some().then_some(launched_here),
            unmanaged: true,
        },
    )
}

/// Whose screens a plan looks at ([`annotate_screens`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Looks {
    /// The sessions a roll in this mode would select: what `plan`,
    /// `apply` and `watch` decide on. A session no roll touches is not
    /// looked at (its `screen` stays `None`): at 500 up-to-date sessions
    /// that is a tmux client rendering 150 screens, and 150 reads of
    /// harness children, for nothing a roll does.
    Roll(super::safe_point::Mode),
    /// Every live harness: `top`, which shows what each one is doing, and
    /// `apply --replace-server`'s drain, which waits for every session.
    Every,
}

pub fn plan_now(
    policy: &Policy,
    registry: &Registry,
    tmux: &Tmux,
    targets: &Targets,
    looks: Looks,
) -> (Plan, Observed) {
    let observed = observe_for(policy, registry, tmux);
    let mut plan = compute(policy, &observed, targets);
    plan.tmux_server = tmux.socket().map(std::path::Path::to_path_buf);
    super::interrupted::annotate(
        &mut plan,
        &crate::registry::journal::Journal::under(registry.root()).entries(),
    );
    super::shared_conversation::annotate(&mut plan, &observed);
    annotate_resumability(&mut plan, registry, &observed, looks);
    super::failed_resume::annotate(&mut plan, registry.root(), targets);
    annotate_screens(&mut plan, tmux, &observed, looks);
    // `plan` says what `apply`, with its defaults, does at each safe point.
    super::safe_point::annotate(
        &mut plan,
        super::safe_point::Mode::Apply,
        &super::safe_point::Drain::default(),
    );
    (plan, observed)
}

/// What the screen shows, in one tmux client for the whole plan, of each
/// session with a live harness [`super::screen::worth_a_look`] among those
/// `looks` names (the sessions a roll would take first, should they
/// outgrow one batch): one whose hooks say a turn runs and whose screen
/// shows none was interrupted, and is marked so; of the others, a `!`
/// command, a menu, a background shell or a draft, which no hook reports,
/// and, for a harness whose hooks never spoke, whether it is between
/// turns at all. With [`Looks::Every`], `top` says of each session what
/// `sessions list` says.
pub fn annotate_screens(plan: &mut Plan, tmux: &Tmux, observed: &Observation, looks: Looks) {
    let now_ms = crate::clock::now_ms();
    let worth = |s: &SessionPlan| {
        let last = s
            .pane_pid
            .and_then(|pid| observed.activities.get(&pid))
            .and_then(|a| a.last_ms);
        // A session to resume has no harness left to look at.
        s.pane_id.is_some()
            && s.pane_pid.is_some()
            && s.action != Action::Resume
            && super::screen::worth_a_look(s.activity, last, now_ms)
    };
    let taken = |s: &SessionPlan| {
        super::safe_point::selects(super::safe_point::Mode::Apply, s.action)
            && s.left_alone.is_none()
    };
    let looked_at = |s: &SessionPlan| match looks {
        Looks::Roll(mode) => super::safe_point::selects(mode, s.action),
        Looks::Every => true,
    };
    let mut candidates: Vec<usize> = (0..plan.sessions.len())
        .filter(|i| looked_at(&plan.sessions[*i]) && worth(&plan.sessions[*i]))
        .collect();
    // Stable: the roll's own first, each group in the plan's order.
    candidates.sort_by_key(|i| !taken(&plan.sessions[*i]));
    candidates.truncate(super::screen::SCREENS_PER_LOOK);
    if candidates.is_empty() {
        return;
    }
    let sessions: Vec<&SessionPlan> = candidates.iter().map(|i| &plan.sessions[*i]).collect();
    let screens = super::screen::look(
        &|commands| crate::runner::batch::run_each(tmux, &commands),
        &sessions,
    );
    for (index, screen) in candidates.into_iter().zip(screens) {
        let session = &mut plan.sessions[index];
        let activity = super::screen::marked(session.activity, screen);
        if activity != session.activity {
            session.activity = activity;
            session.busy_since = None;
        }
        session.screen = Some(screen);
    }
}

/// Marks the sessions a roll would select but leave alone, with the roll's
/// own decision function, so the plan says what `apply` will do.
/// Each check looks at the filesystem (the working directory, the
/// transcript), so hundreds are split across the cores. Only the sessions
/// `looks` names are checked: an up-to-date session is no roll's in
/// `plan`, `apply` or `watch`, and checking 500 of them was a tenth of a
/// plan's CPU; `top` ([`Looks::Every`]) and `sessions restart` still check
/// every live one.
fn annotate_resumability(
    plan: &mut Plan,
    registry: &Registry,
    observed: &Observation,
    looks: Looks,
) {
    let checked = |session: &SessionPlan| match looks {
        Looks::Roll(mode) => super::safe_point::selects(mode, session.action),
        Looks::Every => session.action != Action::Skip,
    };
    let left_alone = crate::parallel::map(&plan.sessions, CHECKS_PER_THREAD, |session| {
        checked(session).then(|| {
            super::ownership::decide(registry, session, observed)
                .and_then(|(_, verdict)| verdict.err())
        })
    });
    for (session, reason) in plan.sessions.iter_mut().zip(left_alone) {
        if let Some(reason) = reason {
            session.left_alone = reason;
        }
    }
    plan.summary = super::compute::summarise(&plan.sessions);
}

/// Fewer resumability checks than this are not worth a thread.
const CHECKS_PER_THREAD: usize = 64;

/// Processes outside the panes (whose pids are `pane_pids`) that a launch
/// under this config started, and what they still hold. One `/proc` pass.
pub fn detached_now(
    policy: &Policy,
    pane_pids: &std::collections::BTreeSet<i32>,
) -> Vec<super::detached::DetachedEntry> {
    if policy.env_file().is_none() {
        // Nothing is withheld or delivered: nothing to look for.
        return Vec::new();
    }
    let parents = crate::observed::detached::parents();
    let panes = crate::observed::detached::Panes::all(pane_pids.clone());
    let found = crate::observed::detached::scan(&parents, &panes, &|env| policy.launched_here(env));
    super::detached::compare(policy, &found)
}
