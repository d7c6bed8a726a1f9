//! Work-item refs and the names derived from them: the registry slug (a file
//! name) and the tmux session name (spelled the way tmux spells it).
//!
//! Every error here carries a static reason and never the rejected input, so a
//! ref pasted from an untrusted event can be refused without echoing it.

use std::fmt;
use std::str::FromStr;

/// `github:octo/repo#15` or `github:ghe.host/octo/repo#15` (host may carry `:port`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WorkItemRef {
    pub provider: String,
    pub host: Option<String>,
    pub owner: String,
    pub repo: String,
    pub number: u64,
}

/// Why a ref or a standing-session name was refused. `reason` is a complete,
/// static sentence: it never contains the rejected text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct RefError {
    pub reason: &'static str,
}

/// Builds a [`RefError`] for a work-item ref, with the expected shape appended
/// at compile time so `reason` stays a `&'static str`.
macro_rules! bad_ref {
    ($why:literal) => {
        RefError {
            reason: concat!(
                "not a work-item ref: ",
                $why,
                "; expected provider:[host[:port]/]owner/repo#number"
            ),
        }
    };
}

/// Same as [`bad_ref!`] for standing-session names.
macro_rules! bad_standing {
    ($why:literal) => {
        RefError {
            reason: concat!(
                "not a standing-session name: ",
                $why,
                "; expected 1-40 of a-z, 0-9 and '-', starting with a letter or digit"
            ),
        }
    };
}

/// Longest owner or repo name accepted (GitHub's own repo-name limit).
const MAX_NAME_LEN: usize = 100;
/// Longest host accepted (a DNS name's limit).
const MAX_HOST_LEN: usize = 253;

impl FromStr for WorkItemRef {
    type Err = RefError;

    fn from_str(s: &str) -> Result<Self, RefError> {
        let (provider, rest) = s
            .split_once(':')
            .ok_or(bad_ref!("no ':' after the provider"))?;
        if provider.is_empty() || !provider.bytes().all(|b| b.is_ascii_lowercase()) {
            return Err(bad_ref!("the provider must be lowercase letters"));
        }
        let (path, number) = rest
            .rsplit_once('#')
            .ok_or(bad_ref!("no '#' before the number"))?;
        let number = parse_number(number)?;
        let segments: Vec<&str> = path.split('/').collect();
        let (host, owner, repo) = match segments[..] {
            [owner, repo] => (None, owner, repo),
            [host, owner, repo] => {
                validate_host(host)?;
                (Some(host.to_string()), owner, repo)
            }
            _ => return Err(bad_ref!("the path must be owner/repo or host/owner/repo")),
        };
        validate_name(owner)?;
        validate_name(repo)?;
        Ok(WorkItemRef {
            provider: provider.to_string(),
            host,
            owner: owner.to_string(),
            repo: repo.to_string(),
            number,
        })
    }
}

/// Digits only, no leading zero and not zero, so that `Display` gives back
/// exactly the text that was parsed.
fn parse_number(s: &str) -> Result<u64, RefError> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad_ref!("the number must be digits"));
    }
    if s.starts_with('0') {
        return Err(bad_ref!(
            "the number must be positive, without leading zeros"
        ));
    }
    s.parse().map_err(|_| bad_ref!("the number is too large"))
}

/// An owner or repo name: letters, digits, `.`, `-` and `_` (repos like
/// `foo.js` are common). `.` and `..` are refused because they are path
/// components, never repository names.
fn validate_name(s: &str) -> Result<(), RefError> {
    if s.is_empty() {
        return Err(bad_ref!("the owner and repo must not be empty"));
    }
    if s.len() > MAX_NAME_LEN {
        return Err(bad_ref!("the owner or repo is longer than 100 characters"));
    }
    if !s
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
    {
        return Err(bad_ref!(
            "the owner and repo may hold only letters, digits, '.', '-' and '_'"
        ));
    }
    if s == "." || s == ".." {
        return Err(bad_ref!("the owner or repo is a path component"));
    }
    Ok(())
}

/// A DNS name (letters, digits, `.`, `-`; no empty label, no label starting or
/// ending in `-`) with an optional `:port` in 1..=65535.
fn validate_host(s: &str) -> Result<(), RefError> {
    let (name, port) = match s.split_once(':') {
        Some((name, port)) => (name, Some(port)),
        None => (s, None),
    };
    if name.is_empty() || name.len() > MAX_HOST_LEN {
        return Err(bad_ref!("the host must be 1-253 characters"));
    }
    let label_ok = |l: &str| {
        !l.is_empty()
            && !l.starts_with('-')
            && !l.ends_with('-')
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    };
    if !name.split('.').all(label_ok) {
        return Err(bad_ref!("the host is not a valid DNS name"));
    }
    if let Some(port) = port {
        let valid = !port.is_empty()
            && !port.starts_with('0')
            && port.bytes().all(|b| b.is_ascii_digit())
            && port.parse::<u16>().is_ok();
        if !valid {
            return Err(bad_ref!("the port must be a number from 1 to 65535"));
        }
    }
    Ok(())
}

impl fmt::Display for WorkItemRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:", self.provider)?;
        if let Some(host) = &self.host {
            write!(f, "{host}/")?;
        }
        write!(f, "{}/{}#{}", self.owner, self.repo, self.number)
    }
}

impl WorkItemRef {
    /// `provider-owner-repo-number` (host included when present), runs outside
    /// `[A-Za-z0-9._-]` turned into `-`. Dots are kept: the slug is also the
    /// registry file name, and existing deployments already named files so.
    pub fn slug(&self) -> String {
        let number = self.number.to_string();
        let mut parts = vec![self.provider.as_str()];
        parts.extend(self.host.as_deref());
        parts.extend([self.owner.as_str(), self.repo.as_str(), number.as_str()]);
        sanitise_slug(&parts.join("-"))
    }

    /// `loop-<slug>` spelled the way tmux spells it.
    pub fn tmux_name(&self) -> String {
        tmux_session_name(&self.slug())
    }
}

/// Replaces every run of characters outside `[A-Za-z0-9._-]` with one `-`.
fn sanitise_slug(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut in_run = false;
    for c in raw.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
            out.push(c);
            in_run = false;
        } else if !in_run {
            out.push('-');
            in_run = true;
        }
    }
    out
}

/// `loop-<slug>` with every `.` and `:` rewritten to `_`.
///
/// tmux reserves `.` and `:` for its target grammar (`session:window.pane`)
/// and silently renames a new session that contains them, so a name minted
/// any other way would not be the one tmux actually holds (issue-154). The
/// rewrite is not injective (`foo.js` and `foo_js` meet), which is tmux's own
/// limitation.
pub fn tmux_session_name(slug: &str) -> String {
    format!("loop-{}", tmux_spelling(slug))
}

/// The session name tmux would give a session created as `name`.
fn tmux_spelling(name: &str) -> String {
    name.replace(['.', ':'], "_")
}

/// `loop-standing-<name>`.
pub fn standing_tmux_name(name: &str) -> String {
    format!("loop-standing-{name}")
}

/// Standing names match `^[a-z0-9][a-z0-9-]{0,39}$`, which also makes them
/// safe as file names and as tmux session names without any rewriting.
pub fn validate_standing_name(name: &str) -> Result<(), RefError> {
    let Some(first) = name.bytes().next() else {
        return Err(bad_standing!("the name is empty"));
    };
    if name.len() > 40 {
        return Err(bad_standing!("the name is longer than 40 characters"));
    }
    if !(first.is_ascii_lowercase() || first.is_ascii_digit()) {
        return Err(bad_standing!("the name must start with a letter or digit"));
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return Err(bad_standing!(
            "the name holds a character other than a-z, 0-9 or '-'"
        ));
    }
    Ok(())
}

/// A `tmuxTarget` read back from a record, normalised (`.`/`:` to `_` in the
/// session part) so old records address the session tmux really has.
///
/// A target may be a bare session name or carry tmux's `:window` or
/// `:window.pane` suffix. Because a session name can never contain `.` or `:`
/// once tmux has created it, the only way to tell an old record's dotted
/// session name from a suffix is the suffix's shape, so the decision is:
/// a trailing `:<digits>` or `:<digits>.<digits>` is a window/pane suffix and is
/// kept verbatim; everything before it is the session name and gets tmux's
/// spelling. A `:` anywhere else (slugs never contain one, but a hand-edited
/// `host:port` might) belongs to the session name and becomes `_`, as tmux
/// would have made it. This applies to any target, not only `loop-*` ones:
/// refusing foreign targets is the caller's job, and tmux renames every
/// session the same way. The empty string (a record not yet given a session)
/// stays empty.
pub fn normalise_tmux_target(target: &str) -> String {
    let (session, suffix) = split_window_suffix(target);
    format!("{}{suffix}", tmux_spelling(session))
}

/// Splits `session:W` or `session:W.P` (W, P all digits) into the session and
/// the suffix including its `:`. Anything else is all session.
fn split_window_suffix(target: &str) -> (&str, &str) {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Some((session, window_pane)) = target.rsplit_once(':') {
        let is_suffix = match window_pane.split_once('.') {
            Some((window, pane)) => digits(window) && digits(pane),
            None => digits(window_pane),
        };
        if is_suffix && !session.is_empty() {
            return target.split_at(session.len());
        }
    }
    (target, "")
}

/// A session id must pass this before it reaches an argv, so a flag can
/// never masquerade as an id: `^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`.
pub fn is_valid_session_id(id: &str) -> bool {
    let bytes = id.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 128
        && bytes[0].is_ascii_alphanumeric()
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> WorkItemRef {
        s.parse().unwrap()
    }

    #[test]
    fn parses_the_plain_form() {
        let r = parse("github:octo/repo#15");
        assert_eq!(r.provider, "github");
        assert_eq!(r.host, None);
        assert_eq!(
            (r.owner.as_str(), r.repo.as_str(), r.number),
            ("octo", "repo", 15)
        );
    }

    #[test]
    fn host_with_port_is_one_host() {
        let r = parse("github:ghe.example.com:8443/octo/repo#15");
        assert_eq!(r.host.as_deref(), Some("ghe.example.com:8443"));
        assert_eq!(r.to_string(), "github:ghe.example.com:8443/octo/repo#15");
    }

    #[test]
    fn slug_keeps_dots_but_tmux_name_does_not() {
        let r = parse("github:octo/foo.js#3");
        assert_eq!(r.slug(), "github-octo-foo.js-3");
        assert_eq!(r.tmux_name(), "loop-github-octo-foo_js-3");
    }

    #[test]
    fn sanitise_collapses_runs() {
        assert_eq!(sanitise_slug("a:/ b"), "a-b");
        assert_eq!(sanitise_slug("a:-b"), "a--b");
        assert_eq!(sanitise_slug("ok.name_1-x"), "ok.name_1-x");
        assert_eq!(sanitise_slug("é"), "-");
    }

    #[test]
    fn reasons_never_echo_input() {
        let canary = "CANARY-xyz";
        for bad in [
            format!("{canary}:octo/repo#1"),
            format!("github:{canary}!/repo#1"),
            format!("github:octo/repo#{canary}"),
            format!("github:octo/repo/{canary}/x#1"),
            format!("github:{canary}..:99999/o/r#1"),
        ] {
            let err = bad.parse::<WorkItemRef>().unwrap_err();
            assert!(!err.to_string().contains(canary), "{err}");
        }
    }

    #[test]
    fn standing_names() {
        for good in ["a", "0", "ops-bot", &"a".repeat(40)] {
            assert_eq!(validate_standing_name(good), Ok(()), "{good}");
        }
        for bad in ["", "-a", "A", "a_b", "a.b", "a b", &"a".repeat(41), "é"] {
            assert!(validate_standing_name(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn window_suffix_is_recognised_only_in_its_exact_shape() {
        assert_eq!(split_window_suffix("s:1"), ("s", ":1"));
        assert_eq!(split_window_suffix("s:1.2"), ("s", ":1.2"));
        assert_eq!(split_window_suffix("s:1."), ("s:1.", ""));
        assert_eq!(split_window_suffix("s:x"), ("s:x", ""));
        assert_eq!(split_window_suffix(":1"), (":1", ""));
        assert_eq!(split_window_suffix(""), ("", ""));
    }
}
