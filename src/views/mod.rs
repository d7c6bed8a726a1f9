//! Views: what a verb's report looks like to a person (text) and to a
//! program (JSON), apart from the work that produced it (as Terraform's
//! `command/views`). A command picks a [`Format`] once from its flags and
//! hands the report over; nothing below `views` prints a result.

pub mod apply;
pub mod apply_stream;
pub mod change;
pub mod close;
pub mod delivery;
pub mod fingerprint;
pub mod history;
pub mod import;
pub mod notes;
pub mod plan;
pub mod plan_host;
mod plan_next;
pub mod sessions;
pub mod sessions_list;
pub mod show;
pub mod standing;
pub mod status;
pub mod top;
pub mod uninstall;
pub mod validate;
pub mod version;
pub mod web_terminal;

pub use crate::style::Style;

/// How a report is shown, chosen once per command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Lines for a terminal.
    Text,
    /// One pretty-printed JSON document on stdout.
    Json,
}

impl Format {
    /// The format a `--json` flag asks for.
    pub fn json_if(json: bool) -> Format {
        if json {
            Format::Json
        } else {
            Format::Text
        }
    }
}

/// "1 name declared", "3 names declared": the env file's count, as the
/// plan's and `validate`'s headers say it.
pub fn names_declared(n: usize) -> String {
    match n {
        1 => "1 name declared".to_owned(),
        n => format!("{n} names declared"),
    }
}

/// Prints `value` as one pretty-printed JSON document.
pub fn print_json<T: serde::Serialize>(value: &T) {
    crate::outln!(
        "{}",
        serde_json::to_string_pretty(value).expect("report serialises")
    );
}

/// How many terminal columns `text` takes: a CJK character takes two, a
/// combining accent none. Tables pad by this, not by characters, or a path
/// in Japanese would push every later column to the right.
pub fn display_width(text: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(text)
}

/// `text` followed by the spaces that make it `width` columns wide.
pub fn pad(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len() + width);
    out.push_str(text);
    out.extend(std::iter::repeat_n(
        ' ',
        width.saturating_sub(display_width(text)),
    ));
    out
}

/// A launch's model with its effort, as `sessions list` and `standing list`
/// show it: `opus (high)`, `opus`, or `-` when none was recorded.
pub fn model_cell(model: Option<&str>, effort: Option<&str>) -> String {
    match (model, effort) {
        (Some(m), Some(e)) => format!("{m} ({e})"),
        (Some(m), None) => m.to_owned(),
        _ => "-".into(),
    }
}

/// The name serde gives a unit variant (`killed`, `sigterm`, …), which is
/// what the text says too, so the two never disagree.
pub fn snake_name<T: serde::Serialize>(value: T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn one_name_is_declared_not_one_names() {
        assert_eq!(super::names_declared(1), "1 name declared");
        assert_eq!(super::names_declared(0), "0 names declared");
        assert_eq!(super::names_declared(3), "3 names declared");
    }
}
