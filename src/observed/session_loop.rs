//! Every session's watched names in ONE tmux command: a format loop over
//! the sessions (`display -p '#{S:…}'`), instead of one `show-environment`
//! per session.
//!
//! tmux answers each command of a script or chain at a fixed cost (about
//! 35 µs on 2 cores at 500 sessions, with its marker twice that), so 500
//! sessions' environments cost about 70 ms of the server's time where the
//! pane listing costs 10. A format loop is one command whatever the fleet.
//!
//! What it reads is what a new pane in the session would inherit: tmux
//! looks a name up in the session's own environment and, when the session
//! has no entry for it, in the global one. So:
//!
//! - a value that differs from the global layer's (or a name the global
//!   layer lacks) is the session's own: exact;
//! - an empty answer is no value: the session has none, or masks the
//!   global one (`set-environment -r`), or holds an empty one, which holds
//!   nothing to leak;
//! - a value equal to the global layer's is either inherited or an own copy
//!   of the same value; tmux cannot tell the two apart in a format. Those
//!   sessions are read one by one with `show-environment`, in one more call
//!   (a `source-file -` script). So the loop saves the most once the global
//!   layer holds no watched name, which is what `apply --scrub-tmux-env`
//!   leaves behind.
//!
//! Each name and value is written with its byte length (`#{n:…}`), so a
//! value may hold any byte, line breaks and `#` included; only names that
//! cannot be mistaken for one of tmux's own format variables (upper case,
//! digits, `_`) are looked up this way. The output is read whole or not at
//! all: anything that does not add up leaves every session to
//! `show-environment` in a second call.

use super::proc_env::ProcessEnv;
use std::collections::BTreeMap;

/// The format that writes, for every session, its name and the value of
/// each of `names` as tmux would hand them to a new pane, each as
/// `<byte length>:<bytes>`. `None` when a name is not safe to look up in a
/// format, or there is none to look up.
pub fn format(names: &[String]) -> Option<String> {
    if names.is_empty() || !names.iter().all(|n| loopable(n)) {
        return None;
    }
    let mut format = String::from("#{S:#{n:session_name}:#{session_name}");
    for name in names {
        format.push_str(&format!("#{{n:{name}}}:#{{{name}}}"));
    }
    format.push('}');
    Some(format)
}

/// Upper case, digits and `_`, not starting with a digit: tmux's own
/// format variables are lower case, so such a name can only be found in an
/// environment.
fn loopable(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_uppercase() || b == b'_')
        && bytes.all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// What the loop said of each session: the bytes of each name's value, in
/// the order of `names`. `None` when the text does not add up (or holds a
/// replacement character: a value that was not UTF-8 lost its length in
/// the conversion), so nothing of it is used.
pub fn parse(text: &str, names: &[String]) -> Option<BTreeMap<String, Vec<Vec<u8>>>> {
    if text.contains('\u{FFFD}') {
        return None;
    }
    let mut rest = text.strip_suffix('\n')?.as_bytes();
    let mut sessions = BTreeMap::new();
    while !rest.is_empty() {
        let session = String::from_utf8(field(&mut rest)?.to_vec()).ok()?;
        let values = names
            .iter()
            .map(|_| field(&mut rest).map(<[u8]>::to_vec))
            .collect::<Option<Vec<_>>>()?;
        sessions.insert(session, values);
    }
    Some(sessions)
}

/// One `<length>:<bytes>` field, taken off the front of `rest`.
fn field<'a>(rest: &mut &'a [u8]) -> Option<&'a [u8]> {
    let colon = rest.iter().position(|b| *b == b':')?;
    let digits = &rest[..colon];
    if digits.is_empty() || digits.len() > 9 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let len: usize = std::str::from_utf8(digits).ok()?.parse().ok()?;
    let value = rest.get(colon + 1..colon + 1 + len)?;
    *rest = &rest[colon + 1 + len..];
    Some(value)
}

/// What the loop tells of each session's own layer.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct OwnLayers {
    /// Sessions read exactly: their own values of the watched names.
    pub exact: BTreeMap<String, ProcessEnv>,
    /// Sessions that showed the global layer's value for a name: inherited
    /// or an own copy, which only `show-environment` tells apart.
    pub ambiguous: Vec<String>,
}

/// Each session's own layer, as far as it holds a watched name: a value
/// that is not the global layer's is the session's own; a session showing
/// the global value for any name is left to be read one by one.
pub fn own_layers(
    looped: BTreeMap<String, Vec<Vec<u8>>>,
    names: &[String],
    global: &ProcessEnv,
) -> OwnLayers {
    let mut layers = OwnLayers::default();
    for (session, values) in looped {
        let is_global = |(name, value): &(&String, &Vec<u8>)| {
            global
                .get(name)
                .is_some_and(|g| !value.is_empty() && g.expose_bytes() == value.as_slice())
        };
        if names.iter().zip(&values).any(|pair| is_global(&pair)) {
            layers.ambiguous.push(session);
            continue;
        }
        let own = names
            .iter()
            .zip(values)
            .filter(|(_, value)| !value.is_empty());
        let env = ProcessEnv::from_pairs(own.map(|(name, value)| (name.clone(), value)));
        layers.exact.insert(session, env);
    }
    layers
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn the_format_asks_each_name_with_its_length() {
        assert_eq!(
            format(&names(&["TOK", "B_2"])).as_deref(),
            Some("#{S:#{n:session_name}:#{session_name}#{n:TOK}:#{TOK}#{n:B_2}:#{B_2}}")
        );
        assert_eq!(format(&[]), None);
        for unsafe_name in ["pane_id", "2X", "A-B", "A}B", ""] {
            assert_eq!(format(&names(&["TOK", unsafe_name])), None, "{unsafe_name}");
        }
    }

    #[test]
    fn values_with_line_breaks_and_separators_are_read_by_length() {
        let text = "6:loop-a11:x\n2:y#{}\n0:0:6:loop-b0:4:glob\n";
        let looped = parse(text, &names(&["TOK", "G"])).unwrap();
        assert_eq!(looped["loop-a"], vec![b"x\n2:y#{}\n0:".to_vec(), vec![]]);
        assert_eq!(looped["loop-b"], vec![vec![], b"glob".to_vec()]);
    }

    #[test]
    fn output_that_does_not_add_up_is_refused_whole() {
        let two = names(&["TOK"]);
        for bad in [
            "6:loop-a3:ab\n",
            "6:loop-a",
            "6:loop-a2:ab",
            "x:loop-a0:\n",
            "6:loop-a\u{FFFD}0:\n",
        ] {
            assert_eq!(parse(bad, &two), None, "{bad:?}");
        }
        assert_eq!(parse("\n", &two), Some(BTreeMap::new()));
    }

    #[test]
    fn a_value_equal_to_the_global_one_is_left_to_show_environment() {
        let global = ProcessEnv::from_pairs([("TOK", b"old".to_vec())]);
        let looped = BTreeMap::from([
            ("own".to_string(), vec![b"mine".to_vec(), b"v".to_vec()]),
            ("clean".to_string(), vec![vec![], vec![]]),
            ("same".to_string(), vec![b"old".to_vec(), vec![]]),
        ]);
        let layers = own_layers(looped, &names(&["TOK", "OTHER"]), &global);
        let own = &layers.exact["own"];
        assert_eq!(own.get("TOK").unwrap().expose_bytes(), b"mine");
        assert_eq!(own.get("OTHER").unwrap().expose_bytes(), b"v");
        assert_eq!(layers.exact["clean"].names().count(), 0);
        assert_eq!(layers.ambiguous, ["same"]);
    }
}
