//! What `web-terminal` says while it serves.

use crate::ops::web_terminal::Serving;
use crate::web_terminal::HUB_SESSION;

/// Where it serves, and the warning that goes with it every time.
pub fn serving(serving: &Serving) {
    crate::outln!(
        "Serving tmux session {HUB_SESSION} at {} (ttyd pid {}).",
        serving.url,
        serving.ttyd_pid
    );
    crate::outln!("There is no authentication: anyone who can reach that address gets a shell. Ctrl-C stops it.");
}

/// After a clean stop (SIGINT or SIGTERM).
pub fn stopped() {
    crate::outln!("Web terminal stopped.");
}
