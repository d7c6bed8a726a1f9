//! Whether any session can hold a watched name, asked of tmux in ONE
//! format loop (`#{S:…}`), so the sessions are read one by one only when
//! one can.
//!
//! tmux answers each command of a script or chain at a fixed cost (about
//! 35 µs on 2 cores at 500 sessions, with its marker twice that), so 500
//! sessions' environments cost about 70 ms of the server's time where the
//! pane listing costs 10. A format loop is one command whatever the fleet.
//!
//! The loop cannot read a session's own layer exactly: tmux looks a name up
//! in the session's environment and, when the session has no entry for it,
//! in the global one, so an own copy of the global value and the global
//! value itself read the same. What it can say exactly is when no session
//! shows any watched value: then no session's own layer holds one (nor does
//! the global layer, unless every session masks it; the global layer is
//! read on its own anyway). So the question is gated (see `residue.rs`):
//!
//! - the gate is printed (`@c 0` or `@c 1`), then
//! - `if -F <gate>` asks every session with `show-environment`, as before.
//!
//! With `@c 0` every asked session's layer is clean, in the pane listing's
//! own call of a few commands. A fleet whose tmux holds a watched value
//! anywhere (the global layer before `apply --scrub-tmux-env`, or one
//! session) is read one by one, exactly as without the gate, in the same
//! call. An empty value reads as no value to the loop: it holds nothing to
//! leak, and the residue report skips it in every session layer, so both
//! ways agree (`plan/residue.rs`).

use super::fleet::SESSION_PREFIX;

/// The format that is `1` when some managed-looking (`loop-*`) session
/// shows a non-empty value for one of `names`, else `0`: each session's
/// byte lengths (`#{n:…}`) strung together hold a digit other than 0
/// exactly when one is non-empty. `None` when a name is not safe to look
/// up in a format, or there is none: the sessions are then always read.
pub fn condition(names: &[String]) -> Option<String> {
    if names.is_empty() || !names.iter().all(|n| loopable(n)) {
        return None;
    }
    let lengths: String = names.iter().map(|name| format!("#{{n:{name}}}")).collect();
    Some(format!(
        "#{{m:*[1-9]*,#{{S:#{{?#{{m:{SESSION_PREFIX}*,#{{session_name}}}},{lengths},}}}}}}"
    ))
}

/// Upper case, digits and `_`, not starting with a digit: tmux's own
/// format variables are lower case, so such a name can only be found in an
/// environment, and it holds none of the format's `,`, `}` or `#`.
fn loopable(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_uppercase() || b == b'_')
        && bytes.all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn the_gate_strings_every_managed_sessions_lengths_together() {
        assert_eq!(
            condition(&names(&["TOK", "B_2"])).as_deref(),
            Some("#{m:*[1-9]*,#{S:#{?#{m:loop-*,#{session_name}},#{n:TOK}#{n:B_2},}}}")
        );
        assert_eq!(condition(&[]), None);
        for unsafe_name in ["pane_id", "2X", "A-B", "A}B", "A,B", ""] {
            assert_eq!(
                condition(&names(&["TOK", unsafe_name])),
                None,
                "{unsafe_name}"
            );
        }
    }
}
