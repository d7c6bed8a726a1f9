//! Whether Claude Code's screen shows a running turn, read from the pane's
//! text (`tmux capture-pane -p`).
//!
//! The hooks do not say everything (see `docs/safe-points.md`): Escape or
//! Ctrl-C in the middle of a turn, and No or Esc on a permission dialog,
//! fire no hook at all, so a state built from hooks alone stays `busy` or
//! `waiting` for good; and a `!` command fires no `UserPromptSubmit`, so
//! hooks call a harness running one `idle`. The screen does tell, on
//! 2.1.328 and 2.1.332 alike (fixtures in `tests/it/fixtures/screens/`, the
//! newer release's in its `2.1.332/`):
//!
//! - while a turn runs (API retries, tools, approved tools and `!`
//!   commands), the footer below the prompt box ends with `esc to interrupt`;
//! - a permission dialog shows `Do you want to proceed?` and `Esc to cancel`;
//! - between turns the footer shows only the mode (`⏵⏵ auto mode on
//!   (shift+tab to cycle)`, `⏸ manual mode on · ? for shortcuts`).
//!
//! Only the part below the last full-width rule (`────`) is read: the
//! conversation above it may quote any of these words. A screen that shows
//! none of them is [`TurnScreen::Unknown`], and the hooks' word stands.
//! Only the verdict ever leaves this module, never the captured text.

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

/// Words of the footer between turns (any permission mode).
const BETWEEN: [&str; 3] = ["? for shortcuts", "shift+tab to cycle", "mode on"];

/// Reads the screen's bottom, below its last full-width rule.
pub fn turn_screen(screen: &str) -> TurnScreen {
    let lines: Vec<&str> = screen.lines().collect();
    let Some(rule) = lines.iter().rposition(|l| is_rule(l)) else {
        return TurnScreen::Unknown;
    };
    let bottom = lines[rule + 1..]
        .iter()
        .flat_map(|l| l.split_whitespace())
        .collect::<Vec<_>>()
        .join(" ");
    if bottom.contains("Do you want to proceed?") || bottom.contains("Esc to cancel") {
        TurnScreen::Asking
    } else if bottom.contains("esc to interrupt") {
        TurnScreen::Running
    } else if BETWEEN.iter().any(|w| bottom.contains(w)) {
        TurnScreen::Between
    } else {
        TurnScreen::Unknown
    }
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

    #[test]
    fn real_claude_code_screens_tell_the_turn() {
        for (file, want) in [
            ("turn-running.txt", TurnScreen::Running),
            ("bang-running.txt", TurnScreen::Running),
            ("interrupted.txt", TurnScreen::Between),
            ("idle-manual.txt", TurnScreen::Between),
            ("permission-cancelled.txt", TurnScreen::Between),
            ("permission-dialog.txt", TurnScreen::Asking),
            ("auto-mode-billing-notice.txt", TurnScreen::Asking),
            ("auto-mode-menu.txt", TurnScreen::Unknown),
            ("api-key-dialog.txt", TurnScreen::Asking),
            ("unable-to-connect.txt", TurnScreen::Unknown),
        ] {
            assert_eq!(turn_screen(&fixture(file)), want, "{file}");
        }
    }

    #[test]
    fn the_newest_release_shows_the_same() {
        for (file, want) in [
            ("turn-running.txt", TurnScreen::Running),
            ("bang-running.txt", TurnScreen::Running),
            ("interrupted.txt", TurnScreen::Between),
            ("idle-manual.txt", TurnScreen::Between),
            ("permission-cancelled.txt", TurnScreen::Between),
            ("permission-dialog.txt", TurnScreen::Asking),
            ("auto-mode-menu.txt", TurnScreen::Unknown),
        ] {
            let screen = fixture(&format!("2.1.332/{file}"));
            assert_eq!(turn_screen(&screen), want, "2.1.332/{file}");
        }
        let menu = fixture("2.1.332/auto-mode-menu.txt");
        assert_eq!(
            super::super::screens::blocking_screen(&menu),
            Some(super::super::screens::BlockingScreen::AutoModeMenu)
        );
    }

    #[test]
    fn the_conversation_above_the_rule_is_not_read() {
        let quoted = format!(
            "❯ what does esc to interrupt mean? Do you want to proceed?\n{}\n❯ \n{}\n  ⏸ manual mode on · ? for shortcuts\n",
            "─".repeat(40),
            "─".repeat(40)
        );
        assert_eq!(turn_screen(&quoted), TurnScreen::Between);
        assert_eq!(turn_screen("esc to interrupt"), TurnScreen::Unknown);
        assert_eq!(turn_screen(""), TurnScreen::Unknown);
    }
}
