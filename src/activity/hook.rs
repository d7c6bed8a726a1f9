//! `the-loop hook --dir DIR --event NAME`: what the harness runs on each
//! lifecycle event (hidden; written into the hook settings file).
//!
//! It runs inside the harness's turn, so it must be fast and must never
//! fail or block it:
//! - it always exits 0 and prints nothing (Claude Code adds a
//!   `SessionStart` or `UserPromptSubmit` hook's stdout to the
//!   conversation, and exit 2 would block the prompt or the tool);
//! - it reads at most [`STDIN_CAP`] bytes of stdin, for at most
//!   [`STDIN_WAIT`], so a harness that never closes the pipe costs it
//!   two seconds, not a hang;
//! - it takes no lock: each harness process appends to its own file.
//!
//! Of the JSON on stdin only `session_id` (checked against the session id
//! rule) and a `SessionStart`'s `source` are kept. A prompt or a tool input
//! is read past and dropped.

use super::{store, EndReason, HookEvent, HookRecord, StartSource};
use std::ffi::OsString;
use std::io::Read;
use std::path::PathBuf;
use std::time::Duration;

/// The subcommand's name in the harness's hook settings.
pub const SUBCOMMAND: &str = "hook";

/// Enough for any event the-loop reads; a larger payload (a tool writing a
/// big file) is cut, and `session_id`, which Claude Code writes first, is
/// still found in its opening bytes.
pub const STDIN_CAP: u64 = 4 * 1024 * 1024;
pub const STDIN_WAIT: Duration = Duration::from_secs(2);

#[derive(Debug, Default, PartialEq, Eq)]
struct HookArgs {
    dir: Option<PathBuf>,
    event: Option<String>,
}

fn parse_args(args: &[OsString]) -> HookArgs {
    let mut parsed = HookArgs::default();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        match word.to_str() {
            Some("--dir") => parsed.dir = words.next().map(PathBuf::from),
            Some("--event") => {
                parsed.event = words.next().and_then(|w| w.to_str()).map(String::from)
            }
            _ => {}
        }
    }
    parsed
}

/// Runs the hook with the words after `hook`. Whatever happens, the caller
/// exits 0.
pub fn run(args: &[OsString]) {
    // A panic's message on stderr would reach the harness's screen; the
    // hook has nothing to tell it.
    std::panic::set_hook(Box::new(|_| {}));
    let _ = std::panic::catch_unwind(|| record(args));
}

fn record(args: &[OsString]) {
    let args = parse_args(args);
    let Some(dir) = args.dir.filter(|d| d.is_absolute()) else {
        return;
    };
    let input = read_stdin();
    let fields = Fields::from_input(&input);
    let Some(event) = args
        .event
        .as_deref()
        .or(fields.event.as_deref())
        .and_then(HookEvent::from_name)
    else {
        return;
    };
    let at_ms = crate::clock::now_ms();
    let (pid, start) = match harness_process() {
        Ok(harness) => (harness.pid, harness.start),
        Err(why) => return store::note_unfiled(&dir, at_ms, event, &why),
    };
    let record = HookRecord {
        event,
        at_ms,
        session_id: fields.session_id.unwrap_or_default(),
        source: (event == HookEvent::SessionStart)
            .then(|| fields.source.as_deref().map(StartSource::from_name))
            .flatten(),
        reason: (event == HookEvent::SessionEnd)
            .then(|| fields.reason.as_deref().map(EndReason::from_name))
            .flatten(),
        pid,
        start,
    };
    // A harness's start sweeps the directory, once per interval whoever
    // starts: a roll starts hundreds of harnesses within seconds.
    let now_secs = at_ms / 1000;
    if store::append(&dir, &record).is_ok()
        && event == HookEvent::SessionStart
        && store::claim_sweep(&dir, now_secs)
    {
        store::sweep(&dir, now_secs);
    }
}

/// Reads stdin on a thread, so a pipe that is never closed cannot hold the
/// hook past [`STDIN_WAIT`]; what was read by then is used.
fn read_stdin() -> Vec<u8> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = std::io::stdin()
            .lock()
            .take(STDIN_CAP)
            .read_to_end(&mut bytes);
        let _ = tx.send(bytes);
    });
    rx.recv_timeout(STDIN_WAIT).unwrap_or_default()
}

/// The only fields of the hook's input the-loop keeps.
#[derive(Debug, Default, PartialEq, Eq)]
struct Fields {
    session_id: Option<String>,
    event: Option<String>,
    source: Option<String>,
    reason: Option<String>,
}

impl Fields {
    fn from_input(input: &[u8]) -> Fields {
        #[derive(serde::Deserialize)]
        struct Input {
            session_id: Option<String>,
            hook_event_name: Option<String>,
            source: Option<String>,
            reason: Option<String>,
        }
        let fields = match serde_json::from_slice::<Input>(input) {
            Ok(i) => Fields {
                session_id: i.session_id,
                event: i.hook_event_name,
                source: i.source,
                reason: i.reason,
            },
            // Cut at the cap, or not JSON: the id is still at the front.
            Err(_) => Fields {
                session_id: string_field(input, "session_id"),
                ..Fields::default()
            },
        };
        Fields {
            session_id: fields
                .session_id
                .filter(|id| crate::registry::is_valid_session_id(id)),
            // Names are kept only when they are one of a few known words.
            event: fields.event.filter(|e| HookEvent::from_name(e).is_some()),
            source: fields
                .source
                .filter(|s| StartSource::from_name(s) != StartSource::Other),
            reason: fields
                .reason
                .filter(|r| EndReason::from_name(r) != EndReason::Other),
        }
    }
}

/// `"name":"value"` near the start of a JSON text, for a payload too large
/// to parse whole. Only a value made of session-id characters is taken.
fn string_field(input: &[u8], name: &str) -> Option<String> {
    let head = &input[..input.len().min(4096)];
    let text = String::from_utf8_lossy(head);
    let key = format!("\"{name}\"");
    let after = text.split_once(&key)?.1.trim_start().strip_prefix(':')?;
    let value = after.trim_start().strip_prefix('"')?;
    let end = value.find('"')?;
    Some(value[..end].to_owned())
}

/// The harness process the launcher named ([`super::lineage`]), when it is
/// one of the hook's own ancestors.
fn harness_process() -> Result<super::lineage::ProcessId, super::lineage::Unproven> {
    let named = std::env::var(super::lineage::VARIABLE).ok();
    super::lineage::harness_of(named.as_deref(), nix::unistd::getppid().as_raw(), &|pid| {
        crate::proc_env::ProcStat::read(crate::proc_env::proc_root(), pid)
            .map(|stat| (stat.start, stat.parent))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_in_any_order_and_unknown_words_ignored() {
        let args: Vec<OsString> = ["--event", "Stop", "--later-flag", "--dir", "/s/activity"]
            .iter()
            .map(OsString::from)
            .collect();
        assert_eq!(
            parse_args(&args),
            HookArgs {
                dir: Some("/s/activity".into()),
                event: Some("Stop".into())
            }
        );
        assert_eq!(parse_args(&[OsString::from("--dir")]), HookArgs::default());
    }

    #[test]
    fn only_the_known_fields_are_kept() {
        // Real input from Claude Code 2.1.328 (the prompt is what a person typed).
        let input = br#"{"session_id":"11111111-2222-4333-8444-555555555555","transcript_path":"/c/projects/-w/11111111-2222-4333-8444-555555555555.jsonl","cwd":"/w","prompt_id":"714695a7","permission_mode":"auto","hook_event_name":"UserPromptSubmit","prompt":"hello remember the word zebra"}"#;
        let fields = Fields::from_input(input);
        assert_eq!(
            fields,
            Fields {
                session_id: Some("11111111-2222-4333-8444-555555555555".into()),
                event: Some("UserPromptSubmit".into()),
                source: None,
                reason: None,
            }
        );
        let start = br#"{"session_id":"abc","hook_event_name":"SessionStart","source":"resume"}"#;
        assert_eq!(Fields::from_input(start).source.as_deref(), Some("resume"));
    }

    #[test]
    fn a_value_that_is_not_an_id_is_never_kept() {
        let input = br#"{"session_id":"sk-secret value with spaces","hook_event_name":"Whatever","source":"x y"}"#;
        assert_eq!(Fields::from_input(input), Fields::default());
    }

    #[test]
    fn a_cut_payload_still_gives_the_id() {
        let mut input = br#"{"session_id": "abc-1","tool_input":{"content":""#.to_vec();
        input.extend(std::iter::repeat_n(b'x', 10_000));
        let fields = Fields::from_input(&input);
        assert_eq!(fields.session_id.as_deref(), Some("abc-1"));
        assert_eq!(Fields::from_input(b"").session_id, None);
    }
}
