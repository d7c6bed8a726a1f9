//! The env file parser, from the outside: fixtures, error reports that must
//! never leak text, snapshots, a differential test against dotenvy, and
//! round trips through `render_for_roundtrip`.

mod dotenvy_and_round_trips;
mod errors;

use std::path::PathBuf;

use the_loop::desired::envfile::{parse, EnvEntry, EnvFile};
use the_loop::secret::SecretValue;

/// A copy of the fixture, this process's own: the-loop refuses an env file
/// another user owns, and CI checks the repository out as another user.
fn fixture(name: &str) -> crate::support::own_copy::OwnCopy {
    crate::support::own_copy::own_copy(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/it/fixtures/envfiles")
            .join(name),
    )
}

fn text_of(value: &SecretValue) -> String {
    String::from_utf8(value.expose_bytes().to_vec()).expect("test values are UTF-8")
}

fn pairs(entries: &[EnvEntry]) -> Vec<(String, String)> {
    entries
        .iter()
        .map(|e| (e.name.clone(), text_of(&e.value)))
        .collect()
}

fn load_pairs(name: &str) -> Vec<(String, String)> {
    let file = EnvFile::load(&fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    pairs(&file.entries)
}

fn expect(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect()
}

#[test]
fn dollar_is_always_literal() {
    assert_eq!(
        load_pairs("dollar.env"),
        expect(&[
            ("PASSWORD", "p$$word"),
            ("HOME_REF", "$HOME"),
            ("BRACED", "${X}"),
            ("DOUBLE", "$HOME and ${X} and p$$word"),
            ("SINGLE", "$HOME"),
            ("ESCAPED", "$HOME"),
            ("TRAILING", "cost$"),
        ])
    );
}

#[test]
fn single_and_double_quotes() {
    assert_eq!(
        load_pairs("quotes.env"),
        expect(&[
            ("SINGLE", "single quoted # not a comment"),
            ("DOUBLE", "double quoted # not a comment"),
            ("ESCAPES", "tab\there \"quoted\" back\\slash"),
            ("SINGLE_BACKSLASH", "C:\\path\\n"),
            ("EMPTY_SINGLE", ""),
            ("EMPTY_DOUBLE", ""),
            ("QUOTE_IN_DOUBLE", "it's"),
            ("QUOTE_IN_SINGLE", "say \"hi\""),
            ("COMMENT_AFTER", "value"),
            ("UNQUOTED_QUOTES", "a\"b'c"),
        ])
    );
}

#[test]
fn multi_line_values() {
    let file = EnvFile::load(&fixture("multiline.env")).unwrap();
    assert_eq!(
        pairs(&file.entries),
        expect(&[
            ("CERT", "-----BEGIN CERT-----\nline two\n-----END CERT-----"),
            ("SINGLE_MULTI", "first\n  indented second\n"),
            ("AFTER", "still parsed"),
        ])
    );
    let lines: Vec<usize> = file.entries.iter().map(|e| e.line).collect();
    assert_eq!(lines, [1, 4, 7]);
}

#[test]
fn export_prefix_comments_and_whitespace() {
    assert_eq!(
        load_pairs("export_comments.env"),
        expect(&[
            ("EXPORTED", "1"),
            ("SPACED_EXPORT", "two"),
            ("TABBED", "three"),
            ("WITH_INLINE", "value"),
            ("HASH_NO_SPACE", "value#kept"),
            ("HEX_COLOR", "#fff"),
            ("ONLY_COMMENT", ""),
            ("EMPTY", ""),
            ("SPACES_INSIDE", "hello big world"),
            ("export", "named export"),
        ])
    );
}

#[test]
fn crlf_line_endings_are_not_part_of_values() {
    let text = "A=plain\r\nB='single'\r\nC=\"double\"  # c\r\nD=\"multi\r\nline\"\r\nE=\"\\r\"\r\n";
    assert_eq!(
        pairs(&parse(text.as_bytes()).unwrap()),
        expect(&[
            ("A", "plain"),
            ("B", "single"),
            ("C", "double"),
            ("D", "multi\nline"),
            ("E", "\r")
        ])
    );
}

#[test]
fn bom_at_start_is_skipped() {
    let entries = parse(b"\xEF\xBB\xBFFIRST=1\nSECOND=2\n").unwrap();
    assert_eq!(pairs(&entries), expect(&[("FIRST", "1"), ("SECOND", "2")]));
}

#[test]
fn get_and_names() {
    let file = EnvFile::load(&fixture("dollar.env")).unwrap();
    assert_eq!(
        file.names().take(2).collect::<Vec<_>>(),
        ["PASSWORD", "HOME_REF"]
    );
    assert_eq!(
        file.get("PASSWORD").map(text_of).as_deref(),
        Some("p$$word")
    );
    assert!(file.get("password").is_none());
}

#[test]
fn fixture_fingerprints() {
    for name in [
        "dollar.env",
        "quotes.env",
        "multiline.env",
        "export_comments.env",
    ] {
        let file = EnvFile::load(&fixture(name)).unwrap();
        let listing: String = file
            .entries
            .iter()
            .map(|e| {
                // The parser's output, by plain SHA-256 whatever the mode.
                let digest = the_loop::secret::Fingerprint::of(e.value.expose_bytes());
                format!("{:>2} {:<18} {digest}\n", e.line, e.name)
            })
            .collect();
        insta::assert_snapshot!(format!("fingerprints_{name}"), listing);
    }
}
