//! The command line: argument definitions and dispatch, one file per command.
//!
//! Import circle: `mod.rs` ↔ `complete.rs`, `man.rs`. `mod.rs` dispatches to
//! them, and they render the whole command tree, which is `mod.rs`'s `Cli`.

mod api_key_helper;
pub(crate) mod apply;
pub(crate) mod complete;
mod complete_shells;
mod duration;
mod exec;
mod fingerprint;
mod help;
mod history;
mod import;
mod man;
mod man_root;
pub(crate) mod output;
pub(crate) mod plan;
mod replace_server;
pub(crate) mod sessions;
mod show;
mod standing;
pub(crate) mod status;
mod top;
pub mod top_help;
mod uninstall;
mod validate;
mod version;
mod watch;
mod web_terminal;

use clap::{Args, CommandFactory, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// Keep long-lived agent sessions in tmux on the environment you declared.
///
/// the-loop compares the environment each running session holds with the env
/// file (`plan`), and rolls drifted sessions onto it in place, resuming every
/// conversation and verifying what the new process holds (`apply`). Values
/// are never shown: they are named by fingerprint, the first 8 hex digits of
/// their SHA-256 (`printf %s "$V" | sha256sum | cut -c1-8`), withheld for a
/// value that could be guessed from it, or, with env.fingerprint: keyed, of
/// an HMAC under a local key; `the-loop fingerprint NAME` checks a value.
#[derive(Debug, Parser)]
#[command(
    name = "the-loop",
    version = crate::build_info::LONG_VERSION,
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    /// Config file. Otherwise $THE_LOOP_CLI_CONFIG, ./.the-loop/cli-config.yaml,
    /// then ~/.the-loop/cli-config.yaml.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Never print colour codes (plans, reports, errors, logs, help).
    /// NO_COLOR=1 and CLICOLOR=0 do the same, CLICOLOR_FORCE=1 colours even
    /// a pipe; otherwise colour appears only on a terminal, and not when
    /// TERM is dumb or unset.
    #[arg(long, global = true)]
    pub no_color: bool,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show which running sessions have drifted from the env file.
    ///
    /// Re-reads the env file, asks tmux once for every loop-* pane, reads each
    /// managed harness's `/proc/<pid>/environ` and lists, per session, every
    /// differing name with fingerprints (have → want). Nothing is changed.
    #[command(after_help = help::PLAN, after_long_help = help::PLAN_LONG)]
    Plan(plan::PlanArgs),
    /// Respawn drifted sessions in place, resuming each conversation, and verify them.
    ///
    /// Shows the plan, asks for confirmation (or takes --auto-approve), rolls
    /// one canary session first, then the rest with bounded parallelism. A
    /// plan saved with `plan --out FILE` is the approval, as in Terraform:
    /// `apply FILE` asks nothing (and needs no terminal), and is refused if
    /// the env file, a pane or a record changed since the plan was saved.
    #[command(after_help = help::APPLY, after_long_help = help::APPLY_LONG)]
    Apply(apply::ApplyArgs),
    /// Show a plan saved with `plan --out FILE`, as `plan` showed it.
    ///
    /// Reads the file alone (no config, tmux or /proc), so a second reviewer
    /// can read it anywhere. A file that is not a saved plan is refused,
    /// naming it.
    #[command(
        after_help = "Exit codes: 0 shown; 1 not a saved plan, or unreadable.\n\nExamples:\n  the-loop plan --out tfplan\n  the-loop show tfplan\n  the-loop show tfplan --json | jq '.sessions[] | select(.action == \"respawn\") | .ref'\n  the-loop apply tfplan"
    )]
    Show(show::ShowArgs),
    /// Check the config and the env file (syntax, names, policy) without tmux.
    ///
    /// Loads the config and the env file exactly as `plan` does, and the
    /// policy that joins them (env.deliver names the file declares, no
    /// credential in env.sessionPassthrough), touching neither tmux nor
    /// /proc nor the state root: for a pre-commit hook, or an Ansible task
    /// that checks a new env file before it is pushed. Errors give the file,
    /// line and column, and never a value.
    #[command(
        after_help = "Exit codes: 0 valid; 1 invalid (the error says where) or unreadable.\n\nExamples:\n  the-loop validate\n  the-loop validate --env-file .env.new          # a candidate, before it is swapped in\n  the-loop validate --env-file .env.new --json"
    )]
    Validate(validate::ValidateArgs),
    /// Report services and, when sessions hold a stale environment, one line saying so.
    #[command(after_help = help::STATUS, after_long_help = help::STATUS_LONG)]
    Status(status::StatusArgs),
    /// Bring a harness someone started by hand in a tmux pane under management.
    ///
    /// `the-loop plan` lists every harness running in a tmux pane that is
    /// no session's of the-loop's, with its pane id and the stale or
    /// withheld names it holds. `import` checks that the pane runs one
    /// harness the-loop knows (claude), reads which conversation it is in
    /// from the process itself (what it reports through the-loop's hooks,
    /// else `--session-id ID` or `--resume ID` in its argv) and its working
    /// directory (/proc/PID/cwd), and writes REF's record, as `sessions
    /// start` would, naming the pane. The pane's tmux session takes the
    /// record's name (loop-…): renamed when the pane is its only pane, else
    /// the pane moves to a new session of that name. Nothing is signalled:
    /// the next `apply` rolls it in place, resuming that conversation, and
    /// verifies the new process.
    ///
    /// A harness whose conversation cannot be told for certain (a bare
    /// `claude`, no hook report) is refused, never guessed at: restart it as
    /// `claude --resume ID` and import again.
    #[command(
        after_help = "Examples:\n  the-loop plan                                 # lists harnesses it does not manage, by pane\n  the-loop import %3 github:octo/repo#15 --dry-run\n  the-loop import %3 github:octo/repo#15\n  the-loop apply                                # rolls it, resuming its conversation\n\nIf you are attached to that session, `apply` defers it (a safe point) until you detach, or pass --include-attached.\n\nExit codes: 0 imported (or, with --dry-run, importable); 1 refused or an error, nothing changed."
    )]
    Import(import::ImportArgs),
    /// List past rolls, newest first: when, what ran them, how the env file changed, each outcome.
    ///
    /// Read from the event log (`<state root>/events.jsonl`), as `kubectl
    /// rollout history` lists revisions: every roll of `apply`, `sessions
    /// restart`, `standing restart`, `watch` and a delivery's relaunch, with
    /// its result (succeeded, failed, interrupted, or unfinished when it was
    /// killed), the names whose fingerprint in the env file differs from the
    /// roll before it (names and fingerprints only; the log holds no value),
    /// and what became of each session. Needs no tmux.
    #[command(
        after_help = "Examples:\n  the-loop history\n  the-loop history --json | jq '.rolls[0].sessions'\n\nExit codes: 0 listed (an empty log lists nothing); 1 the log or the config cannot be read."
    )]
    History(history::HistoryArgs),
    /// Start, deliver to, pause, close, reset, clean up and attach to work-item sessions.
    #[command(subcommand)]
    Sessions(sessions::SessionsCommand),
    /// Watch the env file and the config, report drift within seconds, and optionally roll it.
    ///
    /// A foreground service (run it under systemd; see docs/watch.md). It
    /// re-plans when the env file or the config changes (debounced) and every
    /// --interval, logs one line when the drift changes and records an
    /// env.drift event. With --apply (or env.autoApply: true) it rolls drifted
    /// sessions exactly as `apply` does, at most once per session for each
    /// env file fingerprint set; a session that could not be rolled is
    /// reported once and retried only when something about it changes.
    /// SIGTERM or SIGINT stops it after any roll in flight has finished.
    #[command(after_help = help::WATCH, after_long_help = help::WATCH_LONG)]
    Watch(watch::WatchArgs),
    /// A live table of the fleet, refreshed in place (a k9s/htop for sessions).
    ///
    /// One row per session: its activity, its drift from the env file (from
    /// the same single observation `plan` makes), attached clients, age, cwd
    /// and last event; the header names the env file, the tmux server and
    /// the plan's counts. Keys: ↑↓/j k select, / filter, Enter attaches, p
    /// shows the session's plan, a applies to it and d delivers to it (each
    /// after y/N, through the same code as the verbs), ? help, q quits. Only
    /// names and fingerprints are shown, never a value.
    #[command(
        after_help = "Examples:\n  the-loop top\n  the-loop top --interval 10s\n\nExit codes: 0 quit (q, Ctrl-C, SIGTERM); 1 no terminal, or an error."
    )]
    Top(top::TopArgs),
    /// Serve the shared the-loop-hub tmux session in a browser through ttyd.
    ///
    /// Runs in the foreground until Ctrl-C or SIGTERM, which stop ttyd with it.
    /// Needs routing.webTerminal.enabled: true and ttyd on PATH; binds to
    /// routing.webTerminal.host:port (default 127.0.0.1:7681). There is no
    /// authentication: whoever reaches the address gets a shell, so keep it on
    /// loopback or behind a VPN or your provider's network controls.
    #[command(after_help = help::WEB_TERMINAL, after_long_help = help::WEB_TERMINAL_LONG)]
    WebTerminal(web_terminal::WebTerminalArgs),
    /// Create, start, stop, restart, list and talk to standing sessions (no work item).
    #[command(subcommand)]
    Standing(standing::StandingCommand),
    /// Show the fingerprint a plan would show for a value, read from stdin.
    ///
    /// Reads one value from stdin, exactly as given (never from the command
    /// line: every user can read an argv in `ps`), and prints what plans,
    /// reports and events show for NAME holding it under the configured
    /// env.fingerprint, and whether the env file holds that value now.
    /// Nothing else is printed: not the value, nor anything made from it
    /// that a plan would not show.
    ///
    /// With env.fingerprint: sha256 (the default) a fingerprint is the first
    /// 8 hex digits of SHA-256, the same as `printf %s "$V" | sha256sum`.
    /// A value that can be guessed from that (shorter than 16 bytes, fewer
    /// than 8 distinct bytes, or under 80 bits by length × the character
    /// classes it uses) is shown as `withheld`, here as in every plan; the
    /// env file line still tells whether it is the file's value. With
    /// env.fingerprint: keyed it is HMAC-SHA-256 under the key kept in
    /// fingerprint.key under the state root (created on first use, mode
    /// 0600), which this command computes for you.
    #[command(
        after_help = "Examples:\n  printf %s \"$SLACK_BOT_TOKEN\" | the-loop fingerprint SLACK_BOT_TOKEN\n  the-loop fingerprint DB_PIN < pin.txt    # a file holding the value alone, no newline\n  printf %s \"$V\" | the-loop fingerprint DB_PIN --json\n\n`echo` adds a newline, which is then part of the value (a note says so).\n\nExit codes: 0 printed; 1 stdin is a terminal, or an error (the config, the env file, the key)."
    )]
    Fingerprint(fingerprint::FingerprintArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    ///
    /// The script asks `the-loop` (from PATH) at each Tab, so subcommands,
    /// flags and REF arguments complete at every depth, REFs and standing
    /// names to the sessions registered on this machine. It is the script
    /// `THE_LOOP_COMPLETE=SHELL the-loop` prints. Install it where your shell
    /// looks, for example
    /// `the-loop completions bash > ~/.local/share/bash-completion/completions/the-loop`
    /// (see the README for zsh and fish), and write it again after upgrading
    /// the-loop: the script and the binary must come from the same release.
    #[command(after_help = help::COMPLETIONS, after_long_help = help::COMPLETIONS_LONG)]
    Completions(CompletionsArgs),
    /// Print the manual page, or write one page per command with --out-dir.
    #[command(after_help = help::MAN, after_long_help = help::MAN_LONG)]
    Man(man::ManArgs),
    /// Take out of the harnesses' settings exactly what the-loop wrote there.
    ///
    /// Every `sessions start` (and every respawn) writes workspace trust into
    /// Claude Code's ~/.claude.json, a marketplace and its enabled plugin
    /// into its settings.json, and, for Codex, project and hook trust into
    /// config.toml, noting each key and what it held before in
    /// harness/written.jsonl under the state root. This puts each key that still
    /// holds what the-loop set back as it was (removed, or its old value
    /// restored); a key changed since is yours and stays, and so does
    /// everything else in those files. The next `sessions start` writes them
    /// again: stop or forget the sessions first. docs/uninstall.md has the
    /// rest of an uninstall.
    #[command(
        after_help = "Exit codes: 0 every noted key taken out (or nothing was noted); 1 a file could not be read or written, or is not JSON/TOML (its keys stay noted: run it again once fixed), or an error.\n\nExamples:\n  the-loop uninstall --harness-settings --dry-run\n  the-loop uninstall --harness-settings\n  the-loop uninstall --harness-settings --json | jq '.files[].file'"
    )]
    Uninstall(uninstall::UninstallArgs),
    /// Print the version, the git commit it was built from and the build date.
    ///
    /// `--version` prints the same facts on one line. The commit is
    /// `unknown` for a build from a source tree without git (a registry's
    /// copy); the date is the build's (SOURCE_DATE_EPOCH when it was set).
    #[command(after_help = help::VERSION, after_long_help = help::VERSION_LONG)]
    Version(version::VersionArgs),
    /// (internal) The pane launcher: builds the desired environment and execs the harness.
    /// Panes run it as `the-loop exec …`, which [`run`] parses on its own.
    #[command(hide = true)]
    Exec(exec::ExecArgs),
    /// (internal) Claude Code's apiKeyHelper: prints the delivered API key to the harness alone.
    #[command(hide = true, name = "api-key-helper")]
    ApiKeyHelper(api_key_helper::ApiKeyHelperArgs),
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to print a completion script for.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

pub fn run() -> ExitCode {
    // The harness's hook runs inside its turn: it skips clap, logging and
    // everything else that could fail or print, and always exits 0.
    let mut args = std::env::args_os();
    match args.nth(1) {
        Some(first) if first == crate::activity::hook::SUBCOMMAND => {
            crate::activity::hook::run(&args.collect::<Vec<_>>());
            return ExitCode::SUCCESS;
        }
        // The pane launcher, written as `the-loop exec …` by the-loop alone.
        Some(first) if first == crate::runner::launch::LAUNCHER_SUBCOMMAND => {
            return launch(std::env::args_os().skip(1));
        }
        _ => {}
    }
    complete::answer_if_asked();
    output::install_diagnostic_handler();
    let cli = match parse::<Cli>(top_help::grouped(Cli::command()), std::env::args_os()) {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    if cli.no_color {
        output::disable_color();
    }
    // A service's progress is its log, so `watch` logs at info by default.
    init_tracing(
        match cli.command {
            Command::Watch(_) => "info",
            _ => "warn",
        },
        output::stderr_color(),
    );
    crate::apply::interrupt::catch_file_size_signal();
    let result = match cli.command {
        Command::Plan(args) => plan::run(cli.config.as_deref(), args),
        Command::Apply(args) => apply::run(cli.config.as_deref(), args),
        Command::Status(args) => status::run(cli.config.as_deref(), args),
        Command::Show(args) => show::run(args),
        Command::Validate(args) => validate::run(cli.config.as_deref(), args),
        Command::Watch(args) => watch::run(cli.config.as_deref(), args),
        Command::Import(args) => import::run(cli.config.as_deref(), args),
        Command::History(args) => history::run(cli.config.as_deref(), args),
        Command::Sessions(cmd) => sessions::run(cli.config.as_deref(), cmd),
        Command::Standing(cmd) => standing::run(cli.config.as_deref(), cmd),
        Command::Exec(args) => exec::run(args),
        Command::ApiKeyHelper(args) => api_key_helper::run(args),
        Command::Fingerprint(args) => fingerprint::run(cli.config.as_deref(), args),
        Command::WebTerminal(args) => web_terminal::run(cli.config.as_deref(), args),
        Command::Top(args) => top::run(cli.config.as_deref(), args),
        Command::Man(args) => man::run(args),
        Command::Uninstall(args) => uninstall::run(cli.config.as_deref(), args),
        Command::Version(args) => version::run(args),
        Command::Completions(args) => completions(args),
    };
    finish(result)
}

/// Prints the registration script whole, through the output a closed pipe
/// cannot crash (`the-loop completions bash | head -1`).
fn completions(args: CompletionsArgs) -> miette::Result<ExitCode> {
    let script = complete::registration(args.shell).map_err(|err| {
        miette::miette!(
            code = "the_loop::completions",
            "cannot make the {} completion script: {err}",
            args.shell
        )
    })?;
    crate::out!("{}", String::from_utf8_lossy(&script));
    Ok(ExitCode::SUCCESS)
}

/// The launcher (`the-loop exec`), parsed and logged as any command is.
fn launch(args: impl IntoIterator<Item = std::ffi::OsString>) -> ExitCode {
    let launcher = match parse::<exec::Launcher>(exec::Launcher::command(), args) {
        Ok(launcher) => launcher,
        Err(code) => return code,
    };
    output::install_diagnostic_handler();
    init_tracing("warn", output::stderr_color());
    crate::apply::interrupt::catch_file_size_signal();
    finish(exec::run(launcher.args))
}

/// A command's exit code; an error is printed as a diagnostic.
fn finish(result: miette::Result<ExitCode>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(report) => {
            crate::errln!("{report:?}");
            ExitCode::FAILURE
        }
    }
}

/// Parses the command line, Terraform's way: a usage error (unknown flag,
/// missing or bad value) exits 1, not clap's 2, because 2 already means
/// "drift" for `plan --detailed-exitcode` and "not delivered by rule" for
/// `deliver`, and a script must be able to tell those from a typo.
fn parse<P: clap::Parser>(
    command: clap::Command,
    args: impl IntoIterator<Item = std::ffi::OsString>,
) -> Result<P, ExitCode> {
    let args: Vec<std::ffi::OsString> = args.into_iter().collect();
    // Clap renders its own errors and help before `--no-color` is parsed,
    // so the flag is looked for up front (up to a `--`, after which words
    // are operands).
    let no_color = args
        .iter()
        .skip(1)
        .take_while(|a| *a != "--")
        .any(|a| a == "--no-color");
    if no_color {
        output::disable_color();
    }
    // clap's own colour follows anstream's global choice, which
    // `disable_color` set: the same choice as everything else.
    let parsed = command
        .try_get_matches_from(args)
        .and_then(|mut m| <P as clap::FromArgMatches>::from_arg_matches_mut(&mut m));
    parsed.map_err(|err| {
        let _ = err.print();
        if err.use_stderr() {
            ExitCode::FAILURE
        } else {
            // --help and --version.
            ExitCode::SUCCESS
        }
    })
}

/// Logs go to stderr, filtered by `RUST_LOG` (default: `default_level`).
fn init_tracing(default_level: &str, color: bool) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_level));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        // No colour codes in a journal or a log file (`color` is stderr's choice).
        .with_ansi(color)
        .with_target(false)
        .try_init();
}
