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

    STATUS, STATUS_LONG:
        "Exit codes: 0 every enabled service runs; 1 an enabled service is not running, or an error. Drift never changes it.",
        "  the-loop status
  the-loop status --json | jq '.stale_sessions'
  the-loop status || systemctl --user restart the-loop-watch   # a service is down";

    LIST, LIST_LONG:
        "Exit codes: 0 listed; 1 tmux cannot be run, or an error.",
        "  the-loop sessions list
  the-loop sessions list --status paused
  the-loop sessions list --work-item '#15' --json
  the-loop sessions list --json | jq -r '.sessions[] | select(.live == \"absent\") | .ref'";

    RESTART, RESTART_LONG:
        "Exit codes: 0 every targeted live session respawned and verified (or unverified); 1 otherwise.",
        "  the-loop sessions restart github:octo/repo#15
  the-loop sessions restart --all --dry-run     # what would be respawned, and why
  the-loop sessions restart --all --drain-timeout 30m   # each at the end of its turn
  (after a rotation, `the-loop apply` respawns only the drifted sessions)";

    PAUSE, PAUSE_LONG:
        "Exit codes: 0 paused (or already paused); 1 no work item is registered for REF, or an error.",
        "  the-loop sessions pause github:octo/repo#15
  the-loop sessions pause '#15' --json";

    RESUME, RESUME_LONG:
        "Exit codes: 0 resumed (or already active); 1 no work item is registered for REF, or an error.",
        "  the-loop sessions resume github:octo/repo#15
  the-loop sessions resume '#15' --json";

    STOP, STOP_LONG:
        "Exit codes: 0 stopped; 1 an error (a REF not understood, tmux failing).",
        "  the-loop sessions stop github:octo/repo#15             # the harness ends; tmux kept by policy
  the-loop sessions stop github:octo/repo#15 --kill-tmux
  tmux attach -r -t loop-github-octo-repo-15               # read the kept transcript";

    CLOSE, CLOSE_LONG:
        "Exit codes: 0 closed (and, with an authorized --actor, cleaned up); 1 something was left (see the warnings), or an error.",
        "  the-loop sessions close github:octo/repo#15
  the-loop sessions close github:octo/repo#15 --actor ana   # ana in routing.authorizedUsers: cleaned up too";

    RESET, RESET_LONG:
        "Exit codes: 0 every targeted session reset (with --dry-run: shown); 1 one was not (see its line), or an error.",
        "  the-loop sessions reset github:octo/repo#15 --dry-run
  the-loop sessions reset github:octo/repo#15
  the-loop sessions start github:octo/repo#15 --cwd ~/src/repo   # starts over, a fresh conversation";

    CLEANUP, CLEANUP_LONG:
        "Exit codes: 0 everything released; 1 something was not (see the warnings).",
        "  the-loop sessions cleanup github:octo/repo#15
  the-loop sessions cleanup github:octo/repo#15 --json";

    ATTACH, ATTACH_LONG:
        "Exit codes: outside tmux, once attached, tmux's own (this process becomes `tmux attach-session`); \
inside tmux 0 switched; 1 no such session, or tmux could not be run or refused.",
        "  the-loop sessions attach '#15'
  the-loop sessions attach github:octo/repo#15 --read-only
  the-loop sessions attach triage                          # a standing session, by name";

    LINK_PR, LINK_PR_LONG:
        "Exit codes: 0 linked; 1 the work item is not registered, or an error.",
        "  the-loop sessions link-pr github:octo/repo#15 --pull-request github:octo/repo#18
  the-loop sessions link-pr '#15' --pull-request github:octo/repo#18 --json";

    WEB_TERMINAL, WEB_TERMINAL_LONG:
        "Exit codes: 0 stopped by SIGINT/SIGTERM; 1 not enabled, ttyd missing or exited on its own.",
        "  the-loop web-terminal                                  # serves routing.webTerminal.host:port
  ssh -L 7681:127.0.0.1:7681 host                         # reach it from your machine, then open :7681";

    STANDING_CREATE, STANDING_CREATE_LONG:
        "Exit codes: 0 created and started; 1 refused (a bad or taken name, a directory that is not one), or an error.",
        "  the-loop standing create triage --cwd ~/src/ops --prompt 'Triage new issues every hour'
  the-loop standing create triage --cwd ~/src/ops --model opus --effort high --json";

    STANDING_START, STANDING_START_LONG:
        "Exit codes: 0 started; 1 no standing session has that name, or an error.",
        "  the-loop standing start triage
  the-loop standing start triage --json";

    STANDING_STOP, STANDING_STOP_LONG:
        "Exit codes: 0 stopped; 1 no standing session has that name, or an error.",
        "  the-loop standing stop triage
  the-loop standing stop triage --kill-tmux";

    STANDING_RESTART, STANDING_RESTART_LONG:
        "Exit codes: 0 respawned and verified (or unverified); 1 otherwise.",
        "  the-loop standing restart triage --dry-run
  the-loop standing restart triage";

    STANDING_LIST, STANDING_LIST_LONG:
        "Exit codes: 0 listed; 1 an error.",
        "  the-loop standing list
  the-loop standing list --json";

    STANDING_SAY, STANDING_SAY_LONG:
        "Exit codes: 0 delivered, or the delivery id was already processed; \
1 failed, retry later; 2 not delivered by rule (paused, closed, or a dead session holding the name cannot be cleared).",
        "  the-loop standing say triage --message 'New label: needs-repro'
  printf 'digest of the day' | the-loop standing say triage --file -";

    COMPLETIONS, COMPLETIONS_LONG:
        "Exit codes: 0 printed; 1 an unknown shell (a usage error).",
        "  mkdir -p ~/.local/share/bash-completion/completions
  the-loop completions bash > ~/.local/share/bash-completion/completions/the-loop
  source <(THE_LOOP_COMPLETE=bash the-loop)               # or in ~/.bashrc, in step with the binary";

    MAN, MAN_LONG:
        "Exit codes: 0 printed or written; 1 the directory cannot be written.",
        "  the-loop man | man -l -
  mkdir -p ~/.local/share/man/man1 && the-loop man --out-dir ~/.local/share/man/man1";

    VERSION, VERSION_LONG:
        "Exit codes: 0 always.",
        "  the-loop version
  the-loop version --json                                  # for a bug report";
}
