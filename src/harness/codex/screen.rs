//! What Codex's screen says, read from the pane's text (`tmux
//! capture-pane -p`): a screen that waits for a person before the prompt,
//! and whether a turn runs.
//!
//! The phrases are Codex 0.171.0's, captured offline in tmux (fixtures in
//! `tests/it/fixtures/screens/codex/`), except the login screen, which this
//! machine's Codex never showed (a provider with `env_key` needs no login);
//! its words come from the same binary. Only a verdict leaves this module,
//! never the captured text.

use crate::harness::screens::BlockingScreen;
use crate::harness::turn_screen::TurnScreen;

/// Each screen with phrases that all appear on it.
const SIGNS: [(BlockingScreen, &[&str]); 6] = [
    (BlockingScreen::TrustDialog, &["Trust this folder?"]),
    (BlockingScreen::HooksReview, &["Hooks need review"]),
    (
        BlockingScreen::ResumeDirectory,
        &["Working directory · resume", "Use session directory"],
    ),
    (
        BlockingScreen::NoConversation,
        &["No saved session found with ID"],
    ),
    (
        BlockingScreen::ActiveWriter,
        &["already has an active writer"],
    ),
    (
        BlockingScreen::LoginPrompt,
        &["Sign in with ChatGPT", "API key"],
    ),
];

/// The known screen, if any, that stops Codex before its prompt.
pub fn blocking_screen(screen: &str) -> Option<BlockingScreen> {
    let text = screen.split_whitespace().collect::<Vec<_>>().join(" ");
    SIGNS
        .iter()
        .find(|(_, phrases)| phrases.iter().all(|p| text.contains(p)))
        .map(|(screen, _)| *screen)
}

/// Codex draws its composer as a line starting with `›`, its status (`•
/// Working (3s • esc to interrupt)`) on the lines just above it while a
/// turn or a `!` command runs, and its footer (`? for shortcuts`) below.
/// Only those lines are read: the conversation above may quote anything.
pub fn turn_screen(screen: &str) -> TurnScreen {
    let lines: Vec<&str> = screen.lines().collect();
    let Some(composer) = lines.iter().rposition(|l| l.trim_start().starts_with('›')) else {
        return TurnScreen::Unknown;
    };
    // The status line, `• Working (3s • esc to interrupt)`, is one of the
    // two lines above the composer (a detail line may follow it), below
    // the last message the person typed.
    let running = lines[..composer]
        .iter()
        .rev()
        .filter(|l| !l.trim().is_empty())
        .take(2)
        .take_while(|l| !l.trim_start().starts_with('›'))
        .any(|l| l.trim_start().starts_with('•') && l.trim_end().ends_with("esc to interrupt)"));
    if running {
        return TurnScreen::Running;
    }
    let footer = lines[composer + 1..].join(" ");
    if footer.contains("for shortcuts") {
        TurnScreen::Between
    } else {
        TurnScreen::Unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> String {
        let path = format!(
            "{}/tests/it/fixtures/screens/codex/{name}.txt",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    #[test]
    fn each_captured_screen_is_named() {
        for (name, want) in [
            ("trust", Some(BlockingScreen::TrustDialog)),
            ("hooks-review", Some(BlockingScreen::HooksReview)),
            ("resume-directory", Some(BlockingScreen::ResumeDirectory)),
            ("no-session", Some(BlockingScreen::NoConversation)),
            ("prompt", None),
            ("working", None),
            ("resumed", None),
        ] {
            assert_eq!(blocking_screen(&fixture(name)), want, "{name}");
        }
    }

    #[test]
    fn a_running_turn_is_read_above_the_composer_only() {
        assert_eq!(turn_screen(&fixture("working")), TurnScreen::Running);
        assert_eq!(turn_screen(&fixture("prompt")), TurnScreen::Between);
        assert_eq!(turn_screen(&fixture("resumed")), TurnScreen::Between);
        assert_eq!(turn_screen(&fixture("trust")), TurnScreen::Unknown);
        // A conversation that quotes the words is not a running turn.
        let quoted =
            "› esc to interrupt\n• Ran it\n\n› Ask Codex to do anything\n  ? for shortcuts\n";
        assert_eq!(turn_screen(quoted), TurnScreen::Between);
    }
}
