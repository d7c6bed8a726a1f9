//! A differential test against dotenvy, and round trips through `render_for_roundtrip`.

use super::*;
use std::collections::BTreeMap;
use the_loop::desired::envfile::render_for_roundtrip;

/// Files both parsers read the same way. dotenvy differs by design on these,
/// which are therefore left out:
/// - `$` anywhere: dotenvy substitutes (from the caller's environment, too);
/// - spaces inside an unquoted value: dotenvy rejects `A=a b`;
/// - a backslash outside double quotes: dotenvy reads it as an escape;
/// - the escapes `\t` and `\r`, which dotenvy rejects, and `\'` and `\ `,
///   which it accepts and we reject;
/// - `A=#x`: dotenvy reads an empty value, we read `#x`;
/// - text glued to a closing quote (`"a"b`, `"a"#c`): dotenvy concatenates,
///   we reject or read a comment;
/// - quotes inside an unquoted value: dotenvy strips them, we keep them;
/// - `.` in names, which dotenvy allows;
/// - CRLF inside a quoted value: dotenvy keeps the CR, we read LF;
/// - a BOM: `from_read_iter` keeps it, so the first name would not parse;
/// - duplicate names: dotenvy yields both, we reject the file.
const AGREED: &[&str] = &[
    "A=1\nB=two\n",
    "A=no-newline-at-end",
    "  A = spaced  \n\tB=\ttabbed\t\n",
    "export A=1\nexport   B=2\n",
    "export=x\n",
    "export = y\n",
    "# comment\n\n   # indented comment\nA=1 # inline\nB=x#y\n",
    "A='single quoted value'\nB=\"double quoted value\"\n",
    "A=\"esc \\\" \\\\ \\n done\"\n",
    "A=\"line one\nline two\n\nline four\"\nB=after\n",
    "A='one\ntwo'\nB=3\n",
    "A=\nB= \nC= # empty\n",
    "A=\"x\" # comment after quote\nB='y'   \n",
    "A=héllo\nB='日本語 値'\n",
    "A=1\r\nB='two'\r\nC=\"three\"\r\n",
    "A='a \"double\" inside'\nB=\"an 'apostrophe'\"\n",
    "A=\"# not a comment\"\nB='# nor this'\n",
    "A_1=a\n_B=b\nlower_case=c\n",
];

#[test]
fn agrees_with_dotenvy_on_files_without_dollar() {
    for text in AGREED {
        assert!(
            !text.contains('$'),
            "differential cases must not hold `$`: {text:?}"
        );
        let ours: BTreeMap<String, String> =
            pairs(&parse(text.as_bytes()).unwrap_or_else(|e| panic!("{text:?}: {e}")))
                .into_iter()
                .collect();
        let theirs: BTreeMap<String, String> = dotenvy::from_read_iter(text.as_bytes())
            .collect::<Result<_, _>>()
            .unwrap_or_else(|e| panic!("dotenvy on {text:?}: {e}"));
        assert_eq!(ours, theirs, "{text:?}");
    }
}

/// SplitMix64: deterministic pseudo-random numbers without another crate.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// Characters that stress quoting, escapes, comments and line endings.
const VALUE_CHARS: &[char] = &[
    'a', 'Z', '0', ' ', '\t', '\n', '\r', '#', '$', '\'', '"', '\\', '=', '{', '}', 'é', '日',
    '\u{FEFF}',
];

#[test]
fn render_then_parse_round_trips() {
    let mut rng = Rng(0x5EED);
    let entries: Vec<EnvEntry> = (0..400)
        .map(|i| {
            let name = match i {
                0 => "export".to_string(),
                _ => format!(
                    "{}{}_{i}",
                    rng.pick(&['A', 'z', '_']),
                    rng.pick(&["", "B9", "_x"])
                ),
            };
            let len = rng.below(14);
            let value: String = (0..len).map(|_| rng.pick(VALUE_CHARS)).collect();
            EnvEntry {
                name,
                value: SecretValue::new(value),
                line: 0,
            }
        })
        .collect();

    let parsed = parse(render_for_roundtrip(&entries).as_bytes()).expect("rendered text parses");
    assert_eq!(parsed.len(), entries.len());
    for (want, got) in entries.iter().zip(&parsed) {
        // Compare without printing: a failure message must not show values either.
        assert_eq!(want.name, got.name);
        assert!(
            want.value == got.value,
            "{}: value differs after a round trip",
            want.name
        );
    }
    assert!(
        parsed.windows(2).all(|w| w[0].line < w[1].line),
        "lines increase"
    );
}

#[test]
fn arbitrary_input_never_panics_and_reparses_after_render() {
    let pieces: &[&[u8]] = &[
        b"A",
        b"b",
        b"_",
        b"9",
        b" ",
        b"\t",
        b"\n",
        b"\r\n",
        b"\r",
        b"=",
        b"#",
        b"'",
        b"\"",
        b"\\",
        b"$",
        b"export ",
        "é".as_bytes(),
        b"\xEF\xBB\xBF",
        b"\xFF",
        b"\\n",
        b"\\q",
    ];
    let mut rng = Rng(42);
    let junk = |rng: &mut Rng, max: usize| -> Vec<u8> {
        (0..rng.below(max))
            .flat_map(|_| rng.pick(pieces).to_vec())
            .collect()
    };
    let (mut parsed_ok, mut rejected) = (0, 0);
    for _ in 0..5000 {
        // Mostly assignment-shaped lines with random values, some pure junk,
        // so that both the accepting and the rejecting paths get exercised.
        let mut input = Vec::new();
        for i in 0..rng.below(6) {
            if rng.below(8) != 0 {
                input.extend(
                    format!(
                        "{}N{i}{}={}",
                        rng.pick(&["", " ", "export "]),
                        rng.pick(&["", " "]),
                        rng.pick(&["", " ", "'", "\""])
                    )
                    .bytes(),
                );
            }
            input.extend(junk(&mut rng, 8));
            input.extend(rng.pick(&[&b"\n"[..], b"\r\n"]));
        }
        match parse(&input) {
            Ok(entries) => {
                parsed_ok += 1;
                let again =
                    parse(render_for_roundtrip(&entries).as_bytes()).expect("rendered text parses");
                let key = |e: &EnvEntry| (e.name.clone(), e.value.clone());
                assert!(
                    entries.iter().map(key).eq(again.iter().map(key)),
                    "round trip of parsed input"
                );
            }
            Err(e) => {
                rejected += 1;
                let lines = input.split(|&b| b == b'\n').count();
                assert!(
                    (1..=lines).contains(&e.line) && e.column >= 1,
                    "{e:?} out of bounds"
                );
            }
        }
    }
    // The generator must exercise both paths, or this test proves little.
    assert!(
        parsed_ok > 500 && rejected > 500,
        "ok {parsed_ok}, rejected {rejected}"
    );
}
