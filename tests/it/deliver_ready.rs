//! Issue 11, class 10: a delivery just after start, before the harness is
//! ready to take input, must still be submitted. The stand-in is made slow
//! to become ready (`.standin-ready-delay` in its cwd): it drops whatever
//! was typed before it took the terminal, as a TUI does.

use crate::support::*;
use std::process::Output;

fn world() -> World {
    let w = World::new();
    w.write_env("EXAMPLE_SETTING=not-secret\n");
    w
}

fn deliver(w: &World, reference: &str, message: &str, id: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "sessions",
        "deliver",
        reference,
        "--message",
        message,
        "--delivery-id",
        id,
        "--json",
    ];
    args.extend_from_slice(extra);
    w.the_loop(&args)
}

/// Starts a session whose stand-in sleeps `delay` seconds before it is ready.
fn slow_session(w: &World, reference: &str, slug: &str, delay: &str) -> LegacySession {
    let cwd = w.root().join("work").join(slug);
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::write(cwd.join(".standin-ready-delay"), delay).unwrap();
    w.started_session_in(reference, slug, &cwd)
}

fn is_ready(w: &World, s: &LegacySession) -> bool {
    w.transcript_text(s).contains("\"type\":\"ready\"")
}

fn deliveries(w: &World, slug: &str) -> Vec<String> {
    w.record(slug).unwrap()["recentDeliveries"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_delivery_right_after_start_waits_for_the_harness_and_is_submitted_once() {
    let w = world();
    let s = slow_session(&w, "github:octo/repo#31", "github-octo-repo-31", "3");
    assert!(
        !is_ready(&w, &s),
        "the test needs the harness not ready yet"
    );

    let out = deliver(&w, &s.reference, "first words", "e-1", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    assert_eq!(json(&out)["route"], "pasted");
    assert!(
        is_ready(&w, &s),
        "the delivery returned before the harness was ready"
    );

    wait_for(|| !w.inputs(&s).is_empty(), "the harness read the delivery");
    assert_eq!(
        w.inputs(&s),
        ["\u{1b}[200~first words\u{1b}[201~"],
        "the text arrived once, bracketed, and was submitted"
    );
    assert_eq!(deliveries(&w, &s.slug), ["e-1"]);
}

#[test]
fn a_harness_not_ready_within_the_bound_fails_clearly_and_the_delivery_is_retried_once() {
    let w = world();
    let s = slow_session(&w, "github:octo/repo#32", "github-octo-repo-32", "4");

    let out = deliver(
        &w,
        &s.reference,
        "too early",
        "e-2",
        &["--ready-timeout", "1s"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(report["outcome"], "failed");
    let reason = report["reason"].as_str().unwrap();
    assert!(reason.contains("not ready"), "{reason}");
    let record = w.record(&s.slug).unwrap();
    assert!(deliveries(&w, &s.slug).is_empty(), "released for retry");
    assert!(record.get("pendingSubmit").is_none(), "nothing was pasted");

    wait_for(|| is_ready(&w, &s), "the harness became ready");
    let retry = deliver(&w, &s.reference, "too early", "e-2", &[]);
    assert_eq!(retry.status.code(), Some(0), "{}", explain(&retry));
    wait_for(|| !w.inputs(&s).is_empty(), "the harness read the delivery");
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert_eq!(
        w.inputs(&s),
        ["\u{1b}[200~too early\u{1b}[201~"],
        "pasted once, on the retry"
    );
}

#[test]
fn a_ready_timeout_outside_its_range_is_a_usage_error_naming_the_flag() {
    let w = world();
    for bad in ["11m", "-1s", "1e20", "18446744073709551615h", "NaN"] {
        let flag = format!("--ready-timeout={bad}");
        let out = deliver(&w, "github:octo/repo#33", "x", "e-3", &[&flag]);
        assert_eq!(out.status.code(), Some(1), "{bad}: {}", explain(&out));
        assert!(
            stderr(&out).contains("--ready-timeout"),
            "{bad}: {}",
            explain(&out)
        );
    }
    // The edge of the range is accepted: the refusal is then about the ref.
    let out = deliver(
        &w,
        "github:octo/repo#33",
        "x",
        "e-3",
        &["--ready-timeout", "10m"],
    );
    assert!(
        !stderr(&out).contains("--ready-timeout"),
        "{}",
        explain(&out)
    );
    assert!(
        stderr(&out).contains("no session is registered"),
        "{}",
        explain(&out)
    );
}
