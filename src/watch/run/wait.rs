//! Waiting between cycles: file events on the env file and the config
//! (through their directories, so an editor's rename-over is seen), the
//! interval, a re-look while a session is held, and signals. Kept apart
//! from the cycle itself in [`super`].

use super::*;

/// What wakes the loop besides its own deadlines.
pub(super) enum Wake {
    /// A change in a watched directory (or the watcher's error).
    File(notify::Result<notify::Event>),
    /// SIGINT, SIGTERM or SIGHUP: stop.
    Signal(i32),
}

impl Watch {
    /// Waits for changes and ticks until a signal arrives; returns why it stopped.
    pub(super) fn wait_loop(&mut self, rx: &mpsc::Receiver<Wake>) -> &'static str {
        let mut debouncer = Debouncer::new(self.options.debounce);
        let mut next_tick = crate::clock::deadline(self.options.interval);
        // The signal thread holds a sender for the life of the process, so
        // the channel only closes if that thread could not run; the flag is
        // then looked at between short sleeps instead.
        let mut connected = true;
        // While a session is held, the next look at it (see `hold`); `None`
        // while nothing is, so an idle watch has no such wake-up.
        let mut relook = self
            .holding
            .then(|| crate::clock::deadline(super::HELD_RELOOK));
        loop {
            if interrupt::requested() {
                return "signal";
            }
            // The service manager's watchdog, fed from here: a loop that
            // stops coming back here is ended and restarted.
            self.notify.keep_alive();
            let now = Instant::now();
            let wake = [
                Some(next_tick),
                debouncer.deadline(),
                self.retry_at,
                relook,
                self.notify.ping_deadline(),
            ]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(next_tick);
            let wait = wake.saturating_duration_since(now);
            if connected {
                match rx.recv_timeout(wait) {
                    Ok(Wake::Signal(signal)) => {
                        tracing::debug!(signal, "stop signal");
                        return "signal";
                    }
                    Ok(Wake::File(Ok(event))) => {
                        if self.relevant(&event) {
                            debouncer.note(Instant::now());
                        } else if self.turn_ended(&event) {
                            // A held session reached its safe point: roll it
                            // now, not after the debounce.
                            self.recheck = true;
                        }
                    }
                    Ok(Wake::File(Err(err))) => self.fs_trouble(format!("file watch error: {err}")),
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                    Err(mpsc::RecvTimeoutError::Disconnected) => connected = false,
                }
            } else {
                std::thread::sleep(wait.min(Duration::from_millis(200)));
            }
            let now = Instant::now();
            let due = debouncer.take_due(now);
            self.settling = due.is_some_and(|due| !due.settled);
            let trigger = if let Some(due) = due {
                Some(format!(
                    "change ({} file events{})",
                    due.events,
                    if due.settled {
                        ""
                    } else {
                        ", still being written"
                    }
                ))
            } else if debouncer.pending() {
                // The debounce holds between rolls too: while the files are
                // being written, no re-check, retry or interval acts on them.
                None
            } else if self.recheck {
                Some("after a roll, or a held session's turn ended".to_owned())
            } else if self.retry_at.is_some_and(|at| now >= at) {
                Some("retry".to_owned())
            } else if relook.is_some_and(|at| now >= at) {
                Some("a held session, looked at again".to_owned())
            } else if now >= next_tick {
                Some("interval".to_owned())
            } else {
                None
            };
            if let Some(trigger) = trigger {
                self.recheck = false;
                self.retry_at = None;
                let started = Instant::now();
                self.cycle(&trigger);
                debouncer.set_quiet(super::super::debounce::storm_quiet(
                    self.options.debounce,
                    self.cut_short,
                ));
                next_tick = crate::clock::deadline(self.options.interval);
                // From the cycle's start: a slow plan does not stretch the
                // time between two looks past `HELD_RELOOK`.
                relook = self
                    .holding
                    .then(|| crate::clock::deadline_from(started, super::HELD_RELOOK));
            }
        }
    }

    /// A write, create, rename or removal of the env file or the config.
    /// Opens and reads (ours included: every cycle reads both) are not changes.
    pub(super) fn relevant(&self, event: &notify::Event) -> bool {
        let change = match event.kind {
            EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
            EventKind::Access(_) => false,
            _ => true,
        };
        change && event.paths.iter().any(|p| self.files.contains(p))
    }

    /// A hook wrote to the activity directory, and a session a roll held
    /// for its running turn is now between turns. One directory read, and
    /// only while some session is held.
    pub(super) fn turn_ended(&self, event: &notify::Event) -> bool {
        if self.in_turn.is_empty() {
            return false;
        }
        let dir = crate::activity::store::dir(&self.state_root);
        let written = !matches!(
            event.kind,
            EventKind::Access(AccessKind::Open(_)) | EventKind::Access(AccessKind::Read)
        );
        if !written
            || !event
                .paths
                .iter()
                .any(|p| p.parent() == Some(dir.as_path()))
        {
            return false;
        }
        let now =
            crate::activity::store::live_activities(&self.state_root, self.in_turn.iter().copied());
        self.in_turn
            .iter()
            .any(|pid| now.get(pid).is_none_or(|a| !a.activity.in_turn()))
    }

    pub(super) fn fs_trouble(&mut self, text: String) {
        if self.said.fs_trouble.insert(text.clone()) {
            tracing::warn!("{text}; re-planning every interval still catches changes");
        }
    }

    /// Watches the directories of the env file and the config (editors save
    /// by renaming a new file over the old one, which a watch on the file
    /// itself would lose), following a config edit that moves the env file.
    pub(super) fn rewatch(&mut self) {
        let files: BTreeSet<PathBuf> = [
            Some(self.config_path.clone()),
            self.ctx.config.env.file.clone(),
        ]
        .into_iter()
        .flatten()
        .collect();
        // The hooks' directory too: a held session's turn ends there.
        let activity = crate::activity::store::dir(&self.state_root);
        let _ = crate::fsutil::create_private_dir(&activity);
        let dirs: BTreeSet<PathBuf> = files
            .iter()
            .filter_map(|f| f.parent().map(Path::to_path_buf))
            .chain([activity])
            .collect();
        self.files = files;
        if dirs == self.dirs {
            return;
        }
        let Some(fs) = self.fs.as_mut() else {
            self.dirs = dirs;
            return;
        };
        for gone in self.dirs.difference(&dirs) {
            let _ = fs.unwatch(gone);
        }
        let mut trouble = Vec::new();
        let mut watched: BTreeSet<PathBuf> = self.dirs.intersection(&dirs).cloned().collect();
        for dir in dirs.difference(&self.dirs) {
            match fs.watch(dir, RecursiveMode::NonRecursive) {
                Ok(()) => {
                    watched.insert(dir.clone());
                }
                // Not recorded as watched, so the next cycle tries again
                // (a directory that appears later is then watched).
                Err(err) => trouble.push(format!("cannot watch {} ({err})", dir.display())),
            }
        }
        self.dirs = watched;
        for text in trouble {
            self.fs_trouble(text);
        }
    }
}
