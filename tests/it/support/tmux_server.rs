//! What a world's tmux server is asked and holds: every call recorded
//! through a wrapper on PATH, a control-mode client's commands as words,
//! values quoted for `source-file`, the server's pid, sessions and panes,
//! and a socket that never answers.

use super::{stdout, World};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The real tmux binary, found on PATH outside any test world.
pub fn real_tmux() -> PathBuf {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .map(|dir| dir.join("tmux"))
        .find(|p| p.is_file() && !p.to_string_lossy().contains("the-loop-test-"))
        .expect("tmux on PATH")
}

impl World {
    /// Where the tmux wrapper records every invocation's argv.
    pub fn tmux_argv_log(&self) -> PathBuf {
        self.root().join("tmux-argv.log")
    }

    /// Where the wrapper copies every line sent to a control-mode client
    /// (`tmux -C`, the roll's one client): the commands a roll sends.
    pub fn tmux_control_log(&self) -> PathBuf {
        self.root().join("tmux-control.log")
    }

    /// Puts a `tmux` on PATH, ahead of the real one, that appends its argv to
    /// [`World::tmux_argv_log`] and then execs the real tmux, so every tmux
    /// invocation (the one that starts the server included) is recorded. A
    /// control-mode client's stdin is copied to [`World::tmux_control_log`];
    /// tmux itself is still what the-loop started (`exec`), so a client
    /// the-loop ends never outlives it.
    pub fn install_tmux_wrapper(&self) -> PathBuf {
        let log = self.tmux_argv_log();
        let script = format!(
            "#!/bin/bash\n{{ for a in \"$@\"; do printf '%s\\037' \"$a\"; done; printf '\\036\\n'; }} >>'{log}'\n\
             if [ \"$1\" = -C ] || [ \"$3\" = -C ]; then exec '{real}' \"$@\" < <(exec tee -a '{control}'); fi\n\
             exec '{real}' \"$@\"\n",
            log = log.display(),
            control = self.tmux_control_log().display(),
            real = real_tmux().display()
        );
        let wrapper = self.bin_dir.join("tmux");
        std::fs::write(&wrapper, script).unwrap();
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
        // A child forked by another test thread while the script was open for
        // writing holds it until that child execs, and exec'ing it meanwhile
        // fails with ETXTBSY: run it once until it runs, then start the log afresh.
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            match Command::new(&wrapper).arg("-V").output() {
                Ok(_) => break,
                Err(e) if e.raw_os_error() == Some(26) && Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                Err(e) => panic!("cannot run the tmux wrapper: {e}"),
            }
        }
        let _ = std::fs::remove_file(&log);
        log
    }

    /// The argv of every recorded tmux invocation, in order.
    /// Every command sent to a control-mode client, as its words (each line
    /// of [`World::tmux_control_log`], unquoted as tmux's parser reads it).
    pub fn tmux_control_commands(&self) -> Vec<Vec<String>> {
        let text = std::fs::read_to_string(self.tmux_control_log()).unwrap_or_default();
        text.lines().map(tmux_words).collect()
    }

    pub fn tmux_invocations(&self) -> Vec<Vec<String>> {
        let text = std::fs::read(self.tmux_argv_log()).unwrap_or_default();
        text.split(|b| *b == 0x1e)
            .map(|rec| rec.strip_prefix(b"\n").unwrap_or(rec))
            .filter(|rec| !rec.is_empty())
            .map(|rec| {
                let words: Vec<String> = rec
                    .split(|b| *b == 0x1f)
                    .filter(|a| !a.is_empty())
                    .map(|a| String::from_utf8_lossy(a).into_owned())
                    .collect();
                // The server every call names (`-S SOCKET`) is not the call.
                match words.first().map(String::as_str) {
                    Some("-S") => words.into_iter().skip(2).collect(),
                    _ => words,
                }
            })
            .collect()
    }

    /// [`World::tmux_invocations`] but the plan's one batch of screen looks
    /// (`capture-pane`, [`the_loop::plan`]'s look at what each session a
    /// roll would take shows): the calls that read the fleet's state, whose
    /// count the tests hold constant. More than one batch of looks fails.
    pub fn tmux_reading_calls(&self) -> Vec<Vec<String>> {
        let (looks, reads): (Vec<_>, Vec<_>) = self
            .tmux_invocations()
            .into_iter()
            .partition(|call| call.first().is_some_and(|w| w == "capture-pane"));
        assert!(
            looks.len() <= 1,
            "one batch of screen looks at most: {looks:?}"
        );
        reads
    }

    /// The pid of this world's tmux server, if one runs.
    pub fn server_pid(&self) -> Option<i32> {
        let out = self.tmux(&["display-message", "-p", "#{pid}"]);
        String::from_utf8_lossy(&out.stdout).trim().parse().ok()
    }

    /// Runs tmux commands from a file (`source-file`), so values set in
    /// tmux's environments never pass through an argv.
    pub fn source_tmux(&self, commands: &str) {
        let file = self.root().join(format!(
            "commands-{}.tmux",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        std::fs::write(&file, commands).unwrap();
        self.tmux_ok(&["source-file", file.to_str().unwrap()]);
        std::fs::remove_file(file).unwrap();
    }

    /// Every pane's pid on this world's server.
    pub fn all_pane_pids(&self) -> Vec<i32> {
        let out = self.tmux(&["list-panes", "-a", "-F", "#{pane_pid}"]);
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    }
}

/// A value as a double-quoted string in a tmux `source-file` script:
/// `"`, `\`, `$`, `#` and `~` escaped, a newline written `\n`.
pub fn tmux_quote(value: &str) -> String {
    let mut out = String::from("\"");
    for c in value.chars() {
        match c {
            '"' | '\\' | '$' | '#' | '~' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A tmux socket that accepts connections and never answers, where tmux
/// looks for its server under `tmux_tmpdir`. Dropping it removes the socket
/// (so the world's own clean-up does not wait on it).
pub struct HungSocket {
    path: PathBuf,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl HungSocket {
    pub fn bind(tmux_tmpdir: &Path) -> HungSocket {
        let dir = tmux_tmpdir.join(format!("tmux-{}", nix::unistd::getuid().as_raw()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        let path = dir.join("default");
        let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        listener.set_nonblocking(true).unwrap();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut held = Vec::new();
            while !flag.load(std::sync::atomic::Ordering::SeqCst) {
                if let Ok((stream, _)) = listener.accept() {
                    held.push(stream);
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        });
        HungSocket {
            path,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for HungSocket {
    fn drop(&mut self) {
        // Before the world's own clean-up asks this "server" to exit.
        let _ = std::fs::remove_file(&self.path);
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The words of one tmux command line as the-loop quotes them: `'…'`
/// literally, `"…"` with `\\`, `\"` and `\$` escaped, anything else up to a space.
pub fn tmux_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut chars = line.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c == ' ' {
            chars.next();
            continue;
        }
        let mut word = String::new();
        match c {
            '\'' => {
                chars.next();
                word.extend(chars.by_ref().take_while(|&c| c != '\''));
            }
            '"' => {
                chars.next();
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        c => word.push(c),
                    }
                }
            }
            _ => {
                while let Some(&c) = chars.peek() {
                    if c == ' ' {
                        break;
                    }
                    word.push(c);
                    chars.next();
                }
            }
        }
        words.push(word);
    }
    words
}

impl World {
    /// The tmux server's pid.
    pub fn tmux_server_pid(&self) -> i32 {
        self.tmux_ok(&["display-message", "-p", "#{pid}"])
            .trim()
            .parse()
            .unwrap()
    }

    /// Every tmux session name on this world's server.
    pub fn tmux_sessions(&self) -> Vec<String> {
        stdout(&self.tmux(&["list-sessions", "-F", "#{session_name}"]))
            .lines()
            .map(String::from)
            .collect()
    }
}
