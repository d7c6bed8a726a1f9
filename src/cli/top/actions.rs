//! What `top`'s keys do, each through the same op as its verb: `sessions
//! attach`'s, `apply`'s (its lock, canary and safe points, for one
//! session) and `sessions deliver`'s. Progress goes to the screen as lines.

use super::message::Message;
use crate::apply::{Mode, SessionReport};
use crate::ops::apply::{apply as roll, ApplyOptions, ApplySink, RollCommand, Source};
use crate::ops::notes::{Note, Notes};
use crate::ops::sessions::attach::{attach as attach_op, AttachOptions};
use crate::ops::sessions::deliver::{deliver as deliver_op, DeliverOptions, Message as Text};
use crate::ops::top::{plan_of, TopModel};
use crate::ops::Context;
use crate::plan::safe_point::Drain;
use crate::plan::{Plan, SessionPlan, Targets};
use crate::style::Style;
use std::sync::mpsc::Sender;
use std::sync::Mutex;
use std::time::Duration;

const PLAIN: Style = Style { color: false };

/// `sessions attach LABEL`; what to say in the footer after. Inside tmux
/// this client is switched and `top` keeps running in its pane (`prefix (`
/// or `prefix L` comes back to it); outside tmux `tmux attach` runs on this
/// terminal and `top` resumes when it detaches or ends.
pub(super) fn attach(ctx: &Context, label: &str) -> String {
    let notes = Collected::default();
    let options = AttachOptions {
        reference: label.to_owned(),
        work_item_only: false,
        read_only: false,
        come_back: true,
    };
    match attach_op(ctx, &options, &notes) {
        Ok(done) => {
            let how = if done.read_only { " (read-only)" } else { "" };
            match done.attach_ended {
                None => format!(
                    "switched this client to {label}{how}; prefix ( or prefix L comes back here"
                ),
                Some(status) if status.success() => {
                    format!("back from tmux attach to {label}{how}")
                }
                Some(status) => format!("tmux attach to {label} ended: {status}"),
            }
        }
        Err(e) => format!("attach {label}: {e}"),
    }
}

#[derive(Default)]
struct Collected(Mutex<Vec<Note>>);

impl Notes for Collected {
    fn note(&self, note: Note) {
        if let Ok(mut notes) = self.0.lock() {
            notes.push(note);
        }
    }
}

/// The selected session's plan as `plan` words it (fingerprints only).
pub(super) fn plan_text(model: &TopModel, label: &str) -> String {
    crate::views::plan::render_plan(&plan_of(&model.plan, label), PLAIN)
}

/// `apply --target LABEL`, approved by the y/N already answered.
pub(super) fn apply(ctx: &Context, label: &str, tx: &Sender<Message>) {
    let options = ApplyOptions {
        command: RollCommand::Apply,
        mode: Mode::Apply,
        source: Source::Plan {
            targets: Targets(vec![label.to_owned()]),
            saved: None,
        },
        dry_run: false,
        parallelism: 1,
        scrub_tmux_env: false,
        lock_timeout: Duration::ZERO,
        drain: Drain::default(),
    };
    let sink = Lines(Mutex::new(tx.clone()));
    let last = match roll(ctx, &options, &sink) {
        Ok(report) => crate::views::apply::render(&report, PLAIN)
            .lines()
            .map(str::to_owned)
            .collect(),
        Err(e) => vec![format!("error: {e}")],
    };
    let _ = tx.send(Message::Done(last));
}

/// `sessions deliver LABEL --message TEXT`.
pub(super) fn deliver(ctx: &Context, label: &str, text: String, tx: &Sender<Message>) {
    let last = match crate::ops::resolve::resolve_ref(&ctx.registry, label) {
        Err(e) => format!("error: {e} (top delivers to work items; `the-loop standing say` to a standing session)"),
        Ok(reference) => {
            let _ = tx.send(Message::Progress(format!(
                "delivering {} characters to {label}…",
                text.chars().count()
            )));
            let options = DeliverOptions {
                reference,
                message: Text {
                    text,
                    delivery_id: None,
                    ready_timeout: Duration::from_secs(30),
                },
            };
            match deliver_op(ctx, &options) {
                Ok(report) => format!(
                    "{}: {}{}",
                    crate::views::snake_name(report.outcome),
                    report.tmux_target,
                    report
                        .reason
                        .map(|r| format!(" ({r})"))
                        .unwrap_or_default()
                ),
                Err(e) => format!("error: {e}"),
            }
        }
    };
    let _ = tx.send(Message::Done(vec![last]));
}

/// The roll's progress, a line each, to the screen.
struct Lines(Mutex<Sender<Message>>);

impl Lines {
    fn say(&self, line: String) {
        if let Ok(tx) = self.0.lock() {
            let _ = tx.send(Message::Progress(line));
        }
    }
}

impl ApplySink for Lines {
    fn lock_waiting(&self, holder: &str, _left: Duration) {
        self.say(format!("the apply lock is held by {holder}"));
    }
    fn planned(&self, _plan: &Plan, acts: bool) -> Result<(), crate::ops::apply::ApplyError> {
        if !acts {
            self.say("nothing to roll: the session is up to date or left alone".into());
        }
        Ok(())
    }
    fn respawning(&self, session: &SessionPlan) {
        self.say(format!("respawning {}…", session.label()));
    }
    fn session(&self, r: &SessionReport) {
        self.say(format!("{}: {}", r.label(), r.verdict()));
    }
    fn draining(&self, held: &[&SessionPlan], left: Duration) {
        let names: Vec<&str> = held.iter().map(|s| s.label()).collect();
        self.say(format!(
            "waiting up to {}s for the turn of {} to end",
            left.as_secs(),
            names.join(", ")
        ));
    }
    fn interrupting(&self, session: &SessionPlan) {
        self.say(format!("interrupting {}'s turn", session.label()));
    }
}
