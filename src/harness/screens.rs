//! Screens that stop a harness before its prompt (Claude Code's are read
//! here, Codex's in `codex/screen.rs`), read from the pane's
//! text (`tmux capture-pane -p`).
//!
//! A harness stopped at one of these is live, and its environment may well
//! verify, yet it does nothing until a person answers. The readiness check
//! names the screen instead of calling the session ready.
//!
//! The texts are Claude Code 2.1.328's, captured offline in tmux (the
//! fixtures are in `tests/it/fixtures/screens/`), except the login prompt,
//! which needs the network to reach; its words come from the same binary.
//! Matching is on phrases with all whitespace runs made one space, because
//! the TUI wraps long lines at the pane's width.
//!
//! Only the screen's name ever leaves this module: the API-key dialog shows
//! the end of the key it found, so the captured text is never printed,
//! logged or stored.

/// A known screen that waits for a person.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BlockingScreen {
    /// "Is this a project you created or one you trust?"
    TrustDialog,
    /// "Detected a custom API key in your environment": the default answer
    /// is No, so a rotated key leaves the session here.
    ApiKeyDialog,
    /// "Select login method": no usable credentials.
    LoginPrompt,
    /// "No conversation found with session ID": the resume found no
    /// transcript (in the CLI's own printout on a dead pane).
    NoConversation,
    /// "Resume session": a picker, shown by `--resume` without a usable id.
    ResumePicker,
    /// "Make auto mode your default permission mode?": a one-time menu on
    /// the first start under a manual permission mode, shown after
    /// `SessionStart` has already fired.
    AutoModeMenu,
    /// Codex's "Hooks need review": hooks it has not been told to trust
    /// (the-loop pre-seeds the trust of its own; someone else's changed).
    HooksReview,
    /// Codex's "Working directory · resume": a resume from another
    /// directory than the conversation's.
    ResumeDirectory,
    /// Codex's "already has an active writer": the conversation is still
    /// open in another process.
    ActiveWriter,
}

impl BlockingScreen {
    pub fn name(self) -> &'static str {
        match self {
            BlockingScreen::TrustDialog => "trust dialog",
            BlockingScreen::ApiKeyDialog => "API-key dialog",
            BlockingScreen::LoginPrompt => "login prompt",
            BlockingScreen::NoConversation => "no conversation found",
            BlockingScreen::ResumePicker => "resume picker",
            BlockingScreen::AutoModeMenu => "auto-mode menu",
            BlockingScreen::HooksReview => "hooks review",
            BlockingScreen::ResumeDirectory => "resume directory chooser",
            BlockingScreen::ActiveWriter => "active writer",
        }
    }
}

impl std::fmt::Display for BlockingScreen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Each screen with phrases that all appear on it.
const SIGNS: [(BlockingScreen, &[&str]); 7] = [
    (
        BlockingScreen::ApiKeyDialog,
        &[
            "Detected a custom API key in your environment",
            "Do you want to use this API key?",
        ],
    ),
    (
        BlockingScreen::TrustDialog,
        &["Yes, I trust this folder", "No, exit"],
    ),
    // Older releases' wording of the same dialog.
    (
        BlockingScreen::TrustDialog,
        &["Do you trust the files in this folder?"],
    ),
    (
        BlockingScreen::LoginPrompt,
        &["Select login method:", "Claude account with subscription"],
    ),
    (
        BlockingScreen::NoConversation,
        &["No conversation found with session ID"],
    ),
    (
        BlockingScreen::ResumePicker,
        &["Resume session", "Enter to resume"],
    ),
    (
        BlockingScreen::AutoModeMenu,
        &[
            "Make auto mode your default permission mode?",
            "No, keep manual mode",
        ],
    ),
];

/// The blocking screen the pane shows, if any.
pub fn blocking_screen(screen: &str) -> Option<BlockingScreen> {
    let flat = screen.split_whitespace().collect::<Vec<_>>().join(" ");
    SIGNS
        .iter()
        .find(|(_, phrases)| phrases.iter().all(|p| flat.contains(p)))
        .map(|(screen, _)| *screen)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A screen captured from the real CLI (`tests/it/fixtures/screens/`).
    pub(crate) fn fixture(name: &str) -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/it/fixtures/screens")
            .join(name);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    #[test]
    fn real_claude_code_screens_are_named() {
        let cases = [
            ("api-key-dialog.txt", Some(BlockingScreen::ApiKeyDialog)),
            ("trust-dialog.txt", Some(BlockingScreen::TrustDialog)),
            ("no-conversation.txt", Some(BlockingScreen::NoConversation)),
            ("resume-picker.txt", Some(BlockingScreen::ResumePicker)),
            ("auto-mode-menu.txt", Some(BlockingScreen::AutoModeMenu)),
            ("turn-running.txt", None),
            ("permission-dialog.txt", None),
            ("prompt.txt", None),
            ("resumed-conversation.txt", None),
            ("unable-to-connect.txt", None),
        ];
        for (file, want) in cases {
            assert_eq!(blocking_screen(&fixture(file)), want, "{file}");
        }
    }

    #[test]
    fn a_narrow_pane_wraps_the_phrases() {
        let narrow =
            "Select login\n method:\n\n 1. Claude account with\n    subscription · Pro, Max\n";
        assert_eq!(blocking_screen(narrow), Some(BlockingScreen::LoginPrompt));
        let old = "│ Do you trust the files in │\n│ this folder?  │";
        // A box border between the words is not whitespace: not matched,
        // rather than guessed at.
        assert_eq!(blocking_screen(old), None);
        assert_eq!(
            blocking_screen("Do you trust the files in\nthis folder?"),
            Some(BlockingScreen::TrustDialog)
        );
    }

    #[test]
    fn a_conversation_quoting_a_screen_is_not_the_screen() {
        // One phrase alone (say, an agent discussing the dialog) is not enough.
        let quoted = "❯ why did it say Detected a custom API key in your environment?\n";
        assert_eq!(blocking_screen(quoted), None);
        assert_eq!(blocking_screen(""), None);
    }

    #[test]
    fn names_are_stable() {
        assert_eq!(BlockingScreen::ApiKeyDialog.to_string(), "API-key dialog");
        assert_eq!(
            serde_json::to_string(&BlockingScreen::NoConversation).unwrap(),
            "\"no-conversation\""
        );
    }
}
