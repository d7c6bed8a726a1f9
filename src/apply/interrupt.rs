//! Signals during an apply. Ctrl-C, SIGTERM and SIGHUP (a closed terminal)
//! stop new respawns, let the ones in flight finish and verify, then report.
//! SIGXFSZ (a file-size limit) turns a too-large write into an error
//! instead of ending the process between a harness's SIGTERM and its
//! respawn.

use nix::sys::signal::{sigaction, SaFlags, SigAction, SigHandler, SigSet, Signal};
use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: nix::libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

extern "C" fn on_file_size(_: nix::libc::c_int) {}

/// Routes SIGINT, SIGTERM and SIGHUP to a flag instead of ending the process.
#[allow(
    unsafe_code,
    reason = "sigaction is unsafe in nix; the handler only stores to an atomic"
)]
pub fn install() {
    let action = SigAction::new(
        SigHandler::Handler(on_signal),
        SaFlags::SA_RESTART,
        SigSet::empty(),
    );
    for signal in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP] {
        // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
        if let Err(err) = unsafe { sigaction(signal, &action) } {
            tracing::warn!(error = %err, "cannot install the interrupt handler");
        }
    }
    report_panics();
}

/// Catches SIGXFSZ, so a write past `RLIMIT_FSIZE` fails with EFBIG and is
/// handled like any other write error. Caught rather than ignored: a caught
/// signal is reset by exec, so the launcher's harness and any tmux server
/// started from here do not inherit it.
#[allow(
    unsafe_code,
    reason = "sigaction is unsafe in nix; the handler does nothing"
)]
pub fn catch_file_size_signal() {
    let action = SigAction::new(
        SigHandler::Handler(on_file_size),
        SaFlags::SA_RESTART,
        SigSet::empty(),
    );
    // SAFETY: the handler does nothing.
    if let Err(err) = unsafe { sigaction(Signal::SIGXFSZ, &action) } {
        tracing::warn!(error = %err, "cannot install the SIGXFSZ handler");
    }
}

pub fn requested() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// After a panic mid-roll, says where the sessions it had touched stand.
/// The default hook runs first; panics never carry values.
fn report_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            default(info);
            crate::errln!(
                "the-loop: a respawn whose harness was already ended is recorded in the intent journal; \
                 `the-loop plan` shows it and `the-loop apply` completes it"
            );
        }));
    });
}

/// Test hook: when `THE_LOOP_TEST_CRASH_AT` names this point of a roll
/// (`after-journal`: the intent is written, nothing signalled yet;
/// `after-signal`: the harness has ended, the pane is not respawned), the
/// process panics there, as a bug would. Unset, as in every normal run, it
/// does nothing. Tests use it to prove the next run completes the roll.
pub fn crash_point(point: &str) {
    if std::env::var_os("THE_LOOP_TEST_CRASH_AT").is_some_and(|p| p == point) {
        panic!("THE_LOOP_TEST_CRASH_AT: crashed {point}, as a test asked");
    }
}
