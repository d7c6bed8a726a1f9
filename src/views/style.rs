//! Colour for text views: on a terminal only, and never under `NO_COLOR`.
//! Every text view takes a [`Style`] so the same report renders plain in a
//! pipe and in snapshots, and coloured on a TTY.

/// Whether to colour output: on a terminal, unless `NO_COLOR` is set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    pub color: bool,
}

impl Style {
    pub const PLAIN: Style = Style { color: false };

    /// Colour only on a TTY, and never when `NO_COLOR` is set (no-color.org).
    pub fn detect(is_terminal: bool) -> Style {
        Style {
            color: is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        }
    }

    /// The escape codes come from anstyle, as clap's and miette's do.
    fn paint(self, style: anstyle::Style, text: &str) -> String {
        if self.color {
            format!("{}{text}{}", style.render(), style.render_reset())
        } else {
            text.to_owned()
        }
    }

    pub fn yellow(self, t: &str) -> String {
        self.paint(anstyle::AnsiColor::Yellow.on_default(), t)
    }
    pub fn green(self, t: &str) -> String {
        self.paint(anstyle::AnsiColor::Green.on_default(), t)
    }
    pub fn red(self, t: &str) -> String {
        self.paint(anstyle::AnsiColor::Red.on_default(), t)
    }
    pub fn dim(self, t: &str) -> String {
        self.paint(anstyle::Style::new().dimmed(), t)
    }
    pub fn bold(self, t: &str) -> String {
        self.paint(anstyle::Style::new().bold(), t)
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
        assert_eq!(on.yellow("~"), "\x1b[33m~\x1b[0m");
        assert_eq!(on.green("+"), "\x1b[32m+\x1b[0m");
        assert_eq!(on.red("-"), "\x1b[31m-\x1b[0m");
        assert_eq!(on.dim("d"), "\x1b[2md\x1b[0m");
        assert_eq!(on.bold("b"), "\x1b[1mb\x1b[0m");
        assert_eq!(Style::PLAIN.yellow("~"), "~");
        assert_eq!(Style::PLAIN.bold("b"), "b");
    }
}
