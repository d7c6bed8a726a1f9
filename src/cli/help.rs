//! The text after a command's options: its exit codes (`-h` and `--help`),
//! then, on `--help`, its examples. Kept here, out of the argument
//! definitions, so each example reads as the shell line it is.

/// One command's epilogue: `$short` for `-h`, and `$short` then the
/// examples for `--help` (clap's `after_long_help`, also the manual's).
macro_rules! epilogue {
    ($($short:ident, $long:ident: $exit:literal, $examples:literal;)*) => {
        $(
            pub const $short: &str = $exit;
            pub const $long: &str = concat!($exit, "\n\nExamples:\n", $examples);
        )*
    };
}

epilogue! {
    PLAN, PLAN_LONG:
        "Exit codes: 0 success; with --detailed-exitcode 0 = no drift, 2 = drift observed, 1 = error.",
        "  # Review, save, apply exactly what was reviewed (Terraform's plan -out):
  the-loop plan --out tfplan
  the-loop show tfplan            # the saved plan again, for a second reviewer
  the-loop apply tfplan           # no prompt: the file is the approval; refused if anything moved

  # Preview a rotation before the new env file is swapped in:
  the-loop validate --env-file .env.new
  the-loop plan --env-file .env.new --out rotation.tfplan
  mv .env.new .env && the-loop apply rotation.tfplan

  # A CI gate: exit 2 while any session holds a stale environment
  the-loop plan --detailed-exitcode";

    APPLY, APPLY_LONG:
        "Exit codes: 0 every targeted live session respawned and verified (or unverified); \
1 any left stale (unresumable, resume failed, mismatch, deferred, blocked) or an error.",
        "  the-loop plan --out tfplan && the-loop apply tfplan   # exactly the reviewed plan, no prompt
  the-loop apply                                        # plans, shows, asks for 'yes', rolls
  the-loop apply --auto-approve --lock-timeout 5m       # unattended (cron, Ansible)
  the-loop apply --dry-run --target github:octo/repo#15 # what one session would get
  the-loop apply --auto-approve --drain-timeout 30m     # wait for running turns to end";

    WATCH, WATCH_LONG:
        "Exit codes: 0 after a clean stop (SIGTERM or SIGINT); 1 when it cannot start \
(no env.file, another watch holds <state root>/watch.lock, an unreadable config).",
        "  the-loop watch                                        # report drift only
  the-loop watch --apply --metrics-listen 127.0.0.1:9464
  the-loop watch --apply --start-down                   # also bring back sessions a server restart ended

  # Under systemd, as a user service (the unit is examples/the-loop-watch.service
  # in the source; docs/watch.md explains it):
  cp the-loop-watch.service ~/.config/systemd/user/
  systemctl --user daemon-reload
  systemctl --user enable --now the-loop-watch.service
  loginctl enable-linger \"$USER\"                        # keep it running after logout
  journalctl --user -u the-loop-watch -f                # its log: one line per change";

    START, START_LONG:
        "Exit codes: 0 started (--all: every down session started and verified, or none was down); 1 refused, failed or left alone (a live tmux session of that name is never touched).",
        "  the-loop sessions start github:octo/repo#15 --cwd ~/src/repo --prompt 'Fix the flaky test'
  the-loop sessions start github:octo/repo#16 --harness codex --cwd ~/src/repo --prompt 'Fix #9'
  the-loop sessions start github:octo/repo#17 --cwd ~/src/repo --model opus --effort high
  the-loop sessions start --all --dry-run     # after a reboot: what is down, and would start
  the-loop sessions start --all               # bring it back, each resumed and verified

Harness settings it writes (before every start and respawn):
  trust      the working directory in the harness's user config, so no trust dialog stops
             the session: Claude Code's ~/.claude.json (projects.<dir>), Codex's
             $CODEX_HOME/config.toml (trust_level, and its hooks' trust). Trusting a clone
             honours the settings its pushers committed; turn it off with
             `routing.harnessTrust: false` in the config.
  plugin     the-loop's plugin in Claude Code's settings.json (extraKnownMarketplaces,
             enabledPlugins); a value already there is never changed. Turn it off with
             `routing.harnessPlugins: false`.
See docs/harness.md for every key written.";
}
