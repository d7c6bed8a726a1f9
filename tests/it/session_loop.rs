//! Issue 15: the sessions' tmux environments are asked behind one format
//! gate in the pane listing's own call (src/observed/session_loop.rs), on
//! a real tmux. What it must not change: a fleet that holds nothing reads
//! clean (never "unanswered"), each session's own layer is named exactly,
//! values of any shape are read whole, a session that only inherits the
//! global value is not named, and one holding its own copy of it still is.

use crate::support::*;

const ROTATED: &str = "xoxb-ROTATED-l00p-6a1e";
const RETIRED_DELIVERED: &str = "deliv-RETIRED-l00p-51c0";
const CURRENT_DELIVERED: &str = "deliv-CURRENT-l00p-8d2f";
/// Every byte the length prefix must carry: a line break, `#{…}` that tmux
/// must not expand, the loop's own `:` and digits, quotes.
const ODD: &str = "odd-l00p-\n12:#{pid}}:'\"$x-e4";
const SAME: &str = "same-l00p-global-and-own-93b7";
const CANARIES: &[&str] = &[
    ROTATED,
    RETIRED_DELIVERED,
    CURRENT_DELIVERED,
    "odd-l00p-",
    SAME,
];

/// A world whose env file withholds `SLACK_BOT_TOKEN` and delivers
/// `DELIVERED_TOKEN`, with three managed sessions and an unmanaged one.
fn world() -> (World, [LegacySession; 3]) {
    let w = World::new();
    w.write_config("  deliver: [DELIVERED_TOKEN]\n");
    w.write_env(&format!(
        "SLACK_BOT_TOKEN={ROTATED}\nDELIVERED_TOKEN={CURRENT_DELIVERED}\n"
    ));
    let sessions = [1, 2, 3].map(|n| {
        w.legacy_session(
            &format!("github:octo/loop#{n}"),
            &format!("github-octo-loop-{n}"),
        )
    });
    w.tmux_ok(&["new-session", "-d", "-s", "loop-stray", "sleep", "100000"]);
    (w, sessions)
}

/// (session, name, fingerprint) of each residue entry in a session layer.
fn session_entries(plan: &serde_json::Value) -> Vec<(String, String, String)> {
    let entries = plan["residue"]["entries"].as_array().unwrap();
    let mut found: Vec<(String, String, String)> = entries
        .iter()
        .filter(|e| e["layer"] == "tmux_session")
        .map(|e| {
            let text = |key: &str| e[key].as_str().unwrap().to_owned();
            (text("session"), text("name"), text("fingerprint"))
        })
        .collect();
    found.sort();
    found
}

/// The plan's tmux calls. It runs no `tmux -V`: the listing's call reports
/// tmux's version.
fn plan_calls(w: &World) -> (serde_json::Value, Vec<Vec<String>>) {
    let _ = std::fs::remove_file(w.tmux_argv_log());
    let out = w.the_loop(&["plan", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    assert_no_canary(&out.stdout, CANARIES, "plan stdout");
    assert_no_canary(&out.stderr, CANARIES, "plan stderr");
    (json(&out), w.tmux_reading_calls())
}

#[test]
fn a_fleet_holding_no_watched_value_is_cleared_by_the_gate_alone() {
    let (w, [_, masked, empty]) = world();
    // A mask and an empty value hold nothing; the unmanaged session and the
    // global layer hold names nobody watches.
    w.source_tmux(&format!(
        "set-environment -t ={} -r SLACK_BOT_TOKEN\n\
         set-environment -t ={} DELIVERED_TOKEN ''\n\
         set-environment -t =loop-stray UNWATCHED {}\n\
         set-environment -g UNWATCHED {}\n",
        masked.name,
        empty.name,
        tmux_quote(ODD),
        tmux_quote(ODD),
    ));
    w.install_tmux_wrapper();
    let (plan, calls) = plan_calls(&w);
    assert_eq!(plan["residue"]["state"], "observed", "{plan:#}");
    assert_eq!(
        plan["residue"]["unobserved"],
        serde_json::json!([]),
        "the gate's `@c 0` reads every session as clean, not unanswered: {plan:#}"
    );
    assert_eq!(
        plan["residue"]["entries"],
        serde_json::json!([]),
        "{plan:#}"
    );
    assert_eq!(calls.len(), 1, "one call, no tmux -V: {calls:?}");
    assert_eq!(calls[0][0], "list-panes");
    let gate = calls[0].iter().position(|word| word == "if");
    assert!(
        gate.is_some_and(|at| calls[0][at + 2].contains("#{S:")),
        "the sessions' questions run behind the format gate: {calls:?}"
    );
}

#[test]
fn behind_an_open_gate_each_session_is_read_whole_and_exactly() {
    let (w, [odd, delivered, masked]) = world();
    w.source_tmux(&format!(
        "set-environment -t ={} SLACK_BOT_TOKEN {}\n\
         set-environment -t ={} DELIVERED_TOKEN {}\n\
         set-environment -t ={} DELIVERED_TOKEN {}\n\
         set-environment -t ={} -r SLACK_BOT_TOKEN\n\
         set-environment -t =loop-stray SLACK_BOT_TOKEN {}\n",
        odd.name,
        tmux_quote(ODD),
        delivered.name,
        tmux_quote(RETIRED_DELIVERED),
        masked.name,
        tmux_quote(CURRENT_DELIVERED),
        masked.name,
        tmux_quote(ODD),
    ));
    w.install_tmux_wrapper();
    let (plan, calls) = plan_calls(&w);
    assert_eq!(plan["residue"]["unobserved"], serde_json::json!([]));
    // The odd value whole, the retired delivered value; not the current
    // delivered value, not the masked name, not the unmanaged session.
    assert_eq!(
        session_entries(&plan),
        vec![
            (odd.name.clone(), "SLACK_BOT_TOKEN".into(), fp(ODD)),
            (
                delivered.name.clone(),
                "DELIVERED_TOKEN".into(),
                fp(RETIRED_DELIVERED)
            ),
        ],
        "{plan:#}"
    );
    assert_open_gate_calls(&calls);
}

/// An open gate: the listing's call, then one call asking each managed
/// session (and the unmanaged `loop-stray`, which has no record, not at all).
fn assert_open_gate_calls(calls: &[Vec<String>]) {
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(calls[0][0], "list-panes");
    let asked: Vec<&String> = calls[1].iter().filter(|w| w.starts_with("-st=")).collect();
    assert_eq!(asked.len(), 3, "{calls:?}");
    assert!(!asked.iter().any(|w| w.contains("loop-stray")), "{calls:?}");
}

#[test]
fn a_session_holding_its_own_copy_of_the_global_value_is_still_named() {
    let (w, [own_copy, inherits, other]) = world();
    w.source_tmux(&format!(
        "set-environment -g SLACK_BOT_TOKEN {same}\n\
         set-environment -t ={} SLACK_BOT_TOKEN {same}\n\
         set-environment -t ={} SLACK_BOT_TOKEN {}\n",
        own_copy.name,
        other.name,
        tmux_quote(ODD),
        same = tmux_quote(SAME),
    ));
    w.install_tmux_wrapper();
    let (plan, calls) = plan_calls(&w);
    assert_eq!(
        session_entries(&plan),
        vec![
            (own_copy.name.clone(), "SLACK_BOT_TOKEN".into(), fp(SAME)),
            (other.name.clone(), "SLACK_BOT_TOKEN".into(), fp(ODD)),
        ],
        "the session that only inherits ({}) is not named: {plan:#}",
        inherits.name
    );
    let global = plan["residue"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["layer"] == "tmux_global")
        .count();
    assert_eq!(global, 1, "{plan:#}");
    assert_open_gate_calls(&calls);

    // Scrubbed, nothing is left, in any layer.
    let out = w.the_loop(&["apply", "--scrub-tmux-env", "--auto-approve", "--json"]);
    assert_no_canary(&out.stdout, CANARIES, "apply stdout");
    let (plan, _) = plan_calls(&w);
    assert_eq!(session_entries(&plan), vec![], "{plan:#}");
}

/// The gate, in the listing's own chain, clears sessions whose names tmux's
/// parser would split or expand; once one of them holds a watched value the
/// gate opens, and the sessions' script reads it intact.
#[test]
fn the_gate_clears_quote_hostile_names_and_an_open_one_leaves_them_to_the_script() {
    use the_loop::observed::residue::ResidueView;
    use the_loop::observed::residue::{layers_from, query_args, split_panes, Markers, TmuxLayers};
    let w = World::new();
    let odd = "loop-it's; ~x #";
    for name in ["loop-first", odd] {
        w.tmux_ok(&["new-session", "-d", "-s", name, "sleep", "100000"]);
    }
    let asked: Vec<String> = ["loop-first", odd].iter().map(|s| s.to_string()).collect();
    let names = vec!["SLACK_BOT_TOKEN".to_owned()];
    let listing_call = || -> TmuxLayers {
        let markers = Markers::new().gated(the_loop::observed::session_loop::condition(&names));
        let args = query_args(&markers, Some("#{session_name}"), &[]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let stdout = w.tmux_ok(&args);
        let (_, rest) = split_panes(&markers, &stdout).expect("the listing ran");
        match layers_from(rest, "", true, &asked) {
            ResidueView::Observed(layers) => layers,
            other => panic!("{other:?}"),
        }
    };
    let clean = listing_call();
    assert!(clean.unobserved_sessions.is_empty(), "{clean:?}");
    assert!(clean.sessions.values().all(|env| env.names().count() == 0));
    assert_eq!(clean.sessions.len(), 2);

    w.tmux_ok(&["setenv", "-t", &format!("={odd}"), "SLACK_BOT_TOKEN", SAME]);
    let open = listing_call();
    assert_eq!(open.unobserved_sessions, asked, "an open gate clears none");
    assert!(open.sessions.is_empty());
    let script = the_loop::observed::script::sessions_script(&asked).expect("writable");
    let out = w.tmux_script(&script);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let ResidueView::Observed(read) = layers_from(&stdout, "", true, &asked) else {
        panic!("the layers were read")
    };
    assert!(read.unobserved_sessions.is_empty(), "{read:?}");
    let value = |name: &str| {
        read.sessions[name]
            .get("SLACK_BOT_TOKEN")
            .map(|v| v.expose_bytes().to_vec())
    };
    assert_eq!(value(odd), Some(SAME.as_bytes().to_vec()));
    assert_eq!(value("loop-first"), None);
}

#[test]
fn a_name_a_format_cannot_hold_is_read_with_show_environment() {
    let w = World::new();
    // Lower case: it could be one of tmux's own format variables.
    w.write_config("  credentials: [pane_token]\n");
    w.write_env(&format!("pane_token={ROTATED}\n"));
    let s = w.legacy_session("github:octo/loop#9", "github-octo-loop-9");
    w.source_tmux(&format!(
        "set-environment -t ={} pane_token {}\n",
        s.name,
        tmux_quote(ODD)
    ));
    w.install_tmux_wrapper();
    let (plan, calls) = plan_calls(&w);
    assert_eq!(
        session_entries(&plan),
        vec![(s.name.clone(), "pane_token".into(), fp(ODD))],
        "{plan:#}"
    );
    assert!(
        !calls.iter().flatten().any(|word| word.starts_with("#{S:")),
        "{calls:?}"
    );
}

/// The gate is evaluated only on the tmux it was proven on (3.3 to 3.9):
/// any other version reads `1`, and the sessions are asked one by one.
#[test]
fn the_gate_is_closed_only_on_a_proven_tmux_when_every_length_reads_zero() {
    let (w, [s, ..]) = world();
    let names = vec!["SLACK_BOT_TOKEN".to_owned(), "DELIVERED_TOKEN".to_owned()];
    let gate = the_loop::observed::session_loop::condition(&names).unwrap();
    let eval = |format: &str| w.tmux_ok(&["display", "-p", format]).trim().to_owned();
    assert_eq!(eval(&gate), "0", "a clean fleet closes the gate");
    for version in ["3.2a", "3.10", "next-3.6", "4.0", ""] {
        let elsewhere = gate.replace("#{version}", version);
        assert_eq!(eval(&elsewhere), "1", "tmux {version:?} is not proven");
    }
    assert_eq!(eval(&gate.replace("#{version}", "3.4")), "0");
    w.source_tmux(&format!(
        "set-environment -t ={} DELIVERED_TOKEN 0\n",
        s.name
    ));
    assert_eq!(eval(&gate), "1", "a one-byte value opens it");
}
