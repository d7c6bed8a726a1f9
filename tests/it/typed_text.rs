//! What a delivery types into a harness, read back from the harness's own
//! terminal: hostile text arrives as one bracketed paste of data and the
//! one submit the-loop sends, never as keystrokes; and nothing is pasted
//! into a pane an operator has put in copy mode. The property test feeds
//! arbitrary bytes and reads what the harness got (issue 34, part 1).

use crate::support::*;
use std::path::PathBuf;
use std::time::Duration;

const START: &[u8] = b"\x1b[200~";
const END: &[u8] = b"\x1b[201~";

struct Raw {
    w: World,
    log: PathBuf,
    reference: String,
    name: String,
}

fn raw_session() -> Raw {
    let w = World::new();
    let log = w.root().join("raw-input.log");
    w.start_server_holding(&[("RAW_INPUT_LOG", log.to_str().unwrap())]);
    w.write_env("SOME_TOKEN=not-for-panes\n");
    w.write_raw_config(&format!(
        "{}  harnessBinary:\n    claude: {}\n",
        std::fs::read_to_string(&w.config_path).unwrap(),
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/it/support/raw-input-harness"
        )
    ));
    let cwd = w.work.join("repo");
    std::fs::create_dir_all(&cwd).unwrap();
    let started = w.start_session("github:octo/repo#1", &cwd);
    let name = started["tmux_target"].as_str().unwrap().to_owned();
    wait_for(
        || {
            stdout(&w.tmux(&["capture-pane", "-p", "-t", &format!("={name}:")]))
                .contains("harness ready")
        },
        "the harness is drawn",
    );
    Raw {
        log,
        reference: "github:octo/repo#1".into(),
        name,
        w,
    }
}

impl Raw {
    fn deliver(&self, text: &str, id: &str) -> std::process::Output {
        let file = self.w.root().join(format!("{id}.txt"));
        std::fs::write(&file, text).unwrap();
        self.w.the_loop(&[
            "sessions",
            "deliver",
            &self.reference,
            "--file",
            file.to_str().unwrap(),
            "--delivery-id",
            id,
            "--json",
        ])
    }

    fn typed(&self) -> Vec<u8> {
        std::fs::read(&self.log).unwrap_or_default()
    }

    fn wait_typed(&self, len: usize) -> Vec<u8> {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while self.typed().len() < len {
            assert!(
                std::time::Instant::now() < deadline,
                "the harness read {:?}, not {len} bytes",
                String::from_utf8_lossy(&self.typed())
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        std::thread::sleep(Duration::from_millis(200));
        self.typed()
    }
}

/// The bytes one delivery of `text` must reach the harness as.
fn expected(text: &str) -> Vec<u8> {
    let typed = the_loop::typed_text::TypedText::from_outside(text);
    // tmux's paste-buffer turns each line feed into a carriage return; inside
    // the brackets it is text.
    let body = typed.as_str().replace('\n', "\r");
    [START, body.as_bytes(), END, b"\r"].concat()
}

#[test]
fn hostile_text_reaches_the_harness_as_one_paste_of_data_and_one_submit() {
    let raw = raw_session();
    let mut want = Vec::new();
    let hostile = [
        "hi\u{1b}[201~\r!touch /tmp/PWNED\rthen more",
        "\u{3}\u{4}\u{1a}\u{1b}[Z\u{1b}\u{1b}\u{1b}]52;c;ZXZpbA==\u{7}",
        "!make deploy",
        "/exit",
        "line one\r\nline two\n\ttabbed",
        "nul\u{0}and del\u{7f}and c1\u{9b}201~",
    ];
    for (n, text) in hostile.iter().enumerate() {
        let out = raw.deliver(text, &format!("h-{n}"));
        assert_eq!(code(&out), Some(0), "{}", explain(&out));
        want.extend(expected(text));
        let got = raw.wait_typed(want.len());
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&want),
            "delivery {n}"
        );
    }
    let got = raw.typed();
    // One bracket pair and, outside it, only the one submit per delivery;
    // no control byte inside a paste but a line break and tab.
    let mut rest: &[u8] = &got;
    let mut pastes = 0;
    while !rest.is_empty() {
        assert!(
            rest.starts_with(START),
            "{:?}",
            String::from_utf8_lossy(rest)
        );
        let body = &rest[START.len()..];
        let end = body.windows(END.len()).position(|w| w == END).unwrap();
        assert!(
            body[..end]
                .iter()
                .all(|b| *b == b'\r' || *b == b'\t' || *b >= 0x20 && *b != 0x7f),
            "{:?}",
            String::from_utf8_lossy(&body[..end])
        );
        assert_eq!(body.get(end + END.len()), Some(&b'\r'), "one submit");
        rest = &body[end + END.len() + 1..];
        pastes += 1;
    }
    assert_eq!(pastes, hostile.len());
}

#[test]
fn nothing_is_pasted_into_a_pane_in_copy_mode_and_a_redelivery_goes_in_bracketed() {
    let raw = raw_session();
    let target = format!("={}:", raw.name);
    raw.w.tmux_ok(&["copy-mode", "-t", &target]);
    let out = raw.deliver("first line\nsecond line", "c-1");
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert!(stdout(&out).contains("copy mode"), "{}", explain(&out));
    std::thread::sleep(Duration::from_millis(500));
    assert!(raw.typed().is_empty(), "{:?}", raw.typed());
    raw.w.tmux_ok(&["send-keys", "-t", &target, "-X", "cancel"]);
    let retry = raw.deliver("first line\nsecond line", "c-1");
    assert_eq!(code(&retry), Some(0), "{}", explain(&retry));
    let want = expected("first line\nsecond line");
    assert_eq!(raw.wait_typed(want.len()), want);
}

/// A message of arbitrary bytes, weighted towards what a terminal acts on:
/// C0 controls, ESC and the bracket's own bytes, DEL, C1 controls, the
/// prompt's mode characters; now and then a byte that is not UTF-8.
fn arbitrary_message(next: &mut impl FnMut() -> u64) -> Vec<u8> {
    let len = 1 + (next() % 48) as usize;
    let mut bytes = Vec::new();
    for _ in 0..len {
        match next() % 8 {
            0 | 1 => bytes.push((next() % 0x20) as u8),
            2 => bytes.extend(
                [
                    &b"\x1b[201~"[..],
                    b"\x1b[Z",
                    b"\x1b",
                    b"\x7f",
                    b"\r",
                    b"!",
                    b"/",
                    b" ",
                ][(next() % 8) as usize],
            ),
            3 => {
                let c = char::from_u32(0x80 + (next() % 0x20) as u32).unwrap();
                bytes.extend(c.to_string().as_bytes());
            }
            4 if next().is_multiple_of(6) => bytes.push(0x80 | (next() % 0x80) as u8),
            _ => bytes.push(0x20 + (next() % 0x5f) as u8),
        }
    }
    bytes
}

/// The property: whatever bytes a message holds, the harness reads either
/// nothing (a message that is not UTF-8 text, or only blanks, is refused)
/// or exactly one bracketed paste of the rule's text
/// (`the_loop::typed_text`) and the one submit the-loop sends.
#[test]
fn arbitrary_bytes_reach_the_harness_only_as_one_paste_of_data_and_one_submit() {
    let raw = raw_session();
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut want = Vec::new();
    let mut accepted = 0;
    for n in 0..40 {
        let bytes = arbitrary_message(&mut next);
        let file = raw.w.root().join(format!("p-{n}.txt"));
        std::fs::write(&file, &bytes).unwrap();
        let out = raw.w.the_loop(&[
            "sessions",
            "deliver",
            &raw.reference,
            "--file",
            file.to_str().unwrap(),
            "--delivery-id",
            &format!("p-{n}"),
            "--json",
        ]);
        match std::str::from_utf8(&bytes) {
            Ok(text) if !text.trim().is_empty() => {
                assert_eq!(code(&out), Some(0), "{bytes:?}: {}", explain(&out));
                want.extend(expected(text));
                accepted += 1;
                let got = raw.wait_typed(want.len());
                assert_eq!(
                    String::from_utf8_lossy(&got),
                    String::from_utf8_lossy(&want),
                    "message {n}: {bytes:?}"
                );
            }
            _ => {
                assert_ne!(code(&out), Some(0), "{bytes:?}: {}", explain(&out));
                std::thread::sleep(Duration::from_millis(100));
                assert_eq!(raw.typed(), want, "message {n} was refused: {bytes:?}");
            }
        }
    }
    // What was read, byte by byte: pastes holding no control but a line
    // break and a tab, each followed by one submit and nothing else.
    let got = raw.typed();
    let mut rest: &[u8] = &got;
    while !rest.is_empty() {
        let body = rest.strip_prefix(START).expect("a paste starts");
        let end = body.windows(END.len()).position(|w| w == END).unwrap();
        let text = String::from_utf8_lossy(&body[..end]);
        assert!(
            text.chars()
                .all(|c| c == '\r' || c == '\t' || c >= ' ' && !('\u{7f}'..='\u{9f}').contains(&c)),
            "{text:?}"
        );
        assert!(
            !text.trim_start().starts_with(['!', '/', '#', '&']),
            "{text:?} would start a prompt mode"
        );
        assert_eq!(body.get(end + END.len()), Some(&b'\r'), "one submit");
        rest = &body[end + END.len() + 1..];
        accepted -= 1;
    }
    assert_eq!(accepted, 0, "one paste per delivered message");
}
