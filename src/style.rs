//! Colour for text views. Every text view takes a [`Style`] so the same
//! report renders plain in a pipe and in snapshots, and coloured on a TTY;
//! whether a stream gets colour is decided once, by the command line
//! (`cli/output.rs`: `--no-color`, `NO_COLOR`, `CLICOLOR`, `TERM`).

/// Whether to colour output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    pub color: bool,
}

impl Style {
    pub const PLAIN: Style = Style { color: false };

    /// The escape codes come from anstyle, as clap's and miette's do.
    fn paint(self, style: anstyle::Style, text: &str) -> Painted<'_> {
        Painted {
            style: self.color.then_some(style),
            text,
        }
    }

    pub fn yellow(self, t: &str) -> Painted<'_> {
        self.paint(anstyle::AnsiColor::Yellow.on_default(), t)
    }
    pub fn green(self, t: &str) -> Painted<'_> {
        self.paint(anstyle::AnsiColor::Green.on_default(), t)
    }
    pub fn red(self, t: &str) -> Painted<'_> {
        self.paint(anstyle::AnsiColor::Red.on_default(), t)
    }
    pub fn dim(self, t: &str) -> Painted<'_> {
        self.paint(anstyle::Style::new().dimmed(), t)
    }
    pub fn bold(self, t: &str) -> Painted<'_> {
        self.paint(anstyle::Style::new().bold(), t)
    }
}

impl Style {
    /// Formatted text, dimmed, written where it is formatted (no `String`).
    pub fn dim_args(self, args: std::fmt::Arguments<'_>) -> PaintedArgs<'_> {
        PaintedArgs {
            style: self.color.then(|| anstyle::Style::new().dimmed()),
            args,
        }
    }
}

/// [`Painted`] for formatted text. No padding: its width is unknown.
#[derive(Debug, Clone, Copy)]
pub struct PaintedArgs<'a> {
    style: Option<anstyle::Style>,
    args: std::fmt::Arguments<'a>,
}

impl std::fmt::Display for PaintedArgs<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.style {
            None => f.write_fmt(self.args),
            Some(style) => write!(f, "{}{}{}", style.render(), self.args, style.render_reset()),
        }
    }
}

/// Text with its colour, written where it is formatted: a plan of 500
/// sessions paints a few thousand words, and a `String` for each was a
/// third of its allocations.
#[derive(Debug, Clone, Copy)]
pub struct Painted<'a> {
    style: Option<anstyle::Style>,
    text: &'a str,
}

impl std::fmt::Display for Painted<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.style {
            None => f.pad(self.text),
            // Padded as the painted string always was: escapes counted.
            Some(style) if f.width().is_some() => f.pad(&format!(
                "{}{}{}",
                style.render(),
                self.text,
                style.render_reset()
            )),
            Some(style) => write!(f, "{}{}{}", style.render(), self.text, style.render_reset()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Style;

    /// The escape sequences terminals and the README's recordings have
    /// always seen, byte for byte, and none at all without colour.
    #[test]
    fn colours_are_the_plain_sgr_codes() {
        let on = Style { color: true };
        assert_eq!(on.yellow("~").to_string(), "\x1b[33m~\x1b[0m");
        assert_eq!(on.green("+").to_string(), "\x1b[32m+\x1b[0m");
        assert_eq!(on.red("-").to_string(), "\x1b[31m-\x1b[0m");
        assert_eq!(on.dim("d").to_string(), "\x1b[2md\x1b[0m");
        assert_eq!(on.bold("b").to_string(), "\x1b[1mb\x1b[0m");
        assert_eq!(Style::PLAIN.yellow("~").to_string(), "~");
        assert_eq!(Style::PLAIN.bold("b").to_string(), "b");
        let n = 7;
        assert_eq!(
            on.dim_args(format_args!("({n})")).to_string(),
            "\x1b[2m(7)\x1b[0m"
        );
        assert_eq!(
            Style::PLAIN.dim_args(format_args!("({n})")).to_string(),
            "(7)"
        );
        // Padding counts the escapes, as it did when colours were strings.
        assert_eq!(format!("{:<12}|", on.red("-")), "\x1b[31m-\x1b[0m  |");
        assert_eq!(format!("{:<3}|", Style::PLAIN.red("-")), "-  |");
    }
}
