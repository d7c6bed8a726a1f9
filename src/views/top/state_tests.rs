//! What each key does, without a terminal.

use super::*;
use crate::views::top::tests::model;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn press(state: &mut TopState, codes: &[KeyCode]) -> Action {
    let m = model(6);
    let mut last = Action::None;
    for code in codes {
        last = handle_key(state, &m, key(*code));
    }
    last
}

#[test]
fn j_and_k_move_the_selection_within_the_rows() {
    let mut s = TopState::default();
    press(&mut s, &[KeyCode::Char('j'), KeyCode::Char('j')]);
    assert_eq!(s.selected.as_deref(), Some("github:octo/repo#3"));
    press(&mut s, &[KeyCode::Up, KeyCode::Up, KeyCode::Up]);
    assert_eq!(s.selected.as_deref(), Some("github:octo/repo#1"));
    press(&mut s, &[KeyCode::Char('G')]);
    assert_eq!(s.selected.as_deref(), Some("github:octo/repo#6"));
}

#[test]
fn a_filter_keeps_matching_rows_and_esc_clears_it() {
    let mut s = TopState::default();
    press(
        &mut s,
        &[
            KeyCode::Char('/'),
            KeyCode::Char('#'),
            KeyCode::Char('5'),
            KeyCode::Enter,
        ],
    );
    assert_eq!(s.filter, "#5");
    assert_eq!(s.visible(&model(6)).len(), 1);
    assert_eq!(
        press(&mut s, &[KeyCode::Enter]),
        Action::Attach {
            label: "github:octo/repo#5".into()
        }
    );
    press(&mut s, &[KeyCode::Esc]);
    assert_eq!(s.visible(&model(6)).len(), 6);
}

#[test]
fn q_and_ctrl_c_quit() {
    assert_eq!(
        press(&mut TopState::default(), &[KeyCode::Char('q')]),
        Action::Quit
    );
    let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
    let mut s = TopState {
        mode: Mode::Filter,
        ..TopState::default()
    };
    assert_eq!(handle_key(&mut s, &model(1), ctrl_c), Action::Quit);
}

#[test]
fn apply_asks_first_and_anything_but_y_cancels() {
    let mut s = TopState::default();
    press(&mut s, &[KeyCode::Char('j'), KeyCode::Char('a')]);
    assert_eq!(
        s.mode,
        Mode::Confirm(Pending::Apply {
            label: "github:octo/repo#2".into()
        })
    );
    assert_eq!(press(&mut s, &[KeyCode::Char('n')]), Action::None);
    assert_eq!(s.mode, Mode::Table);
    assert_eq!(
        press(&mut s, &[KeyCode::Char('a'), KeyCode::Char('y')]),
        Action::Apply {
            label: "github:octo/repo#2".into()
        }
    );
}

#[test]
fn deliver_takes_a_message_then_asks() {
    let mut s = TopState::default();
    press(
        &mut s,
        &[KeyCode::Char('d'), KeyCode::Char('h'), KeyCode::Char('i')],
    );
    assert_eq!(press(&mut s, &[KeyCode::Enter]), Action::None);
    assert_eq!(
        press(&mut s, &[KeyCode::Char('y')]),
        Action::Deliver {
            label: "github:octo/repo#1".into(),
            text: "hi".into()
        }
    );
}

#[test]
fn help_and_plan_close_with_esc_and_progress_only_once_done() {
    let mut s = TopState::default();
    press(&mut s, &[KeyCode::Char('?')]);
    assert_eq!(s.mode, Mode::Help);
    press(&mut s, &[KeyCode::Esc]);
    assert_eq!(s.mode, Mode::Table);
    assert_eq!(
        press(&mut s, &[KeyCode::Char('p')]),
        Action::ShowPlan {
            label: "github:octo/repo#1".into()
        }
    );
    s.mode = Mode::Progress {
        title: "apply".into(),
        lines: vec![],
        done: false,
    };
    assert_eq!(press(&mut s, &[KeyCode::Char('q')]), Action::None);
    assert!(matches!(s.mode, Mode::Progress { .. }));
    s.mode = Mode::Progress {
        title: "apply".into(),
        lines: vec![],
        done: true,
    };
    press(&mut s, &[KeyCode::Char('x')]);
    assert_eq!(s.mode, Mode::Table);
}
