//! The roll's last look before it ends a harness: the hooks, then the
//! screen ([`crate::plan::screen`], whose rule the drain uses for the
//! sessions it holds).

use super::report::Outcome;
pub use crate::plan::screen::{held, held_words, Held, Hooks, LOOKS_APART, UNKNOWN_WORDS};
use crate::plan::SessionPlan;
use crate::runner::batch::Batcher;
use std::time::Instant;

/// Each session's screen, through the roll's one tmux client.
pub fn look(
    tmux: &Batcher,
    sessions: &[&SessionPlan],
) -> Vec<crate::harness::turn_screen::TurnScreen> {
    crate::plan::screen::look(&|commands| tmux.run_all(commands), sessions)
}

/// The last look before the signal (the roll's `safe_point` check), after
/// the hooks' verdict: the screen, twice when the hooks say a turn runs and
/// the screen shows none. `Err` is the outcome the session gets instead.
pub fn last_look(
    tmux: &Batcher,
    session: &SessionPlan,
    hooks: HookVerdict,
) -> Result<(), (Outcome, String)> {
    let (said, hooks_words) = match hooks {
        HookVerdict::Ended(why) => return Err((Outcome::Skipped, why)),
        HookVerdict::InTurn(why) => (Hooks::InTurn, Some(why)),
        HookVerdict::Between => (Hooks::Between, None),
        HookVerdict::Silent => (Hooks::Silent, None),
    };
    let mut quiet_since = None;
    loop {
        let screen = look(tmux, &[session])[0];
        match held(said, screen, &mut quiet_since, Instant::now()) {
            Held::Ready | Held::Interrupted => return Ok(()),
            Held::Hold if quiet_since.is_some() => std::thread::sleep(LOOKS_APART),
            Held::Hold => {
                // The hooks' "busy since …" says more when they say a turn
                // runs; otherwise what the screen shows says why.
                let why = hooks_words
                    .or_else(|| held_words(screen).map(str::to_owned))
                    .unwrap_or_else(|| UNKNOWN_WORDS.to_owned());
                return Err((Outcome::Deferred, why));
            }
        }
    }
}

/// What a session's hooks say right now, for the last look.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookVerdict {
    /// The person ended it: never rolled (`skipped`, with why).
    Ended(String),
    /// A turn runs, by the hooks (with "busy since …").
    InTurn(String),
    /// Between turns.
    Between,
    /// No hook has spoken for this process: the screen decides.
    Silent,
}
