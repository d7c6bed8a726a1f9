//! What Codex's screen says, read from the pane's text (`tmux
//! capture-pane -p`, or `-p -e` with its attributes set aside): a screen
//! that waits for a person before the prompt, whether a turn runs, and
//! whether the composer holds a draft.
//!
//! The phrases are Codex 0.171.0's, captured in tmux (fixtures in
//! `tests/it/fixtures/screens/codex/`; the turns ran against
//! `tests/it/support/responses-api`), except the login screen, which this
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

/// The composer's text when it holds none (dim on screen, plain in the
/// captured text). Only the first was seen; the second sits beside it
/// among the binary's strings, a placeholder too by its words.
const PLACEHOLDERS: [&str; 2] = ["Ask Codex to do anything", "Ask a follow-up question"];

/// How Codex's approval dialogs ask (to run a command, make edits, grant
/// permissions, approve network access, send input to a terminal).
const QUESTIONS: [&str; 2] = ["Would you like to", "Do you want to"];

/// The composer's line: the last that starts, in the first column, with
/// `›` (or `!` in shell mode, after a `!` typed first). The person's
/// prompts in the conversation and a slash command's menu start with `›`
/// too, but sit above it; everything Codex writes itself is indented or
/// starts with a mark (`•`, `■`, `✔`). A dialog's chosen line (`› 1. Yes,
/// proceed`) starts so as well: [`dialog_hint`] tells those apart.
fn composer(lines: &[&str]) -> Option<usize> {
    lines
        .iter()
        .rposition(|l| l.starts_with('›') || l.starts_with('!'))
}

/// The hint a dialog ends with (`enter confirm · esc skip`, `Press enter to
/// confirm or esc to cancel`): the screen's last words are a dialog's,
/// where the composer's footer would be.
fn dialog_hint<'a>(lines: &[&'a str]) -> Option<&'a str> {
    let last = lines.iter().rev().find(|l| !l.trim().is_empty())?;
    (last.contains("enter") && last.contains("esc")).then_some(*last)
}

/// The status line of a running turn or `!` command, `• Working (3s • esc
/// to interrupt)` (also `Reconnecting... 1/5 (…)`). Its bullet blinks: `•`
/// and `◦` take turns, so either may be captured.
fn is_status(line: &str) -> bool {
    (line.starts_with('•') || line.starts_with('◦'))
        && line.trim_end().ends_with("esc to interrupt)")
}

/// A line that closes a turn in the conversation: `  Worked for 3s • 10:42`
/// below a finished turn or `!` command (a resume redraws them), `■
/// Conversation interrupted …` after Escape, Ctrl-C or a declined
/// approval, `■ …` after an error.
fn ends_turn(line: &str) -> bool {
    line.starts_with('■') || line.trim_start().starts_with("Worked for ")
}

/// A cell of the conversation written by Codex: an answer, a command it
/// ran, a note (`• done.`, `• Ran touch x`).
fn is_cell(line: &str) -> bool {
    line.starts_with('•') || line.starts_with('◦')
}

/// Reads the bottom of the screen, around the composer (`› Ask Codex to do
/// anything`, its footer `? for shortcuts` below).
///
/// - A running turn or `!` command shows its status line above the
///   composer, below the last prompt (a queue of follow-ups may sit
///   between them); with a draft typed meanwhile the footer says `tab to
///   queue message`.
/// - An approval dialog takes the composer's place and ends with `Press
///   enter to confirm or esc to cancel`.
/// - Between turns only when the conversation's last cell is closed by a
///   turn's end, or there is no cell yet: while an answer streams Codex
///   hides its status line, and the screen then looks like a finished
///   turn without its `Worked for` line. That screen is
///   [`TurnScreen::Unknown`]: the hooks' word stands, and a turn in flight
///   is never taken for an interrupted one.
pub fn turn_screen(screen: &str) -> TurnScreen {
    // Only the text is read (`capture-pane -e` adds the attributes).
    let capture = crate::harness::capture::Capture::parse(screen);
    let screen = capture.text();
    match turn(screen) {
        TurnScreen::Between if draft(screen) => TurnScreen::Draft,
        verdict => verdict,
    }
}

/// [`turn_screen`] before a draft is looked for.
fn turn(screen: &str) -> TurnScreen {
    let lines: Vec<&str> = screen.lines().collect();
    if let Some(hint) = dialog_hint(&lines) {
        let text = screen.split_whitespace().collect::<Vec<_>>().join(" ");
        let asking = hint.contains("esc to cancel") && QUESTIONS.iter().any(|q| text.contains(q));
        return if asking {
            TurnScreen::Asking
        } else {
            TurnScreen::Unknown
        };
    }
    let Some(composer) = composer(&lines) else {
        return TurnScreen::Unknown;
    };
    let above = &lines[..composer];
    let footer = lines[composer + 1..].join(" ");
    // Only this turn's lines are read for the status: an earlier turn's
    // answer may quote it, and a finished turn ends with its own line.
    let running = above
        .iter()
        .rev()
        .take_while(|l| !l.starts_with('›') && !ends_turn(l))
        .any(|l| is_status(l));
    if running || footer.contains("tab to queue message") {
        return TurnScreen::Running;
    }
    let composing =
        footer.contains("for shortcuts") || footer.contains("Shell mode") || draft(screen);
    let closed = match above.iter().rposition(|l| is_cell(l)) {
        None => true,
        Some(cell) => above
            .iter()
            .rposition(|l| ends_turn(l))
            .is_some_and(|end| end > cell),
    };
    if composing && closed {
        TurnScreen::Between
    } else {
        TurnScreen::Unknown
    }
}

/// Whether the composer holds text the person typed rather than Codex's
/// placeholder. Shell mode (a `!` typed first) counts as typed, even with
/// nothing after the `!`: what is typed next runs as a shell command. A
/// dialog's screen holds no draft. Text typed to equal the placeholder
/// cannot be told from it (the placeholder's dimness is not captured).
pub fn draft(screen: &str) -> bool {
    let lines: Vec<&str> = screen.lines().collect();
    if dialog_hint(&lines).is_some() {
        return false;
    }
    let Some(composer) = composer(&lines) else {
        return false;
    };
    if lines[composer].starts_with('!') {
        return true;
    }
    // A draft of several lines goes on, indented, right below.
    let text = std::iter::once(lines[composer].trim_start_matches('›'))
        .chain(
            lines[composer + 1..]
                .iter()
                .copied()
                .take_while(|l| !l.trim().is_empty()),
        )
        .flat_map(str::split_whitespace)
        .collect::<Vec<_>>()
        .join(" ");
    !text.is_empty() && !PLACEHOLDERS.contains(&text.as_str())
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
            ("turn-running", None),
            ("bang-running", None),
            ("approval", None),
            ("interrupted", None),
            ("draft", None),
            ("idle-after-turn", None),
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
        // A conversation that quotes the words is not a running turn (a
        // finished turn ends with its `Worked for` line).
        let quoted = "› esc to interrupt\n• Working (1s • esc to interrupt)\n\
                      \x20 Worked for 1s • 10:00\n\n› Ask Codex to do anything\n\n  ? for shortcuts\n";
        assert_eq!(turn_screen(quoted), TurnScreen::Between);
    }

    #[test]
    fn each_turn_captured_on_0_171_is_read() {
        for (name, want) in [
            ("turn-running", TurnScreen::Running),
            ("bang-running", TurnScreen::Running),
            ("approval", TurnScreen::Asking),
            ("interrupted", TurnScreen::Between),
            ("draft", TurnScreen::Draft),
            ("idle-after-turn", TurnScreen::Between),
            ("hooks-review", TurnScreen::Unknown),
            ("resume-directory", TurnScreen::Unknown),
        ] {
            assert_eq!(turn_screen(&fixture(name)), want, "{name}");
        }
    }

    // The screens below are the bottoms of real captures (0.171.0, the
    // stand-in's turns), cut to what the readers look at.

    #[test]
    fn a_queue_of_follow_ups_or_a_draft_does_not_hide_a_running_turn() {
        let queued = "› wait 30 seconds\n\n\n◦ Working (3s • esc to interrupt)\n\n\
                      • Queued follow-up inputs\n  ↳ queued one\n    shift+← edit last queued message\n\n\n\
                      › Ask Codex to do anything\n\n  gpt-5 default · /p\n  ← for agents · ? for shortcuts\n";
        assert_eq!(turn_screen(queued), TurnScreen::Running);
        // While the answer streams the status line is hidden; the footer
        // under a draft still tells.
        let streaming = "  Worked for 30s • 03:40\n\n› be slow\n\n• tick tick tick\n\n\n\
                         › a follow-up\n\n  gpt-5 default · /p\n  tab to queue message\n";
        assert_eq!(turn_screen(streaming), TurnScreen::Running);
        assert!(draft(streaming));
    }

    #[test]
    fn a_streaming_answer_is_not_taken_for_the_end_of_its_turn() {
        let streaming = "  Worked for 30s • 03:40\n\n› be slow\n\n• tick tick tick\n\n\n\
                         › Ask Codex to do anything\n\n  gpt-5 default · /p\n  ← for agents · ? for shortcuts\n";
        assert_eq!(turn_screen(streaming), TurnScreen::Unknown);
        let finished = streaming.replace("tick\n", "tick\n  Worked for 5s • 03:41\n");
        assert_eq!(turn_screen(&finished), TurnScreen::Between);
    }

    #[test]
    fn a_draft_is_typed_text_in_the_composer() {
        let shell = "  Worked for 30s • 03:40\n\n! echo hi\n\n  gpt-5 default · /p\n   Shell mode · ⚠ 4 warnings\n";
        assert!(draft(shell));
        assert_eq!(turn_screen(shell), TurnScreen::Draft);
        // A slash command's menu sits above the composer and starts with `›` too.
        let menu = "• done.\n\n  Worked for <1s • 03:43\n\n› /new  start a new chat during a conversation\n\n\
                    › /ne\n\n  gpt-5 default · /p\n";
        assert!(draft(menu));
        assert_eq!(turn_screen(menu), TurnScreen::Draft);
        assert!(draft(&fixture("draft")));
        for name in [
            "prompt",
            "idle-after-turn",
            "approval",
            "trust",
            "turn-running",
        ] {
            assert!(!draft(&fixture(name)), "{name}");
        }
        let follow_up = "› Ask a follow-up question\n\n  ? for shortcuts\n";
        assert!(!draft(follow_up));
        assert!(draft("› fix it,\n  then test it\n\n  gpt-5 default\n"));
    }

    #[test]
    fn no_fixture_holds_a_secret() {
        // The captures ran with `OPENAI_API_KEY=sk-fake`; nothing shaped
        // like a real key or token may land in a fixture. Conversation ids
        // (UUIDs) are not secrets.
        let dir = format!(
            "{}/tests/it/fixtures/screens/codex",
            env!("CARGO_MANIFEST_DIR")
        );
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            for word in text.split(|c: char| c.is_whitespace() || "`'\"()".contains(c)) {
                let keyish = ["sk-", "ghp_", "github_pat_", "AKIA", "xox"]
                    .iter()
                    .any(|p| word.starts_with(p) && word.len() > 12);
                let uuid = word.len() == 36
                    && word.char_indices().all(|(i, c)| {
                        if [8, 13, 18, 23].contains(&i) {
                            c == '-'
                        } else {
                            c.is_ascii_hexdigit()
                        }
                    });
                let token = word.len() >= 32
                    && !uuid
                    && word
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "_-".contains(c));
                assert!(!keyish && !token, "{}: {word}", path.display());
            }
        }
    }
}
