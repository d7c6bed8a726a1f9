//! The fleet's tmux server: the socket the-loop last started a session on,
//! kept beside the registry (`<state root>/tmux-server`) so that every
//! later command asks that server, whatever `$TMUX` says where it runs. A
//! plan run from a pane of another server would otherwise read every
//! session as "not running" and pass.
//!
//! Which socket a command talks to, first match wins:
//! 1. `THE_LOOP_TMUX_SOCKET`, for an operator who moves the fleet on purpose;
//! 2. this file;
//! 3. tmux's own choice: the server of `$TMUX`, else
//!    `$TMUX_TMPDIR/tmux-UID/default` (`/tmp` when unset).

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};

/// The environment variable that names the server outright.
pub const SOCKET_VARIABLE: &str = "THE_LOOP_TMUX_SOCKET";

/// Where the fleet's server is kept.
pub fn path(state_root: &Path) -> PathBuf {
    state_root.join("tmux-server")
}

/// Where `apply --replace-server` notes a replacement in progress, until
/// every session is back (`sessions start --all` completes it too).
pub fn replacement_journal(state_root: &Path) -> PathBuf {
    state_root.join("replace-server.json")
}

/// Where a socket came from, for the plan's header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Variable,
    Registry,
    Tmux,
}

/// The socket this command talks to, and why.
pub fn choose(state_root: &Path) -> (PathBuf, Source) {
    if let Some(socket) = std::env::var_os(SOCKET_VARIABLE).filter(|v| !v.is_empty()) {
        return (PathBuf::from(socket), Source::Variable);
    }
    if let Some(socket) = pinned(state_root) {
        return (socket, Source::Registry);
    }
    (tmux_default(), Source::Tmux)
}

/// The socket the file names, when it names an absolute path; anything
/// else (absent, unreadable, not the caller's, not a path) names none.
pub fn pinned(state_root: &Path) -> Option<PathBuf> {
    let file = path(state_root);
    crate::fsutil::owner::check_path(&file, crate::fsutil::owner::Rule::Unwritable).ok()?;
    let bytes = crate::bounded_read::read(&file, &crate::bounded_read::STATE_TEXT).ok()?;
    let line = bytes.split(|b| *b == b'\n').next()?.to_vec();
    let socket = PathBuf::from(OsString::from_vec(line));
    (socket.is_absolute() && !socket.as_os_str().is_empty()).then_some(socket)
}

/// Keeps `socket` as the fleet's server, when it is not already.
pub fn pin(state_root: &Path, socket: &Path) -> std::io::Result<()> {
    if pinned(state_root).as_deref() == Some(socket) {
        return Ok(());
    }
    let mut bytes = socket.as_os_str().as_encoded_bytes().to_vec();
    bytes.push(b'\n');
    crate::fsutil::write_atomic(&path(state_root), &bytes, crate::fsutil::PRIVATE_FILE)
}

/// The socket tmux itself would use with no `-S` or `-L`: the one `$TMUX`
/// names (its first comma-separated field), else the default one.
pub fn tmux_default() -> PathBuf {
    let from_tmux = std::env::var_os("TMUX")
        .filter(|v| !v.is_empty())
        .and_then(|v| {
            let bytes = v.into_vec();
            let first = bytes.split(|b| *b == b',').next()?.to_vec();
            let socket = PathBuf::from(OsString::from_vec(first));
            socket.is_absolute().then_some(socket)
        });
    from_tmux.unwrap_or_else(|| {
        let dir = std::env::var_os("TMUX_TMPDIR")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/tmp"));
        let uid = rustix::process::getuid().as_raw();
        dir.join(format!("tmux-{uid}")).join("default")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pinned_server_is_read_back_and_junk_names_none() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(pinned(dir.path()), None);
        pin(dir.path(), Path::new("/tmp/tmux-1/other")).unwrap();
        assert_eq!(
            pinned(dir.path()).as_deref(),
            Some(Path::new("/tmp/tmux-1/other"))
        );
        std::fs::write(path(dir.path()), b"relative/socket\n").unwrap();
        assert_eq!(pinned(dir.path()), None);
    }
}
