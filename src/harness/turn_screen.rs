//! What Claude Code's screen says about a turn, read from the pane's text
//! (`tmux capture-pane -p`).
//!
//! The hooks do not say everything (see `docs/safe-points.md`): Escape or
//! Ctrl-C in the middle of a turn, and No or Esc on a permission dialog,
//! fire no hook at all, so a state built from hooks alone stays `busy` or
//! `waiting` for good; a `!` command fires no `UserPromptSubmit`, so hooks
//! call a harness running one `idle`; and no hook tells of a shell left
//! running in the background or of a prompt typed and not sent. The screen
//! does tell, on 2.1.328 and 2.1.332 alike (fixtures in
//! `tests/it/fixtures/screens/`, the newer release's in its `2.1.332/`):
//!
//! - while a turn runs (API retries, tools, approved tools and `!`
//!   commands), the footer below the prompt box ends with `esc to interrupt`;
//! - a permission dialog takes the prompt box's place: `Do you want to
//!   proceed?`, `Esc to cancel`; `/exit` with work running opens a menu
//!   just above the prompt box (`Background work is running`, `1. Exit and
//!   stop tasks`, `Enter to confirm · Esc to cancel`), and the footer loses
//!   `esc to interrupt` meanwhile, though the turn goes on;
//! - between turns the footer shows the mode (`⏵⏵ auto mode on
//!   (shift+tab to cycle)`, `⏸ manual mode on · ? for shortcuts`), and
//!   `1 shell · ↓ to manage` beside it while a shell the harness started
//!   runs in the background (`run_in_background`, or a tool sent there with
//!   Ctrl-B twice);
//! - text typed and not sent stays in the prompt box, on the `❯ ` line
//!   (`! ` in shell mode) between the box's two rules.
//!
//! Only the bottom is read: the prompt box (between the last two
//! full-width rules, `────`), its footer below, and a menu just above the
//! box; or, with no prompt box, what is below the last rule (a dialog).
//! The conversation above may quote any of these words. A screen that
//! shows none of them is [`TurnScreen::Unknown`], and the hooks' word
//! stands. Only the verdict ever leaves this module, never the captured
//! text.

/// What the bottom of the screen says about a turn.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum TurnScreen {
    /// `esc to interrupt`: a turn (or a `!` command) is running.
    Running,
    /// A dialog or menu waits for a person (`Do you want to proceed?`,
    /// `Esc to cancel`, numbered options with `Enter to confirm`).
    Asking,
    /// Between turns, but work the harness started still runs in the
    /// background (Claude Code's footer: `1 shell`): ending the harness
    /// would end it.
    Background,
    /// Between turns, with text typed in the prompt box and not sent: a
    /// draft, which exists nowhere but on screen.
    Draft,
    /// The footer shows only the permission mode: between turns.
    Between,
    /// None of these: a start-up screen, another harness, a shell.
    Unknown,
}

/// Words of the footer between turns (any permission mode; `! for shell
/// mode` once a `!` is typed).
const BETWEEN: [&str; 5] = [
    "? for shortcuts",
    "shift+tab to cycle",
    "mode on",
    "accept edits on",
    "for shell mode",
];

/// The word after the number that counts background work in the footer
/// (`1 shell`, `2 shells, 1 monitor`, `1 background agent`, `1 MCP task`).
/// Cloud sessions are left out: they run elsewhere and outlive the harness.
const BACKGROUND: [&str; 8] = [
    "shell",
    "shells",
    "monitor",
    "monitors",
    "background",
    "team",
    "teams",
    "MCP",
];

/// The start of what Claude Code shows, dimmed, in an empty prompt box (the
/// dimness is not captured): an example on a fresh conversation, hints
/// about queued messages or another agent, and what it suggests after a
/// turn that ended in an error (offline: "Not logged in", then "Once fixed,
/// resend your message"; the other two are beside it in the binary).
const PLACEHOLDERS: [&str; 8] = [
    "Try \"",
    "Press up to ",
    "Press Enter to edit the selected message",
    "Taking your message back",
    "Message @",
    "Once fixed, resend your message",
    "Resend your message to try again",
    "Run /rewind to go back",
];

/// Reads the screen's bottom (see the module's doc). A dialog or menu comes
/// first (a menu hides `esc to interrupt` while the turn goes on), then a
/// running turn, then work left in the background, then a draft.
pub fn turn_screen(screen: &str) -> TurnScreen {
    let lines: Vec<&str> = screen.lines().collect();
    let Some(bottom) = Bottom::read(&lines) else {
        return TurnScreen::Unknown;
    };
    let footer = words(bottom.footer);
    if footer.contains("Do you want to proceed?")
        || footer.contains("Esc to cancel")
        || is_menu(bottom.footer)
        || is_menu(bottom.menu)
    {
        TurnScreen::Asking
    } else if footer.contains("esc to interrupt") {
        TurnScreen::Running
    } else if background(&footer) {
        TurnScreen::Background
    } else if !BETWEEN.iter().any(|w| footer.contains(w)) {
        TurnScreen::Unknown
    } else if bottom.prompt.is_some_and(|p| draft(p, &footer)) {
        TurnScreen::Draft
    } else {
        TurnScreen::Between
    }
}

/// The parts of the screen's bottom, as lines.
struct Bottom<'a> {
    /// Below the last rule: the prompt box's footer, or a dialog in the
    /// box's place.
    footer: &'a [&'a str],
    /// Between the last two rules, when that is the prompt box: it starts
    /// with the prompt's `❯` (`!` in shell mode), at the line's start.
    prompt: Option<&'a [&'a str]>,
    /// Just above the prompt box, up to the rule before it: where Claude
    /// Code opens a menu (empty without a prompt box or that rule).
    menu: &'a [&'a str],
}

impl<'a> Bottom<'a> {
    fn read(lines: &'a [&'a str]) -> Option<Self> {
        let rules: Vec<usize> = (0..lines.len()).filter(|&i| is_rule(lines[i])).collect();
        let (&last, before) = rules.split_last()?;
        let footer = &lines[last + 1..];
        let Some((&top, before)) = before.split_last() else {
            return Some(Self {
                footer,
                prompt: None,
                menu: &[],
            });
        };
        let prompt = &lines[top + 1..last];
        let is_prompt = prompt
            .first()
            .is_some_and(|l| l.starts_with('❯') || l.starts_with('!'));
        if !is_prompt {
            return Some(Self {
                footer,
                prompt: None,
                menu: &[],
            });
        }
        let menu = before.last().map_or(&[][..], |&rule| &lines[rule + 1..top]);
        Some(Self {
            footer,
            prompt: Some(prompt),
            menu,
        })
    }
}

/// A menu's lines: numbered options (`❯ 1. Exit and stop tasks`), and its
/// keys (`Enter to confirm · Esc to cancel`) on its last line, as Claude
/// Code draws every menu. Only the last line is taken for the keys, so that
/// a conversation that merely mentions them is not read as a menu.
fn is_menu(lines: &[&str]) -> bool {
    let Some(keys) = lines.iter().rev().find(|l| !l.trim().is_empty()) else {
        return false;
    };
    let keys = words(&[keys]);
    let numbered = lines.iter().any(|l| {
        let option = l.trim_start().trim_start_matches('❯').trim_start();
        let digits = option.chars().take_while(char::is_ascii_digit).count();
        digits > 0 && option[digits..].starts_with(". ")
    });
    numbered && (keys.contains("Enter to confirm") || keys.contains("Esc to cancel"))
}

/// Whether the footer counts work in the background (`1 shell`): a part
/// of it, between `·`, that is a number and a word of [`BACKGROUND`].
fn background(footer: &str) -> bool {
    footer.split('·').any(|part| {
        let mut words = part.split_whitespace();
        let counted = words.next().is_some_and(|n| n.parse::<u32>().is_ok());
        counted
            && words
                .next()
                .is_some_and(|w| BACKGROUND.contains(&w.trim_end_matches(',')))
    })
}

/// Whether the prompt box holds text typed and not sent. Shell mode (`!`
/// typed first) is typed, even with nothing after it. Claude Code's
/// placeholder in an empty box is not, and `? for shortcuts` in the footer
/// tells an empty box: Claude Code shows it only then. A placeholder this
/// module does not know (a suggested next prompt) reads as a draft: a
/// draft kept by mistake costs a wait, a draft lost costs what was typed.
fn draft(prompt: &[&str], footer: &str) -> bool {
    if prompt.first().is_some_and(|l| l.starts_with('!')) {
        return true;
    }
    let text = words(prompt);
    let text = text.trim_start_matches('❯').trim_start();
    !text.is_empty()
        && !footer.contains("? for shortcuts")
        && !PLACEHOLDERS.iter().any(|p| text.starts_with(p))
}

/// The lines' words, joined by one space.
fn words(lines: &[&str]) -> String {
    lines
        .iter()
        .flat_map(|l| l.split_whitespace())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A line of box-drawing `─` only, at least 20 wide (the prompt box's).
fn is_rule(line: &str) -> bool {
    let line = line.trim();
    line.chars().count() >= 20 && line.chars().all(|c| c == '─')
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::harness::screens::tests::fixture;

    /// What each captured screen says, on both releases (the newer one's
    /// in `2.1.332/`, where captured).
    const SCREENS: [(&str, TurnScreen); 18] = [
        ("turn-running.txt", TurnScreen::Running),
        ("bang-running.txt", TurnScreen::Running),
        ("interrupted.txt", TurnScreen::Between),
        ("idle-manual.txt", TurnScreen::Between),
        ("permission-cancelled.txt", TurnScreen::Between),
        ("permission-dialog.txt", TurnScreen::Asking),
        ("auto-mode-menu.txt", TurnScreen::Unknown),
        ("exit-menu-manual.txt", TurnScreen::Asking),
        ("exit-menu-auto.txt", TurnScreen::Asking),
        ("exit-menu-accept-edits.txt", TurnScreen::Asking),
        ("background-shell.txt", TurnScreen::Background),
        ("background-ctrl-b.txt", TurnScreen::Background),
        ("draft.txt", TurnScreen::Draft),
        ("draft-manual.txt", TurnScreen::Draft),
        ("draft-shell.txt", TurnScreen::Draft),
        ("prompt.txt", TurnScreen::Between),
        ("auto-mode-billing-notice.txt", TurnScreen::Asking),
        ("api-key-dialog.txt", TurnScreen::Asking),
    ];

    #[test]
    fn real_claude_code_screens_tell_the_turn() {
        for (file, want) in SCREENS {
            assert_eq!(turn_screen(&fixture(file)), want, "{file}");
        }
        assert_eq!(
            turn_screen(&fixture("unable-to-connect.txt")),
            TurnScreen::Unknown
        );
    }

    #[test]
    fn the_newest_release_shows_the_same() {
        for (file, want) in &SCREENS[..15] {
            let screen = fixture(&format!("2.1.332/{file}"));
            assert_eq!(turn_screen(&screen), *want, "2.1.332/{file}");
        }
        let menu = fixture("2.1.332/auto-mode-menu.txt");
        assert_eq!(
            super::super::screens::blocking_screen(&menu),
            Some(super::super::screens::BlockingScreen::AutoModeMenu)
        );
    }

    /// A screen of a conversation, the prompt box (`❯ ` and what it holds)
    /// and its footer.
    fn screen(conversation: &str, prompt: &str, footer: &str) -> String {
        let rule = "─".repeat(40);
        format!("{conversation}\n{rule}\n{prompt}\n{rule}\n  {footer}\n")
    }

    #[test]
    fn the_conversation_above_the_prompt_box_is_not_read() {
        let quoted = "❯ what do esc to interrupt, 1 shell · ↓ to manage mean?\n\
            ● Do you want to proceed? Background work is running\n  \
            ❯ 1. Exit and stop tasks\n  Enter to confirm · Esc to cancel\n\
            ❯ half a thought about the\n✻ Baked for 1s";
        let footer = "⏸ manual mode on · ? for shortcuts";
        assert_eq!(
            turn_screen(&screen(quoted, "❯ ", footer)),
            TurnScreen::Between
        );
        // Nor is it read when the conversation holds a rule of its own.
        let ruled = format!("{}\n{quoted}", "─".repeat(40));
        assert_eq!(
            turn_screen(&screen(&ruled, "❯ ", footer)),
            TurnScreen::Between
        );
        assert_eq!(turn_screen("esc to interrupt"), TurnScreen::Unknown);
        assert_eq!(turn_screen(""), TurnScreen::Unknown);
    }

    #[test]
    fn a_menu_counts_just_above_the_prompt_box_and_ended_by_its_keys() {
        let rule = "─".repeat(40);
        let menu = format!(
            "● tick\n{rule}\n  Background work is running\n  ❯ 1. Exit and stop tasks\n    \
             3. Stay\n\n  Enter to confirm · Esc to cancel\n"
        );
        let footer = "⏵⏵ auto mode on";
        assert_eq!(
            turn_screen(&screen(&menu, "❯ ", footer)),
            TurnScreen::Asking
        );
        // Its keys must end it: one line more, and it is conversation.
        let more = format!("{menu}✻ Baked for 1s");
        assert_eq!(
            turn_screen(&screen(&more, "❯ ", footer)),
            TurnScreen::Between
        );
    }

    #[test]
    fn asking_then_running_then_background_then_draft() {
        let menu = format!(
            "{}\n  ❯ 1. Exit and stop tasks\n  Enter to confirm · Esc to cancel",
            "─".repeat(40)
        );
        let running = "⏸ manual mode on · esc to interrupt · 1 shell";
        let background = "⏸ manual mode on · 2 shells, 1 monitor · ↓ to manage";
        for (conversation, prompt, footer, want) in [
            (menu.as_str(), "❯ a draft", running, TurnScreen::Asking),
            ("● tick", "❯ a draft", running, TurnScreen::Running),
            ("● done.", "❯ a draft", background, TurnScreen::Background),
            (
                "● done.",
                "❯ a draft",
                "⏸ manual mode on",
                TurnScreen::Draft,
            ),
            ("● done.", "❯ ", "⏸ manual mode on", TurnScreen::Between),
        ] {
            let screen = screen(conversation, prompt, footer);
            assert_eq!(turn_screen(&screen), want, "{footer}: {prompt}");
        }
    }

    #[test]
    fn a_placeholder_is_no_draft_and_a_hidden_footer_tells_nothing() {
        let auto = "⏵⏵ auto mode on (shift+tab to cycle)";
        for (prompt, footer, want) in [
            ("❯ Try \"fix lint errors\"", auto, TurnScreen::Between),
            (
                "❯ Press up to edit queued messages",
                auto,
                TurnScreen::Between,
            ),
            // After a turn that ended in an error (offline: not logged in).
            (
                "❯\u{a0}Once fixed, resend your message",
                auto,
                TurnScreen::Between,
            ),
            // `? for shortcuts` shows only on an empty box.
            (
                "❯ any hint",
                "⏸ manual mode on · ? for shortcuts",
                TurnScreen::Between,
            ),
            // A draft of several lines; its first may be empty.
            ("❯ \n  second line", auto, TurnScreen::Draft),
            // Shell mode, nothing typed after the `!` yet.
            ("! ", "! for shell mode", TurnScreen::Draft),
            // Completions in the footer's place: the hooks' word stands.
            ("❯ /ex", "/exit  Exit the REPL", TurnScreen::Unknown),
        ] {
            let screen = screen("● done.", prompt, footer);
            assert_eq!(turn_screen(&screen), want, "{prompt}");
        }
    }
}
