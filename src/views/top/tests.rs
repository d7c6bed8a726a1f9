//! The screen, drawn into ratatui's `TestBackend` and compared as text.

use super::*;
use crate::ops::top::{Header, TopModel};
use crate::plan::{Plan, SessionKind, Summary};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use std::path::PathBuf;

/// An empty plan, as `plan --json` would print it.
pub(super) fn plan() -> Plan {
    serde_json::from_value(serde_json::json!({
        "format_version": "1", "env_file": null, "env_fingerprints": {},
        "sessions": [], "tmux_unanswered": null, "corrupt_records": [],
        "summary": {"respawn": 0, "up_to_date": 0, "skipped": 0, "unverified": 0, "unmanaged": 0},
    }))
    .unwrap()
}

fn row(i: usize, activity: RowActivity, drift: Drift) -> Row {
    Row {
        label: format!("github:octo/repo#{i}"),
        kind: SessionKind::WorkItem,
        tmux_target: format!("loop-github-octo-repo-{i}"),
        harness: Some("claude".into()),
        activity,
        drift,
        attached: u32::from(i.is_multiple_of(3)),
        age: Some(3_600 * i as u64),
        last_event: Some(42 * i as u64),
        cwd: Some(PathBuf::from(format!("/home/dev/src/repo-{i}"))),
        on_host: None,
    }
}

/// Six sessions, one of each kind of state.
pub(super) fn model(n: usize) -> TopModel {
    let states = [
        (
            RowActivity::Busy(Some(95)),
            Drift::Stale {
                names: 2,
                args: false,
                left_alone: false,
            },
        ),
        (RowActivity::Idle, Drift::UpToDate),
        (
            RowActivity::Waiting(Some(12)),
            Drift::Stale {
                names: 0,
                args: true,
                left_alone: false,
            },
        ),
        (RowActivity::Interrupted, Drift::InterruptedRoll),
        (RowActivity::Exited, Drift::Skipped("pane exited")),
        (
            RowActivity::NotRunning,
            Drift::Stale {
                names: 1,
                args: true,
                left_alone: true,
            },
        ),
    ];
    TopModel {
        header: Header {
            env_file: Some(PathBuf::from("/home/dev/.the-loop/.env")),
            env_age: Some(180),
            tmux_version: Some("3.4".into()),
            tmux_socket: Some(PathBuf::from("/tmp/tmux-1000/default")),
            summary: Summary {
                respawn: 3,
                left_alone: 1,
                resume: 1,
                up_to_date: 1,
                skipped: 1,
                ..Summary::default()
            },
            trouble: None,
        },
        rows: (1..=n)
            .map(|i| {
                let (a, d) = states[(i - 1) % states.len()].clone();
                row(i, a, d)
            })
            .collect(),
        plan: plan(),
    }
}

const LOOK: Look = Look {
    color: false,
    interval_secs: 2,
};

pub(super) fn screen(model: &TopModel, state: &mut TopState, w: u16, h: u16, look: Look) -> String {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| render(f, model, state, look)).unwrap();
    let buffer = terminal.backend().buffer();
    (0..h)
        .map(|y| {
            let line: String = (0..w).map(|x| buffer[(x, y)].symbol()).collect();
            line.trim_end().to_owned()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_table_at_80_by_24() {
    insta::assert_snapshot!(screen(&model(6), &mut TopState::default(), 80, 24, LOOK));
}

#[test]
fn the_table_at_200_by_50() {
    insta::assert_snapshot!(screen(&model(6), &mut TopState::default(), 200, 50, LOOK));
}

#[test]
fn help_over_the_table() {
    let mut state = TopState {
        mode: Mode::Help,
        ..TopState::default()
    };
    insta::assert_snapshot!(screen(&model(3), &mut state, 80, 24, LOOK));
}

#[test]
fn the_selection_scrolls_into_sight_among_500() {
    let m = model(500);
    let mut state = TopState {
        selected: Some("github:octo/repo#300".into()),
        ..TopState::default()
    };
    let text = screen(&m, &mut state, 80, 24, LOOK);
    assert!(text.contains("github:octo/repo#300"), "{text}");
    assert!(!text.contains("github:octo/repo#1 "), "{text}");
    assert_eq!(state.page, 20);
}

#[test]
fn no_color_paints_nothing_and_colour_paints_drift() {
    let paints = |color: bool| {
        let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
        let look = Look {
            color,
            interval_secs: 2,
        };
        terminal
            .draw(|f| render(f, &model(6), &mut TopState::default(), look))
            .unwrap();
        terminal
            .backend()
            .buffer()
            .content()
            .iter()
            .any(|c| c.fg != ratatui::style::Color::Reset)
    };
    assert!(!paints(false));
    assert!(paints(true));
}

#[test]
fn trouble_replaces_the_counts() {
    let mut m = model(1);
    m.header.trouble = Some("tmux did not answer within 5s".into());
    let text = screen(&m, &mut TopState::default(), 80, 24, LOOK);
    assert!(text.contains("! tmux did not answer within 5s"), "{text}");
}

/// Issue 47: at 80 columns the header once cut the socket path to a lone
/// `/`. Each path now keeps its tail, the part that tells one server or
/// file from another.
#[test]
fn the_header_at_80_columns_keeps_the_tail_of_each_path() {
    let mut m = model(2);
    m.header.tmux_socket = Some(PathBuf::from("/run/user/1000/the-loop/tmux-server"));
    let text = screen(&m, &mut TopState::default(), 80, 24, LOOK);
    let first = text.lines().next().unwrap();
    assert!(first.ends_with("…/the-loop/tmux-server"), "{first}");
    // The words around the paths give way first.
    assert!(first.contains("env …/.the-loop/.env (3m ago)"), "{first}");
    assert!(
        unicode_width::UnicodeWidthStr::width(first) <= 80,
        "{first}"
    );
}

/// What `plan` prints for one drifted session, as `p` shows it.
const ONE_PLAN: &str = "env file: /home/dev/.the-loop/.env (1 name declared)
tmux server: /run/user/1000/the-loop/tmux-server

~ github:octo/repo#1  (loop-github-octo-repo-1, pane %1, pid 1234567)  will be respawned  [unknown: rolls now]
    - SLACK_BOT_TOKEN              f3891e86 → (absent)   (stale: a withheld name holding a value that is not the file's)

Plan: 1 to respawn, 0 up to date, 0 skipped, 0 unverified, 0 loop-* without a record.
Run `the-loop apply` to respawn the drifted sessions, resuming each conversation.";

/// Issue 47: the pop-up once cut each line at 76 columns, and a session's
/// verdict (`will be respawned`, what its harness is doing) is at the end
/// of its line. Long lines now wrap, so every word is in sight.
#[test]
fn a_plan_at_80_by_24_shows_each_verdict_whole() {
    let mut state = TopState {
        mode: Mode::Plan {
            label: "github:octo/repo#1".into(),
            text: ONE_PLAN.into(),
            scroll: 0,
        },
        ..TopState::default()
    };
    let text = screen(&model(2), &mut state, 80, 24, LOOK);
    for words in [
        "will be respawned",
        "[unknown: rolls now]",
        "value that is not the file's)",
        "resuming each",
    ] {
        assert!(text.contains(words), "{words:?} in sight:\n{text}");
    }
    insta::assert_snapshot!(text);
}
