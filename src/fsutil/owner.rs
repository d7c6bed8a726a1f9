//! Files the-loop acts on are the caller's own (issue 43, item 3).
//!
//! Whoever can write the config chooses the program the-loop runs as a
//! harness (`routing.harnessBinary`); whoever can write the env file chooses
//! what every session holds; whoever can write a record chooses the
//! conversation a start resumes. So the config, the env file, the state
//! root, every record and the fingerprint key must be owned by the
//! effective uid and writable by no one else, as ssh's `StrictModes` holds
//! `~/.ssh`. Root follows the same rule: a root-owned file is root's own,
//! and a file another user owns is refused even for root, since root
//! acting on it is exactly how that user's words run as root.
//!
//! The check reads a file's metadata only (the owner and the mode), so a
//! refusal names the path, the owner, the mode and the fix, never content.
//! [`crate::bounded_read`] applies it through the descriptor it reads
//! from, so the file checked is the file read.

use std::fmt;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// What others may not do with a file besides owning it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// No one else may write it (the config, the env file, the state root,
    /// records, journal entries): reading it gives nothing away.
    Unwritable,
    /// No one else may read or write it (the fingerprint key: whoever reads
    /// it can recompute every keyed fingerprint).
    Private,
}

impl Rule {
    /// The permission bits this rule forbids.
    fn forbidden(self) -> u32 {
        match self {
            Rule::Unwritable => 0o022,
            Rule::Private => 0o077,
        }
    }

    fn chmod(self) -> &'static str {
        match self {
            Rule::Unwritable => "chmod go-w",
            Rule::Private => "chmod go-rwx",
        }
    }
}

/// A file that is not the caller's alone: who owns it, its mode, and who
/// asked. Carried inside an [`io::Error`] of kind `PermissionDenied`;
/// [`not_yours`] finds it again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotYours {
    pub owner: u32,
    /// The owner's user name, when this machine resolves it.
    pub owner_name: Option<String>,
    /// The effective uid that read it.
    pub caller: u32,
    /// The permission bits (`mode & 0o7777`).
    pub mode: u32,
    pub rule: Rule,
}

impl NotYours {
    /// Whether another user owns it (else only its mode is wrong).
    pub fn foreign(&self) -> bool {
        self.owner != self.caller
    }

    fn open_bits(&self) -> u32 {
        self.mode & self.rule.forbidden()
    }

    /// The commands that make the file at `path` the caller's alone.
    pub fn fix(&self, path: &Path) -> String {
        let path = shell_word(path);
        let mut steps = Vec::new();
        if self.foreign() {
            let me = crate::fsutil::user_name::of(self.caller)
                .unwrap_or_else(|| self.caller.to_string());
            steps.push(format!("`chown {me} {path}`"));
        }
        if self.open_bits() != 0 {
            steps.push(format!("`{} {path}`", self.rule.chmod()));
        }
        steps.join(" and ")
    }

    /// Why such a file is refused, and what to do: a diagnostic's help.
    pub fn help(&self, path: &Path) -> String {
        format!(
            "the-loop acts only on files that are yours alone, as ssh's StrictModes does: \
             whoever else can write this one chooses what the-loop runs, or which \
             conversation it resumes. Check that it holds what you meant, then {}",
            self.fix(path)
        )
    }
}

impl fmt::Display for NotYours {
    /// `owned by uid 65534 (nobody), not by you (uid 0); mode 0644`, or
    /// `writable by its group (mode 0664)`: metadata only.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mode = format!("mode {:04o}", self.mode);
        let open = match self.open_bits() {
            0 => None,
            bits => {
                let verb = match self.rule {
                    Rule::Unwritable => "writable",
                    Rule::Private => "readable or writable",
                };
                let who = match (bits & 0o070 != 0, bits & 0o007 != 0) {
                    (true, true) => "its group and others",
                    (true, false) => "its group",
                    _ => "others",
                };
                Some(format!("{verb} by {who}"))
            }
        };
        if self.foreign() {
            write!(f, "owned by uid {}", self.owner)?;
            if let Some(name) = &self.owner_name {
                write!(f, " ({name})")?;
            }
            write!(f, ", not by you (uid {})", self.caller)?;
            match open {
                Some(open) => write!(f, ", and {open} ({mode})"),
                None => write!(f, "; {mode}"),
            }
        } else {
            write!(f, "{} ({mode})", open.unwrap_or_default())
        }
    }
}

impl std::error::Error for NotYours {}

impl NotYours {
    /// This refusal as an [`io::Error`] that [`not_yours`] recognises.
    pub fn into_error(self) -> io::Error {
        io::Error::new(io::ErrorKind::PermissionDenied, self)
    }
}

/// The [`NotYours`] an error was refused for, if any.
pub fn not_yours(e: &io::Error) -> Option<&NotYours> {
    e.get_ref()?.downcast_ref::<NotYours>()
}

/// Whether the file `meta` describes is the caller's alone under `rule`.
pub fn check(meta: &std::fs::Metadata, rule: Rule) -> Result<(), NotYours> {
    // Asked of the kernel once: the-loop never changes its effective user,
    // and a plan checks each of hundreds of records.
    static CALLER: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    let caller = *CALLER.get_or_init(|| nix::unistd::geteuid().as_raw());
    let mode = meta.mode() & 0o7777;
    let refused = NotYours {
        owner: meta.uid(),
        owner_name: None,
        caller,
        mode,
        rule,
    };
    if !refused.foreign() && refused.open_bits() == 0 {
        return Ok(());
    }
    // Resolved only for a refusal: a plan reads hundreds of records.
    Err(NotYours {
        owner_name: crate::fsutil::user_name::of(refused.owner),
        ..refused
    })
}

/// [`check`] of what `path` names (a link followed: the file acted on is
/// the target). `Ok` when nothing is there: the-loop creates it, its own.
pub fn check_path(path: &Path, rule: Rule) -> io::Result<()> {
    match std::fs::metadata(path) {
        Ok(meta) => check(&meta, rule).map_err(NotYours::into_error),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// `path` as one shell word: as it is when it holds only safe characters,
/// else single-quoted, so the fix can be pasted.
fn shell_word(path: &Path) -> String {
    let text = path.display().to_string();
    let safe = |c: char| c.is_ascii_alphanumeric() || "/._-+:@%,".contains(c);
    if !text.is_empty() && text.chars().all(safe) {
        text
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn refusal(owner: u32, caller: u32, mode: u32, rule: Rule) -> NotYours {
        NotYours {
            owner,
            owner_name: (owner == 65534).then(|| "nobody".into()),
            caller,
            mode,
            rule,
        }
    }

    #[test]
    fn a_refusal_names_owner_mode_and_fix() {
        let path = Path::new("/srv/the loop/cli-config.yaml");
        let foreign = refusal(65534, 0, 0o644, Rule::Unwritable);
        assert_eq!(
            foreign.to_string(),
            "owned by uid 65534 (nobody), not by you (uid 0); mode 0644"
        );
        let me = crate::fsutil::user_name::of(0).unwrap_or_else(|| "0".into());
        assert_eq!(
            foreign.fix(path),
            format!("`chown {me} '/srv/the loop/cli-config.yaml'`")
        );
        let open = refusal(0, 0, 0o664, Rule::Unwritable);
        assert_eq!(open.to_string(), "writable by its group (mode 0664)");
        assert_eq!(open.fix(Path::new("/x")), "`chmod go-w /x`");
        let both = refusal(65534, 0, 0o646, Rule::Unwritable);
        assert_eq!(
            both.to_string(),
            "owned by uid 65534 (nobody), not by you (uid 0), and writable by others (mode 0646)"
        );
        assert!(both.fix(Path::new("/x")).ends_with("and `chmod go-w /x`"));
        let key = refusal(0, 0, 0o640, Rule::Private);
        assert_eq!(
            key.to_string(),
            "readable or writable by its group (mode 0640)"
        );
    }

    #[test]
    fn the_callers_own_file_passes_and_an_open_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, b"x").unwrap();
        let set = |mode| std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode));
        set(0o644).unwrap();
        check_path(&file, Rule::Unwritable).unwrap();
        assert!(check_path(&file, Rule::Private).is_err());
        set(0o600).unwrap();
        check_path(&file, Rule::Private).unwrap();
        set(0o620).unwrap();
        let e = check_path(&file, Rule::Unwritable).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::PermissionDenied);
        assert_eq!(not_yours(&e).map(|n| n.mode), Some(0o620));
        check_path(&dir.path().join("absent"), Rule::Unwritable).unwrap();
    }
}
