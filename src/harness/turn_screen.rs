//! What Claude Code's screen says about a turn, read from the pane's
//! capture (`tmux capture-pane -p -e`: the text, and which of it is drawn
//! faint, see [`super::capture`]).
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
//!   (`! ` in shell mode) between the box's two rules, drawn plain; what
//!   Claude Code puts there itself (an example, "Once fixed, resend your
//!   message" after a turn that failed) is drawn faint.
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

/// The start of what Claude Code shows, faint, in an empty prompt box: an
/// example on a fresh conversation, hints about queued messages or another
/// agent, and what it suggests after a turn that ended in an error
/// (offline: "Not logged in", then "Once fixed, resend your message"; the
/// other two are beside it in the binary). Read only where the prompt box
/// shows nothing faint (see [`draft`]): where it does, a hint is told by its
/// faintness, whatever its words.
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
    let capture = super::capture::Capture::parse(screen);
    let lines: Vec<&str> = capture.text().lines().collect();
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
    } else if bottom
        .prompt
        .is_some_and(|p| draft(p, bottom.prompt_at, &capture, &footer))
    {
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
    /// The index of the prompt box's first line among the screen's.
    prompt_at: usize,
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
                prompt_at: 0,
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
                prompt_at: 0,
                menu: &[],
            });
        }
        let menu = before.last().map_or(&[][..], |&rule| &lines[rule + 1..top]);
        Some(Self {
            footer,
            prompt: Some(prompt),
            prompt_at: top + 1,
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

/// Whether the prompt box (its lines `prompt`, the first at `at` in the
/// capture) holds text typed and not sent. Shell mode (`!` typed first) is
/// typed, even with nothing after it. `? for shortcuts` in the footer tells
/// an empty box: Claude Code shows it only then. Otherwise a box that shows
/// something faint tells by the look ([`faint_hint`]); one that shows
/// nothing faint (no hint, or Claude Code drawing without colour, as under
/// `NO_COLOR`, where its cursor is still drawn inverse but a hint plain)
/// by the words of the placeholders known, where one this module does not
/// know reads as a draft: a draft kept by mistake costs a wait, a draft
/// lost costs what was typed.
fn draft(prompt: &[&str], at: usize, capture: &super::capture::Capture, footer: &str) -> bool {
    if prompt.first().is_some_and(|l| l.starts_with('!')) {
        return true;
    }
    if footer.contains("? for shortcuts") {
        return false;
    }
    if let Some(hint) = faint_hint(prompt, at, capture) {
        return !hint;
    }
    let text = words(prompt);
    let text = text.trim_start_matches('❯').trim_start();
    !text.is_empty() && !PLACEHOLDERS.iter().any(|p| text.starts_with(p))
}

/// What the look of the prompt box's characters (past the prompt's `❯`)
/// says: `None` when none is faint; else whether all it holds is a hint,
/// that is whether every character is faint, or inverse (the cursor, which
/// Claude Code draws on a hint's first letter). One drawn plain beside a
/// faint hint was typed.
fn faint_hint(prompt: &[&str], at: usize, capture: &super::capture::Capture) -> Option<bool> {
    let looks: Vec<super::capture::Look> = prompt
        .iter()
        .enumerate()
        .flat_map(|(i, line)| {
            let skip = usize::from(i == 0 && line.starts_with('❯'));
            line.chars()
                .zip(capture.looks(at + i).iter().copied())
                .skip(skip)
                .filter(|(c, _)| !c.is_whitespace())
                .map(|(_, look)| look)
        })
        .collect();
    looks
        .iter()
        .any(|l| l.faint)
        .then(|| looks.iter().all(|l| l.faint || l.inverse))
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
#[path = "turn_screen_tests.rs"]
mod tests;
