//! The properties the fuzz targets check, shared by the libFuzzer targets
//! (`fuzz_targets/`) and the stable bounded loop (`src/bin/smoke.rs`).
//!
//! "Every error carries no input text" is checked with a canary: the fuzzer
//! chooses where a distinctive string is spliced into its input, and no
//! error (Display, Debug, or the full miette diagnostic as the CLI prints
//! it) may contain that string.

use the_loop::desired::envfile::{self, EnvFileError};
use the_loop::registry::{
    normalise_tmux_target, refs::validate_standing_name, Registry, WorkItemRef,
};
use the_loop::watch::metrics::Metrics;
use the_loop::watch::metrics_http::{head_end, respond, Fed, Head, HEAD_CAP};

/// Spliced into every input; it never occurs in the parsers' own messages.
pub const CANARY: &str = "qzx7Canary";

/// The fuzz input with [`CANARY`] spliced in where its first byte says.
pub fn with_canary(data: &[u8]) -> Vec<u8> {
    let Some((&at, rest)) = data.split_first() else {
        return CANARY.as_bytes().to_vec();
    };
    let at = at as usize % (rest.len() + 1);
    let mut input = rest[..at].to_vec();
    input.extend_from_slice(CANARY.as_bytes());
    input.extend_from_slice(&rest[at..]);
    input
}

fn diagnostic(err: &dyn miette::Diagnostic) -> String {
    let mut out = String::new();
    miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
        .render_report(&mut out, err)
        .expect("renders");
    out
}

fn assert_quiet(text: &str, what: &str) {
    assert!(
        !text.contains(CANARY),
        "{what} quotes its input ({} bytes of message)",
        text.len()
    );
}

pub fn envfile(data: &[u8]) {
    let input = with_canary(data);
    match envfile::parse(&input) {
        Err(e) => {
            assert!(e.line >= 1 && e.column >= 1);
            let lines = input.iter().filter(|b| **b == b'\n').count() + 1;
            assert!(e.line <= lines, "line {} of {lines}", e.line);
            assert_quiet(&e.to_string(), "SyntaxError Display");
            assert_quiet(&format!("{e:?}"), "SyntaxError Debug");
            let full = EnvFileError::Syntax {
                path: "/etc/the-loop/.env".into(),
                line: e.line,
                column: e.column,
                kind: e.kind,
            };
            assert_quiet(&full.to_string(), "EnvFileError Display");
            assert_quiet(&diagnostic(&full), "EnvFileError diagnostic");
        }
        Ok(entries) => {
            let names_hold_canary = entries.iter().any(|e| e.name.contains(CANARY));
            if !names_hold_canary {
                assert_quiet(&format!("{entries:?}"), "entries Debug (values are secret)");
            }
            // Stable where the format allows it: every parsed file can be
            // written back and read to the same names and values.
            let rendered = envfile::render_for_roundtrip(&entries);
            let again = envfile::parse(rendered.as_bytes())
                .unwrap_or_else(|e| panic!("a rendered file does not parse: {e}"));
            assert_eq!(entries.len(), again.len());
            for (a, b) in entries.iter().zip(&again) {
                assert_eq!(a.name, b.name);
                assert!(
                    a.value.expose_bytes() == b.value.expose_bytes(),
                    "the value of {} changed in the round trip",
                    a.name
                );
            }
        }
    }
}

pub fn registry(data: &[u8]) {
    let input = with_canary(data);
    let text = String::from_utf8_lossy(&input);

    match text.parse::<WorkItemRef>() {
        Err(e) => {
            assert_quiet(&e.to_string(), "RefError Display");
            assert_quiet(&format!("{e:?}"), "RefError Debug");
        }
        Ok(r) => {
            let shown = r.to_string();
            assert_eq!(
                shown.parse::<WorkItemRef>().as_ref(),
                Ok(&r),
                "ref round trip"
            );
            let slug = r.slug();
            assert!(slug
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-')));
            let tmux = r.tmux_name();
            assert!(tmux.starts_with("loop-") && !tmux.contains(['.', ':']));
        }
    }
    if let Err(e) = validate_standing_name(&text) {
        assert_quiet(&e.to_string(), "standing name error");
    }
    let normalised = normalise_tmux_target(&text);
    assert_eq!(
        normalise_tmux_target(&normalised),
        normalised,
        "normalising is idempotent"
    );

    records(&input);
}

/// The registry's reader on the input as a record file: a corrupt file is
/// reported without quoting it, and a good one survives a rewrite.
fn records(bytes: &[u8]) {
    use std::sync::OnceLock;
    static DIR: OnceLock<std::path::PathBuf> = OnceLock::new();
    let root = DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("the-loop-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("local/standing")).unwrap();
        dir
    });
    let registry = Registry::new(root);
    std::fs::write(root.join("local/record.json"), bytes).unwrap();
    std::fs::write(root.join("local/standing/record.json"), bytes).unwrap();

    let items = registry.work_items();
    for corrupt in &items.corrupt {
        assert_quiet(&corrupt.reason, "corrupt work-item record reason");
    }
    for (_, record) in &items.records {
        let once = serde_json::to_value(record).unwrap();
        let reparsed: the_loop::registry::WorkItemRecord =
            serde_json::from_value(once.clone()).expect("a written record reads back");
        assert_eq!(
            serde_json::to_value(&reparsed).unwrap(),
            once,
            "record round trip"
        );
    }
    let standing = registry.standing();
    for corrupt in &standing.corrupt {
        assert_quiet(&corrupt.reason, "corrupt standing record reason");
    }
    for (_, record) in &standing.records {
        let once = serde_json::to_value(record).unwrap();
        let reparsed: the_loop::registry::StandingRecord =
            serde_json::from_value(once.clone()).expect("a written record reads back");
        assert_eq!(
            serde_json::to_value(&reparsed).unwrap(),
            once,
            "record round trip"
        );
    }
}

/// The metrics server's request handling (`the_loop::watch::metrics_http`),
/// as a hostile client meets it: the input, cut in pieces of 1 to 64
/// bytes (its last byte says how many), is the bytes a socket gives. The
/// head gathered never grows past [`HEAD_CAP`], ends at its first blank
/// line, and is the same however the input was cut; every response is one
/// well-formed HTTP/1.1 answer that closes the connection, whose
/// `Content-Length` is its body's, that is 200 only for `GET` or `HEAD` of
/// `/metrics`, and that never quotes the request.
pub fn metrics(data: &[u8]) {
    let input = with_canary(data);
    let piece = 1 + usize::from(data.last().copied().unwrap_or(0)) % 64;
    let cut = gather(&input, piece);
    assert_eq!(
        cut,
        gather(&input, input.len().max(1)),
        "the head depends on how the input was cut ({piece}-byte pieces)"
    );
    if let Fed::Complete(head) = &cut {
        assert!(head.len() <= HEAD_CAP, "a head of {} bytes", head.len());
        assert_eq!(
            head_end(head),
            Some(head.len()),
            "ends at its first blank line"
        );
        answer(head);
    }
    // Whatever reached `respond`, its answer is well formed.
    answer(&input);
}

/// The input fed to a [`Head`] in `piece`-byte pieces, as reads would.
fn gather(input: &[u8], piece: usize) -> Fed {
    let mut head = Head::default();
    for chunk in input.chunks(piece) {
        let room = head.room();
        assert!(room <= HEAD_CAP, "room {room}");
        match head.feed(chunk) {
            Fed::More => assert!(head.room() < room, "a piece was taken"),
            done => return done,
        }
    }
    Fed::More
}

/// Checks the response to `request`.
fn answer(request: &[u8]) {
    use std::sync::OnceLock;
    static METRICS: OnceLock<Metrics> = OnceLock::new();
    let response = respond(METRICS.get_or_init(Metrics::new), request);
    assert!(
        response.len() < 1 << 20,
        "a response of {} bytes",
        response.len()
    );
    let text = String::from_utf8(response).expect("a response is text");
    assert_quiet(&text, "metrics response");
    let (head, body) = text.split_once("\r\n\r\n").expect("a head, then a body");
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap_or_default();
    let code: u16 = status
        .strip_prefix("HTTP/1.1 ")
        .and_then(|rest| rest.get(..3))
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("a status line: {status}"));
    assert!([200, 400, 404, 405, 500].contains(&code), "{status}");
    let headers: Vec<(&str, &str)> = lines
        .map(|line| line.split_once(": ").expect("a header line"))
        .collect();
    assert!(headers.contains(&("Connection", "close")), "{head}");
    let length: usize = headers
        .iter()
        .find(|(name, _)| *name == "Content-Length")
        .and_then(|(_, value)| value.parse().ok())
        .expect("a Content-Length");
    let line = request.split(|b| *b == b'\n').next().unwrap_or_default();
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let parts: Vec<&[u8]> = line.split(|b| *b == b' ').collect();
    if code == 200 {
        let [method, target, version] = parts[..] else {
            panic!("200 for a request line of {} parts", parts.len())
        };
        assert!(
            method == b"GET" || method == b"HEAD",
            "200 for another method"
        );
        assert_eq!(target.split(|b| *b == b'?').next(), Some(&b"/metrics"[..]));
        assert!(version.starts_with(b"HTTP/1."), "200 for another version");
    }
    if code == 200 && parts[0] == b"HEAD" {
        assert!(body.is_empty(), "HEAD has no body");
    } else {
        assert_eq!(length, body.len(), "Content-Length is the body's");
    }
}
