//! Which of Claude Code's background sessions the-loop manages: one small
//! file per session, `<state root>/hosts/claude-background/<short id>.json`,
//! written by `import <short id> REF --host claude-background` (or a start
//! on that host). The host's own files say which sessions run; these say
//! which are the-loop's to roll, by the same ownership rule as panes: the
//! others are listed, never touched.

use crate::bounded_read::{Limit, Links};
use crate::fsutil::owner::Rule;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One managed background session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BackgroundRecord {
    /// Claude Code's short id (`claude agents`), which stays across
    /// respawns while the pid changes.
    pub id: String,
    /// The work item (or standing name) the session is for.
    #[serde(rename = "ref")]
    pub reference: String,
    /// The conversation it held when it came under management.
    pub session_id: Option<String>,
    /// The Claude config dir whose daemon hosts it.
    pub config_dir: PathBuf,
    /// When the-loop took it on (Unix milliseconds).
    pub managed_since_ms: u64,
}

/// Such a record is a few paths and ids.
const BACKGROUND_RECORD: Limit = Limit {
    what: "a background-session record",
    cap: 16 * 1024,
    links: Links::Refuse,
    owner: Some(Rule::Unwritable),
};

/// Where the records live under the state root.
pub fn dir(state_root: &Path) -> PathBuf {
    super::host_roll::dir(state_root, crate::host_kind::Host::ClaudeBackground)
}

/// Whether `text` is a background session's short id: eight lowercase hex
/// digits, as `claude --bg` prints it. It is also the record's file name,
/// so nothing else may be one.
pub fn is_short_id(text: &str) -> bool {
    text.len() == 8
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Every record, and each file that could not be read as one (its path and
/// why): a bad file is reported, never fatal.
pub fn load_all(state_root: &Path) -> (Vec<BackgroundRecord>, Vec<(PathBuf, String)>) {
    let mut records = Vec::new();
    let mut bad = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir(state_root)) else {
        return (records, bad);
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let named_well = path
            .file_stem()
            .and_then(|s| s.to_str())
            .is_some_and(is_short_id)
            && path.extension().is_some_and(|e| e == "json");
        if !named_well {
            continue;
        }
        let read = crate::bounded_read::read(&path, &BACKGROUND_RECORD)
            .map_err(|e| crate::bounded_read::describe(&e))
            .and_then(|bytes| {
                serde_json::from_slice::<BackgroundRecord>(&bytes).map_err(|e| {
                    format!(
                        "not a background-session record: line {}, column {}",
                        e.line(),
                        e.column()
                    )
                })
            });
        match read {
            Ok(record) if path.file_stem().and_then(|s| s.to_str()) == Some(record.id.as_str()) => {
                records.push(record)
            }
            Ok(_) => bad.push((path, "its id is not its file's name".into())),
            Err(why) => bad.push((path, why)),
        }
    }
    records.sort_by(|a, b| a.id.cmp(&b.id));
    (records, bad)
}

/// Writes (or replaces) a record, atomically.
pub fn save(state_root: &Path, record: &BackgroundRecord) -> std::io::Result<PathBuf> {
    if !is_short_id(&record.id) {
        return Err(std::io::ErrorKind::InvalidInput.into());
    }
    let dir = dir(state_root);
    crate::fsutil::create_private_dir(&dir)?;
    let path = dir.join(format!("{}.json", record.id));
    let mut bytes = serde_json::to_vec_pretty(record).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    crate::fsutil::write_atomic(&path, &bytes, 0o600)?;
    Ok(path)
}

/// Removes a record (the session is no longer the-loop's to roll).
pub fn forget(state_root: &Path, id: &str) -> std::io::Result<()> {
    if !is_short_id(id) {
        return Err(std::io::ErrorKind::InvalidInput.into());
    }
    crate::fsutil::remove_regular(&dir(state_root).join(format!("{id}.json")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_id_is_eight_lowercase_hex_digits() {
        assert!(is_short_id("c83395a6"));
        for bad in [
            "C83395A6",
            "c83395a",
            "c83395a67",
            "../../x1",
            "c83395g6",
            "",
        ] {
            assert!(!is_short_id(bad), "{bad}");
        }
    }

    #[test]
    fn records_round_trip_and_a_bad_file_is_reported_not_fatal() {
        let root = tempfile::tempdir().unwrap();
        let record = BackgroundRecord {
            id: "c83395a6".into(),
            reference: "github:octo/repo#1".into(),
            session_id: Some("c83395a6-c09e-4324-b901-065096332ae6".into()),
            config_dir: "/home/a/.claude".into(),
            managed_since_ms: 1,
        };
        save(root.path(), &record).unwrap();
        std::fs::write(dir(root.path()).join("0000000a.json"), "{").unwrap();
        let (records, bad) = load_all(root.path());
        assert_eq!(records, [record]);
        assert_eq!(bad.len(), 1);
        assert!(bad[0].1.contains("line 1"), "{bad:?}");
        forget(root.path(), "c83395a6").unwrap();
        assert!(load_all(root.path()).0.is_empty());
    }
}
