//! A pane's capture with its attributes (`tmux capture-pane -p -e`), read
//! down to what the screen readers need: the text as `capture-pane -p`
//! gives it, and which characters are drawn faint or inverse.
//!
//! Why the attributes: Claude Code draws its hints in the prompt box faint
//! (an example prompt, "Once fixed, resend your message" after a turn that
//! failed, a suggested next prompt), and what a person typed plain, with
//! its cursor as one inverse cell. The hints' words change from release to
//! release; their faintness has not (2.1.328 and 2.1.332 alike). Where
//! nothing is faint (a harness drawing without colour, under `NO_COLOR`; a
//! fixture of plain text) the readers fall back on the words they know.
//!
//! tmux writes an attribute once where it changes, and carries it across
//! lines, so the state is kept from one line to the next.

/// How one character is drawn, as far as the readers care.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Look {
    /// SGR 2 (dim): a hint, a placeholder.
    pub faint: bool,
    /// SGR 7 (reverse): the cursor a harness draws itself.
    pub inverse: bool,
}

/// A parsed capture.
#[derive(Debug, Clone, Default)]
pub struct Capture {
    text: String,
    /// Per line of [`Capture::text`] (as `str::lines` splits it), the look
    /// of each of its characters.
    looks: Vec<Vec<Look>>,
}

impl Capture {
    /// Reads a capture; plain text reads as itself, every look the default.
    pub fn parse(raw: &str) -> Capture {
        let mut capture = Capture::default();
        let mut look = Look::default();
        for (index, line) in raw.split('\n').enumerate() {
            if index > 0 {
                capture.text.push('\n');
            }
            let mut looks = Vec::new();
            let mut chars = line.chars().peekable();
            while let Some(c) = chars.next() {
                if c != '\u{1b}' {
                    capture.text.push(c);
                    looks.push(look);
                    continue;
                }
                match chars.next() {
                    Some('[') => {
                        let mut params = String::new();
                        // A CSI sequence ends at its first byte in @..~.
                        for p in chars.by_ref() {
                            if ('@'..='~').contains(&p) {
                                if p == 'm' {
                                    sgr(&params, &mut look);
                                }
                                break;
                            }
                            params.push(p);
                        }
                    }
                    // An OSC (a hyperlink) ends at BEL or ESC \.
                    Some(']') => {
                        while let Some(p) = chars.next() {
                            if p == '\u{7}' {
                                break;
                            }
                            if p == '\u{1b}' && chars.peek() == Some(&'\\') {
                                chars.next();
                                break;
                            }
                        }
                    }
                    _ => {}
                }
            }
            capture.looks.push(looks);
        }
        capture
    }

    /// The text, without the escape sequences.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The look of each character of line `index` of [`Capture::text`]
    /// (none past the last line).
    pub fn looks(&self, index: usize) -> &[Look] {
        self.looks.get(index).map_or(&[], Vec::as_slice)
    }
}

/// Applies one SGR sequence's parameters (`0;2`, `38;5;246`) to `look`. A
/// colour's own numbers (`38;5;2`, `48;2;2;2;2`) are skipped, lest a `2`
/// among them read as dim.
fn sgr(params: &str, look: &mut Look) {
    let mut params = params.split(';');
    while let Some(param) = params.next() {
        // A colon keeps a colour's numbers in one parameter (`38:2::1:2:3`).
        let code = param.split(':').next().unwrap_or("");
        match code {
            "" | "0" => *look = Look::default(),
            "2" => look.faint = true,
            "22" => look.faint = false,
            "7" => look.inverse = true,
            "27" => look.inverse = false,
            "38" | "48" | "58" if !param.contains(':') => {
                let skip = match params.next() {
                    Some("5") => 1,
                    Some("2") => 3,
                    _ => 0,
                };
                for _ in 0..skip {
                    params.next();
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_reads_as_itself_with_no_attribute() {
        let capture = Capture::parse("❯ a draft\n  footer\n");
        assert_eq!(capture.text(), "❯ a draft\n  footer\n");
        assert_eq!(capture.looks(0).len(), "❯ a draft".chars().count());
        assert!(capture.looks(0).iter().all(|l| *l == Look::default()));
        assert!(capture.looks(9).is_empty());
    }

    #[test]
    fn attributes_carry_across_lines_and_colours_are_not_dim() {
        let raw = "\u{1b}[39m❯\u{a0}\u{1b}[7mO\u{1b}[0;2m\u{1b}[39mnce\n\
                   fixed\u{1b}[0m \u{1b}[38;5;2mgreen\u{1b}[48;2;2;2;2m \
                   \u{1b}[38:2::2:2:2mx\u{1b}]8;;http://a\u{1b}\\link\u{1b}]8;;\u{7}";
        let capture = Capture::parse(raw);
        assert_eq!(capture.text(), "❯\u{a0}Once\nfixed green xlink");
        let first = capture.looks(0);
        assert_eq!(first[0], Look::default());
        assert!(first[2].inverse && !first[2].faint);
        assert!(first[3..].iter().all(|l| l.faint && !l.inverse));
        let second = capture.looks(1);
        // Still faint on the next line, until the reset.
        assert!(second[..5].iter().all(|l| l.faint));
        assert!(second[5..].iter().all(|l| !l.faint));
    }
}
