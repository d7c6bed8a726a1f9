//! Ctrl-C during an apply: stop starting respawns, let the ones in flight
//! finish and verify, then report.

use nix::sys::signal::{sigaction, SaFlags, SigAction, SigHandler, SigSet, Signal};
use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: nix::libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Routes SIGINT and SIGTERM to a flag instead of ending the process.
pub fn install() {
    let action = SigAction::new(
        SigHandler::Handler(on_signal),
        SaFlags::SA_RESTART,
        SigSet::empty(),
    );
    for signal in [Signal::SIGINT, Signal::SIGTERM] {
        // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
        if let Err(err) = unsafe { sigaction(signal, &action) } {
            tracing::warn!(error = %err, "cannot install the interrupt handler");
        }
    }
}

pub fn requested() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}
