//! A record names its own session, or nothing is touched (issue 34, part
//! 2): every verb that signals, kills, types into or respawns a pane first
//! proves the pane is the record's, with the check `plan` makes.

use crate::support::*;
use std::process::Output;

fn world() -> World {
    let w = World::new();
    w.write_env("EXAMPLE_SETTING=not-secret\n");
    w
}

/// #1 started by the-loop (its harness holds `THE_LOOP_WORK_ITEM`), #3 as an
/// older the-loop did (no such variable: only its argv names its
/// conversation), and #2, whose record points its `tmuxTarget` at `victim`.
struct Crossed {
    w: World,
    victim: LegacySession,
    victim_pid: i32,
    liar: LegacySession,
}

fn crossed(victim_started_by_us: bool) -> Crossed {
    let w = world();
    let victim = if victim_started_by_us {
        w.started_session("github:octo/repo#1", "github-octo-repo-1")
    } else {
        w.legacy_session("github:octo/repo#3", "github-octo-repo-3")
    };
    let liar = w.started_session("github:octo/repo#2", "github-octo-repo-2");
    let out = w.the_loop(&["sessions", "stop", &liar.reference, "--kill-tmux"]);
    assert!(out.status.success(), "{}", explain(&out));
    w.edit_record(&liar.slug, |r| {
        r["status"] = "active".into();
        r["tmuxTarget"] = victim.name.clone().into();
    });
    let victim_pid = w.pane(&victim.name).expect("victim runs").pid;
    wait_for_harness(victim_pid);
    Crossed {
        w,
        victim,
        victim_pid,
        liar,
    }
}

impl Crossed {
    /// The victim's harness, its pane and its conversation are as they were.
    fn assert_untouched(&self, after: &str) {
        let pane = self.w.pane(&self.victim.name);
        assert!(pane.is_some(), "{after}: the victim's session is there");
        let pane = pane.unwrap();
        assert_eq!(pane.pid, self.victim_pid, "{after}: same harness");
        assert!(
            !pane.dead && alive(self.victim_pid),
            "{after}: still running"
        );
        let transcript = self.w.transcript_text(&self.victim);
        assert!(
            !transcript.contains("\"signal\""),
            "{after}: never signalled"
        );
        assert!(
            self.w.inputs(&self.victim).is_empty(),
            "{after}: nothing typed into it"
        );
    }

    fn assert_refused(&self, out: &Output, said: &str) {
        let text = format!("{}{}", stdout(out), stderr(out));
        assert_ne!(code(out), Some(0), "{}", explain(out));
        assert!(
            flat(&text).contains(&flat(said)),
            "names what is there: {text}"
        );
        assert!(
            flat(&text).contains(&flat("set tmuxTarget in")),
            "says how to mend the record: {text}"
        );
    }
}

fn every_verb_refuses(c: &Crossed, said: &str, plan_said: &str) {
    let w = &c.w;
    let r = c.liar.reference.as_str();
    for verb in [
        vec!["sessions", "stop", r],
        vec!["sessions", "stop", r, "--kill-tmux"],
        vec!["sessions", "close", r, "--kill-tmux", "--actor", "octocat"],
        vec!["sessions", "cleanup", r],
    ] {
        let out = w.the_loop(&verb);
        c.assert_refused(&out, said);
        c.assert_untouched(&verb.join(" "));
        let record = w.record(&c.liar.slug).expect("the record is kept");
        assert_eq!(
            record["status"],
            "active",
            "{}: record unchanged",
            verb.join(" ")
        );
    }
    let out = w.the_loop(&["sessions", "reset", r, "--json"]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let problem = json(&out)["sessions"][0]["problem"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(flat(&problem).contains(&flat(said)), "{problem}");
    c.assert_untouched("sessions reset");
    assert!(w.record(&c.liar.slug).is_some(), "reset kept the record");

    let out = w.the_loop(&[
        "sessions",
        "deliver",
        r,
        "--message",
        "not for you",
        "--json",
    ]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(report["outcome"], "failed");
    assert!(
        flat(report["reason"].as_str().unwrap()).contains(&flat(said)),
        "{report}"
    );
    c.assert_untouched("sessions deliver");
    let failed = w.events_named("dispatch.failed");
    assert_eq!(failed.last().unwrap()["reason"], "not-its-own-session");

    // plan leaves it alone for the same reason, so apply never rolls it.
    let out = w.the_loop(&["plan", "--json"]);
    let plan = json(&out);
    let liar = session_in(&plan, r);
    let why = match liar["action"].as_str() {
        Some("skip") => liar["reason"].as_str(),
        _ => liar["left_alone"].as_str(),
    };
    assert!(
        flat(why.unwrap_or_default()).contains(&flat(plan_said)),
        "{liar}"
    );
    let out = w.the_loop(&["sessions", "restart", r, "--json"]);
    c.assert_untouched("sessions restart");
    let outcome = session_in(&json(&out), r)["outcome"].clone();
    assert!(
        outcome == "skipped" || outcome == "left_alone",
        "{}",
        explain(&out)
    );
}

#[test]
fn a_record_naming_a_session_started_for_another_item_touches_nothing() {
    let c = crossed(true);
    every_verb_refuses(
        &c,
        "its harness belongs to work item github:octo/repo#1",
        "the pane runs the harness of github:octo/repo#1, not this record's",
    );
}

#[test]
fn a_record_naming_an_older_session_is_told_apart_by_its_conversation() {
    let c = crossed(false);
    let said = "runs conversation 0000-github-octo-repo-3, which this record never had";
    every_verb_refuses(&c, said, said);
}

#[test]
fn a_session_whose_harness_runs_another_conversation_is_left_alone() {
    let w = world();
    let s = w.legacy_session("github:octo/repo#4", "github-octo-repo-4");
    let pid = w.pane(&s.name).unwrap().pid;
    wait_for_harness(pid);
    w.edit_record(&s.slug, |r| r["harnessSessionId"] = "someone-elses".into());
    let out = w.the_loop(&["sessions", "stop", &s.reference]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert!(
        flat(&stderr(&out)).contains(&flat("set harnessSessionId in")),
        "{}",
        explain(&out)
    );
    assert!(alive(pid) && !w.transcript_text(&s).contains("\"signal\""));
    // The record put right, the stop goes through.
    w.edit_record(&s.slug, |r| {
        r["harnessSessionId"] = s.session_id.clone().into()
    });
    let out = w.the_loop(&["sessions", "stop", &s.reference, "--json"]);
    assert!(out.status.success(), "{}", explain(&out));
    assert_eq!(json(&out)["close"]["harness"][0]["ending"], "terminated");
}

#[test]
fn a_record_naming_the_operators_own_session_says_what_it_is() {
    let w = world();
    let s = w.started_session("github:octo/repo#5", "github-octo-repo-5");
    w.tmux_ok(&["new-session", "-d", "-s", "main", "sleep 100000"]);
    let bystander = w.pane("main").unwrap();
    w.edit_record(&s.slug, |r| r["tmuxTarget"] = "main".into());
    for verb in ["stop", "cleanup"] {
        let out = w.the_loop(&["sessions", verb, &s.reference]);
        assert_eq!(code(&out), Some(1), "{}", explain(&out));
        assert!(
            flat(&stderr(&out)).contains(&flat(
                "names tmux session main, which is not a the-loop session"
            )),
            "{}",
            explain(&out)
        );
        assert_eq!(w.pane("main").unwrap(), bystander, "untouched");
    }
    let list = json(&w.the_loop(&["sessions", "list", "--json"]));
    let text = list.to_string();
    assert!(!text.contains("not running"), "{text}");
}

#[test]
fn an_absent_session_under_an_odd_name_is_closed_without_a_fuss() {
    // Nothing runs under the name the record gives: there is nothing to
    // end, so the record is closed, but nothing is started there either.
    let w = world();
    let s = w.started_session("github:octo/repo#6", "github-octo-repo-6");
    let out = w.the_loop(&["sessions", "stop", &s.reference, "--kill-tmux"]);
    assert!(out.status.success(), "{}", explain(&out));
    w.edit_record(&s.slug, |r| {
        r["status"] = "active".into();
        r["tmuxTarget"] = "loop-github-octo-repo-7".into();
    });
    let out = w.the_loop(&[
        "sessions",
        "deliver",
        &s.reference,
        "--message",
        "hello",
        "--json",
    ]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert!(
        w.pane("loop-github-octo-repo-7").is_none(),
        "nothing started"
    );
    let out = w.the_loop(&["sessions", "stop", &s.reference, "--json"]);
    assert!(out.status.success(), "{}", explain(&out));
    assert_eq!(json(&out)["close"]["tmux"], "absent");
    assert_eq!(w.record(&s.slug).unwrap()["status"], "closed");
}

/// `standing start` on a record whose `tmuxTarget` names a work item's
/// session: a live one is not reported as this record's running harness,
/// and a dead one (kept by remain-on-exit, with what its harness said) is
/// neither killed nor respawned with the standing session's harness.
#[test]
fn standing_start_leaves_a_session_of_another_record_alone() {
    let w = world();
    let victim = w.started_session("github:octo/repo#1", "github-octo-repo-1");
    let cwd = w.work.join("ops");
    std::fs::create_dir_all(&cwd).unwrap();
    let out = w.the_loop(&["standing", "create", "ops", "--cwd", cwd.to_str().unwrap()]);
    assert!(out.status.success(), "{}", explain(&out));
    let out = w.the_loop(&["standing", "stop", "ops", "--kill-tmux"]);
    assert!(out.status.success(), "{}", explain(&out));
    w.edit_record("standing/ops", |r| {
        r["tmuxTarget"] = victim.name.clone().into()
    });
    let said = format!("names tmux session {}", victim.name);

    // `standing start` is refused, naming the session it found there.
    let refused = || {
        let out = w.the_loop(&["standing", "start", "ops", "--json"]);
        assert_eq!(code(&out), Some(1), "{}", explain(&out));
        assert!(
            flat(&stderr(&out)).contains(&flat(&said)),
            "{}",
            explain(&out)
        );
        out
    };

    let live = w.pane(&victim.name).expect("victim runs");
    wait_for_harness(live.pid);
    let out = refused();
    assert!(
        flat(&stderr(&out)).contains(&flat("set tmuxTarget in")),
        "{}",
        explain(&out)
    );
    assert_eq!(w.pane(&victim.name), Some(live.clone()), "live: untouched");

    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(live.pid),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    wait_for(
        || w.pane(&victim.name).is_some_and(|p| p.dead),
        "the victim's pane is retained dead",
    );
    let dead = w.pane(&victim.name).unwrap();
    refused();
    assert_eq!(
        w.pane(&victim.name),
        Some(dead),
        "dead: neither killed nor respawned"
    );
    assert_eq!(w.record("standing/ops").unwrap()["status"], "closed");
}
