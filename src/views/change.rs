//! How one differing name, or one differing launch argument, reads in a
//! plan or a report: `NAME  have → want  (case: meaning)`. Shared by the
//! plan's view and the apply report's.

use super::Style;
use crate::plan::change::{Change, ChangeCase};
use crate::plan::model::{ArgsChange, ArgsField};
use crate::secret::fingerprint::note_if_withheld;
use crate::secret::Shown;
use std::fmt::Write;

/// A fingerprint, `withheld`, or `(absent)`.
pub fn fingerprint_or_absent(fp: &Option<Shown>) -> &str {
    fp.as_ref().map_or("(absent)", Shown::as_str)
}

/// One line per differing name: `NAME  have → want  (case: meaning)`.
pub fn render_change(change: &Change, style: Style) -> String {
    let mut line = String::new();
    write_change(&mut line, change, style);
    line
}

/// [`render_change`], written onto the end of `out`.
pub(super) fn write_change(out: &mut String, change: &Change, style: Style) {
    let meaning = match change.case {
        ChangeCase::Stale if change.want.is_none() => {
            "(stale: a withheld name holding a value that is not the file's)"
        }
        ChangeCase::Stale => "(stale: not the file's current value)",
        ChangeCase::Exposed => "(exposed: a withheld name holding the file's current value)",
        ChangeCase::Missing => "(missing: the harness should hold the file's value)",
        ChangeCase::Identifier => "(identifier: the-loop's own variable)",
    };
    let symbol = if change.want.is_none() {
        style.red("-")
    } else {
        style.yellow("~")
    };
    let _ = write!(
        out,
        "{symbol} {:<28} {} → {}   {}",
        change.name,
        fingerprint_or_absent(&change.have),
        fingerprint_or_absent(&change.want),
        style.dim(&format!(
            "{meaning}{}",
            note_if_withheld(&[change.have, change.want])
        ))
    );
}

/// One line per differing launch argument: `--model  have → want  (args: …)`.
/// Argv words are never secret, so they are shown as they are.
pub fn render_args_change(change: &ArgsChange, style: Style) -> String {
    let label = match change.name {
        ArgsField::Model => "--model",
        ArgsField::Effort => "--effort",
        ArgsField::HarnessArgs => "harness args",
        ArgsField::KeyHelper => "apiKeyHelper",
    };
    let show = |words: &[String]| {
        if words.is_empty() {
            "(none)".to_owned()
        } else {
            words.join(" ")
        }
    };
    let mut line = format!(
        "{} {label:<28} {} → {}   {}",
        style.yellow("~"),
        show(&change.have),
        show(&change.want),
        style.dim("(args: the harness was launched with other arguments)")
    );
    if let Some(dropped) = &change.dropped {
        let _ = write!(line, "\n      {} {dropped}", style.red("!"));
    }
    line
}
