use super::*;

const ID: &str = "11111111-2222-4333-8444-555555555555";

fn rec(event: HookEvent, at_ms: u64) -> HookRecord {
    HookRecord {
        event,
        at_ms,
        session_id: ID.into(),
        source: None,
        reason: None,
        pid: 42,
        start: 7,
    }
}

fn start(source: StartSource, id: &str, at_ms: u64) -> HookRecord {
    HookRecord {
        source: Some(source),
        session_id: id.into(),
        ..rec(HookEvent::SessionStart, at_ms)
    }
}

fn activity(records: &[HookRecord]) -> Activity {
    derive(42, 7, records).activity
}

#[test]
fn no_records_is_unknown() {
    let a = derive(42, 7, &[]);
    assert_eq!(a.activity, Activity::Unknown);
    assert_eq!(a.busy_since_ms(), None);
    assert!(!a.confirmed_resume(ID));
}

#[test]
fn each_event_moves_the_state() {
    use HookEvent::*;
    let base = [start(StartSource::Startup, ID, 1)];
    assert_eq!(activity(&base), Activity::Idle);
    let cases = [
        (vec![UserPromptSubmit], Activity::Busy),
        (vec![UserPromptSubmit, PreToolUse], Activity::Busy),
        (
            vec![UserPromptSubmit, PreToolUse, PostToolUse],
            Activity::Busy,
        ),
        (vec![UserPromptSubmit, PermissionRequest], Activity::Waiting),
        (vec![UserPromptSubmit, Notification], Activity::Waiting),
        (
            vec![UserPromptSubmit, PermissionRequest, PostToolUse],
            Activity::Busy,
        ),
        (vec![UserPromptSubmit, Stop], Activity::Idle),
        (vec![UserPromptSubmit, StopFailure], Activity::Idle),
        (vec![UserPromptSubmit, SessionEnd], Activity::Idle),
        // Claude Code's "waiting for your input" notification after a
        // finished turn: the prompt is idle, nobody is being asked anything.
        (vec![UserPromptSubmit, Stop, Notification], Activity::Idle),
    ];
    for (events, want) in cases {
        let mut records = base.to_vec();
        records.extend(
            events
                .iter()
                .enumerate()
                .map(|(i, e)| rec(*e, 10 + i as u64)),
        );
        assert_eq!(activity(&records), want, "{events:?}");
    }
}

#[test]
fn busy_since_is_the_start_of_the_turn() {
    use HookEvent::*;
    let records = [
        start(StartSource::Startup, ID, 1),
        rec(UserPromptSubmit, 100),
        rec(PreToolUse, 150),
        rec(PermissionRequest, 170),
        rec(PostToolUse, 200),
    ];
    assert_eq!(derive(42, 7, &records).busy_since_ms(), Some(100));
    let mut ended = records.to_vec();
    ended.push(rec(Stop, 300));
    ended.push(rec(UserPromptSubmit, 400));
    assert_eq!(derive(42, 7, &ended).busy_since_ms(), Some(400));
    ended.push(rec(StopFailure, 500));
    assert_eq!(derive(42, 7, &ended).busy_since_ms(), None);
}

#[test]
fn a_resume_is_confirmed_only_for_its_id_and_process() {
    let other = "99999999-2222-4333-8444-555555555555";
    let records = [start(StartSource::Resume, ID, 1)];
    let a = derive(42, 7, &records);
    assert!(a.confirmed_resume(ID));
    assert!(!a.confirmed_resume(other));
    // A fresh start is no resume.
    assert!(!derive(42, 7, &[start(StartSource::Startup, ID, 1)]).confirmed_resume(ID));
    // Another process (a reused pid has another start time) proves nothing.
    assert!(!derive(42, 8, &records).confirmed_resume(ID));
    assert_eq!(derive(42, 8, &records).activity, Activity::Unknown);
    assert!(!derive(43, 7, &records).confirmed_resume(ID));
}

#[test]
fn names_round_trip() {
    for e in HookEvent::ALL {
        assert_eq!(HookEvent::from_name(e.name()), Some(e));
        let json = serde_json::to_string(&e).unwrap();
        assert_eq!(json, format!("\"{}\"", e.name()));
    }
    assert_eq!(HookEvent::from_name("PreCompact"), None);
    assert_eq!(StartSource::from_name("resume"), StartSource::Resume);
    assert_eq!(StartSource::from_name("something-new"), StartSource::Other);
    let line =
        r#"{"event":"SessionStart","at_ms":5,"session_id":"a","source":"later","pid":1,"start":2}"#;
    let parsed: HookRecord = serde_json::from_str(line).unwrap();
    assert_eq!(parsed.source, Some(StartSource::Other));
}

fn end(reason: EndReason, at_ms: u64) -> HookRecord {
    HookRecord {
        reason: Some(reason),
        ..rec(HookEvent::SessionEnd, at_ms)
    }
}

#[test]
fn an_exit_by_the_person_is_ended_and_any_other_end_is_idle() {
    let busy = rec(HookEvent::UserPromptSubmit, 1);
    for (reason, want) in [
        (EndReason::PromptInputExit, Activity::Ended),
        (EndReason::Logout, Activity::Ended),
        (EndReason::Clear, Activity::Idle),
        (EndReason::Resume, Activity::Idle),
        (EndReason::Other, Activity::Idle),
    ] {
        let got = derive(42, 7, &[busy.clone(), end(reason, 2)]);
        assert_eq!(got.activity, want, "{reason:?}");
        assert_eq!(got.busy_since_ms(), None, "{reason:?}");
        assert!(!got.activity.in_turn());
    }
    // A SessionEnd without a reason (an older line) stays idle, as before.
    assert_eq!(
        derive(42, 7, &[busy, rec(HookEvent::SessionEnd, 2)]).activity,
        Activity::Idle
    );
}

#[test]
fn end_reasons_are_a_closed_set() {
    assert_eq!(
        EndReason::from_name("prompt_input_exit"),
        EndReason::PromptInputExit
    );
    assert_eq!(EndReason::from_name("logout"), EndReason::Logout);
    assert_eq!(EndReason::from_name("something new"), EndReason::Other);
    let line: HookRecord = serde_json::from_str(
        r#"{"event":"SessionEnd","at_ms":1,"session_id":"a","reason":"prompt_input_exit","pid":1,"start":2}"#,
    )
    .unwrap();
    assert_eq!(line.reason, Some(EndReason::PromptInputExit));
}

#[test]
fn the_conversation_is_the_last_one_the_process_started() {
    let after_clear = derive(
        42,
        7,
        &[
            start(StartSource::Startup, ID, 1),
            end(EndReason::Clear, 2),
            start(
                StartSource::Clear,
                "22222222-2222-4333-8444-555555555555",
                3,
            ),
            rec(HookEvent::Stop, 4),
        ],
    );
    assert_eq!(
        after_clear.conversation.as_deref(),
        Some("22222222-2222-4333-8444-555555555555")
    );
    assert_eq!(after_clear.activity, Activity::Idle);
    assert_eq!(derive(42, 7, &[rec(HookEvent::Stop, 1)]).conversation, None);
}

#[test]
fn only_a_process_that_started_its_conversation_new_and_had_no_turn_never_prompted() {
    let fresh = [start(StartSource::Startup, ID, 1)];
    assert!(derive(42, 7, &fresh).never_prompted(ID));
    assert!(!derive(42, 7, &fresh).never_prompted("another"));
    assert!(
        !derive(42, 7, &[]).never_prompted(ID),
        "hooks that never spoke"
    );
    for turn in [
        HookEvent::UserPromptSubmit,
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::PermissionRequest,
        HookEvent::Stop,
        HookEvent::StopFailure,
    ] {
        let records = [start(StartSource::Startup, ID, 1), rec(turn, 2)];
        assert!(!derive(42, 7, &records).never_prompted(ID), "{turn:?}");
    }
    // A resumed conversation began before this process.
    assert!(!derive(42, 7, &[start(StartSource::Resume, ID, 1)]).never_prompted(ID));
    // A conversation `/clear` started is not one the-loop began.
    let records = [
        start(StartSource::Startup, "a", 1),
        start(StartSource::Clear, ID, 2),
    ];
    assert!(!derive(42, 7, &records).never_prompted(ID));
    // An idle notification is no turn.
    let records = [
        start(StartSource::Startup, ID, 1),
        rec(HookEvent::Notification, 2),
    ];
    assert!(derive(42, 7, &records).never_prompted(ID));
}
