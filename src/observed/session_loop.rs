//! Whether any session can hold a watched name, asked of tmux in ONE
//! format loop (`#{S:…}`), so the sessions are read one by one only when
//! one can.
//!
//! What a long observation costs tmux is building its commands: a
//! `show-environment` and a marker per session, about 1,000 commands for
//! 500 sessions, measured at 110 ms of the server's time where the pane
//! listing costs 10 (and 126 ms inside a `{ }` block behind a false
//! condition: tmux builds a block's commands either way). A format loop is
//! one command whatever the fleet.
//!
//! The loop cannot read a session's own layer exactly: tmux looks a name up
//! in the session's environment and, when the session has no entry for it,
//! in the global one, so an own copy of the global value and the global
//! value itself read the same. What it can say exactly is when no session
//! shows any watched value: then no session's own layer holds one (nor does
//! the global layer, unless every session masks it; the global layer is
//! read on its own anyway). So the questions are gated (see `residue.rs`):
//! they go as ONE quoted word of `if -F <gate> "…" "display -p '@c 0'"`,
//! which tmux turns into commands only when the gate holds (22 ms for 500
//! sessions behind a false gate).
//!
//! With `@c 0` every asked session's layer is clean, in the pane listing's
//! own call. A fleet whose tmux holds a watched value anywhere (the global
//! layer before `apply --scrub-tmux-env`, or one session) is read one by
//! one, exactly as without the gate, in the same call. An empty value reads
//! as no value to the loop: it holds nothing to leak, and the residue report
//! skips it in every session layer, so both ways agree (`plan/residue.rs`).

use super::fleet::SESSION_PREFIX;
use super::markers::Markers;

/// The format that is `0` when no managed-looking (`loop-*`) session shows
/// a non-empty value for any of `names`, else `1`: each such session's byte
/// lengths (`#{n:…}`) strung together hold a digit other than 0 exactly when
/// one is non-empty. It is only asked of the tmux it was proven on (3.3 to
/// 3.9, `#{version}`); any other reads `1` without evaluating the loop, and
/// the sessions are asked one by one, as they always were. `None` when a
/// name is not safe to look up in a format, or there is none: the sessions
/// are then always asked.
pub fn condition(names: &[String]) -> Option<String> {
    if names.is_empty() || !names.iter().all(|n| loopable(n)) {
        return None;
    }
    let lengths: String = names.iter().map(|name| format!("#{{n:{name}}}")).collect();
    let each = format!("#{{?#{{m:{SESSION_PREFIX}*,#{{session_name}}}},{lengths},}}");
    Some(format!(
        "#{{?#{{m:{PROVEN_ON},#{{version}}}},#{{m:*[1-9]*,#{{S:{each}}}}},1}}"
    ))
}

/// The tmux versions the gate's loop and modifiers were tested on (the
/// suite runs tmux 3.3a), as an `fnmatch` pattern on `#{version}`.
const PROVEN_ON: &str = "3.[3-9]*";

/// What a closed gate runs: the marker that says every session is clean.
pub const GATE_CLOSED: &str = "display -p '@c 0'";

/// The gate and each session's question as a line for tmux's parser;
/// `None` without a gate, or when a name cannot be written so.
pub fn gated_lines<'a>(
    markers: &'a Markers,
    sessions: &[String],
) -> Option<(&'a str, Vec<String>)> {
    let gate = markers.gate()?;
    let lines = sessions.iter().enumerate().map(|(i, session)| {
        let target = super::script::quote(&format!("-st={session}"))?;
        Some(format!("showenv {target} ; display -p '@{i}'"))
    });
    Some((gate, lines.collect::<Option<Vec<String>>>()?))
}

/// [`gated_lines`] as the one word `if -F` runs, lines joined by ` ; `
/// (which [`super::residue::fitting`] counts); `None` inside when no session is asked.
pub fn gated_word<'a>(
    markers: &'a Markers,
    sessions: &[String],
) -> Option<(&'a str, Option<String>)> {
    let (gate, lines) = gated_lines(markers, sessions)?;
    Some((gate, (!lines.is_empty()).then(|| lines.join(" ; "))))
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
            Some(
                "#{?#{m:3.[3-9]*,#{version}},\
                 #{m:*[1-9]*,#{S:#{?#{m:loop-*,#{session_name}},#{n:TOK}#{n:B_2},}}},1}"
            )
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
    fn behind_a_gate_the_questions_are_one_word_and_a_closed_gate_reads_clean() {
        use super::super::markers::Markers;
        use super::super::residue::{layers_from, query_args, ResidueView};
        let gate = condition(&names(&["TOK"]));
        let markers = Markers::with_nonce("n0").gated(gate.clone());
        let asked = names(&["loop-a", "loop-it's"]);
        let args = query_args(&markers, None, &asked);
        let at = args.iter().position(|w| w == "if").expect("gated");
        assert_eq!(args[at + 1], "-F");
        assert_eq!(Some(&args[at + 2]), gate.as_ref());
        assert_eq!(
            args[at + 3],
            "showenv '-st=loop-a' ; display -p '@0' ; showenv \"-st=loop-it's\" ; display -p '@1'"
        );
        assert_eq!(args[at + 4], GATE_CLOSED);
        assert!(!args.iter().any(|w| w.starts_with("-st=")), "{args:?}");

        // A closed gate: every asked session is clean, none unanswered.
        let ResidueView::Observed(closed) = layers_from("@p 7\n@g\n@c 0\n", "", true, &asked)
        else {
            panic!("observed")
        };
        assert!(closed.unobserved_sessions.is_empty());
        assert_eq!(closed.sessions.len(), 2);
        // An open gate whose second block never came: that one is unanswered.
        let open = "@p 7\n@g\nTOK=\"v\"; export TOK;\n@0\n";
        let ResidueView::Observed(open) = layers_from(open, "", false, &asked) else {
            panic!("observed")
        };
        assert_eq!(open.unobserved_sessions, ["loop-it's"]);
        assert_eq!(
            open.sessions["loop-a"].get("TOK").unwrap().expose_bytes(),
            b"v"
        );
    }
}
