//! Text made to fit `top`'s screen rather than cut by it: the header's
//! paths shortened from the left (the tail is what tells one socket or env
//! file from another: `…/the-loop/tmux-server`), and a pop-up's long lines
//! wrapped (a plan's verdict is at the end of its line). At 80 columns the
//! header once showed the socket as a lone `/`, and the plan pop-up hid
//! every verdict.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Columns `text` takes on a terminal.
pub fn width(text: &str) -> usize {
    UnicodeWidthStr::width(text)
}

/// The ways `path` can be shown, longest first: whole, then with its
/// leading components replaced by `…`, down to its last component alone.
/// Each is narrower than the one before (`…/home/x` is not shorter than
/// `/home/x`, so it is not one).
fn tails(path: &str) -> Vec<String> {
    let parts: Vec<&str> = path.split('/').collect();
    let mut shown = vec![path.to_owned()];
    for keep in (1..parts.len()).rev() {
        let tail = format!("…/{}", parts[parts.len() - keep..].join("/"));
        if width(&tail) < width(shown.last().map(String::as_str).unwrap_or_default()) {
            shown.push(tail);
        }
    }
    shown
}

/// `paths` shown in at most `room` columns together: the widest shortened
/// first, one component at a time, none below its last two components
/// until all are there, then down to its last one. Room left over by the
/// last step is given back, in order. Still too wide when every path is
/// down to its last component: the caller's line is then cut as before.
pub fn paths(paths: &[&str], room: usize) -> Vec<String> {
    let options: Vec<Vec<String>> = paths.iter().map(|p| tails(p)).collect();
    let mut at = vec![0usize; paths.len()];
    // The index of the `…/a/b` form (two components), or the last form.
    let two = |o: &Vec<String>| {
        o.iter()
            .position(|s| s.starts_with("…/") && s.matches('/').count() == 2)
            .unwrap_or(o.len() - 1)
    };
    let total =
        |at: &[usize]| -> usize { options.iter().zip(at).map(|(o, &i)| width(&o[i])).sum() };
    for floor in [true, false] {
        while total(&at) > room {
            let widest = (0..paths.len())
                .filter(|&i| {
                    let last = if floor {
                        two(&options[i])
                    } else {
                        options[i].len() - 1
                    };
                    at[i] < last
                })
                .max_by_key(|&i| (width(&options[i][at[i]]), std::cmp::Reverse(i)));
            match widest {
                Some(i) => at[i] += 1,
                None => break,
            }
        }
    }
    for i in 0..paths.len() {
        while at[i] > 0 && {
            let mut wider = at.clone();
            wider[i] -= 1;
            total(&wider) <= room
        } {
            at[i] -= 1;
        }
    }
    options
        .into_iter()
        .zip(at)
        .map(|(mut o, i)| o.swap_remove(i))
        .collect()
}

/// `line` in rows of at most `columns`. A row too long breaks between the
/// phrases the plan separates by two spaces or more, a phrase too long
/// between its words, a word too long anywhere. Continuation rows are
/// indented four more than the line, so each line still reads as one.
pub fn wrap(line: &str, columns: usize) -> Vec<String> {
    if width(line) <= columns || columns < 8 {
        return vec![line.to_owned()];
    }
    let body = line.trim_start_matches(' ');
    let indent = line.len() - body.len();
    let hang = " ".repeat((indent + 4).min(columns / 2));
    let mut rows = vec![" ".repeat(indent)];
    for (gap, phrase) in phrases(body) {
        place(&mut rows, phrase, gap, &hang, columns, true);
    }
    rows.into_iter().map(|r| r.trim_end().to_owned()).collect()
}

/// `body`'s phrases, each with the run of two spaces or more before it
/// (kept as it was: a plan pads its columns with them).
fn phrases(body: &str) -> Vec<(&str, &str)> {
    let mut found = Vec::new();
    let (mut gap, mut rest) = ("", body);
    while !rest.is_empty() {
        let end = rest.find("  ").unwrap_or(rest.len());
        found.push((gap, &rest[..end]));
        let after = &rest[end..];
        rest = after.trim_start_matches(' ');
        gap = &after[..after.len() - rest.len()];
    }
    found
}

/// Adds `piece` to the last row after `gap`, or on a new row when it does
/// not fit there; a piece too wide for a whole row is placed in parts
/// (its words, when `split_words`, else its characters).
fn place(
    rows: &mut Vec<String>,
    piece: &str,
    gap: &str,
    hang: &str,
    columns: usize,
    split_words: bool,
) {
    let last = rows.last_mut().expect("a row");
    let bare = last.trim().is_empty();
    let needed = if bare {
        width(piece)
    } else {
        width(gap) + width(piece)
    };
    if width(last) + needed <= columns {
        if !bare {
            last.push_str(gap);
        }
        last.push_str(piece);
        return;
    }
    if width(hang) + width(piece) <= columns {
        rows.push(format!("{hang}{piece}"));
        return;
    }
    if split_words && piece.contains(' ') {
        for word in piece.split(' ').filter(|w| !w.is_empty()) {
            place(rows, word, " ", hang, columns, false);
        }
        return;
    }
    // One word wider than a row: as many characters as each row holds.
    for c in piece.chars() {
        let last = rows.last_mut().expect("a row");
        if width(last) + c.width().unwrap_or(0) > columns {
            rows.push(hang.to_owned());
        }
        rows.last_mut().expect("a row").push(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_keeps_its_tail() {
        assert_eq!(
            tails("/tmp/tmux-1000/default"),
            ["/tmp/tmux-1000/default", "…/tmux-1000/default", "…/default"]
        );
        assert_eq!(tails("default"), ["default"]);
        assert_eq!(
            paths(
                &["/home/dev/.env", "/run/user/1000/the-loop/tmux-server"],
                60
            ),
            ["/home/dev/.env", "/run/user/1000/the-loop/tmux-server"]
        );
        assert_eq!(
            paths(
                &[
                    "/home/dev/.the-loop/.env",
                    "/run/user/1000/the-loop/tmux-server"
                ],
                40
            ),
            ["…/.the-loop/.env", "…/the-loop/tmux-server"]
        );
        assert_eq!(
            paths(
                &[
                    "/home/dev/.the-loop/.env",
                    "/run/user/1000/the-loop/tmux-server"
                ],
                20
            ),
            ["…/.env", "…/tmux-server"]
        );
    }

    #[test]
    fn a_long_line_breaks_between_phrases_then_words() {
        let line = "~ github:octo/repo#1  (loop-github-octo-repo-1, pane %1, pid 1234567)  will be respawned  [unknown: rolls now]";
        assert_eq!(
            wrap(line, 76),
            [
                "~ github:octo/repo#1  (loop-github-octo-repo-1, pane %1, pid 1234567)",
                "    will be respawned  [unknown: rolls now]",
            ]
        );
        let rows = wrap(&format!("  {}", "word ".repeat(30)), 40);
        assert!(rows.iter().all(|r| width(r) <= 40), "{rows:?}");
        assert_eq!(rows[0], format!("  {}", "word ".repeat(7).trim_end()));
        assert!(rows[1].starts_with("      word"), "{rows:?}");
        let long = wrap(&"x".repeat(100), 40);
        assert_eq!(long.concat().replace(' ', ""), "x".repeat(100));
        assert!(long.iter().all(|r| width(r) <= 40), "{long:?}");
        assert_eq!(wrap("short", 40), ["short"]);
    }
}
