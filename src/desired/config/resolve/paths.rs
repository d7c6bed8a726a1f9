//! The config's own paths: `state.root`, `env.file`, the workspace root and
//! harness binaries are written relative to the config file or to `~`, and
//! resolve to absolute paths here.

use super::{keys, Finding};
use std::path::{Path, PathBuf};

/// Resolves the config's own paths.
pub(super) struct Paths<'a> {
    /// The directory holding the config file.
    pub dir: &'a Path,
    pub home: Option<&'a Path>,
}

impl Paths<'_> {
    /// Absolute: `~/` expands to the home directory, and a relative path is
    /// taken from the config's directory, so the file means the same thing
    /// whoever runs the-loop, from wherever.
    pub fn resolve(&self, text: &str, at: &[&str]) -> Result<PathBuf, Finding> {
        if text.is_empty() {
            return Err(Finding::invalid(keys(at), "expected a non-empty path"));
        }
        let expanded = match (text.strip_prefix('~'), self.home) {
            (Some(""), Some(home)) => home.to_owned(),
            (Some(rest), Some(home)) if rest.starts_with('/') => {
                home.join(rest.trim_start_matches('/'))
            }
            _ => PathBuf::from(text),
        };
        Ok(crate::fsutil::absolute(self.dir, &expanded))
    }

    /// Like [`Paths::resolve`], except that a bare name (no `/`) is kept as it
    /// is, for a lookup on PATH when the program is run.
    pub fn program(&self, text: &str, at: &[&str]) -> Result<PathBuf, Finding> {
        if !text.is_empty() && !text.contains('/') {
            return Ok(PathBuf::from(text));
        }
        self.resolve(text, at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(home: Option<&Path>) -> Paths<'_> {
        Paths {
            dir: Path::new("/etc/loop"),
            home,
        }
    }

    #[test]
    fn paths_resolve_against_the_config_directory_and_home() {
        let home = Path::new("/home/op");
        let p = paths(Some(home));
        let at = ["state", "root"];
        assert_eq!(
            p.resolve("state", &at).unwrap(),
            Path::new("/etc/loop/state")
        );
        assert_eq!(
            p.resolve("./a/./b", &at).unwrap(),
            Path::new("/etc/loop/a/b")
        );
        assert_eq!(p.resolve("/var/x", &at).unwrap(), Path::new("/var/x"));
        assert_eq!(p.resolve("~", &at).unwrap(), home);
        assert_eq!(p.resolve("~/s", &at).unwrap(), Path::new("/home/op/s"));
        // `~user` is not expanded: it is a relative name like any other.
        assert_eq!(
            p.resolve("~bob/s", &at).unwrap(),
            Path::new("/etc/loop/~bob/s")
        );
        assert!(p.resolve("", &at).is_err());
    }

    #[test]
    fn without_home_a_tilde_is_literal() {
        let p = paths(None);
        let at = ["state", "root"];
        assert_eq!(p.resolve("~/s", &at).unwrap(), Path::new("/etc/loop/~/s"));
    }

    #[test]
    fn a_bare_program_name_is_kept_for_path_lookup() {
        let p = paths(None);
        let at = ["routing", "harnessBinary", "claude"];
        assert_eq!(
            p.program("claude-beta", &at).unwrap(),
            Path::new("claude-beta")
        );
        assert_eq!(
            p.program("bin/claude", &at).unwrap(),
            Path::new("/etc/loop/bin/claude")
        );
    }
}
