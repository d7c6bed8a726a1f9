//! Which pane of a session runs the harness.
//!
//! An operator may split a harness's window (`tmux split-window`), and the
//! new pane can be listed first. Text pasted there runs as a shell command,
//! and a signal sent there ends the operator's shell instead of the
//! harness. So the harness pane is found by what tmux started in it, never
//! by its place in the listing; when that does not single one pane out, the
//! answer is "not found", and every verb refuses rather than guess.

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Pane {
    pub session: String,
    pub pane_id: String,
    pub pid: i32,
    pub dead: bool,
    /// How many tmux clients are attached to the pane's session: a person
    /// may be watching it (the safe-point rules leave those alone).
    pub attached: u32,
    /// What tmux started in the pane, which tells the harness's pane from
    /// an operator's.
    pub command: PaneCommand,
    /// For a pane running the-loop's launcher: the tmux name of the session
    /// it was launched for (`loop-<slug>`, from its `--work-item` or
    /// `--standing`), wherever the pane is now. A launcher's argv holds
    /// names, refs and paths only, so this is no secret. `None` otherwise.
    #[serde(skip)]
    pub launched_for: Option<String>,
}

/// What tmux started in a pane (`#{pane_start_command}`), classified at
/// parse time so the text itself (an operator's pane may have been started
/// with anything, a secret included) is never kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PaneCommand {
    /// the-loop's launcher (`<the-loop> exec … --work-item|--standing …`).
    Launcher,
    /// Some other command, such as a harness an older the-loop started
    /// directly.
    Other,
    /// No command: tmux's default shell, as `split-window` opens it.
    DefaultShell,
}

/// Reads tmux's rendering of a pane's start command, once, for both of its
/// answers: what kind of command it is, and, for the-loop's launcher, the
/// tmux name of the session it was launched for (from its `--work-item REF`
/// or `--standing NAME`; `None` when neither names one). A plan lists
/// every pane of the server, and each reading splits a command into owned
/// words.
pub fn read_start_command(start_command: &str) -> (PaneCommand, Option<String>) {
    let words = tmux_words(start_command);
    if words.is_empty() {
        return (PaneCommand::DefaultShell, None);
    }
    let options: Vec<&String> = words
        .iter()
        .skip(2)
        .take_while(|w| w.as_str() != "--")
        .collect();
    let names_identity = options
        .iter()
        .any(|w| *w == "--work-item" || *w == "--standing");
    if words.get(1).map(String::as_str) != Some(crate::harness::LAUNCHER_SUBCOMMAND)
        || !names_identity
    {
        return (PaneCommand::Other, None);
    }
    let value = |flag: &str| {
        options
            .windows(2)
            .find(|w| w[0] == flag)
            .map(|w| w[1].as_str())
    };
    let key = match (value("--work-item"), value("--standing")) {
        (Some(reference), _) => crate::registry::SessionKey::work_item(reference).ok(),
        (None, Some(name)) => Some(crate::registry::SessionKey::Standing(name.to_owned())),
        (None, None) => None,
    };
    (PaneCommand::Launcher, key.map(|key| key.tmux_name()))
}

/// Splits tmux's rendering of an argv (`cmd_stringify_argv`: words joined
/// by spaces, a word with spaces or specials in `"…"` with backslash
/// escapes, or in `'…'`, a lone special as `\c`) back into words. Only
/// short ASCII words are compared afterwards, so escapes are kept as the
/// character they protect and nothing else is decoded.
fn tmux_words(rendered: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = rendered.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (Some('"'), '\\') | (None, '\\') => {
                in_word = true;
                if let Some(next) = chars.next() {
                    word.push(next);
                }
            }
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => {
                in_word = true;
                quote = Some(c);
            }
            (None, ' ') => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// Why no pane of a session could be taken for its harness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NoHarnessPane {
    #[error("the session has no panes")]
    NoPanes,
    #[error("{launchers} panes of the session run the-loop's launcher, so which one is the harness is unclear")]
    SeveralLaunchers { launchers: usize },
    #[error("none of the session's {panes} panes runs the-loop's launcher, and {commands} run a command other than a shell, so which one is the harness is unclear")]
    Unclear { panes: usize, commands: usize },
}

/// The harness pane of one session's panes: the one pane running
/// the-loop's launcher. A session an older the-loop spawned ran the harness
/// straight from tmux, so when no pane runs the launcher, the one pane
/// started with a command (every other pane being a plain shell) is taken.
pub fn find(panes: &[Pane]) -> Result<&Pane, NoHarnessPane> {
    if panes.is_empty() {
        return Err(NoHarnessPane::NoPanes);
    }
    let launchers: Vec<&Pane> = panes
        .iter()
        .filter(|p| p.command == PaneCommand::Launcher)
        .collect();
    match launchers.as_slice() {
        [one] => return Ok(one),
        [] => {}
        several => {
            return Err(NoHarnessPane::SeveralLaunchers {
                launchers: several.len(),
            })
        }
    }
    let commands: Vec<&Pane> = panes
        .iter()
        .filter(|p| p.command == PaneCommand::Other)
        .collect();
    match commands.as_slice() {
        [one] => Ok(one),
        _ => Err(NoHarnessPane::Unclear {
            panes: panes.len(),
            commands: commands.len(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pane(id: &str, command: PaneCommand) -> Pane {
        Pane {
            session: "loop-x".into(),
            pane_id: id.into(),
            pid: 1,
            dead: false,
            attached: 0,
            command,
            launched_for: None,
        }
    }

    #[test]
    fn tmux_renderings_are_classified() {
        use PaneCommand::*;
        for (rendered, want) in [
            ("", DefaultShell),
            ("/usr/bin/the-loop exec --config /etc/l.yaml --work-item github:o/r#1 -- claude --resume x", Launcher),
            ("\"/opt/my tools/the-loop\" exec --prompt-file /s/p.txt --config \"/a b/c.yaml\" --standing ops -- claude", Launcher),
            ("/usr/bin/the-loop exec --config /c -- claude --work-item x", Other),
            ("claude --session-id 0000-x", Other),
            ("sleep 100000", Other),
            ("bash -c \"exec --work-item\"", Other),
            ("sh -c 'echo \"hi\"'", Other),
        ] {
            assert_eq!(read_start_command(rendered).0, want, "{rendered}");
        }
    }

    /// One reading gives both answers: which kind of pane, and for a
    /// launcher the session it was launched for.
    #[test]
    fn a_launchers_start_command_names_its_session() {
        use crate::registry::SessionKey;
        let work_item = SessionKey::work_item("github:o/r#1").unwrap().tmux_name();
        let standing = SessionKey::Standing("ops".into()).tmux_name();
        for (rendered, want) in [
            (
                "/usr/bin/the-loop exec --config /etc/l.yaml --work-item github:o/r#1 -- claude",
                (PaneCommand::Launcher, Some(work_item)),
            ),
            (
                "\"/opt/my tools/the-loop\" exec --config \"/a b/c.yaml\" --standing ops -- claude",
                (PaneCommand::Launcher, Some(standing)),
            ),
            (
                "/usr/bin/the-loop exec --config /c --work-item -- claude",
                (PaneCommand::Launcher, None),
            ),
            (
                "/usr/bin/the-loop exec --config /c --work-item not-a-ref -- claude",
                (PaneCommand::Launcher, None),
            ),
            (
                "claude --work-item github:o/r#1",
                (PaneCommand::Other, None),
            ),
            ("", (PaneCommand::DefaultShell, None)),
        ] {
            assert_eq!(read_start_command(rendered), want, "{rendered}");
        }
    }

    #[test]
    fn words_undo_tmux_quoting() {
        assert_eq!(
            tmux_words("/bin/sh -c \"exec sleep 1000\" \"a b\" 'c\"d' \\; x\\ y"),
            [
                "/bin/sh",
                "-c",
                "exec sleep 1000",
                "a b",
                "c\"d",
                ";",
                "x y"
            ]
        );
        assert_eq!(tmux_words("a ''"), ["a", ""]);
    }

    #[test]
    fn the_launcher_wins_over_any_listing_order() {
        use PaneCommand::*;
        let panes = [
            pane("%1", DefaultShell),
            pane("%2", Other),
            pane("%0", Launcher),
        ];
        assert_eq!(find(&panes).unwrap().pane_id, "%0");
    }

    #[test]
    fn an_older_sessions_one_command_pane_is_taken_beside_shells() {
        use PaneCommand::*;
        let panes = [pane("%1", DefaultShell), pane("%0", Other)];
        assert_eq!(find(&panes).unwrap().pane_id, "%0");
        assert_eq!(find(&panes[1..]).unwrap().pane_id, "%0");
    }

    #[test]
    fn anything_unclear_is_not_found() {
        use PaneCommand::*;
        assert_eq!(find(&[]), Err(NoHarnessPane::NoPanes));
        assert_eq!(
            find(&[pane("%1", DefaultShell)]),
            Err(NoHarnessPane::Unclear {
                panes: 1,
                commands: 0
            })
        );
        assert_eq!(
            find(&[pane("%1", Other), pane("%2", Other)]),
            Err(NoHarnessPane::Unclear {
                panes: 2,
                commands: 2
            })
        );
        assert_eq!(
            find(&[pane("%1", Launcher), pane("%2", Launcher)]),
            Err(NoHarnessPane::SeveralLaunchers { launchers: 2 })
        );
    }
}
