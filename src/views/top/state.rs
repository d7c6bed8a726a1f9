//! What `top` is showing and what a key does to it: pure, no terminal.
//! [`handle_key`] changes the state and returns the [`Action`] the shell
//! (`cli/top/`) then performs through the ops layer.

use crate::ops::top::{Row, TopModel};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// The screen's state between frames.
#[derive(Debug, Default, Clone)]
pub struct TopState {
    /// The selected session, by label, so a refresh keeps it selected.
    pub selected: Option<String>,
    /// The first visible row of the table (kept by `render`).
    pub offset: usize,
    /// `/`: rows whose label, tmux name, harness or cwd contain it.
    pub filter: String,
    pub mode: Mode,
    /// One line for the footer: an outcome, an error, a hint.
    pub status: Option<String>,
    /// Rows the table shows (set by `render` from the terminal's height),
    /// for page up and down.
    pub page: usize,
}

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub enum Mode {
    #[default]
    Table,
    /// Typing a filter.
    Filter,
    Help,
    /// A session's plan, scrolled by this many lines.
    Plan {
        label: String,
        text: String,
        scroll: u16,
    },
    /// Asked y/N before the action.
    Confirm(Pending),
    /// Typing the message to deliver to this session.
    Message {
        label: String,
        text: String,
    },
    /// An apply or a delivery's progress and outcome; `done` once it ended.
    Progress {
        title: String,
        lines: Vec<String>,
        done: bool,
    },
}

/// An action waiting for its y/N.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pending {
    Apply { label: String },
    Deliver { label: String, text: String },
}

/// What the shell does after a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    None,
    Quit,
    /// Attach to (switch the client to) this session.
    Attach {
        label: String,
    },
    /// Show this session's plan (the shell renders it into [`Mode::Plan`]).
    ShowPlan {
        label: String,
    },
    Apply {
        label: String,
    },
    Deliver {
        label: String,
        text: String,
    },
}

impl TopState {
    /// The rows the filter keeps, in the model's order.
    pub fn visible<'a>(&self, model: &'a TopModel) -> Vec<&'a Row> {
        let needle = self.filter.to_lowercase();
        model
            .rows
            .iter()
            .filter(|r| needle.is_empty() || matches(r, &needle))
            .collect()
    }

    /// The index of the selected row among `visible`: the one named, else the first.
    pub fn index_in(&self, visible: &[&Row]) -> Option<usize> {
        if visible.is_empty() {
            return None;
        }
        Some(
            self.selected
                .as_ref()
                .and_then(|s| visible.iter().position(|r| &r.label == s))
                .unwrap_or(0),
        )
    }

    fn select_by(&mut self, visible: &[&Row], delta: isize) {
        let Some(i) = self.index_in(visible) else {
            return;
        };
        let last = visible.len() - 1;
        let next = i.saturating_add_signed(delta).min(last);
        self.selected = Some(visible[next].label.clone());
    }

    fn selected_label(&self, visible: &[&Row]) -> Option<String> {
        self.index_in(visible).map(|i| visible[i].label.clone())
    }
}

fn matches(row: &Row, needle: &str) -> bool {
    row.label.to_lowercase().contains(needle)
        || row.tmux_target.to_lowercase().contains(needle)
        || row
            .harness
            .as_deref()
            .is_some_and(|h| h.to_lowercase().contains(needle))
        || row
            .cwd
            .as_deref()
            .is_some_and(|c| c.to_string_lossy().to_lowercase().contains(needle))
}

/// What `key` does in `state`, given the model on screen.
pub fn handle_key(state: &mut TopState, model: &TopModel, key: KeyEvent) -> Action {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    if ctrl && key.code == KeyCode::Char('c') {
        return Action::Quit;
    }
    match std::mem::take(&mut state.mode) {
        Mode::Table => table_key(state, model, key),
        Mode::Filter => {
            match key.code {
                KeyCode::Enter => {}
                KeyCode::Esc => state.filter.clear(),
                KeyCode::Backspace => {
                    state.filter.pop();
                    state.mode = Mode::Filter;
                }
                KeyCode::Char(c) if !ctrl => {
                    state.filter.push(c);
                    state.mode = Mode::Filter;
                }
                _ => state.mode = Mode::Filter,
            }
            Action::None
        }
        Mode::Help => match key.code {
            KeyCode::Char('q') | KeyCode::Esc | KeyCode::Char('?') | KeyCode::Enter => Action::None,
            _ => {
                state.mode = Mode::Help;
                Action::None
            }
        },
        Mode::Plan {
            label,
            text,
            mut scroll,
        } => {
            match key.code {
                KeyCode::Char('q') | KeyCode::Esc | KeyCode::Char('p') | KeyCode::Enter => {
                    return Action::None
                }
                KeyCode::Down | KeyCode::Char('j') => scroll = scroll.saturating_add(1),
                KeyCode::Up | KeyCode::Char('k') => scroll = scroll.saturating_sub(1),
                KeyCode::PageDown | KeyCode::Char(' ') => scroll = scroll.saturating_add(10),
                KeyCode::PageUp => scroll = scroll.saturating_sub(10),
                _ => {}
            }
            state.mode = Mode::Plan {
                label,
                text,
                scroll,
            };
            Action::None
        }
        Mode::Confirm(pending) => match key.code {
            KeyCode::Char('y') | KeyCode::Char('Y') => match pending {
                Pending::Apply { label } => Action::Apply { label },
                Pending::Deliver { label, text } => Action::Deliver { label, text },
            },
            _ => {
                state.status = Some("cancelled; nothing was changed".into());
                Action::None
            }
        },
        Mode::Message { label, mut text } => {
            match key.code {
                KeyCode::Esc => {
                    state.status = Some("cancelled; nothing was delivered".into());
                    return Action::None;
                }
                KeyCode::Enter if !text.trim().is_empty() => {
                    state.mode = Mode::Confirm(Pending::Deliver { label, text });
                    return Action::None;
                }
                KeyCode::Backspace => {
                    text.pop();
                }
                KeyCode::Char(c) if !ctrl => text.push(c),
                _ => {}
            }
            state.mode = Mode::Message { label, text };
            Action::None
        }
        Mode::Progress { title, lines, done } => {
            // Nothing closes a roll's progress before it has ended.
            if !done {
                state.mode = Mode::Progress { title, lines, done };
            }
            Action::None
        }
    }
}

fn table_key(state: &mut TopState, model: &TopModel, key: KeyEvent) -> Action {
    let visible = state.visible(model);
    let page = state.page.max(1) as isize;
    let selected = state.selected_label(&visible);
    state.status = None;
    match key.code {
        KeyCode::Char('q') => return Action::Quit,
        KeyCode::Esc if !state.filter.is_empty() => state.filter.clear(),
        KeyCode::Down | KeyCode::Char('j') => state.select_by(&visible, 1),
        KeyCode::Up | KeyCode::Char('k') => state.select_by(&visible, -1),
        KeyCode::PageDown => state.select_by(&visible, page),
        KeyCode::PageUp => state.select_by(&visible, -page),
        KeyCode::Home | KeyCode::Char('g') => state.select_by(&visible, isize::MIN),
        KeyCode::End | KeyCode::Char('G') => state.select_by(&visible, isize::MAX),
        KeyCode::Char('/') => state.mode = Mode::Filter,
        KeyCode::Char('?') => state.mode = Mode::Help,
        KeyCode::Enter => {
            if let Some(label) = selected {
                return Action::Attach { label };
            }
        }
        KeyCode::Char('p') => {
            if let Some(label) = selected {
                return Action::ShowPlan { label };
            }
        }
        KeyCode::Char('a') => {
            if let Some(label) = selected {
                state.mode = Mode::Confirm(Pending::Apply { label });
            }
        }
        KeyCode::Char('d') => {
            if let Some(label) = selected {
                state.mode = Mode::Message {
                    label,
                    text: String::new(),
                };
            }
        }
        _ => {}
    }
    Action::None
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;
