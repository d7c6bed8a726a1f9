//! What the-loop.1 says beyond `--help`: its EXIT STATUS, ENVIRONMENT,
//! FILES and EXAMPLES sections, as terms and their descriptions, rendered by
//! `man.rs`. Each states what the code does: the config's search path is
//! `desired::config::discover`, the state root's default is the config's
//! directory (`desired/config/resolve.rs`), the exit codes are the README's
//! table, and every variable named here is one the-loop reads (or, for
//! `TMUX_TMPDIR`, hands to the tmux it runs).

/// `EXIT STATUS`: code, meaning.
pub const EXIT_STATUS: &[(&str, &str)] = &[
    (
        "0",
        "Success. For plan --detailed-exitcode: no drift. For apply and sessions restart: \
         every targeted live session was restarted and verified (or is unverified).",
    ),
    (
        "1",
        "An error. Also: apply or sessions restart left a session stale (unresumable, resume \
         failed, mismatch, blocked, deferred at its safe point, not attempted); status found an \
         enabled service not running; import refused; validate found a mistake. Every usage \
         error (an unknown flag or command, a missing argument, a bad value) exits 1, never 2.",
    ),
    (
        "2",
        "Only for plan --detailed-exitcode: drift observed; and for sessions deliver and \
         standing say: not delivered by rule (paused, closed, cleaned up, or an uncleared dead \
         occupant).",
    ),
];

/// Said after the codes.
pub const EXIT_STATUS_NOTE: &str = "Drift never changes the exit code of status. \
     --help and --version exit 0. Each command's page gives its own codes.";

/// `ENVIRONMENT`: variable, what it changes.
pub const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "THE_LOOP_CLI_CONFIG",
        "The config file, when --config is not given (see FILES). Shell completion finds the \
         config the same way.",
    ),
    (
        "HOME",
        "Where ~/.the-loop/cli-config.yaml is looked for, and what ~/ means in the config's \
         paths.",
    ),
    (
        "CLAUDE_CONFIG_DIR, CODEX_HOME",
        "Where Claude Code (default ~/.claude) and Codex (default ~/.codex) keep their files: \
         the conversations a respawn resumes, and the settings sessions start writes (trust, \
         the plugin). Read, with HOME, as a pane started now would see them: from the tmux \
         server's global environment, else from the-loop's own.",
    ),
    (
        "NO_COLOR",
        "When not empty, no colour codes anywhere (plans, reports, errors, logs, help), as \
         --no-color.",
    ),
    (
        "CLICOLOR_FORCE",
        "When not empty (and NO_COLOR is), colour even in a pipe.",
    ),
    (
        "CLICOLOR",
        "0: no colour. Any other value: colour on a terminal even when TERM is dumb or unset.",
    ),
    (
        "TERM, CI",
        "Otherwise colour appears only on a terminal whose TERM is set and not dumb, or on any \
         terminal when CI is set.",
    ),
    (
        "RUST_LOG",
        "What is logged to stderr: warn by default, info for watch; debug or trace show more.",
    ),
    (
        "THE_LOOP_COMPLETE",
        "Set to a shell's name (bash, zsh, fish, elvish, powershell), the-loop run with no \
         argument prints that shell's completion script, as the-loop completions SHELL does, \
         and the script sets it to ask the-loop for each completion. clap's usual COMPLETE \
         does nothing here, so a generic name in a pane's environment never turns the pane \
         launcher into a completion printer.",
    ),
    (
        "THE_LOOP_TMUX_TIMEOUT_MS",
        "How long one tmux call may take, in milliseconds (default 5000). A session whose \
         tmux call timed out is unknown, never absent: it is not respawned.",
    ),
    (
        "TMUX",
        "When set (inside tmux), sessions attach switches the current client to the session \
         instead of starting a second, nested one.",
    ),
    (
        "TMUX_TMPDIR",
        "Not read by the-loop: tmux reads it, and the-loop runs tmux with its own environment, \
         so it chooses the tmux server the-loop talks to.",
    ),
];

/// `FILES`: path, what it holds.
pub const FILES: &[(&str, &str)] = &[
    (
        "./.the-loop/cli-config.yaml, ~/.the-loop/cli-config.yaml",
        "The config, looked for in this order after --config FILE and $THE_LOOP_CLI_CONFIG \
         (either of which must name a file that exists); the first found is read.",
    ),
    (
        "<state root>",
        "The config's state.root, or, when unset, the directory holding the config. \
         Everything below is in it.",
    ),
    (
        "<state root>/local/",
        "The registry: one record per session, written by sessions start, standing create and \
         import.",
    ),
    (
        "<state root>/events.jsonl",
        "The event log: one JSON object per line (schemas/events.schema.json in the source), \
         names and fingerprints only, never a value; the-loop history reads it.",
    ),
    (
        "<state root>/fingerprint.key",
        "The key of env.fingerprint: keyed (HMAC-SHA-256), 32 random bytes, made on first use \
         with mode 0600 and never printed or replaced.",
    ),
    (
        "<state root>/activity/",
        "What each harness's hooks reported (idle, busy, waiting), one file per process.",
    ),
    (
        "<state root>/apply.lock, <state root>/watch.lock, <state root>/watch.pid",
        "One roll at a time, and one watch per state root.",
    ),
];

/// `EXAMPLES`: each a caption, then the lines to type.
pub const EXAMPLES: &[&[&str]] = &[
    &[
        "Review a plan, save it, and apply exactly what was reviewed: the file is the \
         approval, so apply asks nothing, and it is refused if the env file, a pane or a record \
         changed since.",
        "  the-loop plan --out tonight.plan",
        "  the-loop show tonight.plan",
        "  the-loop apply tonight.plan",
    ],
    &[
        "A CI gate: exit 2 while any session holds a stale environment, 1 on an error \
         (a tmux that does not answer for a managed session included), 0 when clean.",
        "  the-loop plan --detailed-exitcode",
    ],
    &[
        "watch under systemd, as a user service that reports drift within seconds (add \
         --apply to its ExecStart to roll it too). The Debian package installs the unit as \
         /usr/lib/systemd/user/the-loop-watch.service; from a source tree, copy \
         examples/the-loop-watch.service into ~/.config/systemd/user/ first.",
        "  systemctl --user daemon-reload",
        "  systemctl --user enable --now the-loop-watch",
        "  loginctl enable-linger \"$USER\"    # keep it running while you are logged out",
        "  journalctl --user -u the-loop-watch -f",
    ],
];
