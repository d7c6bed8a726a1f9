//! The order a roll takes its sessions in, fair under a storm of rotations.
//!
//! A roll that a newer env value interrupts stops (`superseded`), and the
//! next roll starts over on the newer value. Taken in the plan's order,
//! every such roll began at the same head: under 50 rotations 6 s apart
//! the same 66 of 1,000 sessions were respawned 51 times each and the
//! other 934 never, until the rotations stopped. So a roll takes first the
//! sessions still holding the oldest values.
//!
//! Which value a session holds is what its plan says it has (`changes`,
//! `have`: names and fingerprints). How old a value is comes from its
//! holders: the launcher reads the env file as it starts the harness, so
//! the earliest start among the sessions holding a value is when that
//! value was current, without a history of values. A roll takes the
//! holders of the oldest value first, then the next, each group in the
//! plan's order; the sessions the last roll reached hold a newer value and
//! go last. Every session is then reached once before any is reached again,
//! however often the rolls are cut short, and the roll after the last
//! rotation ends with the whole fleet on the final value. A fleet holding
//! one value (every roll that no rotation cut short) keeps the plan's order.
//!
//! Pure: the start times are read with the observation
//! (`HarnessProcess::start`), and this only sorts.

use super::{Action, SessionPlan};
use crate::secret::Shown;
use std::collections::BTreeMap;

/// What a session holds of the names it drifted on: its value's identity.
type Held = Vec<(String, Option<Shown>)>;

fn held(session: &SessionPlan) -> Held {
    session
        .changes
        .iter()
        .map(|c| (c.name.clone(), c.have))
        .collect()
}

/// Sorts `items` into the roll's order. `of` gives each item's session and
/// when its harness started (`/proc/<pid>/stat` field 22, clock ticks after
/// boot; `None` when unread, or no harness runs, which reads as the
/// oldest: a harness whose start cannot be read is not kept waiting).
/// Interrupted respawns first (their panes are already dead, and bringing
/// them back comes before disrupting anything else); then by the age of
/// the value held, oldest first; stable, so the plan's order otherwise.
pub fn sort<'p, T>(items: &mut [T], of: impl Fn(&T) -> (&'p SessionPlan, Option<u64>)) {
    let mut age: BTreeMap<Held, u64> = BTreeMap::new();
    for item in items.iter() {
        let (session, started) = of(item);
        let oldest = age.entry(held(session)).or_insert(u64::MAX);
        *oldest = (*oldest).min(started.unwrap_or(0));
    }
    // Stable: equal keys keep their order.
    items.sort_by_cached_key(|item| {
        let (session, _) = of(item);
        let value_age = age.get(&held(session)).copied().unwrap_or(0);
        (session.action != Action::Resume, value_age)
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observed::Probe;
    use crate::plan::{Change, ChangeCase, SessionKind};
    use crate::secret::Fingerprint;

    /// Session `label`, holding value `have` of TOKEN where the file says `want`.
    fn session(label: usize, action: Action, have: usize, want: usize) -> SessionPlan {
        let fp = |v: usize| Some(Shown::Fingerprint(Fingerprint::of(&v.to_le_bytes())));
        SessionPlan {
            reference: Some(format!("github:octo/repo#{label}")),
            action,
            changes: vec![Change {
                name: "TOKEN".into(),
                have: fp(have),
                want: fp(want),
                case: ChangeCase::Stale,
            }],
            ..SessionPlan::new(SessionKind::WorkItem, format!("loop-{label}"), Probe::Live)
        }
    }

    fn labels(sessions: &[(SessionPlan, Option<u64>)]) -> Vec<&str> {
        let mut order: Vec<usize> = (0..sessions.len()).collect();
        sort(&mut order, |i| (&sessions[*i].0, sessions[*i].1));
        order.iter().map(|i| sessions[*i].0.label()).collect()
    }

    #[test]
    fn interrupted_respawns_first_then_the_holders_of_the_oldest_value_in_plan_order() {
        let sessions = [
            // Reached by the roll a rotation cut short: value 1, started late.
            (session(1, Action::Respawn, 1, 2), Some(900)),
            // Still on value 0, started in plan order long before.
            (session(2, Action::Respawn, 0, 2), Some(300)),
            (session(3, Action::Resume, 0, 2), None),
            (session(4, Action::Respawn, 0, 2), Some(100)),
            (session(5, Action::Respawn, 1, 2), Some(800)),
            (session(6, Action::Respawn, 0, 2), Some(200)),
        ];
        assert_eq!(
            labels(&sessions),
            [
                "github:octo/repo#3",
                "github:octo/repo#2",
                "github:octo/repo#4",
                "github:octo/repo#6",
                "github:octo/repo#1",
                "github:octo/repo#5",
            ]
        );
    }

    #[test]
    fn a_fleet_on_one_value_keeps_the_plan_order_whatever_its_start_times() {
        let sessions = [
            (session(1, Action::Respawn, 0, 1), Some(900)),
            (session(2, Action::Respawn, 0, 1), None),
            (session(3, Action::Respawn, 0, 1), Some(100)),
        ];
        assert_eq!(
            labels(&sessions),
            [
                "github:octo/repo#1",
                "github:octo/repo#2",
                "github:octo/repo#3"
            ]
        );
    }

    /// A storm: `rotations` rolls, each cut short by the next rotation
    /// after `reach` respawns, then one roll to the end; each respawn
    /// starts a harness on the file's value of the time. Returns how often
    /// each session was respawned, and whether the last roll left every
    /// one on the final value.
    fn storm(fair: bool, fleet: usize, rotations: usize, reach: usize) -> (Vec<usize>, bool) {
        // Started in plan order, long before the storm, on value 0.
        let mut started: Vec<u64> = (0..fleet as u64).collect();
        let mut value: Vec<usize> = vec![0; fleet];
        let mut respawns = vec![0; fleet];
        let mut clock = 1_000;
        for rotation in 1..=rotations + 1 {
            let plans: Vec<SessionPlan> = (0..fleet)
                .map(|i| session(i, Action::Respawn, value[i], rotation))
                .collect();
            let mut order: Vec<usize> = (0..fleet).filter(|i| value[*i] != rotation).collect();
            if fair {
                sort(&mut order, |i| (&plans[*i], Some(started[*i])));
            }
            let last = rotation == rotations + 1;
            for i in order.into_iter().take(if last { fleet } else { reach }) {
                clock += 1;
                started[i] = clock;
                value[i] = rotation;
                respawns[i] += 1;
            }
        }
        let converged = value.iter().all(|v| *v == rotations + 1);
        (respawns, converged)
    }

    #[test]
    fn a_storm_of_rotations_reaches_every_session_before_any_again() {
        // 12 sessions, 6 rotations each cutting the roll after 4 respawns.
        let (respawns, converged) = storm(true, 12, 6, 4);
        assert!(converged);
        assert!(respawns.iter().all(|n| (2..=3).contains(n)), "{respawns:?}");
        // The storm: 1,000 sessions, 50 rotations, 66 reached by
        // each cut-short roll. The respawns are spread evenly (no session
        // is respawned twice more than another), where the plan's order
        // respawned 66 sessions 51 times and 934 once.
        let (respawns, converged) = storm(true, 1_000, 50, 66);
        assert!(converged);
        let (least, most) = (respawns.iter().min(), respawns.iter().max());
        assert_eq!((least, most), (Some(&4), Some(&5)), "{respawns:?}");
        assert_eq!(respawns.iter().sum::<usize>(), 50 * 66 + 1_000);
    }

    #[test]
    fn in_plan_order_the_same_head_is_respawned_every_time() {
        // What the fair order replaces: the head of the plan is rolled by
        // every cut-short roll, the tail only by the last.
        let (respawns, converged) = storm(false, 12, 6, 4);
        assert!(converged);
        assert_eq!(respawns[0], 7);
        assert_eq!(respawns[11], 1);
    }
}
