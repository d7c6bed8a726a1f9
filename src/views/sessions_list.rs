//! The `sessions list` table for a person with many sessions: each column
//! measures its cells and is capped, so one long ref or path cannot push
//! the rest off the screen; a capped cell loses its middle (or its end)
//! to an ellipsis rather than wrapping.

use super::{display_width, Format};
use crate::ops::sessions::list::{Kind, ListReport, Listed};
use crate::registry::WorkItemRef;
use std::path::{Path, PathBuf};

const ELLIPSIS: char = '…';

/// The table's columns, in order. What runs now (live, activity, attached
/// clients) sits next to the status, before the record's history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Column {
    Session,
    Status,
    Live,
    Activity,
    Attached,
    Age,
    LastEvent,
    Cwd,
    Conversation,
    PullRequests,
    Harness,
    Tmux,
    Model,
}

/// Where a cell too wide for its column loses characters.
enum Cut {
    /// Keeps both ends: a ref's number and a path's last directory matter most.
    Middle,
    End,
}

const COLUMNS: [Column; 13] = [
    Column::Session,
    Column::Status,
    Column::Live,
    Column::Activity,
    Column::Attached,
    Column::Age,
    Column::LastEvent,
    Column::Cwd,
    Column::Conversation,
    Column::PullRequests,
    Column::Harness,
    Column::Tmux,
    Column::Model,
];

impl Column {
    fn header(self) -> &'static str {
        match self {
            Column::Session => "SESSION",
            Column::Status => "STATUS",
            Column::Live => "LIVE",
            Column::Activity => "ACTIVITY",
            Column::Attached => "ATTACHED",
            Column::Age => "AGE",
            Column::LastEvent => "LAST EVENT",
            Column::Cwd => "CWD",
            Column::Conversation => "CONVERSATION",
            Column::PullRequests => "PRS",
            Column::Harness => "HARNESS",
            Column::Tmux => "TMUX",
            Column::Model => "MODEL",
        }
    }

    fn cap(self) -> (usize, Cut) {
        match self {
            Column::Session => (34, Cut::Middle),
            Column::Cwd => (30, Cut::Middle),
            Column::Tmux => (34, Cut::Middle),
            Column::PullRequests => (20, Cut::End),
            Column::Model => (24, Cut::End),
            Column::Harness => (12, Cut::End),
            _ => (12, Cut::End),
        }
    }

    fn cell(self, row: &Listed, home: Option<&Path>) -> String {
        let dash = || "-".to_owned();
        match self {
            Column::Session => match row.kind {
                Kind::Unmanaged => "(unmanaged)".into(),
                _ => row
                    .reference
                    .clone()
                    .or_else(|| row.standing.clone())
                    .unwrap_or_else(dash),
            },
            Column::Status => row.status.map(super::snake_name).unwrap_or_else(dash),
            Column::Live => row.live.map(|p| p.as_str().to_owned()).unwrap_or_else(dash),
            // The plan's word: `busy` for a `!` command, which no hook tells.
            Column::Activity => row
                .activity
                .map(|a| {
                    crate::plan::screen::doing(a, row.screen)
                        .as_str()
                        .to_owned()
                })
                .unwrap_or_else(dash),
            // No target: no session for a client to be attached to.
            Column::Attached => match row.tmux_target {
                Some(_) => row.attached.to_string(),
                None => dash(),
            },
            Column::Age => row.age_seconds.map(ago).unwrap_or_else(dash),
            Column::LastEvent => row
                .last_event_seconds
                .map(|s| format!("{} ago", ago(s)))
                .unwrap_or_else(dash),
            Column::Cwd => row
                .cwd
                .as_deref()
                .map(|p| shorten_home(p, home))
                .unwrap_or_else(dash),
            // Eight characters tell conversations apart, as git's short hashes do.
            Column::Conversation => row
                .conversation_id
                .as_deref()
                .map(|id| id.chars().take(8).collect())
                .unwrap_or_else(dash),
            Column::PullRequests => pull_requests(row).unwrap_or_else(dash),
            Column::Harness => row.harness.clone().unwrap_or_else(dash),
            // Where the harness lives, when a person moved it.
            Column::Tmux => match (&row.lives_in, &row.tmux_target) {
                (Some(at), Some(named)) => format!("{at} (was {named})"),
                (_, named) => named.clone().unwrap_or_else(|| "(none yet)".into()),
            },
            Column::Model => super::model_cell(row.model.as_deref(), row.effort.as_deref()),
        }
    }
}

/// `sessions list`: the JSON document, or the table with what could not
/// be read said on stderr (tmux before the table, records after it).
pub fn render(report: &ListReport, format: Format) {
    if format == Format::Json {
        super::print_json(&report.list);
        return;
    }
    if let Some(why) = &report.tmux_unanswered {
        crate::errln!("warning: tmux did not answer ({why}); LIVE shows unknown and unmanaged sessions cannot be listed");
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    crate::out!("{}", table(&report.list.sessions, home.as_deref()));
    for row in report.list.sessions.iter() {
        if let (Some(first), Some(label)) = (
            row.conversation_shared_with.first(),
            row.reference.as_deref().or(row.standing.as_deref()),
        ) {
            crate::errln!(
                "warning: {label} names the conversation of {first} too: neither is rolled or resumed until a person says whose it is (`the-loop plan` says which)"
            );
        }
    }
    for c in &report.list.corrupt_records {
        crate::errln!(
            "warning: registry record {} cannot be read: {}",
            c.path.display(),
            c.reason
        );
    }
}

/// The whole table, or one line saying there is nothing to show.
fn table(rows: &[Listed], home: Option<&Path>) -> String {
    if rows.is_empty() {
        return "No sessions.\n".into();
    }
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            COLUMNS
                .iter()
                .map(|c| fit(&printable(&c.cell(row, home)), c.cap()))
                .collect()
        })
        .collect();
    let widths: Vec<usize> = COLUMNS
        .iter()
        .enumerate()
        .map(|(i, c)| {
            cells
                .iter()
                .map(|r| display_width(&r[i]))
                .chain([display_width(c.header())])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let headers: Vec<String> = COLUMNS.iter().map(|c| c.header().to_owned()).collect();
    let mut out = String::new();
    for line in std::iter::once(&headers).chain(&cells) {
        out.push_str(&line_of(line, &widths));
        out.push('\n');
    }
    out
}

fn line_of(cells: &[String], widths: &[usize]) -> String {
    let mut line = String::new();
    for (i, (cell, width)) in cells.iter().zip(widths).enumerate() {
        line.push_str(cell);
        if i + 1 < cells.len() {
            let pad = width.saturating_sub(display_width(cell)) + 2;
            line.extend(std::iter::repeat_n(' ', pad));
        }
    }
    line.trim_end().to_owned()
}

/// Control characters (a terminal escape in a recorded path) become `?`.
fn printable(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

/// `text` within `cap` columns (not characters: a CJK character is two).
fn fit(text: &str, (cap, cut): (usize, Cut)) -> String {
    if display_width(text) <= cap || cap < 3 {
        return text.to_owned();
    }
    let keep = cap - 1; // the ellipsis takes one column
    let (head, tail) = match cut {
        Cut::End => (keep, 0),
        Cut::Middle => (keep - keep / 2, keep / 2),
    };
    let front = columns(text.chars(), head);
    let mut back: Vec<char> = columns(text.chars().rev(), tail).chars().collect();
    back.reverse();
    let mut out = front;
    out.push(ELLIPSIS);
    out.extend(back);
    out
}

/// The leading characters of `chars` that fit in `budget` columns.
fn columns(chars: impl Iterator<Item = char>, budget: usize) -> String {
    let mut used = 0;
    chars
        .take_while(|c| {
            used += unicode_width::UnicodeWidthChar::width(*c).unwrap_or(0);
            used <= budget
        })
        .collect()
}

/// `~/work/x` for a path under HOME.
fn shorten_home(path: &Path, home: Option<&Path>) -> String {
    match home.and_then(|h| path.strip_prefix(h).ok()) {
        Some(rest) if rest.as_os_str().is_empty() => "~".into(),
        Some(rest) => format!("~/{}", rest.display()),
        None => path.display().to_string(),
    }
}

/// A duration the way `ps` and `kubectl get` print one: its largest unit.
fn ago(secs: u64) -> String {
    match secs {
        0..60 => format!("{secs}s"),
        60..3_600 => format!("{}m", secs / 60),
        3_600..86_400 => format!("{}h", secs / 3_600),
        _ => format!("{}d", secs / 86_400),
    }
}

/// Linked pull requests, as `#16` when they live in the item's own repository.
fn pull_requests(row: &Listed) -> Option<String> {
    if row.pull_requests.is_empty() {
        return None;
    }
    let item: Option<WorkItemRef> = row.reference.as_deref().and_then(|r| r.parse().ok());
    let short: Vec<String> = row
        .pull_requests
        .iter()
        .map(|pr| match (pr.parse::<WorkItemRef>(), &item) {
            (Ok(p), Some(i))
                if p.provider == i.provider
                    && p.host == i.host
                    && p.owner == i.owner
                    && p.repo == i.repo =>
            {
                format!("#{}", p.number)
            }
            _ => pr.clone(),
        })
        .collect();
    Some(short.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_cells_lose_their_middle_or_end_and_keep_the_cap() {
        let long = "github:a-very-long-organisation/an-even-longer-repository-name#1234";
        let fitted = fit(long, Column::Session.cap());
        assert_eq!(fitted.chars().count(), 34);
        assert!(
            fitted.starts_with("github:a-very-lon") && fitted.ends_with("name#1234"),
            "{fitted}"
        );
        assert!(fitted.contains(ELLIPSIS));
        assert_eq!(fit("short", Column::Session.cap()), "short");
        let end = fit(
            "github:octo/repo#1,github:octo/repo#2",
            Column::PullRequests.cap(),
        );
        assert_eq!(end.chars().count(), 20);
        assert!(end.ends_with(ELLIPSIS), "{end}");
    }

    /// Columns line up by what a terminal shows: a CJK cwd is two columns
    /// a character, so it is capped and padded by columns.
    #[test]
    fn cells_are_fitted_and_padded_by_display_width() {
        let cjk = "~/作業/リポジトリ/とても長いディレクトリの名前です";
        let fitted = fit(cjk, Column::Cwd.cap());
        assert!(display_width(&fitted) <= 30, "{fitted}");
        assert!(display_width(&fitted) >= 29, "{fitted}");
        assert!(
            fitted.starts_with("~/作業") && fitted.ends_with("名前です"),
            "{fitted}"
        );
        let line = line_of(&["作業".into(), "x".into()], &[6, 1]);
        assert_eq!(line, "作業    x");
        assert_eq!(display_width(&line[..line.find('x').unwrap()]), 8);
    }

    #[test]
    fn paths_under_home_start_with_a_tilde_and_controls_are_masked() {
        let home = Path::new("/home/ana");
        assert_eq!(
            shorten_home(Path::new("/home/ana/work/x"), Some(home)),
            "~/work/x"
        );
        assert_eq!(shorten_home(Path::new("/home/ana"), Some(home)), "~");
        assert_eq!(
            shorten_home(Path::new("/home/anab/x"), Some(home)),
            "/home/anab/x"
        );
        assert_eq!(shorten_home(Path::new("/srv/x"), None), "/srv/x");
        assert_eq!(printable("a\u{1b}[2Jb"), "a?[2Jb");
    }

    #[test]
    fn durations_print_their_largest_unit() {
        assert_eq!(ago(0), "0s");
        assert_eq!(ago(59), "59s");
        assert_eq!(ago(60), "1m");
        assert_eq!(ago(7_199), "1h");
        assert_eq!(ago(86_400 * 3 + 5), "3d");
    }
}
