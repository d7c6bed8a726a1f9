//! Unit tests of the env file parser (kept beside it to keep the parser
//! file small; the fixtures and the dotenvy differential are in tests/).

use super::*;
use SyntaxErrorKind::*;

fn one(text: &str) -> String {
    let entries = parse(text.as_bytes()).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    assert_eq!(entries.len(), 1, "{text:?}");
    String::from_utf8(entries[0].value.expose_bytes().to_vec()).unwrap()
}

fn err(text: &[u8]) -> (usize, usize, SyntaxErrorKind) {
    let e = parse(text).expect_err("should not parse");
    (e.line, e.column, e.kind)
}

#[test]
fn values() {
    let cases = [
        ("K=v", "v"),
        ("K=  spaced out  ", "spaced out"),
        ("K=p$$word", "p$$word"),
        ("K=$HOME", "$HOME"),
        ("K=${X}", "${X}"),
        ("K=a#b", "a#b"),
        ("K=#fff", "#fff"),
        ("K=v # comment", "v"),
        ("K=v\t# comment", "v"),
        ("K= # only a comment", ""),
        ("K=", ""),
        ("K=a\"b'c\\d", "a\"b'c\\d"),
        ("K='lit $HOME \\n \"'", "lit $HOME \\n \""),
        ("K=\"$HOME ${X} p$$word\"", "$HOME ${X} p$$word"),
        ("K=\"\\n\\r\\t\\\\\\\"\\$\"", "\n\r\t\\\"$"),
        ("K=\"a # not a comment\" # comment", "a # not a comment"),
        ("K='a'#comment", "a"),
        ("K=''", ""),
        ("K=\"two\nlines\"", "two\nlines"),
        ("K='two\r\nlines'\r\n", "two\nlines"),
        ("K=v\r\n", "v"),
        ("K=v\r", "v"),
        ("K=a\rb", "a\rb"),
        ("  export   K = v", "v"),
        ("export=v", "v"),
    ];
    for (text, value) in cases {
        assert_eq!(one(text), value, "{text:?}");
    }
}

#[test]
fn export_prefix_or_name() {
    let names = |text: &str| -> Vec<String> {
        parse(text.as_bytes())
            .unwrap()
            .into_iter()
            .map(|e| e.name)
            .collect()
    };
    assert_eq!(names("export A=1\nexport=2"), ["A", "export"]);
    assert_eq!(names("export = 3"), ["export"]);
    assert_eq!(names("export\tB=4"), ["B"]);
}

#[test]
fn errors_point_at_the_problem() {
    assert_eq!(err(b"1ABC=x"), (1, 1, InvalidKey));
    assert_eq!(err(b"A-B=x"), (1, 2, InvalidKey));
    assert_eq!(err(b"=x"), (1, 1, InvalidKey));
    assert_eq!(err(b"export 9=x"), (1, 8, InvalidKey));
    assert_eq!(err(b"KEY"), (1, 4, MissingEquals));
    assert_eq!(err(b"KEY value"), (1, 5, MissingEquals));
    assert_eq!(err(b"A=1\n  B='x\ny\n"), (2, 5, UnterminatedSingleQuote));
    assert_eq!(err(b"A=\"x\\\"\n"), (1, 3, UnterminatedDoubleQuote));
    assert_eq!(err(b"A=\"x\\"), (1, 3, UnterminatedDoubleQuote));
    assert_eq!(err(b"A=\"\n\\q\""), (2, 1, InvalidEscape));
    assert_eq!(err(b"A=\"x\" y"), (1, 7, TrailingCharacters));
    assert_eq!(err(b"A='x'y"), (1, 6, TrailingCharacters));
    assert_eq!(err(b"A=1\n export A=2"), (2, 9, DuplicateKey));
    assert_eq!(err(b"A=1\nB=\xC3\xA9\xFF"), (2, 4, InvalidUtf8));
}

#[test]
fn bom_is_skipped_and_not_counted() {
    assert_eq!(one("\u{FEFF}K=v"), "v");
    assert_eq!(err(b"\xEF\xBB\xBF1=x"), (1, 1, InvalidKey));
    // A BOM anywhere else is ordinary text, and no name starts with it.
    assert_eq!(err(b"A=1\n\xEF\xBB\xBFB=2"), (2, 1, InvalidKey));
}

#[test]
fn columns_count_characters_not_bytes() {
    assert_eq!(err("A=\"é\" x".as_bytes()), (1, 7, TrailingCharacters));
}

#[test]
fn entries_record_their_first_line() {
    let entries = parse(b"# c\n\nA='x\ny'\nB=2").unwrap();
    let lines: Vec<_> = entries.iter().map(|e| (e.name.as_str(), e.line)).collect();
    assert_eq!(lines, [("A", 3), ("B", 5)]);
}

#[test]
fn kinds_display_as_words_with_no_debug_names() {
    let shown = SyntaxError {
        line: 3,
        column: 7,
        kind: UnterminatedDoubleQuote,
    }
    .to_string();
    assert_eq!(shown, "line 3, column 7: unterminated double-quoted value");
}

#[test]
fn a_reading_changes_with_a_name_or_value_only() {
    let reading = |text: &str| {
        EnvFile {
            path: "/x/.env".into(),
            entries: parse(text.as_bytes()).unwrap(),
        }
        .reading()
    };
    let base = reading("A=1\nB=2\n");
    assert_eq!(base, reading("# rotated\nB=2\nexport A='1'\n"));
    assert_ne!(base, reading("A=1\nB=3\n"));
    assert_ne!(base, reading("A=1\n"));
    assert_ne!(base, reading("A=1\nB=2\nC=\n"));
    // Lengths are part of the digest: no two splits of the same bytes agree.
    assert_ne!(reading("A=12\n"), reading("A1=2\n"));
}
