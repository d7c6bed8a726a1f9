//! The marker lines that close each block of a combined tmux answer.

/// The marker closing the pane listing starts so, followed by a nonce
/// drawn for each call: no session name or pane command can end the
/// listing early. The layers' markers (`@p PID`, `@g`, `@N`, `@c 0`) need none:
/// `show-environment` writes only `NAME="…"; export NAME;` and
/// `unset NAME;` entries, which never equal a marker line, and the parser
/// reads quoted values whole.
const MARKER: &str = "tl";

/// The marker lines of one call, and the gate its per-session questions
/// run behind ([`super::session_loop`]).
#[derive(Debug, Clone)]
pub struct Markers {
    prefix: String,
    gate: Option<String>,
}

impl Markers {
    pub fn new() -> Self {
        let nonce = uuid::Uuid::new_v4().simple().to_string();
        Markers::with_nonce(&nonce[..12])
    }

    pub fn with_nonce(nonce: &str) -> Self {
        Markers {
            prefix: format!("{MARKER}-{nonce}"),
            gate: None,
        }
    }

    /// The same markers, with the sessions asked only when `gate` (a tmux
    /// format) is true; `None` asks them always.
    pub fn gated(self, gate: Option<String>) -> Self {
        Markers { gate, ..self }
    }

    pub fn gate(&self) -> Option<&str> {
        self.gate.as_deref()
    }

    pub fn line(&self, what: &str) -> String {
        format!("{} {what}", self.prefix)
    }
}

impl Default for Markers {
    fn default() -> Self {
        Markers::new()
    }
}

/// Splits the combined answer at the `panes` marker: the pane listing and
/// the rest. `None` when the marker is missing: the listing failed, and
/// nothing after it ran.
pub fn split_panes<'a>(markers: &Markers, stdout: &'a str) -> Option<(&'a str, &'a str)> {
    let marker = markers.line("panes");
    let mut offset = 0;
    // tmux escapes a newline in any listed field, so the listing is
    // line-safe, and the nonce makes the marker line unforgeable.
    for line in stdout.split_inclusive('\n') {
        if line.strip_suffix('\n').unwrap_or(line) == marker {
            return Some((&stdout[..offset], &stdout[offset + line.len()..]));
        }
        offset += line.len();
    }
    None
}
