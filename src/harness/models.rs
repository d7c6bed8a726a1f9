//! Model and effort, re-validated before every launch against what the
//! operator declares now in `routing.models`. A hand-edited record or a
//! withdrawn declaration resolves to the harness's own arguments without
//! the invalid part, and the drop is reported, never silent. Validation also
//! keeps anything but a declared word out of the harness's argv.

use super::LaunchArgs;
pub use crate::events::session::Dropped;
use std::collections::BTreeMap;
use std::fmt;

impl fmt::Display for Dropped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {:?} dropped: {}", self.what, self.value, self.why)
    }
}

/// The arguments a launch will really use, and what was dropped on the way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    pub args: LaunchArgs,
    pub dropped: Vec<Dropped>,
}

/// Keeps the requested model when `routing.models` declares it, and the
/// requested effort when that model lists it. Harness args pass unchanged.
pub fn resolve(requested: &LaunchArgs, models: &BTreeMap<String, Vec<String>>) -> Resolved {
    let mut dropped = Vec::new();
    let mut drop = |what: &'static str, value: &str, why: String| {
        dropped.push(Dropped {
            what,
            value: value.to_owned(),
            why,
        })
    };
    let model = match requested.model.as_deref().filter(|m| !m.is_empty()) {
        None => None,
        Some(m) if models.contains_key(m) => Some(m.to_owned()),
        Some(m) if models.is_empty() => {
            drop(
                "model",
                m,
                "routing.models declares no models; declare it there to use it".into(),
            );
            None
        }
        Some(m) => {
            let declared: Vec<&str> = models.keys().map(String::as_str).collect();
            drop(
                "model",
                m,
                format!("not declared in routing.models ({})", declared.join(", ")),
            );
            None
        }
    };
    let effort = match (
        requested.effort.as_deref().filter(|e| !e.is_empty()),
        &model,
    ) {
        (None, _) => None,
        (Some(e), Some(m)) => {
            let allowed = &models[m];
            if allowed.iter().any(|a| a == e) {
                Some(e.to_owned())
            } else if allowed.is_empty() {
                drop(
                    "effort",
                    e,
                    format!("routing.models gives {m} no effort levels"),
                );
                None
            } else {
                drop(
                    "effort",
                    e,
                    format!("routing.models allows {m} only {}", allowed.join(", ")),
                );
                None
            }
        }
        (Some(e), None) if requested.model.is_some() => {
            drop("effort", e, "its model was dropped".into());
            None
        }
        (Some(e), None) => {
            drop(
                "effort",
                e,
                "effort levels are declared per model, and no model was given".into(),
            );
            None
        }
    };
    Resolved {
        args: LaunchArgs {
            harness_args: requested.harness_args.clone(),
            model,
            effort,
        },
        dropped,
    }
}

/// Says each drop aloud: a warning, and the event beside it.
pub fn report_dropped(
    events: &crate::events::EventLog,
    subject: &crate::events::Subject,
    dropped: &[Dropped],
) {
    let who = subject.tmux_target.as_deref().unwrap_or("session");
    for d in dropped {
        tracing::warn!("{who}: {d}; launching without it");
    }
    report_dropped_events(events, subject, dropped);
}

/// One `session.launch_args_dropped` event per drop, carrying `subject`
/// (which session) beside it.
pub fn report_dropped_events(
    events: &crate::events::EventLog,
    subject: &crate::events::Subject,
    dropped: &[Dropped],
) {
    for d in dropped {
        events.emit(crate::events::Event::SessionLaunchArgsDropped {
            subject: subject.clone(),
            dropped: d.clone(),
        });
    }
}

/// After a relaunch that dropped something, makes the record say what was
/// launched: a record still naming the dropped model would show it in
/// `sessions list` for a process that does not run it.
pub fn record_launched(
    registry: &crate::registry::Registry,
    identity: &crate::registry::SessionKey,
    launched: &LaunchArgs,
) -> Result<(), String> {
    use crate::registry::SessionKey;
    match identity {
        SessionKey::WorkItem(r) => {
            let Some(mut record) = registry.load_work_item(r).map_err(|e| e.to_string())? else {
                return Ok(());
            };
            record.launch.set_launched(launched);
            registry
                .save_work_item(&record)
                .map_err(|e| e.to_string())?;
        }
        SessionKey::Standing(name) => {
            let Some(mut record) = registry.load_standing(name).map_err(|e| e.to_string())? else {
                return Ok(());
            };
            record.launch.set_launched(launched);
            registry.save_standing(&record).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn models() -> BTreeMap<String, Vec<String>> {
        BTreeMap::from([
            ("opus".to_owned(), vec!["high".to_owned(), "max".to_owned()]),
            ("haiku".to_owned(), vec![]),
        ])
    }

    fn ask(model: Option<&str>, effort: Option<&str>) -> LaunchArgs {
        LaunchArgs {
            harness_args: vec!["--verbose".into()],
            model: model.map(String::from),
            effort: effort.map(String::from),
        }
    }

    #[test]
    fn resolutions() {
        let cases = [
            ("declared model and effort", ask(Some("opus"), Some("high"))),
            ("nothing asked", ask(None, None)),
            ("undeclared model", ask(Some("gpt-9"), Some("high"))),
            ("undeclared effort", ask(Some("opus"), Some("low"))),
            ("model without efforts", ask(Some("haiku"), Some("high"))),
            ("effort without model", ask(None, Some("high"))),
            (
                "a flag posing as a model",
                ask(Some("--dangerously-skip-permissions"), None),
            ),
        ];
        let resolved: Vec<(&str, Vec<String>, Vec<String>)> = cases
            .iter()
            .map(|(name, asked)| {
                let r = resolve(asked, &models());
                let argv = crate::harness::harness_argv(
                    &crate::harness::Launch::Resume {
                        session_id: "id".into(),
                    },
                    &r.args,
                )
                .into_iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect();
                (
                    *name,
                    argv,
                    r.dropped.iter().map(|d| d.to_string()).collect(),
                )
            })
            .collect();
        insta::assert_debug_snapshot!(resolved);
    }

    #[test]
    fn nothing_declared_drops_any_model() {
        let r = resolve(&ask(Some("opus"), None), &BTreeMap::new());
        assert_eq!(r.args.model, None);
        assert!(r.dropped[0]
            .why
            .starts_with("routing.models declares no models"));
    }
}
