//! tmux operations on one session: create it, respawn its pane, list its
//! panes, kill it. Session targets are always exact (`=name`): tmux would
//! otherwise resolve `loop-x-1` to `loop-x-15` by prefix.

use super::batch::{Answer, Run};
use super::launch::{launcher_path, LaunchSpec};
use crate::observed::fleet::{parse_list_panes, Pane, LIST_PANES_FORMAT};
use crate::tmux::{means_no_session, Tmux, TmuxError};
use std::ffi::OsString;
use std::time::{Duration, Instant};

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum SpawnError {
    #[error("tmux session {0} already exists")]
    Occupied(String),
    #[error("tmux refused: {0}")]
    Refused(String),
    #[error(transparent)]
    Tmux(#[from] TmuxError),
    #[error("cannot locate the-loop's own binary for the launcher: {}", crate::fsutil::IoKind(*.0))]
    Launcher(std::io::ErrorKind),
}

/// One tmux command's words.
pub(super) fn command<const N: usize>(args: [&str; N]) -> Vec<OsString> {
    args.into_iter().map(OsString::from).collect()
}

pub fn exact(session: &str) -> String {
    format!("={session}")
}

pub fn exact_window(session: &str) -> String {
    format!("={session}:")
}

/// `new-session -d` running the pane argv (the launcher and its options),
/// with remain-on-exit set in the same tmux invocation so a harness that
/// exits at once leaves a dead pane to inspect rather than no session.
pub fn new_session_running(
    tmux: &Tmux,
    name: &str,
    cwd: &std::path::Path,
    pane_argv: Vec<OsString>,
    remain_on_exit: bool,
    passthrough: &[(String, String)],
) -> Result<(), SpawnError> {
    let mut args: Vec<OsString> = vec![
        "new-session".into(),
        "-d".into(),
        "-s".into(),
        name.into(),
        "-c".into(),
        cwd.into(),
    ];
    // Passthrough names are non-secret by the operator's declaration (and
    // the policy refuses any credential among them), so argv is acceptable.
    for (k, v) in passthrough {
        args.extend(["-e".into(), format!("{k}={v}").into()]);
    }
    args.push("--".into());
    args.extend(pane_argv);
    if remain_on_exit {
        // A new pane has no value of its own: the window's holds for it.
        args.push(";".into());
        args.extend(on_window(name));
    }
    let out = tmux.run(&args)?;
    if out.success {
        Ok(())
    } else if out.stderr.contains("duplicate session") {
        Err(SpawnError::Occupied(name.to_owned()))
    } else if remain_on_exit && !session_panes(tmux, name)?.is_empty() {
        // The session was made and only the option was refused (an older
        // or patched tmux). Failing now would leave a live harness nobody
        // records, so the spawn goes on without the option, and says so.
        tracing::warn!(
            session = name,
            tmux = %out.stderr,
            "tmux refused remain-on-exit; the session runs without it, so a harness that exits takes its pane with it"
        );
        Ok(())
    } else {
        Err(SpawnError::Refused(out.stderr))
    }
}

/// Runs the launcher in an existing, dead pane. Without `-k`, tmux refuses
/// while the pane's process is alive, so this can never kill a harness; a
/// short retry covers the moment between the process exiting and tmux
/// marking the pane dead.
pub fn respawn_pane(tmux: &dyn Run, pane_id: &str, spec: &LaunchSpec) -> Result<(), SpawnError> {
    let launcher = launcher_path().map_err(|e| SpawnError::Launcher(e.kind()))?;
    let mut args: Vec<OsString> = vec![
        "respawn-pane".into(),
        "-t".into(),
        pane_id.into(),
        "-c".into(),
        spec.cwd.clone().into(),
        "--".into(),
    ];
    args.extend(spec.pane_argv(&launcher));
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let out = tmux.run_command(args.clone())?;
        if out.success {
            return Ok(());
        }
        if !out.stderr.contains("still active") || Instant::now() >= deadline {
            return Err(SpawnError::Refused(out.stderr));
        }
        tracing::debug!(
            pane = pane_id,
            "tmux has not marked the pane dead yet; respawn-pane again"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The panes of one session; `Ok(empty)` when tmux says it does not exist.
pub fn session_panes(tmux: &dyn Run, session: &str) -> Result<Vec<Pane>, SpawnError> {
    panes_listed(tmux.run_command(session_panes_command(session)))
}

/// The command [`session_panes`] sends, for a caller that batches it.
pub fn session_panes_command(session: &str) -> Vec<OsString> {
    command([
        "list-panes",
        "-s",
        "-t",
        &exact(session),
        "-F",
        LIST_PANES_FORMAT,
    ])
}

/// Reads tmux's answer to [`session_panes_command`].
pub fn panes_listed(answer: Answer) -> Result<Vec<Pane>, SpawnError> {
    let out = answer?;
    if out.success {
        Ok(parse_list_panes(&out.stdout))
    } else if means_no_session(&out.stderr) {
        Ok(Vec::new())
    } else {
        Err(SpawnError::Refused(out.stderr))
    }
}

/// Kills a session; succeeds if it is gone afterwards, whatever tmux said.
pub fn kill_session(tmux: &Tmux, session: &str) -> Result<(), SpawnError> {
    let out = tmux.run(["kill-session", "-t", &exact(session)])?;
    if out.success || session_panes(tmux, session)?.is_empty() {
        Ok(())
    } else {
        Err(SpawnError::Refused(out.stderr))
    }
}

/// Verifies a session is gone. Killing the last session makes the server
/// exit, and a listing during that shutdown can go unanswered, so an
/// unknown answer is asked again briefly; only "absent" confirms.
pub fn confirm_absent(tmux: &Tmux, session: &str) -> bool {
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        match crate::observed::fleet::observe(tmux).probe(session) {
            crate::observed::Probe::Absent => return true,
            crate::observed::Probe::Unknown if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(50))
            }
            _ => return false,
        }
    }
}

/// `set-option -w` on the session's window: what a tmux without pane
/// options (and a new session, whose pane has no value of its own) takes.
pub fn on_window(session: &str) -> Vec<OsString> {
    command([
        "set-option",
        "-w",
        "-t",
        &exact_window(session),
        "remain-on-exit",
        "on",
    ])
}
