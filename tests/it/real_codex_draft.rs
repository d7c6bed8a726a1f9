//! A prompt typed into the real Codex CLI (the pinned 0.171.0) and not
//! sent exists nowhere but on its screen: a roll waits for it, leaves the
//! session alone with the reason at the end of a short drain (the same
//! Codex, the draft still in its composer), and rolls once it is sent and
//! answered, resuming the conversation that now holds it. The model is the
//! Responses API stand-in, as in `real_codex_turns`, whose world this uses.

use crate::real_claude::screen;
use crate::real_codex::real_codex;
use crate::real_codex_turns::{codex_world, wait_screen, KEYS, REF};
use crate::support::*;

/// The plan's row for the one session.
fn row(w: &World) -> serde_json::Value {
    session_in(&json(&w.the_loop(&["plan", "--json"])), REF).clone()
}

#[test]
fn a_draft_in_the_codex_composer_survives_a_rotation() {
    let _alone = alone();
    let Some(codex) = real_codex() else {
        return;
    };
    let cw = codex_world(&codex);
    let w = &cw.w;
    let name = cw.start_session();
    let first = cw.type_first_prompt(&name);
    crate::real_claude::wait_long(|| row(w)["activity"] == "idle", "the turn ended");

    // Typed, not sent.
    let draft = "half a thought about the";
    w.tmux_ok(&["send-keys", "-t", &format!("={name}:"), "-l", draft]);
    wait_screen(w, &name, draft);
    let old = w.pane(&name).unwrap().pid;
    cw.rotate(KEYS[1]);
    let planned = row(w);
    assert_eq!(
        planned["screen"],
        "draft",
        "{planned:#}\n{}",
        screen(w, &name)
    );
    assert_eq!(planned["apply_will"], "wait_screen", "{planned:#}");
    let text = stdout(&w.the_loop(&["plan"]));
    assert!(
        flat(&text).contains(&flat("waits: a prompt is being written")),
        "{text}"
    );

    let out = w.the_loop(&["apply", "--auto-approve", "--json", "--drain-timeout", "3s"]);
    assert_no_canary(&out.stdout, &KEYS[..2], "apply stdout");
    assert_no_canary(&out.stderr, &KEYS[..2], "apply stderr");
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let report = json(&out);
    let deferred = session_in(&report, REF);
    assert_eq!(deferred["outcome"], "deferred", "{report:#}");
    assert!(
        deferred["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with("held: a prompt is being written")),
        "{report:#}"
    );
    assert_eq!(w.pane(&name).unwrap().pid, old, "Codex was replaced");
    assert!(alive(old), "Codex was ended");
    assert_eq!(
        environ(old).get("OPENAI_API_KEY").map(String::as_str),
        Some(KEYS[0])
    );
    assert!(screen(w, &name).contains(draft), "the draft was lost");

    // Sent and answered: the turn is over, the roll goes on.
    w.tmux_ok(&["send-keys", "-t", &format!("={name}:"), "Enter"]);
    let rollout = crate::real_codex::rollouts(&cw.codex_home)
        .into_iter()
        .find(|p| the_loop::harness::codex::rollout::id_of(p).as_deref() == Some(first.as_str()))
        .expect("the conversation's rollout");
    crate::real_claude::wait_long(
        || std::fs::read_to_string(&rollout).is_ok_and(|t| t.contains(draft)),
        "the prompt in the conversation's rollout",
    );
    crate::real_claude::wait_long(
        || {
            let now = row(w);
            now["activity"] == "idle" && now["apply_will"] == "roll_now"
        },
        "the answered turn ended and nothing holds the roll",
    );
    cw.apply(&["--drain-timeout", "60s"]);
    cw.holds(&name, KEYS[1], &first);
    wait_screen(w, &name, draft);
}
