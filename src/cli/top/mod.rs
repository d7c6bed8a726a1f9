//! `the-loop top`: the terminal loop around `ops::top` (the model),
//! `views::top` (the screen and the keys) and the ops the keys run
//! (`actions.rs`). A thread refreshes the model every `--interval`, one
//! plan's observation each time; this thread draws and reads keys, so
//! scrolling never waits for a refresh. The terminal is given back on
//! every way out: `q`, Ctrl-C, SIGTERM/SIGINT/SIGHUP, a panic, and the
//! terminal hanging up.

mod actions;
mod message;
mod terminal;

use message::Message;

use crate::ops::top::{snapshot, TopModel};
use crate::ops::Context;
use crate::views::top::{handle_key, render, Action, Look, Mode, TopState};
use clap::Args;
use ratatui::crossterm::event::{self, Event, KeyEventKind};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

#[derive(Debug, Args)]
pub struct TopArgs {
    /// How often the table is refreshed (one plan's observation each time),
    /// from 1s to 1h.
    #[arg(long, value_name = "DURATION", default_value = "2s", value_parser = interval)]
    pub interval: Duration,
}

fn interval(text: &str) -> Result<Duration, String> {
    let d = crate::cli::duration::parse(text, Duration::from_secs(3_600))?;
    if d < Duration::from_secs(1) {
        return Err(format!(
            "{text:?} is too short: refresh at most once a second"
        ));
    }
    Ok(d)
}

pub fn run(config: Option<&Path>, args: TopArgs) -> miette::Result<ExitCode> {
    let ctx = Context::load(config)?;
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGHUP,
    ] {
        signal_hook::flag::register(signal, Arc::clone(&stop))
            .map_err(|e| miette::miette!("cannot catch signal {signal}: {e}"))?;
    }
    let (tx, rx) = mpsc::channel();
    let (refresh_tx, refresh_rx) = mpsc::channel::<()>();
    let config = config.map(PathBuf::from);
    let refresher_tx = tx.clone();
    let every = args.interval;
    std::thread::Builder::new()
        .name("top-refresh".into())
        .spawn(move || refresher(config, every, &refresher_tx, &refresh_rx))
        .map_err(|e| miette::miette!("cannot start the refresh thread: {e}"))?;
    let look = Look {
        color: crate::cli::output::stdout_color(),
        interval_secs: every.as_secs(),
    };
    let mut term = terminal::Guard::enter()?;
    terminal::end_on_hangup()?;
    let mut screen = Screen {
        ctx: &ctx,
        state: TopState::default(),
        model: None,
        tx,
        refresh: refresh_tx,
    };
    let result = screen.run(&mut term, &rx, &stop, look);
    drop(term);
    result.map(|()| ExitCode::SUCCESS)
}

/// Plans every `every` (or at once when asked), until the screen is gone.
fn refresher(
    config: Option<PathBuf>,
    every: Duration,
    tx: &mpsc::Sender<Message>,
    now: &mpsc::Receiver<()>,
) {
    let ctx = match Context::load_checking_tmux_later(config.as_deref()) {
        Ok(ctx) => ctx,
        Err(e) => {
            let _ = tx.send(Message::RefreshFailed(format!("{e}")));
            return;
        }
    };
    loop {
        let began = std::time::Instant::now();
        let message = match snapshot(&ctx) {
            Ok(model) => Message::Model(Box::new(model)),
            Err(e) => Message::RefreshFailed(format!("{e}")),
        };
        // What `scripts/bench-top.sh` times (`RUST_LOG=debug`, stderr to a file).
        tracing::debug!(
            ms = began.elapsed().as_secs_f64() * 1000.0,
            rows = match &message {
                Message::Model(model) => model.rows.len(),
                _ => 0,
            },
            "top refreshed"
        );
        if tx.send(message).is_err() {
            return;
        }
        match now.recv_timeout(every) {
            Ok(()) | Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => return,
        }
    }
}

struct Screen<'a> {
    ctx: &'a Context,
    state: TopState,
    model: Option<TopModel>,
    tx: mpsc::Sender<Message>,
    refresh: mpsc::Sender<()>,
}

/// How long a key is waited for before the signals and the refresher are looked at.
const TICK: Duration = Duration::from_millis(100);

impl Screen<'_> {
    fn run(
        &mut self,
        term: &mut terminal::Guard,
        rx: &mpsc::Receiver<Message>,
        stop: &AtomicBool,
        look: Look,
    ) -> miette::Result<()> {
        let mut dirty = true;
        // When the key being answered was read: its frame's latency is logged.
        let mut key_at: Option<std::time::Instant> = None;
        std::thread::scope(|scope| loop {
            if stop.load(Ordering::Relaxed) {
                return Ok(());
            }
            while let Ok(message) = rx.try_recv() {
                self.receive(message);
                dirty = true;
            }
            if dirty {
                term.draw(|frame| match &self.model {
                    Some(model) => render(frame, model, &mut self.state, look),
                    None => terminal::waiting(frame),
                })?;
                dirty = false;
                if let Some(at) = key_at.take() {
                    let ms = at.elapsed().as_secs_f64() * 1000.0;
                    tracing::debug!(ms, "top key drawn");
                }
            }
            if !event::poll(TICK).map_err(terminal::io)? {
                continue;
            }
            let Event::Key(key) = event::read().map_err(terminal::io)? else {
                dirty = true;
                continue;
            };
            if key.kind == KeyEventKind::Release {
                continue;
            }
            dirty = true;
            key_at = Some(std::time::Instant::now());
            if test_panic(key) {
                panic!("THE_LOOP_TOP_TEST_PANIC: a panic asked for by the test key");
            }
            let Some(model) = &self.model else {
                if matches!(handle_key(&mut self.state, &empty(), key), Action::Quit) {
                    return Ok(());
                }
                continue;
            };
            let action = handle_key(&mut self.state, model, key);
            if let Some(said) = background_refusal(model, &action) {
                self.state.mode = Mode::Table;
                self.state.status = Some(said);
                continue;
            }
            match action {
                Action::None => {}
                Action::Quit => return Ok(()),
                Action::Attach { label } => {
                    let said = term.suspended(|| actions::attach(self.ctx, &label))?;
                    self.state.status = Some(said);
                    let _ = self.refresh.send(());
                }
                Action::ShowPlan { label } => {
                    self.state.mode = Mode::Plan {
                        text: actions::plan_text(model, &label),
                        label,
                        scroll: 0,
                    };
                }
                Action::Apply { label } => {
                    self.state.mode = progress(format!("apply: {label}"));
                    let (ctx, tx) = (self.ctx, self.tx.clone());
                    scope.spawn(move || actions::apply(ctx, &label, &tx));
                }
                Action::Deliver { label, text } => {
                    self.state.mode = progress(format!("deliver: {label}"));
                    let (ctx, tx) = (self.ctx, self.tx.clone());
                    scope.spawn(move || actions::deliver(ctx, &label, text, &tx));
                }
            }
        })
    }

    fn receive(&mut self, message: Message) {
        match message {
            Message::Model(model) => self.model = Some(*model),
            Message::RefreshFailed(why) => {
                self.state.status = Some(format!("refresh failed: {why}"))
            }
            Message::Progress(line) => {
                if let Mode::Progress { lines, .. } = &mut self.state.mode {
                    lines.push(line);
                }
            }
            Message::Done(last) => {
                if let Mode::Progress { lines, done, .. } = &mut self.state.mode {
                    lines.extend(last);
                    *done = true;
                }
                let _ = self.refresh.send(());
            }
        }
    }
}

/// A session of a host beside tmux (Claude Code's background sessions) has
/// no pane to attach to or type into (`docs/hosts.md`): what to do
/// instead, for the keys that act on a pane. `a` rolls it as `apply
/// --target` does.
fn background_refusal(model: &TopModel, action: &Action) -> Option<String> {
    let label = match action {
        Action::Attach { label } | Action::Deliver { label, .. } => label,
        _ => return None,
    };
    let on_host = model
        .rows
        .iter()
        .find(|r| &r.label == label)?
        .on_host
        .as_ref()?;
    let words = crate::hosts::words(on_host.host);
    Some(format!(
        "{label} is {} session {} ({}): `{}` opens it; `a` rolls it with its host",
        words.session, on_host.id, words.title, on_host.open_with
    ))
}

fn progress(title: String) -> Mode {
    Mode::Progress {
        title,
        lines: Vec::new(),
        done: false,
    }
}

/// The model before the first refresh has answered: no rows.
fn empty() -> TopModel {
    TopModel {
        header: Default::default(),
        rows: Vec::new(),
        plan: crate::plan::Plan {
            format_version: crate::plan::model::FORMAT_VERSION.into(),
            env_file: None,
            candidate_for: None,
            env_fingerprints: Default::default(),
            fingerprints: Default::default(),
            withheld_seal: None,
            sessions: Vec::new(),
            down: Vec::new(),
            tmux_server: None,
            tmux_unanswered: None,
            observation_failed: None,
            corrupt_records: Vec::new(),
            summary: Default::default(),
            delivered_by_helper: Vec::new(),
            residue: None,
            unmanaged_harnesses: Vec::new(),
            hosts: Vec::new(),
            unmanaged_counted: false,
            fingerprints_changed_from: None,
        },
    }
}

/// `THE_LOOP_TOP_TEST_PANIC=1` makes `!` panic: how the tests check that a
/// panic gives the terminal back. Only debug builds (the ones the tests
/// run) read it: a release build has no key that panics.
fn test_panic(key: ratatui::crossterm::event::KeyEvent) -> bool {
    cfg!(debug_assertions)
        && key.code == ratatui::crossterm::event::KeyCode::Char('!')
        && std::env::var_os("THE_LOOP_TOP_TEST_PANIC").is_some_and(|v| v == "1")
}
