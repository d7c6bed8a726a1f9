//! `watch --metrics-listen ADDR`: the fleet's state as Prometheus metrics,
//! because fleets are watched through alerts, not by reading `events.jsonl`.
//!
//! The names are a public contract (docs/contracts.md, "Metrics"). The
//! exposition is written by the `prometheus-client` crate in
//! the Prometheus text format (0.0.4), nothing here formats it by hand, and
//! [`super::metrics_server`] serves it, bounded against hostile clients. Only counts, states and outcome words are exported:
//! no label carries a value, a name from the env file, or a session's ref
//! (refs would make one series per work item, which a fleet's Prometheus
//! should not have to keep).

use super::held::{held, ReasonLabels, REASONS};
use crate::apply::{Outcome, SessionReport};
use crate::observed::Probe;
use crate::plan::{Action, Plan, SessionKind};
use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelValueEncoder};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use std::sync::Arc;
use std::time::Duration;

/// Every probe state, so each series exists (at 0) from the first scrape.
const STATES: [Probe; 4] = [Probe::Live, Probe::Dead, Probe::Absent, Probe::Unknown];

/// Every outcome a roll by watch can end in, pre-created at 0: `increase()`
/// in an alert rule only sees a first failure when the series existed
/// before it. Two words of `apply --json` are left out because watch never
/// says them, so no series sits at 0 forever: `would_restart` (a dry run's)
/// and `up_to_date` (watch rolls only what its plan drifted, see
/// `ops::apply::Source::Given`, and `apply::fleet::execute` says
/// `up_to_date` only of a session the plan leaves as it is).
const OUTCOMES: [Outcome; 10] = [
    Outcome::Restarted,
    Outcome::RestartedUnverified,
    Outcome::Mismatch,
    Outcome::ResumeFailed,
    Outcome::LeftAlone,
    Outcome::Skipped,
    Outcome::NotAttempted,
    Outcome::Deferred,
    Outcome::Blocked,
    Outcome::Superseded,
];

/// `the_loop_plan_duration_seconds`' buckets: a plan takes tens of
/// milliseconds on a small fleet (docs/performance.md) and up to tmux's
/// timeout when tmux does not answer.
const PLAN_BUCKETS: [f64; 9] = [0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0];

/// `the_loop_roll_duration_seconds`' buckets: one session's roll is its
/// grace, its probe and a verification (seconds); a fleet's is waves of them.
const ROLL_BUCKETS: [f64; 9] = [1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0];

/// The word an outcome goes by in `apply --json` and in events, so a
/// dashboard and a report say the same thing.
fn outcome_word(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Restarted => "restarted",
        Outcome::RestartedUnverified => "restarted_unverified",
        Outcome::Mismatch => "mismatch",
        Outcome::ResumeFailed => "resume_failed",
        Outcome::LeftAlone => "left_alone",
        Outcome::Skipped => "skipped",
        Outcome::UpToDate => "up_to_date",
        Outcome::NotAttempted => "not_attempted",
        Outcome::WouldRestart => "would_restart",
        Outcome::Deferred => "deferred",
        Outcome::Blocked => "blocked",
        Outcome::Superseded => "superseded",
    }
}

#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
struct StateValue(Probe);

impl EncodeLabelValue for StateValue {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> std::fmt::Result {
        EncodeLabelValue::encode(&self.0.as_str(), encoder)
    }
}

#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
struct OutcomeValue(Outcome);

impl EncodeLabelValue for OutcomeValue {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> std::fmt::Result {
        EncodeLabelValue::encode(&outcome_word(self.0), encoder)
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StateLabels {
    state: StateValue,
}

/// Which build is running, as the `_build_info` idiom of Prometheus's own
/// exporters: one series, always 1, to join on or alert on by its labels.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct BuildLabels {
    version: String,
    commit: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabels {
    outcome: OutcomeValue,
}

/// The metrics `watch` keeps. Cloning shares them: the handles are
/// reference-counted, so the server thread reads what the loop writes.
#[derive(Clone)]
pub struct Metrics {
    registry: Arc<Registry>,
    sessions: Family<StateLabels, Gauge>,
    drifted: Gauge,
    rolls: Family<OutcomeLabels, Counter>,
    plan_ok: Gauge,
    last_plan: Gauge,
    held: Family<ReasonLabels, Gauge>,
    held_seconds: Family<ReasonLabels, Gauge>,
    plan_duration: Histogram,
    roll_duration: Histogram,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("the_loop");
        let sessions = Family::<StateLabels, Gauge>::default();
        let drifted = Gauge::default();
        let rolls = Family::<OutcomeLabels, Counter>::default();
        let plan_ok = Gauge::default();
        let last_plan = Gauge::default();
        registry.register(
            "sessions",
            "Registered sessions by tmux probe state (live, dead, absent, unknown)",
            sessions.clone(),
        );
        registry.register(
            "sessions_drifted",
            "Sessions whose environment or launch arguments differ from the desired state",
            drifted.clone(),
        );
        registry.register(
            "rolls",
            "Sessions rolled by watch, by outcome (the words of apply --json)",
            rolls.clone(),
        );
        registry.register(
            "plan_ok",
            "1 when watch's last cycle could plan, 0 when it could not (the gauges then hold the last plan)",
            plan_ok.clone(),
        );
        registry.register(
            "last_plan_timestamp_seconds",
            "Unix time of watch's last successful plan",
            last_plan.clone(),
        );
        // A gauge rather than prometheus-client's `Info`: the text format
        // served (0.0.4) has no `info` type, and Prometheus refuses it.
        let build = Family::<BuildLabels, Gauge>::default();
        build
            .get_or_create(&BuildLabels {
                version: crate::build_info::VERSION.to_owned(),
                commit: crate::build_info::COMMIT.to_owned(),
            })
            .set(1);
        registry.register(
            "build_info",
            "Always 1; the labels name the running the-loop's version and the git commit it was built from",
            build,
        );
        let held = Family::<ReasonLabels, Gauge>::default();
        let held_seconds = Family::<ReasonLabels, Gauge>::default();
        registry.register(
            "sessions_held",
            "Drifted sessions a roll leaves in place for now, by why (busy, waiting, attached)",
            held.clone(),
        );
        registry.register(
            "sessions_held_longest_seconds",
            "How long the longest-held of them has been in its turn (0 when not known, as for attached)",
            held_seconds.clone(),
        );
        let plan_duration = Histogram::new(PLAN_BUCKETS);
        let roll_duration = Histogram::new(ROLL_BUCKETS);
        registry.register(
            "plan_duration_seconds",
            "How long watch's plans took: re-reading the config and the env file, observing tmux and /proc, planning",
            plan_duration.clone(),
        );
        registry.register(
            "roll_duration_seconds",
            "How long watch's rolls took, from taking the apply lock to the last session's verification",
            roll_duration.clone(),
        );
        for reason in REASONS {
            held.get_or_create(&ReasonLabels { reason }).set(0);
            held_seconds.get_or_create(&ReasonLabels { reason }).set(0);
        }
        for state in STATES {
            sessions
                .get_or_create(&StateLabels {
                    state: StateValue(state),
                })
                .set(0);
        }
        for outcome in OUTCOMES {
            rolls
                .get_or_create(&OutcomeLabels {
                    outcome: OutcomeValue(outcome),
                })
                .inc_by(0);
        }
        Metrics {
            registry: Arc::new(registry),
            sessions,
            drifted,
            rolls,
            plan_ok,
            last_plan,
            held,
            held_seconds,
            plan_duration,
            roll_duration,
        }
    }

    /// Sets the gauges from one plan. Unmanaged `loop-*` sessions are not
    /// counted: watch never acts on them.
    pub fn observe_plan(&self, plan: &Plan, now_epoch: u64) {
        let managed = || {
            plan.sessions
                .iter()
                .filter(|s| s.kind != SessionKind::Unmanaged)
        };
        for state in STATES {
            let count = managed().filter(|s| s.probe == state).count();
            self.sessions
                .get_or_create(&StateLabels {
                    state: StateValue(state),
                })
                .set(gauge_value(count));
        }
        // tmux not answering is not a clean fleet: a drift count of 0 would
        // resolve a drift alert on no evidence. Keep the last count and say
        // the plan is not good (every session shows as `unknown` above).
        if plan.tmux_unanswered.is_some() {
            self.plan_ok.set(0);
            return;
        }
        // The hosts' sessions drift as panes do (docs/hosts.md).
        let on_hosts: usize = plan.hosts.iter().map(|host| host.to_respawn()).sum();
        let drifted = managed().filter(|s| s.action == Action::Respawn).count() + on_hosts;
        self.drifted.set(gauge_value(drifted));
        for (reason, count, longest) in held(&plan.sessions, now_epoch) {
            let labels = ReasonLabels { reason };
            self.held.get_or_create(&labels).set(gauge_value(count));
            self.held_seconds
                .get_or_create(&labels)
                .set(i64::try_from(longest).unwrap_or(i64::MAX));
        }
        self.plan_ok.set(1);
        self.last_plan
            .set(i64::try_from(now_epoch).unwrap_or(i64::MAX));
    }

    /// A cycle that could not plan: the gauges keep the last plan's counts,
    /// and `plan_ok` says they are stale.
    pub fn plan_failed(&self) {
        self.plan_ok.set(0);
    }

    pub fn count_rolls(&self, sessions: &[SessionReport]) {
        for s in sessions {
            self.rolls
                .get_or_create(&OutcomeLabels {
                    outcome: OutcomeValue(s.outcome),
                })
                .inc();
        }
    }

    /// One plan (whether tmux answered or not) took `took`.
    pub fn plan_took(&self, took: Duration) {
        self.plan_duration.observe(took.as_secs_f64());
    }

    /// One roll took `took`.
    pub fn roll_took(&self, took: Duration) {
        self.roll_duration.observe(took.as_secs_f64());
    }

    /// The exposition, as a scrape receives it.
    pub fn encode(&self) -> Result<String, std::fmt::Error> {
        let mut text = String::new();
        prometheus_client::encoding::prometheus_text::encode(&mut text, &self.registry)?;
        Ok(text)
    }
}

fn gauge_value(count: usize) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

#[cfg(test)]
#[path = "metrics_tests.rs"]
mod tests;
