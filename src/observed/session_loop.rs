//! Whether any session can hold a watched name, asked of tmux in ONE
//! format loop (`#{S:…}`) in the pane listing's own call, so that the
//! sessions are read one by one, in one more call, only when one can.
//!
//! What a long observation costs tmux is building its commands: a
//! `show-environment` and a marker per session, about 1,000 commands for
//! 500 sessions, measured at 110 ms of the server's time where the pane
//! listing costs 10. A format loop is one command whatever the fleet.
//!
//! The loop cannot read a session's own layer exactly: tmux looks a name up
//! in the session's environment and, when the session has no entry for it,
//! in the global one, so an own copy of the global value and the global
//! value itself read the same. What it can say exactly is when no session
//! shows any watched value: then no session's own layer holds one (nor does
//! the global layer, unless every session masks it; the global layer is
//! read on its own anyway). So the gate is one command of the listing's
//! call, `if -F <gate> "display -p '@c 1'" "display -p '@c 0'"`:
//!
//! - `@c 0`: every session's layer is clean, read in that one call. This is
//!   every plan after `apply --scrub-tmux-env`.
//! - `@c 1`: tmux holds a watched value somewhere (the global layer before a
//!   scrub, or one session), and the records' sessions are asked one by one
//!   in one more call, exactly as without the gate.
//!
//! The gate names every watched name, so it rides with the listing only
//! while the listing's call stays under tmux's limit (`listing_markers` in
//! `observed/observation.rs`): past it (some hundreds of long names, a
//! thousand short ones) the sessions are asked one by one, in a call of their
//! own, as without the gate: those calls name sessions, never watched names.
//!
//! The listing's call is sent before the records are read, so it cannot name
//! the sessions; that is what makes it early. An empty value reads as no
//! value to the loop: it holds nothing to leak, and the residue report skips
//! it in every session layer, so both ways agree (`plan/residue.rs`).

use super::markers::Markers;

/// The format that is `0` when no session shows a non-empty value for any
/// of `names`, else `1`: each session's byte lengths (`#{n:…}`) strung
/// together hold a digit other than 0 exactly when one is non-empty. Every
/// session counts, not only `loop-*` ones: matching each session's name
/// cost tmux more than the loop itself (2.2 ms of 4.2 at 500 sessions), and
/// another session holding a watched name only opens the gate, which costs
/// time, never an answer. It is only asked of the tmux it was proven on (3.3
/// to 3.9, `#{version}`); any other reads `1` without evaluating the loop,
/// and the sessions are asked one by one, as they always were. `None` when
/// a name is not safe to look up in a format, or there is none: the
/// sessions are then always asked.
pub fn condition(names: &[String]) -> Option<String> {
    if names.is_empty() || !names.iter().all(|n| loopable(n)) {
        return None;
    }
    let lengths: String = names.iter().map(|name| format!("#{{n:{name}}}")).collect();
    Some(format!(
        "#{{?#{{m:{PROVEN_ON},#{{version}}}},#{{m:*[1-9]*,#{{S:{lengths}}}}},1}}"
    ))
}

/// The tmux versions the gate's loop and modifiers were tested on (the
/// suite runs tmux 3.3a), as an `fnmatch` pattern on `#{version}`.
const PROVEN_ON: &str = "3.[3-9]*";

/// What an open gate prints: some session may hold a watched value.
pub const GATE_OPEN: &str = "display -p '@c 1'";
/// What a closed gate prints: no session shows a watched value.
pub const GATE_CLOSED: &str = "display -p '@c 0'";

/// The gate's command as words of a `;` chain: `if -F <gate>` and its two
/// branches, each one word for tmux's parser. `None` without a gate.
pub fn gate_words(markers: &Markers) -> Option<[String; 6]> {
    let gate = markers.gate()?;
    Some([";", "if", "-F", gate, GATE_OPEN, GATE_CLOSED].map(String::from))
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
    fn the_gate_strings_every_sessions_lengths_together() {
        assert_eq!(
            condition(&names(&["TOK", "B_2"])).as_deref(),
            Some("#{?#{m:3.[3-9]*,#{version}},#{m:*[1-9]*,#{S:#{n:TOK}#{n:B_2}}},1}")
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

    #[test]
    fn the_gate_is_one_command_of_the_listings_call_and_asks_no_session() {
        use super::super::markers::Markers;
        use super::super::residue::{layers_from, query_args, ResidueView};
        let gate = condition(&names(&["TOK"]));
        let markers = Markers::with_nonce("n0").gated(gate.clone());
        let args = query_args(&markers, Some("#{pane_id}"), &[]);
        let at = args.iter().position(|w| w == "if").expect("gated");
        assert_eq!(args[at + 1], "-F");
        assert_eq!(Some(&args[at + 2]), gate.as_ref());
        assert_eq!(args[at + 3], GATE_OPEN);
        assert_eq!(args[at + 4], GATE_CLOSED);
        assert!(!args.iter().any(|w| w.starts_with("-st=")), "{args:?}");
        assert_eq!(gate_words(&Markers::with_nonce("n0")), None);

        let asked = names(&["loop-a", "loop-it's"]);
        // A closed gate: every asked session is clean, none unanswered.
        let ResidueView::Observed(closed) = layers_from("@p 7\n@g\n@c 0\n", "", true, &asked)
        else {
            panic!("observed")
        };
        assert!(closed.unobserved_sessions.is_empty());
        assert_eq!(closed.sessions.len(), 2);
        // An open gate: every asked session is still to be read.
        let ResidueView::Observed(open) = layers_from("@p 7\n@g\n@c 1\n", "", true, &asked) else {
            panic!("observed")
        };
        assert_eq!(open.unobserved_sessions, asked);
        assert!(open.sessions.is_empty());
    }
}
