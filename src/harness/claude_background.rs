//! What Claude Code's background host writes, read as data (measured on
//! 2.1.332 and 2.1.328; `docs/hosts.md`): the listing `claude agents --json
//! --all` prints, the daemon's `daemon.lock`, and each worker's
//! `sessions/<pid>.json`. These are a research preview's files and may
//! change: a field this reader needs and does not find makes the whole
//! read a refusal naming the version, never a guess.

use serde::Deserialize;

/// Names the host routes itself: with the daemon holding a gateway
/// (`ANTHROPIC_BASE_URL`), a worker's requests go through the daemon and
/// the name is not in the worker's `/proc/<pid>/environ` (2.1.332). A
/// worker without it is no drift; one holding another value still is.
pub const HOST_ROUTED: &[&str] = &["ANTHROPIC_BASE_URL"];

/// Drops from a worker's changes the names the host routes and the worker
/// does not hold ([`HOST_ROUTED`]).
pub fn worker_changes(
    changes: Vec<crate::events::roll::Change>,
) -> Vec<crate::events::roll::Change> {
    changes
        .into_iter()
        .filter(|c| !(c.have.is_none() && HOST_ROUTED.contains(&c.name.as_str())))
        .collect()
}

/// A background session's activity, as `claude agents --json` says it
/// (and `plan --json` repeats it, in the same words).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum BackgroundStatus {
    /// A turn runs.
    Busy,
    /// Between turns.
    Idle,
    /// It asks a person (a permission prompt).
    Waiting,
    /// No worker runs (listed with `--all`): nothing to roll.
    Stopped,
}

impl std::fmt::Display for BackgroundStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl BackgroundStatus {
    pub fn name(self) -> &'static str {
        match self {
            BackgroundStatus::Busy => "busy",
            BackgroundStatus::Idle => "idle",
            BackgroundStatus::Waiting => "waiting",
            BackgroundStatus::Stopped => "stopped",
        }
    }
}

/// One background session of the listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedSession {
    /// The short id (`c83395a6`), stable across respawns.
    pub id: String,
    /// The conversation, which the daemon follows across `/clear`.
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    /// The worker's pid; none for a stopped session.
    pub pid: Option<i32>,
    pub status: BackgroundStatus,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawEntry {
    kind: String,
    id: Option<String>,
    pid: Option<i32>,
    session_id: Option<String>,
    cwd: Option<String>,
    status: Option<String>,
    state: Option<String>,
}

/// Reads `claude agents --json --all`: its background sessions (TUI
/// sessions, `kind: "interactive"`, are tmux's or nobody's). An entry of
/// kind `background` without an id, or with a status this reader does not
/// know, refuses the listing.
pub fn parse_agents(json: &[u8]) -> Result<Vec<ListedSession>, String> {
    let entries: Vec<RawEntry> = serde_json::from_slice(json).map_err(|e| {
        format!(
            "`claude agents --json` printed no list this version reads (line {}, column {})",
            e.line(),
            e.column()
        )
    })?;
    let mut sessions = Vec::new();
    for entry in entries.into_iter().filter(|e| e.kind == "background") {
        let id = entry
            .id
            .filter(|id| crate::registry::background::is_short_id(id))
            .ok_or("a background session is listed without a short id this version reads")?;
        let stopped = entry.pid.is_none() || entry.state.as_deref() == Some("stopped");
        let status = match (stopped, entry.status.as_deref()) {
            (true, _) => BackgroundStatus::Stopped,
            (false, Some("busy")) => BackgroundStatus::Busy,
            (false, Some("idle")) => BackgroundStatus::Idle,
            (false, Some("waiting")) => BackgroundStatus::Waiting,
            // Right after a start the listing has a state and no status
            // yet: a turn is under way, never "between turns".
            (false, None) if entry.state.as_deref() == Some("working") => BackgroundStatus::Busy,
            (false, other) => {
                return Err(format!(
                    "background session {id} has a status this version does not know ({})",
                    other.map_or("none".into(), |s| format!("{s:?}"))
                ))
            }
        };
        sessions.push(ListedSession {
            id,
            session_id: entry.session_id,
            cwd: entry.cwd,
            pid: entry.pid.filter(|pid| *pid > 0),
            status,
        });
    }
    sessions.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(sessions)
}

/// The daemon, as `daemon.lock` names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DaemonLock {
    pub pid: i32,
    /// Field 22 of its `/proc/<pid>/stat` when it started: with the pid,
    /// names one process.
    pub proc_start: u64,
    /// `transient` (started by a client), `foreground` (`claude daemon run`).
    pub origin: Option<String>,
    pub version: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawLock {
    pid: i32,
    proc_start: String,
    origin: Option<String>,
    version: Option<String>,
}

pub fn parse_daemon_lock(json: &[u8]) -> Result<DaemonLock, String> {
    let raw: RawLock = serde_json::from_slice(json)
        .map_err(|_| "daemon.lock holds no pid and procStart this version reads".to_owned())?;
    let proc_start = raw
        .proc_start
        .parse()
        .map_err(|_| "daemon.lock's procStart is not a number".to_owned())?;
    Ok(DaemonLock {
        pid: raw.pid,
        proc_start,
        origin: raw.origin,
        version: raw.version,
    })
}

/// What a worker's `sessions/<pid>.json` says of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerFile {
    pub pid: i32,
    pub proc_start: u64,
    pub session_id: Option<String>,
    /// `jobId`: the short id of the background session it serves.
    pub job_id: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawWorker {
    pid: i32,
    proc_start: String,
    session_id: Option<String>,
    job_id: Option<String>,
}

pub fn parse_worker(json: &[u8]) -> Result<WorkerFile, String> {
    let raw: RawWorker = serde_json::from_slice(json).map_err(|_| {
        "a sessions/<pid>.json holds no pid and procStart this version reads".to_owned()
    })?;
    Ok(WorkerFile {
        pid: raw.pid,
        proc_start: raw
            .proc_start
            .parse()
            .map_err(|_| "a sessions/<pid>.json's procStart is not a number".to_owned())?,
        session_id: raw.session_id,
        job_id: raw.job_id,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `claude agents --json --all` of 2.1.332: one idle background
    /// session, one stopped, and a TUI.
    const AGENTS: &str = r#"[
      {"pid": 19547, "id": "c83395a6", "cwd": "/tmp/bgx/work", "kind": "background",
       "startedAt": 1796552412499, "sessionId": "c83395a6-c09e-4324-b901-065096332ae6",
       "name": "hello there", "status": "idle", "state": "blocked"},
      {"id": "0a1b2c3d", "cwd": "/w", "kind": "background", "sessionId": "0a1b2c3d-0000",
       "status": "idle", "state": "stopped"},
      {"pid": 4242, "kind": "interactive", "sessionId": "x", "cwd": "/t", "status": "busy"}
    ]"#;

    #[test]
    fn the_listing_gives_background_sessions_and_refuses_what_it_does_not_know() {
        let listed = parse_agents(AGENTS.as_bytes()).unwrap();
        assert_eq!(listed.len(), 2);
        assert_eq!(listed[0].id, "0a1b2c3d");
        assert_eq!(listed[0].status, BackgroundStatus::Stopped);
        assert_eq!(listed[0].pid, None);
        assert_eq!(listed[1].pid, Some(19547));
        assert_eq!(listed[1].status, BackgroundStatus::Idle);
        let starting =
            r#"[{"pid": 1, "id": "c83395a6", "kind": "background", "state": "working"}]"#;
        assert_eq!(
            parse_agents(starting.as_bytes()).unwrap()[0].status,
            BackgroundStatus::Busy
        );
        let odd = r#"[{"pid": 1, "id": "c83395a6", "kind": "background", "status": "dreaming"}]"#;
        assert!(parse_agents(odd.as_bytes())
            .unwrap_err()
            .contains("\"dreaming\""));
        let no_id = r#"[{"pid": 1, "id": "../x", "kind": "background", "status": "idle"}]"#;
        assert!(parse_agents(no_id.as_bytes()).is_err());
        assert!(parse_agents(b"{}").unwrap_err().contains("line 1"));
    }

    #[test]
    fn the_lock_and_a_worker_file_name_one_process_each() {
        let lock = r#"{"pid": 19523, "version": "2.1.332", "origin": "transient", "procStart": "2437224"}"#;
        let lock = parse_daemon_lock(lock.as_bytes()).unwrap();
        assert_eq!((lock.pid, lock.proc_start), (19523, 2437224));
        assert_eq!(lock.origin.as_deref(), Some("transient"));
        let worker = r#"{"pid":19983,"sessionId":"c8-1","procStart":"2438774","kind":"bg","jobId":"c83395a6"}"#;
        let worker = parse_worker(worker.as_bytes()).unwrap();
        assert_eq!(worker.job_id.as_deref(), Some("c83395a6"));
        assert_eq!(worker.proc_start, 2438774);
        assert!(parse_daemon_lock(b"{\"pid\": 1}").is_err());
    }
}
