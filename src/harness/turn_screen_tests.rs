//! What the real Claude Code screens (2.1.328 and 2.1.332) and made-up
//! ones say to [`super::turn_screen`].

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

/// Captures with attributes (`capture-pane -p -e`), offline, after a
/// turn that failed ("Not logged in"): the box's hint is faint, what
/// is typed plain, the cursor inverse (here on the one letter typed).
#[test]
fn a_faint_hint_is_no_draft_and_plain_text_is_on_both_releases() {
    for dir in ["", "2.1.332/"] {
        for (file, want) in [
            ("hint-after-error.e.txt", TurnScreen::Between),
            ("draft-after-error.e.txt", TurnScreen::Draft),
            ("draft-one-letter.e.txt", TurnScreen::Draft),
            ("draft-pasted.e.txt", TurnScreen::Draft),
        ] {
            let screen = fixture(&format!("{dir}{file}"));
            assert_eq!(turn_screen(&screen), want, "{dir}{file}");
        }
    }
    // Under `NO_COLOR` the hint is drawn plain, only its cursor inverse:
    // its words tell it.
    let plain = fixture("2.1.332/hint-no-colour.e.txt");
    assert!(plain.contains("\u{1b}[7mO"), "the cursor, inverse");
    assert_eq!(turn_screen(&plain), TurnScreen::Between);
}

#[test]
fn a_hint_whose_words_are_new_is_told_by_its_faintness() {
    let (faint, plain, cursor) = ("\u{1b}[0;2m", "\u{1b}[0m", "\u{1b}[7m");
    let auto = "⏵⏵ auto mode on (shift+tab to cycle)";
    for (prompt, want) in [
        // A hint no release has shown yet: faint, after the cursor.
        (
            format!("❯\u{a0}{cursor}S{faint}uggest a test{plain}"),
            TurnScreen::Between,
        ),
        // The words of a known hint, typed: plain.
        (
            format!("❯\u{a0}{plain}Once fixed, resend{cursor} {plain}"),
            TurnScreen::Draft,
        ),
        // The cursor alone, on an empty box.
        (format!("❯\u{a0}{cursor} {plain}"), TurnScreen::Between),
        // One letter typed, under the cursor, nothing faint.
        (format!("❯\u{a0}{cursor}x{plain}"), TurnScreen::Draft),
        // Under `NO_COLOR`: nothing faint, a hint of new words is held.
        (
            format!("❯\u{a0}{cursor}S{plain}uggest a test"),
            TurnScreen::Draft,
        ),
        // A typed line below a faint one.
        (
            format!("❯ {faint}hint{plain}\n  typed{cursor} {plain}"),
            TurnScreen::Draft,
        ),
    ] {
        let screen = screen("● done.", &prompt, auto);
        assert_eq!(turn_screen(&screen), want, "{prompt:?}");
    }
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
