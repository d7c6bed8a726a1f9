//! Why a session is planned as it is (the plan's `reason`), as a type: the
//! code decides by variant, never by reading the words. The JSON keeps the
//! sentence it always printed (a contract: scripts and saved plans hold it),
//! so the words are written by [`fmt::Display`] and read back by
//! [`Reason::parse`], its exact inverse.

use std::fmt;

/// Why a session is skipped, left alone or resumed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// The record is closed: its session is not the-loop's to restart.
    RecordClosed,
    /// Its tmux session is absent, or its harness pane is dead.
    NotRunning,
    /// Its state could not be observed (tmux did not answer, or the
    /// harness's environment could not be read); `why` says which.
    Unverified { why: String },
    /// The harness pane is gone although the tmux session runs.
    PaneExited,
    /// No pane of the tmux session can be taken for the harness.
    NoHarnessPane { why: String },
    /// The pane runs the harness of another work item (`named`): `standing`
    /// when the record is a standing session's.
    HeldByAnother { named: String, standing: bool },
    /// Another record (`by`) aliases the same tmux name and planned it
    /// first; only one may act on it.
    AlreadyClaimed { by: String },
    /// A `loop-*` session with no registry record.
    Unmanaged,
    /// An earlier roll ended the harness at `since` and never respawned
    /// the pane; `apply` completes it (action `resume`).
    InterruptedDeadPane { since: String },
    /// An earlier roll ended the harness at `since` and its tmux session is
    /// gone; `sessions start` resumes `conversation`.
    InterruptedGone { since: String, conversation: String },
    /// An earlier roll respawned the pane, and its harness exited at once
    /// when it resumed `conversation` (at `at`): `apply` leaves it alone
    /// while that holds, and naming the session retries it
    /// ([`crate::registry::resume_failures`]).
    ResumeExited { at: String, conversation: String },
    /// Words no variant writes: a plan saved by a build that worded a reason
    /// otherwise. Kept as read so the plan still loads and compares; never
    /// produced by planning.
    Other(String),
}

const UNVERIFIED: &str = "unverified: ";
const NO_PANE: (&str, &str) = ("no pane can be taken for the harness (", "); left alone");
const HELD_BY_WORK_ITEM: (&str, &str) = (
    "the pane runs the harness of ",
    ", not this record's; left alone so neither conversation takes the other's place",
);
const HELD_FROM_STANDING: (&str, &str) = (
    "the pane runs the harness of work item ",
    ", not this standing session's; left alone",
);
const DEAD_PANE: (&str, &str) = (
    "interrupted respawn: the harness was ended at ",
    " and the pane was never respawned",
);
const GONE: (&str, &str, &str) = (
    "interrupted respawn: the harness was ended at ",
    " and its tmux session is gone; conversation ",
    " can be resumed with `the-loop sessions start`",
);
const RESUME_EXITED: (&str, &str) = (
    "the pane was respawned and its harness exited at once when resumed at ",
    "; `the-loop apply` leaves it alone, and naming it (`the-loop sessions restart` or `the-loop apply --target`) retries conversation ",
);
const CLAIMED: &str = "tmux session is already claimed by ";
const RECORD_CLOSED: &str = "record is closed";
const NOT_RUNNING: &str = "not running";
const PANE_EXITED: &str = "the harness pane has exited";
const UNMANAGED: &str = "unmanaged: no registry record; left alone";

impl Reason {
    /// Skipped because its state could not be observed, not by a decision.
    pub fn is_unverified(&self) -> bool {
        matches!(self, Reason::Unverified { .. })
    }

    /// The reason [`fmt::Display`] wrote as `text`; [`Reason::Other`] when
    /// no variant writes it.
    pub fn parse(text: &str) -> Reason {
        let between = |(head, tail): (&str, &str)| {
            text.strip_prefix(head)
                .and_then(|rest| rest.strip_suffix(tail))
                .map(str::to_owned)
        };
        match text {
            RECORD_CLOSED => return Reason::RecordClosed,
            NOT_RUNNING => return Reason::NotRunning,
            PANE_EXITED => return Reason::PaneExited,
            UNMANAGED => return Reason::Unmanaged,
            _ => {}
        }
        if let Some(why) = text.strip_prefix(UNVERIFIED) {
            return Reason::Unverified { why: why.into() };
        }
        if let Some(by) = text.strip_prefix(CLAIMED) {
            return Reason::AlreadyClaimed { by: by.into() };
        }
        if let Some(why) = between(NO_PANE) {
            return Reason::NoHarnessPane { why };
        }
        // The standing wording first: the work item's shares its head.
        if let Some(named) = between(HELD_FROM_STANDING) {
            return Reason::HeldByAnother {
                named,
                standing: true,
            };
        }
        if let Some(named) = between(HELD_BY_WORK_ITEM) {
            return Reason::HeldByAnother {
                named,
                standing: false,
            };
        }
        if let Some(since) = between(DEAD_PANE) {
            return Reason::InterruptedDeadPane { since };
        }
        let exited = text.strip_prefix(RESUME_EXITED.0).and_then(|rest| {
            let (at, conversation) = rest.split_once(RESUME_EXITED.1)?;
            Some(Reason::ResumeExited {
                at: at.into(),
                conversation: conversation.into(),
            })
        });
        if let Some(exited) = exited {
            return exited;
        }
        let gone = between((GONE.0, GONE.2)).and_then(|middle| {
            let (since, conversation) = middle.split_once(GONE.1)?;
            Some(Reason::InterruptedGone {
                since: since.into(),
                conversation: conversation.into(),
            })
        });
        gone.unwrap_or_else(|| Reason::Other(text.into()))
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::RecordClosed => f.write_str(RECORD_CLOSED),
            Reason::NotRunning => f.write_str(NOT_RUNNING),
            Reason::Unverified { why } => write!(f, "{UNVERIFIED}{why}"),
            Reason::PaneExited => f.write_str(PANE_EXITED),
            Reason::NoHarnessPane { why } => write!(f, "{}{why}{}", NO_PANE.0, NO_PANE.1),
            Reason::HeldByAnother { named, standing } => {
                let (head, tail) = if *standing {
                    HELD_FROM_STANDING
                } else {
                    HELD_BY_WORK_ITEM
                };
                write!(f, "{head}{named}{tail}")
            }
            Reason::AlreadyClaimed { by } => write!(f, "{CLAIMED}{by}"),
            Reason::Unmanaged => f.write_str(UNMANAGED),
            Reason::InterruptedDeadPane { since } => {
                write!(f, "{}{since}{}", DEAD_PANE.0, DEAD_PANE.1)
            }
            Reason::InterruptedGone {
                since,
                conversation,
            } => write!(f, "{}{since}{}{conversation}{}", GONE.0, GONE.1, GONE.2),
            Reason::ResumeExited { at, conversation } => {
                write!(
                    f,
                    "{}{at}{}{conversation}",
                    RESUME_EXITED.0, RESUME_EXITED.1
                )
            }
            Reason::Other(text) => f.write_str(text),
        }
    }
}

impl serde::Serialize for Reason {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Reason {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Ok(Reason::parse(&text))
    }
}

#[cfg(test)]
mod tests {
    use super::Reason;

    fn every_variant() -> Vec<Reason> {
        vec![
            Reason::RecordClosed,
            Reason::NotRunning,
            Reason::Unverified {
                why: "tmux did not answer".into(),
            },
            Reason::Unverified {
                why: "environment not read".into(),
            },
            Reason::PaneExited,
            Reason::NoHarnessPane {
                why: "2 panes run a harness".into(),
            },
            Reason::HeldByAnother {
                named: "github:octo/repo#9".into(),
                standing: false,
            },
            Reason::HeldByAnother {
                named: "github:octo/repo#9".into(),
                standing: true,
            },
            Reason::AlreadyClaimed {
                by: "github:octo/repo#1.x".into(),
            },
            Reason::Unmanaged,
            Reason::InterruptedDeadPane {
                since: "2026-11-30T22:14:05Z".into(),
            },
            Reason::InterruptedGone {
                since: "2026-11-30T22:14:05Z".into(),
                conversation: "0c0ffee0-1111-2222-3333-444444444444".into(),
            },
            Reason::ResumeExited {
                at: "2026-12-06T04:00:00Z".into(),
                conversation: "0c0ffee0-1111-2222-3333-444444444444".into(),
            },
        ]
    }

    /// Every reason planning writes reads back as itself, so a saved plan
    /// keeps its typed reasons.
    #[test]
    fn the_words_read_back_as_the_reason_that_wrote_them() {
        for reason in every_variant() {
            let text = reason.to_string();
            assert_eq!(Reason::parse(&text), reason, "{text}");
            let json = serde_json::to_string(&reason).unwrap();
            assert_eq!(json, serde_json::to_string(&text).unwrap());
            assert_eq!(serde_json::from_str::<Reason>(&json).unwrap(), reason);
        }
    }

    /// Only the unobserved are unverified; a decision never is.
    #[test]
    fn only_unobserved_state_is_unverified() {
        let unverified: Vec<String> = every_variant()
            .into_iter()
            .filter(Reason::is_unverified)
            .map(|r| r.to_string())
            .collect();
        assert_eq!(
            unverified,
            [
                "unverified: tmux did not answer",
                "unverified: environment not read"
            ]
        );
    }

    /// Words from elsewhere load as they are and are never unverified.
    #[test]
    fn unknown_words_are_kept_as_read() {
        let reason = Reason::parse("unverifiable by design");
        assert_eq!(reason, Reason::Other("unverifiable by design".into()));
        assert!(!reason.is_unverified());
        assert_eq!(reason.to_string(), "unverifiable by design");
    }
}
