//! Sessions as an older the-loop spawned them (the harness started by tmux
//! straight from the server's environment, registered afterwards), their
//! records and transcripts, and the rotated fleets built of them.

use super::{set_mode, wait_for, LegacySession, World};
use std::path::PathBuf;
use std::process::Command;

impl World {
    /// Starts the tmux server with `vars` in its own process environment
    /// (never in an argv), as a server started before a rotation would be.
    pub fn start_server_holding(&self, vars: &[(&str, &str)]) {
        let mut cmd = Command::new("tmux");
        self.apply_env(&mut cmd);
        for (k, v) in vars {
            cmd.env(k, v);
        }
        let out = cmd
            .args([
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-s",
                "keepalive",
                "sleep",
                "100000",
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "start tmux: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// A session as an older the-loop spawned it: the harness started by
    /// tmux straight from the server's environment, registered afterwards.
    pub fn legacy_session(&self, reference: &str, slug: &str) -> LegacySession {
        self.legacy_session_as(reference, slug, &format!("0000-{slug}"))
    }

    /// [`World::legacy_session`] with a conversation id of the caller's.
    pub fn legacy_session_as(
        &self,
        reference: &str,
        slug: &str,
        session_id: &str,
    ) -> LegacySession {
        self.legacy_session_with(reference, slug, session_id, &[])
    }

    /// [`World::legacy_session_as`], the session's environment also holding
    /// `env` (`new-session -e`).
    pub fn legacy_session_with(
        &self,
        reference: &str,
        slug: &str,
        session_id: &str,
        env: &[(&str, &str)],
    ) -> LegacySession {
        let session_id = session_id.to_owned();
        let cwd = self.work.join(slug);
        std::fs::create_dir_all(&cwd).unwrap();
        let name = format!("loop-{}", slug.replace(['.', ':'], "_"));
        let env: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let mut args = vec![
            "new-session",
            "-d",
            "-s",
            &name,
            "-c",
            cwd.to_str().unwrap(),
        ];
        for pair in &env {
            args.extend(["-e", pair.as_str()]);
        }
        args.extend(["--", "claude", "--session-id", &session_id]);
        self.tmux_ok(&args);
        self.tmux_ok(&[
            "set-option",
            "-w",
            "-t",
            &format!("={name}:"),
            "remain-on-exit",
            "on",
        ]);
        let session = LegacySession {
            reference: reference.into(),
            slug: slug.into(),
            name,
            session_id,
            cwd,
        };
        self.write_record(&session, "active");
        // Ready, not only started: a test that compares the transcript
        // before and after a command would otherwise see the stand-in's own
        // `ready` line land in between (it did, under load).
        wait_for(
            || {
                std::fs::read_to_string(self.transcript(&session))
                    .is_ok_and(|t| t.contains("\"type\":\"ready\""))
            },
            "stand-in is ready",
        );
        session
    }

    /// A `loop-*` tmux session no record names (`plan` counts it as a
    /// `loop-*` without a record, and leaves it alone).
    pub fn unrecorded_loop_session(&self, name: &str) {
        self.tmux_ok(&["new-session", "-d", "-s", name, "sleep", "100000"]);
    }

    pub fn write_record(&self, s: &LegacySession, status: &str) {
        let r: Vec<&str> = s.reference.splitn(2, ':').collect();
        let (owner_repo, number) = r[1].rsplit_once('#').unwrap();
        let parts: Vec<&str> = owner_repo.rsplitn(3, '/').collect();
        let record = serde_json::json!({
            "workItem": {"ref": s.reference, "provider": r[0], "owner": parts[1], "repo": parts[0], "number": number.parse::<u64>().unwrap()},
            "harness": "claude",
            "harnessSessionId": s.session_id,
            "cwd": s.cwd,
            "status": status,
            "createdAt": "2026-11-01T00:00:00Z",
            "lastEventAt": null,
            "tmuxTarget": s.name,
            "recentDeliveries": [],
            "upstreamOnlyField": {"kept": true}
        });
        let path = self.state.join("local").join(format!("{}.json", s.slug));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, serde_json::to_string_pretty(&record).unwrap()).unwrap();
        set_mode(&path, 0o600);
    }

    pub fn transcript(&self, s: &LegacySession) -> PathBuf {
        let mangled: String = s
            .cwd
            .to_string_lossy()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        self.home
            .join(".claude/projects")
            .join(mangled)
            .join(format!("{}.jsonl", s.session_id))
    }

    pub fn transcript_text(&self, s: &LegacySession) -> String {
        std::fs::read_to_string(self.transcript(s)).unwrap_or_default()
    }
}

impl World {
    /// A world whose roll probes after `probe_seconds` (a 3 s kill grace),
    /// holding [`World::rotated_fleet`]'s `n` sessions.
    pub fn rotated_with_probe(
        n: usize,
        probe_seconds: &str,
        retired: &str,
        rotated: &str,
    ) -> (World, Vec<LegacySession>) {
        let w = World::new();
        w.write_raw_config(&format!(
            "state:\n  root: {}\nenv:\n  file: .env\nrouting:\n  tmux:\n    resumeProbeSeconds: {probe_seconds}\n    harnessKillGraceSeconds: 3\n",
            w.state.display()
        ));
        let sessions = w.rotated_fleet(n, retired, rotated);
        (w, sessions)
    }

    /// Restarts the session's stand-in so that it ignores SIGTERM: a roll then
    /// sits in its grace period, a deterministic point after the signal and
    /// before the respawn.
    pub fn ignore_term(&self, s: &LegacySession) {
        std::fs::write(self.transcript(s), "{\"test\":\"ignore-term\"}\n").unwrap();
        let pane = self.pane(&s.name).unwrap();
        self.tmux_ok(&[
            "respawn-pane",
            "-k",
            "-t",
            &pane.id,
            "-c",
            s.cwd.to_str().unwrap(),
            "--",
            "claude",
            "--session-id",
            &s.session_id,
        ]);
        wait_for(
            || self.transcript_text(s).contains("\"type\":\"start\""),
            "the session restarted ignoring SIGTERM",
        );
    }

    /// The reporter's situation: a tmux server frozen on `retired`, `n`
    /// sessions (`github:octo/repo#1` to `#n`) born on it, then `rotated`
    /// written to the env file.
    pub fn rotated_fleet(&self, n: usize, retired: &str, rotated: &str) -> Vec<LegacySession> {
        self.write_env(&format!("SLACK_BOT_TOKEN={retired}\n"));
        self.start_server_holding(&[("SLACK_BOT_TOKEN", retired)]);
        let sessions = (1..=n)
            .map(|i| {
                self.legacy_session(
                    &format!("github:octo/repo#{i}"),
                    &format!("github-octo-repo-{i}"),
                )
            })
            .collect();
        self.write_env(&format!("SLACK_BOT_TOKEN={rotated}\n"));
        sessions
    }
}
