//! Sessions started with `the-loop sessions start`, and what a world's
//! sessions leave to read: panes, records, state files, events, and what
//! the stand-in was typed or started with.

use super::{stderr, stdout, wait_for, LegacySession, Pane, World};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

impl World {
    /// (pane id, pid, window index, dead) of the session's first pane.
    pub fn pane(&self, session: &str) -> Option<Pane> {
        let out = self.tmux(&[
            "list-panes",
            "-s",
            "-t",
            &format!("={session}"),
            "-F",
            "#{pane_id}\t#{pane_pid}\t#{window_index}\t#{pane_dead}\t#{session_name}",
        ]);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let line = text.lines().next()?;
        let cols: Vec<&str> = line.split('\t').collect();
        Some(Pane {
            id: cols[0].into(),
            pid: cols[1].parse().ok()?,
            window: cols[2].parse().ok()?,
            dead: cols[3] == "1",
            session: cols[4].into(),
        })
    }

    pub fn registry_files(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut files = BTreeMap::new();
        collect_files(&self.state.join("local"), &mut files);
        files
    }

    /// Every file under the state root, for sweeps.
    pub fn state_files(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut files = BTreeMap::new();
        collect_files(&self.state, &mut files);
        files
    }
}

fn collect_files(dir: &Path, into: &mut BTreeMap<PathBuf, Vec<u8>>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_files(&path, into);
        } else if let Ok(bytes) = std::fs::read(&path) {
            into.insert(path, bytes);
        }
    }
}

/// Decodes the stand-in's `{"type": kind, "b64": …}` transcript lines.
fn decoded_lines(transcript: &str, kind: &str) -> Vec<String> {
    use base64::Engine;
    transcript
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["type"] == kind)
        .filter_map(|v| {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(v["b64"].as_str()?)
                .ok()?;
            Some(String::from_utf8_lossy(&bytes).into_owned())
        })
        .collect()
}

impl World {
    /// Starts a session with `the-loop sessions start` in `work/<slug>`.
    pub fn started_session(&self, reference: &str, slug: &str) -> LegacySession {
        let cwd = self.work.join(slug);
        std::fs::create_dir_all(&cwd).unwrap();
        self.started_session_in(reference, slug, &cwd)
    }

    /// `sessions start REF --cwd CWD --json`, which must succeed; its report.
    pub fn start_session(&self, reference: &str, cwd: &Path) -> serde_json::Value {
        let out = self.the_loop(&[
            "sessions",
            "start",
            reference,
            "--cwd",
            cwd.to_str().unwrap(),
            "--json",
        ]);
        assert!(
            out.status.success(),
            "sessions start: {}{}",
            stdout(&out),
            stderr(&out)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// The config and env file the real-CLI tests share: `EXTRA_TOKEN`
    /// delivered (holding `token`), `ANTHROPIC_API_KEY` withheld, and the
    /// harness binary at `claude`.
    pub fn configure_harness(&self, claude: &Path, token: &str) {
        self.write_config("  credentials: [ANTHROPIC_API_KEY]\n  deliver: [EXTRA_TOKEN]\n");
        self.write_raw_config(&format!(
            "{}  harnessBinary:\n    claude: {}\n",
            std::fs::read_to_string(&self.config_path).unwrap(),
            claude.display()
        ));
        self.write_env(&format!("EXTRA_TOKEN={token}\n"));
    }

    pub fn started_session_in(&self, reference: &str, slug: &str, cwd: &Path) -> LegacySession {
        let started = self.start_session(reference, cwd);
        let session = LegacySession {
            reference: reference.into(),
            slug: slug.into(),
            name: started["tmux_target"].as_str().unwrap().into(),
            session_id: started["harness_session_id"].as_str().unwrap().into(),
            cwd: cwd.canonicalize().unwrap(),
        };
        wait_for(
            || {
                self.transcript_text(&session)
                    .contains("\"type\":\"start\"")
            },
            "the harness started",
        );
        session
    }

    /// What was typed or pasted into the stand-in, line by line (raw bytes,
    /// paste brackets included).
    pub fn inputs(&self, s: &LegacySession) -> Vec<String> {
        decoded_lines(&self.transcript_text(s), "input")
    }

    /// First prompts the stand-in was started with.
    pub fn boot_prompts(&self, s: &LegacySession) -> Vec<String> {
        decoded_lines(&self.transcript_text(s), "prompt")
    }

    /// The same session under another conversation id (after a fresh start).
    pub fn with_session_id(&self, s: &LegacySession, id: &str) -> LegacySession {
        LegacySession {
            session_id: id.into(),
            ..s.clone()
        }
    }

    pub fn record_path(&self, slug: &str) -> PathBuf {
        self.state.join("local").join(format!("{slug}.json"))
    }

    pub fn record(&self, slug: &str) -> Option<serde_json::Value> {
        let bytes = std::fs::read(self.record_path(slug)).ok()?;
        Some(serde_json::from_slice(&bytes).unwrap())
    }

    /// Rewrites a record with `edit` applied.
    pub fn edit_record(&self, slug: &str, edit: impl FnOnce(&mut serde_json::Value)) {
        let mut record = self.record(slug).expect("record exists");
        edit(&mut record);
        std::fs::write(
            self.record_path(slug),
            serde_json::to_string_pretty(&record).unwrap(),
        )
        .unwrap();
    }

    /// Every event logged so far.
    pub fn events(&self) -> Vec<serde_json::Value> {
        std::fs::read_to_string(self.state.join("events.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    pub fn events_named(&self, name: &str) -> Vec<serde_json::Value> {
        self.events()
            .into_iter()
            .filter(|e| e["event"] == name)
            .collect()
    }
}
