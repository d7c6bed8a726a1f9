//! The worlds the rows run in: a fresh [`Built`] per [`Scenario`], its canaries planted.

use super::*;
use std::path::PathBuf;

pub(super) const REF: &str = "github:octo/repo#1";

pub(super) struct Built {
    hung: Option<HungSocket>,
    pub(super) w: World,
    /// Extra environment for the-loop (besides the caller's canaries).
    pub(super) env: Vec<(String, String)>,
    /// Files the scenario planted with canaries in them, not swept.
    pub(super) planted: Vec<PathBuf>,
    /// Whether tmux can be asked about this world afterwards.
    pub(super) tmux_reachable: bool,
    /// The pane of a harness a person started (`ByHand`, `Imported`).
    pub(super) pane: String,
    /// A background worker's stand-in (`BackgroundHost`).
    _worker: Option<crate::hosts::Worker>,
}

pub(super) fn current_env_file() -> String {
    format!(
        "# current values\n\
         SLACK_BOT_TOKEN={FILE_TOKEN}\n\
         SHORT_SECRET='{FILE_SHORT}'\n\
         QUOTE_SECRET=\"it's \\\"q\\\" sw33p-7a9\"\n\
         DOLLAR_SECRET={FILE_DOLLAR}\n\
         export MULTI_SECRET=\"{FILE_MULTI}\"\n\
         DELIVERED_TOKEN={FILE_DELIVERED}\n"
    )
}

fn sessions_on_old_server(w: &World, n: usize) -> Vec<LegacySession> {
    w.start_server_holding(&[
        ("SLACK_BOT_TOKEN", OLD_TOKEN),
        ("SHORT_SECRET", OLD_SHORT),
        ("MULTI_SECRET", OLD_MULTI),
        ("EXTRA_CRED", OLD_EXTRA),
        ("DELIVERED_TOKEN", OLD_DELIVERED),
    ]);
    let sessions: Vec<LegacySession> = (1..=n)
        .map(|i| {
            w.legacy_session(
                &format!("github:octo/repo#{i}"),
                &format!("github-octo-repo-{i}"),
            )
        })
        .collect();
    w.source_tmux(&format!(
        "set-environment -g SLACK_BOT_TOKEN {}\nset-environment -t ={} SHORT_SECRET {}\n",
        tmux_quote(GLOBAL_TOKEN),
        sessions[0].name,
        tmux_quote(SESSION_SHORT)
    ));
    sessions
}

pub(super) fn build(scenario: Scenario) -> Built {
    let w = World::new();
    let keyed = if scenario == Keyed {
        "  fingerprint: keyed\n"
    } else {
        ""
    };
    w.write_config(&format!(
        "  deliver: [DELIVERED_TOKEN]\n  credentials: [EXTRA_CRED]\n{keyed}"
    ));
    w.install_tmux_wrapper();
    let mut built = Built {
        hung: None,
        env: Vec::new(),
        planted: Vec::new(),
        tmux_reachable: true,
        pane: String::new(),
        _worker: None,
        w,
    };
    let w = &built.w;
    match scenario {
        Fresh => w.write_env(&current_env_file()),
        ByHand | Imported => {
            w.write_env(&current_env_file());
            sessions_on_old_server(w, 2);
            built.pane = by_hand(w, "mywork", "--session-id 0000-by-hand");
            by_hand(w, "bare", "");
            if scenario == Imported {
                let out = w.the_loop(&["import", &built.pane, "github:octo/repo#5"]);
                assert_eq!(code(&out), Some(0), "{}", explain(&out));
            }
        }
        Rolled => {
            w.write_env(&current_env_file());
            sessions_on_old_server(w, 2);
            let out = w.the_loop(&["apply", "--auto-approve"]);
            assert_eq!(code(&out), Some(0), "{}", explain(&out));
            w.write_env(&format!(
                "{}SLACK_BOT_TOKEN={OLD_TOKEN}\nADDED_SECRET={OLD_DELIVERED}\n",
                current_env_file().replace(&format!("SLACK_BOT_TOKEN={FILE_TOKEN}\n"), "")
            ));
            let out = w.the_loop(&["sessions", "restart", "--all"]);
            assert_eq!(code(&out), Some(0), "{}", explain(&out));
        }
        BackgroundHost => {
            w.write_env(&current_env_file());
            sessions_on_old_server(w, 2);
            let (worker, _) = crate::hosts::plant(
                w,
                &[
                    ("SLACK_BOT_TOKEN", OLD_TOKEN),
                    ("DELIVERED_TOKEN", OLD_DELIVERED),
                ],
                true,
            );
            let out = w.the_loop(&[
                "import",
                crate::hosts::ID,
                "github:octo/repo#8",
                "--host",
                "claude-background",
            ]);
            assert_eq!(code(&out), Some(0), "{}", explain(&out));
            built._worker = Some(worker);
        }
        Drifted | Keyed | NoTmux | DeadPane | Mismatch | ResumeFails | CorruptRecords
        | Malformed | EnvIsDirectory | EnvDangling => {
            w.write_env(&current_env_file());
            let sessions = sessions_on_old_server(w, 2);
            match scenario {
                Malformed => w.write_env(&format!(
                    "A=1\nSLACK_BOT_TOKEN=\"{UNTERMINATED}\nNEXT_SECRET={REST_OF_FILE}\n"
                )),
                EnvIsDirectory => {
                    std::fs::remove_file(&w.env_path).unwrap();
                    std::fs::create_dir(&w.env_path).unwrap();
                }
                EnvDangling => {
                    std::fs::remove_file(&w.env_path).unwrap();
                    std::os::unix::fs::symlink(w.root().join("gone.env"), &w.env_path).unwrap();
                }
                NoTmux => {
                    let bin = w.root().join("bin-without-tmux");
                    std::fs::create_dir_all(&bin).unwrap();
                    std::fs::copy(w.bin_dir.join("claude"), bin.join("claude")).unwrap();
                    built
                        .env
                        .push(("PATH".into(), bin.to_string_lossy().into_owned()));
                }
                DeadPane => {
                    let pid = w.pane(&sessions[1].name).unwrap().pid;
                    nix::sys::signal::kill(
                        nix::unistd::Pid::from_raw(pid),
                        nix::sys::signal::Signal::SIGKILL,
                    )
                    .unwrap();
                    wait_for(|| w.pane(&sessions[1].name).unwrap().dead, "the pane died");
                }
                Mismatch => std::fs::write(
                    w.transcript(&sessions[0]),
                    "{\"tamper\":\"SLACK_BOT_TOKEN\"}\n",
                )
                .unwrap(),
                ResumeFails => {
                    std::fs::write(w.transcript(&sessions[0]), "{\"test\":\"fail-resume\"}\n")
                        .unwrap()
                }
                CorruptRecords => {
                    let local = w.state.join("local");
                    let truncated = local.join("github-octo-repo-77.json");
                    std::fs::write(
                        &truncated,
                        format!("{{\"workItem\": {{\"ref\": \"{CORRUPT_TRUNCATED}"),
                    )
                    .unwrap();
                    let wrong = local.join("github-octo-repo-78.json");
                    std::fs::write(
                        &wrong,
                        format!("{{\"workItem\": \"{CORRUPT_WRONG_TYPE}\", \"harness\": 7}}"),
                    )
                    .unwrap();
                    built.planted.extend([truncated, wrong]);
                }
                _ => {}
            }
        }
        NoServer => {
            w.write_env(&current_env_file());
            for i in 1..=2 {
                let s = LegacySession {
                    reference: format!("github:octo/repo#{i}"),
                    slug: format!("github-octo-repo-{i}"),
                    name: format!("loop-github-octo-repo-{i}"),
                    session_id: format!("0000-github-octo-repo-{i}"),
                    cwd: w.work.join(format!("github-octo-repo-{i}")),
                };
                std::fs::create_dir_all(&s.cwd).unwrap();
                w.write_record(&s, "active");
                // A conversation to resume: `sessions start --all` brings it back.
                let transcript = w.transcript(&s);
                std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
                std::fs::write(&transcript, "{\"type\":\"start\"}\n").unwrap();
            }
        }
        Hung => {
            w.write_env(&current_env_file());
            let s = LegacySession {
                reference: REF.into(),
                slug: "github-octo-repo-1".into(),
                name: "loop-github-octo-repo-1".into(),
                session_id: "0000-github-octo-repo-1".into(),
                cwd: w.work.join("github-octo-repo-1"),
            };
            std::fs::create_dir_all(&s.cwd).unwrap();
            w.write_record(&s, "active");
            built.hung = Some(HungSocket::bind(&w.tmux_tmpdir));
            built
                .env
                .push(("THE_LOOP_TMUX_TIMEOUT_MS".into(), "300".into()));
            built.tmux_reachable = false;
        }
    }
    built
}

/// A session `name` a person made, where they run the stand-in as `claude
/// ARGS` from their shell; its pane id, once the stand-in is ready.
fn by_hand(w: &World, name: &str, args: &str) -> String {
    let cwd = w.work.join(name);
    std::fs::create_dir_all(&cwd).unwrap();
    w.tmux_ok(&["new-session", "-d", "-s", name, "-c", cwd.to_str().unwrap()]);
    let typed = format!("export PATH={}:$PATH && claude {args}", w.bin_dir.display());
    w.tmux_ok(&["send-keys", "-t", &format!("={name}:"), "-l", &typed]);
    w.tmux_ok(&["send-keys", "-t", &format!("={name}:"), "Enter"]);
    let pane = w.pane(name).unwrap();
    wait_for(
        || {
            descendants(pane.pid)
                .iter()
                .any(|pid| cmdline(*pid).iter().any(|a| a.ends_with("/claude")))
        },
        "the stand-in runs beneath the person's shell",
    );
    let project = w.home.join(".claude/projects").join(
        cwd.canonicalize()
            .unwrap()
            .to_string_lossy()
            .replace(|c: char| !c.is_ascii_alphanumeric(), "-"),
    );
    wait_for(
        || {
            std::fs::read_dir(&project).is_ok_and(|files| {
                files.flatten().any(|f| {
                    std::fs::read_to_string(f.path()).is_ok_and(|t| t.contains("\"ready\""))
                })
            })
        },
        "the stand-in is ready",
    );
    pane.id
}
