//! `web-terminal`: ttyd in the foreground, serving the shared
//! `the-loop-hub` tmux session until SIGINT or SIGTERM, which stop ttyd
//! with it.

use crate::ops::Context;
use crate::web_terminal::{pidfile, running_pid, ttyd_args, url, HUB_SESSION};
use nix::sys::signal::Signal;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long ttyd gets to exit after SIGTERM before SIGKILL.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// The web terminal as it began serving.
#[derive(Debug)]
pub struct Serving {
    pub url: String,
    pub ttyd_pid: u32,
}

/// Serves the hub through ttyd until SIGINT or SIGTERM (`Ok`) or until ttyd
/// exits on its own (an error). `serving` is called once ttyd runs and the
/// pidfile is written, so a person learns the address while it serves.
pub fn web_terminal(ctx: &Context, serving: impl FnOnce(&Serving)) -> miette::Result<()> {
    let settings = ctx.config.routing.web_terminal.clone();
    if !settings.enabled {
        miette::bail!(
            code = "the_loop::web_terminal::disabled",
            help = format!(
                "set routing.webTerminal.enabled: true in {} (and host/port if the default 127.0.0.1:7681 does not suit)",
                ctx.config.path.display()
            ),
            "the web terminal is not enabled"
        );
    }
    crate::preflight::require_ttyd()?;
    let state_root = &ctx.config.state_root;
    if let Some(pid) = running_pid(state_root) {
        miette::bail!(
            code = "the_loop::web_terminal::running",
            help = format!("stop it first (`kill {pid}`), or use the one that is running"),
            "a web terminal is already running (pid {pid}, {})",
            url(&settings)
        );
    }
    ensure_hub(ctx)?;

    crate::apply::interrupt::install();
    let mut child = spawn_ttyd(&ttyd_args(&settings))?;
    let pidfile = pidfile(state_root);
    if let Err(e) = crate::fsutil::write_atomic(
        &pidfile,
        format!("{}\n", std::process::id()).as_bytes(),
        0o644,
    ) {
        stop(&mut child);
        miette::bail!(
            code = "the_loop::web_terminal::pidfile",
            "cannot write {}: {}",
            pidfile.display(),
            e.kind()
        );
    }
    let (url_text, ttyd_pid, pid) = (url(&settings), child.id(), std::process::id());
    ctx.events.emit(crate::events::Event::WebTerminalStarted {
        url: url_text.clone(),
        ttyd_pid,
        pid,
    });
    serving(&Serving {
        url: url(&settings),
        ttyd_pid: child.id(),
    });

    let outcome = loop {
        if crate::apply::interrupt::requested() {
            stop(&mut child);
            break Ok(());
        }
        match child.try_wait() {
            Ok(Some(status)) => {
                break Err(miette::miette!(
                    code = "the_loop::web_terminal::exited",
                    help = "run ttyd by hand with the same address to see why (is the port taken?)",
                    "ttyd exited on its own ({status})"
                ))
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(100)),
            Err(e) => {
                stop(&mut child);
                break Err(miette::miette!("cannot wait for ttyd: {}", e.kind()));
            }
        }
    };
    // Only our own pidfile is removed: a second instance may have replaced it.
    if running_pid(state_root) == Some(std::process::id() as i32) {
        let _ = std::fs::remove_file(&pidfile);
    }
    ctx.events.emit(crate::events::Event::WebTerminalStopped {
        url: url_text,
        ttyd_pid,
        pid,
    });
    outcome
}

/// The shared session exists before the first browser attaches. It is not a
/// `loop-*` session, so the reconciler never reads or touches it.
fn ensure_hub(ctx: &Context) -> miette::Result<()> {
    let exact = format!("={HUB_SESSION}");
    let has = ctx.tmux.run(["has-session", "-t", &exact]).map_err(|e| {
        miette::miette!(
            code = "the_loop::web_terminal::tmux",
            "tmux did not answer: {e}"
        )
    })?;
    if has.success {
        return Ok(());
    }
    let out = ctx
        .tmux
        .run(["new-session", "-d", "-s", HUB_SESSION])
        .map_err(|e| miette::miette!(code = "the_loop::web_terminal::tmux", "{e}"))?;
    if !out.success && !out.stderr.contains("duplicate session") {
        miette::bail!(
            code = "the_loop::web_terminal::tmux",
            "cannot create the tmux session {HUB_SESSION}: {}",
            out.stderr
        );
    }
    Ok(())
}

#[allow(
    unsafe_code,
    reason = "pre_exec is unsafe; the closure only calls prctl, which is async-signal-safe"
)]
fn spawn_ttyd(args: &[String]) -> miette::Result<Child> {
    let mut command = Command::new("ttyd");
    command
        .args(args)
        // The tmux client ttyd runs must not think it is nested in ours.
        .env_remove("TMUX")
        .env_remove("TMUX_PANE")
        .stdin(Stdio::null())
        // Its own process group: a terminal's Ctrl-C reaches us, and we stop it.
        .process_group(0);
    // SAFETY: prctl is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        command.pre_exec(|| {
            // If the-loop dies without stopping it, the kernel does.
            nix::sys::prctl::set_pdeathsig(Some(Signal::SIGTERM)).map_err(std::io::Error::from)
        });
    }
    command.spawn().map_err(|e| {
        miette::miette!(
            code = "the_loop::web_terminal::spawn",
            "cannot start ttyd: {}",
            e.kind()
        )
    })
}

/// SIGTERM, a grace period, then SIGKILL; always reaped.
fn stop(child: &mut Child) {
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    let _ = nix::sys::signal::kill(pid, Signal::SIGTERM);
    let deadline = Instant::now() + STOP_GRACE;
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
}
