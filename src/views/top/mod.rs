//! `the-loop top`'s screen: the header, one table row per session, and a
//! footer of keys or the line being typed; help, a session's plan, a y/N
//! and an action's progress over it. Pure: [`render`] draws a
//! [`TopModel`] into a ratatui frame, so it is tested with ratatui's
//! `TestBackend`. Only names and fingerprints reach it (`ops/top.rs`).

mod fit;
pub mod state;

use crate::ops::top::{ago, Drift, Row, RowActivity, TopModel};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Block, Borders, Cell, Clear, Paragraph, Row as TableRow, Table, TableState,
};
use ratatui::Frame;
pub use state::{handle_key, Action, Mode, Pending, TopState};

/// The keys, for `?` and docs/commands.md.
pub const HELP: &[(&str, &str)] = &[
    (
        "↑ ↓  j k",
        "select a session (PgUp PgDn g G: by page, to the ends)",
    ),
    ("/", "filter by ref, tmux name, harness or cwd (Esc clears)"),
    (
        "Enter",
        "attach: inside tmux switch this client, outside run tmux attach",
    ),
    ("p", "the selected session's plan (fingerprints only)"),
    ("a", "apply to the selected session, after y/N"),
    ("d", "deliver a message to the selected session, after y/N"),
    ("?", "this help"),
    ("q  Ctrl-C", "quit"),
];

/// How a frame looks: whether colours may be used (not under NO_COLOR),
/// and the refresh interval the header names.
#[derive(Debug, Clone, Copy)]
pub struct Look {
    pub color: bool,
    pub interval_secs: u64,
}

/// Draws the whole screen.
pub fn render(frame: &mut Frame, model: &TopModel, state: &mut TopState, look: Look) {
    let [header, table, footer] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(frame.area());
    frame.render_widget(
        Paragraph::new(header_lines(model, look, header.width)),
        header,
    );
    render_table(frame, model, state, table, look);
    frame.render_widget(Paragraph::new(footer_line(state)), footer);
    match &state.mode {
        Mode::Help => popup(frame, "help", &help_lines(), Scroll::Top(0)),
        Mode::Plan {
            label,
            text,
            scroll,
        } => {
            let lines: Vec<String> = text.lines().map(str::to_owned).collect();
            let title = format!("plan: {label} (j k scroll, Esc closes)");
            popup(frame, &title, &lines, Scroll::Top(*scroll))
        }
        Mode::Progress { title, lines, done } => {
            let mut shown = lines.clone();
            if *done {
                shown.push(String::new());
                shown.push("(any key closes)".into());
            }
            popup(frame, title, &shown, Scroll::NewestInSight)
        }
        _ => {}
    }
}

fn header_lines(model: &TopModel, look: Look, width: u16) -> Vec<Line<'static>> {
    let h = &model.header;
    let version = h.tmux_version.as_deref().unwrap_or("?");
    let age = h.env_age.map(ago).unwrap_or_else(|| "?".into());
    let env_path = h.env_file.as_ref().map(|p| p.display().to_string());
    let socket = h
        .tmux_socket
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let line = |env: Option<&str>, socket: &str, written: &str| {
        let env = match env {
            Some(path) => format!("env {path} ({written}{age} ago)"),
            None => "no env file".into(),
        };
        format!(" · {env} · tmux {version} {socket}")
    };
    let room = usize::from(width).saturating_sub("the-loop top".len());
    let mut rest = line(env_path.as_deref(), &socket, "written ");
    if fit::width(&rest) > room {
        // Too wide: the words around the paths give way first (`written`
        // goes), then the paths, from the left.
        let words = fit::width(&line(env_path.as_ref().map(|_| ""), "", ""));
        let paths: Vec<&str> = env_path
            .iter()
            .map(String::as_str)
            .chain([socket.as_str()])
            .collect();
        let mut fitted = fit::paths(&paths, room.saturating_sub(words)).into_iter();
        let env = env_path.as_ref().and_then(|_| fitted.next());
        let socket = fitted.next().unwrap_or_default();
        rest = line(env.as_deref(), &socket, "");
    }
    let s = &h.summary;
    // The counts `plan` prints; the rarer ones only when not zero.
    let mut counts = vec![format!("{} to respawn", s.respawn)];
    for (n, what) in [(s.left_alone, "left alone"), (s.resume, "to resume")] {
        if n > 0 {
            counts.push(format!("{n} {what}"));
        }
    }
    counts.push(format!("{} up to date", s.up_to_date));
    for (n, what) in [
        (s.skipped, "skipped"),
        (s.unverified, "unverified"),
        (s.unmanaged, "loop-* without a record"),
    ] {
        if n > 0 {
            counts.push(format!("{n} {what}"));
        }
    }
    let counts = format!("{} · every {}s", counts.join(", "), look.interval_secs);
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let mut second = vec![Span::raw(counts)];
    if let Some(trouble) = &h.trouble {
        second = vec![Span::styled(
            format!("! {trouble}"),
            paint(look, Color::Red).add_modifier(Modifier::BOLD),
        )];
    }
    vec![
        Line::from(vec![Span::styled("the-loop top", bold), Span::raw(rest)]),
        Line::from(second),
    ]
}

fn paint(look: Look, color: Color) -> Style {
    if look.color {
        Style::default().fg(color)
    } else {
        Style::default()
    }
}

/// A column of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Column {
    Session,
    Harness,
    Activity,
    Drift,
    Attached,
    Age,
    LastEvent,
    Cwd,
    Tmux,
}

/// The columns a terminal this wide shows: all of them from 160 columns,
/// the cwd from 110, and the rest always.
fn columns(width: u16) -> Vec<(Column, Constraint)> {
    let mut columns = vec![
        (Column::Session, Constraint::Fill(2)),
        (Column::Harness, Constraint::Length(7)),
        (Column::Activity, Constraint::Length(14)),
        (Column::Drift, Constraint::Length(16)),
        (Column::Attached, Constraint::Length(3)),
        (Column::Age, Constraint::Length(4)),
        (Column::LastEvent, Constraint::Length(5)),
    ];
    if width >= 110 {
        columns.push((Column::Cwd, Constraint::Fill(2)));
    }
    if width >= 160 {
        columns.push((Column::Tmux, Constraint::Fill(1)));
    }
    columns
}

impl Column {
    fn header(self) -> &'static str {
        match self {
            Column::Session => "SESSION",
            Column::Harness => "HARNESS",
            Column::Activity => "ACTIVITY",
            Column::Drift => "DRIFT",
            Column::Attached => "ATT",
            Column::Age => "AGE",
            Column::LastEvent => "LAST",
            Column::Cwd => "CWD",
            Column::Tmux => "TMUX",
        }
    }
}

fn render_table(frame: &mut Frame, model: &TopModel, state: &mut TopState, area: Rect, look: Look) {
    let visible = state.visible(model);
    let selected = state.index_in(&visible);
    // The header row takes one line.
    let page = area.height.saturating_sub(1) as usize;
    state.page = page;
    if let Some(i) = selected {
        if i < state.offset {
            state.offset = i;
        } else if page > 0 && i >= state.offset + page {
            state.offset = i + 1 - page;
        }
    }
    state.offset = state.offset.min(visible.len().saturating_sub(page.max(1)));
    // Only the rows in sight are built: 500 sessions scroll as fast as 5.
    let columns = columns(area.width);
    let rows: Vec<TableRow> = visible
        .iter()
        .skip(state.offset)
        .take(page)
        .map(|row| table_row(row, &columns, look))
        .collect();
    let widths: Vec<Constraint> = columns.iter().map(|(_, w)| *w).collect();
    let header = TableRow::new(columns.iter().map(|(c, _)| c.header()))
        .style(Style::default().add_modifier(Modifier::BOLD));
    let table = Table::new(rows, widths)
        .header(header)
        .column_spacing(1)
        .row_highlight_style(Style::default().add_modifier(Modifier::REVERSED));
    let mut table_state = TableState::default().with_selected(selected.map(|i| i - state.offset));
    frame.render_stateful_widget(table, area, &mut table_state);
    if visible.is_empty() {
        let empty = if model.rows.is_empty() {
            "no sessions: `the-loop sessions start` makes one"
        } else {
            "no session matches the filter (Esc clears it)"
        };
        let below = Rect {
            y: area.y + 1,
            height: 1,
            ..area
        };
        frame.render_widget(Paragraph::new(empty), below);
    }
}

fn table_row(row: &Row, columns: &[(Column, Constraint)], look: Look) -> TableRow<'static> {
    let dash = || "-".to_owned();
    let activity_style = match row.activity {
        RowActivity::Busy(_) => paint(look, Color::Yellow),
        RowActivity::Waiting(_) | RowActivity::Interrupted => paint(look, Color::Magenta),
        RowActivity::Exited | RowActivity::NotRunning => paint(look, Color::DarkGray),
        _ => Style::default(),
    };
    let drift_style = match row.drift {
        Drift::UpToDate => paint(look, Color::Green),
        Drift::Stale { .. } => paint(look, Color::Yellow),
        Drift::InterruptedRoll | Drift::Unverified => paint(look, Color::Red),
        _ => paint(look, Color::DarkGray),
    };
    TableRow::new(columns.iter().map(|(column, _)| {
        match column {
            Column::Session => Cell::from(row.label.clone()),
            Column::Harness => Cell::from(row.harness.clone().unwrap_or_else(dash)),
            Column::Activity => Cell::from(row.activity.text()).style(activity_style),
            Column::Drift => Cell::from(row.drift.text()).style(drift_style),
            Column::Attached => Cell::from(row.attached.to_string()),
            Column::Age => Cell::from(row.age.map(ago).unwrap_or_else(dash)),
            Column::LastEvent => Cell::from(row.last_event.map(ago).unwrap_or_else(dash)),
            Column::Cwd => Cell::from(
                row.cwd
                    .as_ref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(dash),
            ),
            Column::Tmux => Cell::from(row.tmux_target.clone()),
        }
    }))
}

fn footer_line(state: &TopState) -> Line<'static> {
    let reversed = Style::default().add_modifier(Modifier::REVERSED);
    match &state.mode {
        Mode::Filter => Line::from(format!(
            "/{}▏  (Enter keeps it, Esc clears it)",
            state.filter
        )),
        Mode::Confirm(Pending::Apply { label }) => Line::from(Span::styled(
            format!("apply to {label}: roll it onto the env file now? [y/N]"),
            reversed,
        )),
        Mode::Confirm(Pending::Deliver { label, text }) => Line::from(Span::styled(
            format!(
                "deliver {} characters to {label}? [y/N]",
                text.chars().count()
            ),
            reversed,
        )),
        Mode::Message { label, text } => Line::from(format!(
            "message to {label}: {text}▏  (Enter sends, Esc cancels)"
        )),
        _ => match &state.status {
            Some(status) => Line::from(Span::styled(status.clone(), reversed)),
            None => {
                let filter = if state.filter.is_empty() {
                    String::new()
                } else {
                    format!("filter /{} · ", state.filter)
                };
                Line::from(format!(
                    "{filter}↑↓ select  / filter  ⏎ attach  p plan  a apply  d deliver  ? help  q quit"
                ))
            }
        },
    }
}

fn help_lines() -> Vec<String> {
    let mut lines: Vec<String> = HELP
        .iter()
        .map(|(keys, what)| format!("{keys:<10} {what}"))
        .collect();
    lines.push(String::new());
    lines.push("ACTIVITY busy or permission (for how long), idle, interrupted, exited".into());
    lines.push("DRIFT up to date, N names stale, args drift, interrupted roll, left alone".into());
    lines
}

/// Which rows of a pop-up are in sight.
#[derive(Debug, Clone, Copy)]
enum Scroll {
    /// From this row down (the plan, scrolled by j and k).
    Top(u16),
    /// The last rows (an action's progress: the newest line stays in sight).
    NewestInSight,
}

/// A bordered box over most of the screen, its long lines wrapped.
fn popup(frame: &mut Frame, title: &str, lines: &[String], scroll: Scroll) {
    let area = frame.area();
    let inner = Rect {
        x: area.x + 1,
        y: area.y + 1,
        width: area.width.saturating_sub(2),
        height: area.height.saturating_sub(2),
    };
    frame.render_widget(Clear, inner);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(format!(" {title} "));
    // Inside the borders.
    let columns = usize::from(inner.width.saturating_sub(2));
    let rows: Vec<Line> = lines
        .iter()
        .flat_map(|line| fit::wrap(line, columns))
        .map(Line::from)
        .collect();
    let scroll = match scroll {
        Scroll::Top(row) => row,
        Scroll::NewestInSight => {
            let height = usize::from(inner.height.saturating_sub(2));
            u16::try_from(rows.len().saturating_sub(height)).unwrap_or(u16::MAX)
        }
    };
    frame.render_widget(Paragraph::new(rows).block(block).scroll((scroll, 0)), inner);
}

#[cfg(test)]
mod tests;
