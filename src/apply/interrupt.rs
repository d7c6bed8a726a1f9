//! Signals during an apply. Ctrl-C, SIGTERM and SIGHUP (a closed terminal)
//! stop new respawns, let the ones in flight finish and verify, then report.
//! SIGXFSZ (a file-size limit) turns a too-large write into an error
//! instead of ending the process between a harness's SIGTERM and its
//! respawn.

use nix::sys::signal::{sigaction, SaFlags, SigAction, SigHandler, SigSet, Signal};
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, LazyLock};

/// Set once a stop signal arrives; a roll starts no new respawn after it.
static INTERRUPTED: LazyLock<Arc<AtomicBool>> = LazyLock::new(|| Arc::new(AtomicBool::new(false)));

/// The signals that stop a roll (and `watch`): Ctrl-C, SIGTERM, a closed terminal.
pub const STOP_SIGNALS: [i32; 3] = [SIGINT, SIGTERM, SIGHUP];

extern "C" fn on_file_size(_: nix::libc::c_int) {}

/// Routes SIGINT, SIGTERM and SIGHUP to a flag instead of ending the
/// process (through signal-hook, so the watch loop's own registration
/// ([`forward`]) and this one both see every signal). Idempotent.
pub fn install() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        for signal in STOP_SIGNALS {
            if let Err(err) = signal_hook::flag::register(signal, Arc::clone(&INTERRUPTED)) {
                tracing::warn!(error = %err, "cannot install the interrupt handler");
            }
        }
    });
    report_panics();
}

/// Delivers each stop signal as a message on a channel (`wrap` makes the
/// message), so a loop blocked on that channel wakes at once instead of
/// polling a flag. The flag of [`install`] is set as well, so a roll in
/// progress when the signal arrives stops as `apply` does.
pub fn forward<T: Send + 'static>(tx: mpsc::Sender<T>, wrap: fn(i32) -> T) -> std::io::Result<()> {
    install();
    let mut signals = signal_hook::iterator::Signals::new(STOP_SIGNALS)?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                if tx.send(wrap(signal)).is_err() {
                    break;
                }
            }
        })?;
    Ok(())
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

/// Respawns whose harness is being (or has been) ended and whose pane is
/// not respawned yet: the window the intent journal exists for.
static ENDING: AtomicUsize = AtomicUsize::new(0);

/// Held by a roll from just before it signals a harness until the pane is
/// respawned (or the roll gives up on it); while any is held, a panic says
/// the intent journal holds the respawn. Dropped on every way out,
/// unwinding included, so the count cannot outlive the window.
#[must_use = "the respawn counts as in flight only while this is held"]
pub struct RespawnInFlight(());

impl RespawnInFlight {
    pub fn begin() -> RespawnInFlight {
        ENDING.fetch_add(1, Ordering::SeqCst);
        RespawnInFlight(())
    }
}

impl Drop for RespawnInFlight {
    fn drop(&mut self) {
        ENDING.fetch_sub(1, Ordering::SeqCst);
    }
}

/// What a panic adds to the default report: a word about the intent
/// journal, only while a respawn is in flight (a panic elsewhere, say in
/// `watch`'s metrics server, is reported as itself and nothing more).
fn panic_note() -> Option<&'static str> {
    (ENDING.load(Ordering::SeqCst) > 0).then_some(
        "the-loop: a respawn whose harness was already ended is recorded in the intent journal; \
         `the-loop plan` shows it and `the-loop apply` completes it",
    )
}

/// After a panic mid-respawn, says where the session it had touched stands.
/// The default hook runs first (it names the thread); panics never carry values.
fn report_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            default(info);
            if let Some(note) = panic_note() {
                crate::errln!("{note}");
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_journal_is_named_only_while_a_respawn_is_in_flight() {
        // Other tests of this binary may hold one meanwhile; count from here.
        let before = ENDING.load(Ordering::SeqCst);
        let held = RespawnInFlight::begin();
        assert!(panic_note().is_some_and(|n| n.contains("intent journal")));
        assert_eq!(ENDING.load(Ordering::SeqCst), before + 1);
        let unwound = std::panic::catch_unwind(move || {
            let _held = held;
            std::panic::resume_unwind(Box::new("a bug"));
        });
        assert!(unwound.is_err());
        assert_eq!(
            ENDING.load(Ordering::SeqCst),
            before,
            "released by the unwind"
        );
    }
}
