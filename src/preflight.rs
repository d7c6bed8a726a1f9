//! Native dependencies, checked before a command needs them: tmux (3.0 or
//! newer) for everything that touches sessions, and ttyd for the web
//! terminal. Silent when satisfied; otherwise an error that says what is
//! missing and how to install it on this platform.

use std::process::{Command, Stdio};

/// The oldest tmux the-loop runs on.
pub const MIN_TMUX: (u32, u32) = (3, 0);
/// `new-session -e`, which passes `env.sessionPassthrough` names, arrived in 3.2.
pub const MIN_TMUX_FOR_PASSTHROUGH: (u32, u32) = (3, 2);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Platform {
    /// Debian, Ubuntu and their derivatives (apt).
    Debian,
    /// Fedora, RHEL and their derivatives (dnf).
    Fedora,
    MacOs,
    Other,
}

impl Platform {
    /// From `/etc/os-release` (its `ID` and `ID_LIKE`), or macOS.
    pub fn from_os_release(os_release: Option<&str>, macos: bool) -> Platform {
        if macos {
            return Platform::MacOs;
        }
        let ids: Vec<String> = os_release
            .unwrap_or_default()
            .lines()
            .filter_map(|line| {
                let (key, value) = line.split_once('=')?;
                matches!(key.trim(), "ID" | "ID_LIKE")
                    .then(|| value.trim().trim_matches('"').to_ascii_lowercase())
            })
            .flat_map(|v| v.split_whitespace().map(String::from).collect::<Vec<_>>())
            .collect();
        let has = |names: &[&str]| ids.iter().any(|id| names.contains(&id.as_str()));
        if has(&["debian", "ubuntu"]) {
            Platform::Debian
        } else if has(&["fedora", "rhel", "centos"]) {
            Platform::Fedora
        } else {
            Platform::Other
        }
    }

    pub fn detect() -> Platform {
        let os_release = crate::bounded_read::read_string(
            std::path::Path::new("/etc/os-release"),
            &crate::bounded_read::SYSTEM_FILE,
        )
        .ok();
        Platform::from_os_release(os_release.as_deref(), cfg!(target_os = "macos"))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    Tmux,
    Ttyd,
}

/// How to install `tool`, for this platform first and then the others.
pub fn install_help(tool: Tool, platform: Platform) -> String {
    let lines: [(Platform, &str); 3] = match tool {
        Tool::Tmux => [
            (Platform::Debian, "Debian/Ubuntu: sudo apt-get install tmux"),
            (Platform::Fedora, "Fedora: sudo dnf install tmux"),
            (Platform::MacOs, "macOS: brew install tmux"),
        ],
        Tool::Ttyd => [
            (
                Platform::Debian,
                "Debian/Ubuntu: sudo apt-get install ttyd, where the release packages it \
                 (`apt-cache policy ttyd`); otherwise put the static binary from the ttyd \
                 project's GitHub releases (ttyd.x86_64 or ttyd.aarch64) on PATH as `ttyd`",
            ),
            (Platform::Fedora, "Fedora: sudo dnf install ttyd"),
            (Platform::MacOs, "macOS: brew install ttyd"),
        ],
    };
    let (here, elsewhere): (Vec<_>, Vec<_>) = lines.iter().partition(|(p, _)| *p == platform);
    here.iter()
        .chain(&elsewhere)
        .map(|(_, line)| *line)
        .collect::<Vec<_>>()
        .join("\n")
}

/// `tmux -V`'s answer as `(major, minor)`: `tmux 3.3a` and `tmux next-3.4`
/// both read; a build that reports no number (`tmux master`) gives `None`.
pub fn parse_tmux_version(text: &str) -> Option<(u32, u32)> {
    let version = text.trim().strip_prefix("tmux")?.trim();
    let numeric = version.trim_start_matches(|c: char| !c.is_ascii_digit());
    let (major, rest) = numeric.split_once('.')?;
    let minor: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some((major.parse().ok()?, minor.parse().ok()?))
}

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum PreflightError {
    #[error("{tool} is not installed (not found on PATH), and {why}")]
    #[diagnostic(code(the_loop::preflight::missing), help("install it:\n{help}"))]
    Missing {
        tool: &'static str,
        why: &'static str,
        help: String,
    },
    #[error("tmux {found} is too old: {why}")]
    #[diagnostic(code(the_loop::preflight::tmux_too_old), help("upgrade tmux:\n{help}"))]
    TooOld {
        found: String,
        why: String,
        help: String,
    },
    #[error("{tool} could not be run: {reason}")]
    #[diagnostic(
        code(the_loop::preflight::unusable),
        help("check that `{tool}` on PATH is executable, or reinstall it:\n{help}")
    )]
    Unusable {
        tool: &'static str,
        reason: String,
        help: String,
    },
}

/// What the tmux check found, for anyone who wants to report it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TmuxFound {
    pub version: String,
    /// Whether `new-session -e` is accepted (tmux 3.2 or newer).
    pub passthrough: bool,
}

/// Decides on a `tmux -V` answer. Pure, so every rule has a test.
pub fn judge_tmux(version_output: &str, platform: Platform) -> Result<TmuxFound, PreflightError> {
    let found = version_output
        .trim()
        .trim_start_matches("tmux")
        .trim()
        .to_owned();
    let too_old = |why: String| PreflightError::TooOld {
        found: found.clone(),
        why,
        help: install_help(Tool::Tmux, platform),
    };
    match parse_tmux_version(version_output) {
        // A development build without a number is newer than any release.
        None => Ok(TmuxFound {
            version: found.clone(),
            passthrough: true,
        }),
        Some(v) if v < MIN_TMUX => Err(too_old(format!(
            "the-loop needs tmux {}.{} or newer: its respawn-in-place and liveness \
             probes are built on tmux 3's window options and formats, and older servers \
             are not supported",
            MIN_TMUX.0, MIN_TMUX.1
        ))),
        // Too old for `new-session -e` is not an error (R4.3): a spawn goes
        // on without the passthrough names, with one warning.
        Some(v) => Ok(TmuxFound {
            version: found.clone(),
            passthrough: v >= MIN_TMUX_FOR_PASSTHROUGH,
        }),
    }
}

fn version_output(program: &str, flag: &str) -> Result<String, std::io::Error> {
    let out = Command::new(program)
        .arg(flag)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()?;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// tmux is installed and new enough. Silent when it is.
pub fn require_tmux() -> Result<TmuxFound, PreflightError> {
    let platform = Platform::detect();
    match version_output("tmux", "-V") {
        Ok(text) => judge_tmux(&text, platform),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(PreflightError::Missing {
            tool: "tmux",
            why: "the-loop hosts every session in tmux",
            help: install_help(Tool::Tmux, platform),
        }),
        Err(e) => Err(PreflightError::Unusable {
            tool: "tmux",
            reason: crate::fsutil::IoKind(e.kind()).to_string(),
            help: install_help(Tool::Tmux, platform),
        }),
    }
}

/// [`require_tmux`] on the version a running server already reported
/// (`#{version}`, as `3.3a`), so that no `tmux -V` of its own is run; with
/// none reported (no server, or tmux missing or not answering), `tmux -V`'s.
pub fn require_tmux_reported(reported: Option<&str>) -> Result<TmuxFound, PreflightError> {
    match reported {
        Some(version) => judge_tmux(&format!("tmux {version}"), Platform::detect()),
        None => require_tmux(),
    }
}

/// ttyd is installed (for the web terminal). Silent when it is.
pub fn require_ttyd() -> Result<(), PreflightError> {
    let platform = Platform::detect();
    match version_output("ttyd", "--version") {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(PreflightError::Missing {
            tool: "ttyd",
            why: "routing.webTerminal serves the terminal through it",
            help: install_help(Tool::Ttyd, platform),
        }),
        Err(e) => Err(PreflightError::Unusable {
            tool: "ttyd",
            reason: crate::fsutil::IoKind(e.kind()).to_string(),
            help: install_help(Tool::Ttyd, platform),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_as_tmux_prints_them() {
        assert_eq!(parse_tmux_version("tmux 3.3a\n"), Some((3, 3)));
        assert_eq!(parse_tmux_version("tmux 3.0"), Some((3, 0)));
        assert_eq!(parse_tmux_version("tmux 2.9a"), Some((2, 9)));
        assert_eq!(parse_tmux_version("tmux next-3.5"), Some((3, 5)));
        assert_eq!(parse_tmux_version("tmux openbsd-7.4"), Some((7, 4)));
        assert_eq!(parse_tmux_version("tmux master"), None);
        assert_eq!(parse_tmux_version("screen 4.0"), None);
    }

    #[test]
    fn judgements() {
        let cases = [
            "tmux 3.3a",
            "tmux 3.0",
            "tmux 2.9a",
            "tmux 1.8",
            "tmux 3.1c",
            "tmux 3.2",
            "tmux master",
        ];
        let judged: Vec<String> = cases
            .iter()
            .map(|v| {
                let verdict = match judge_tmux(v, Platform::Debian) {
                    Ok(found) => format!(
                        "ok ({}, new-session -e: {})",
                        found.version, found.passthrough
                    ),
                    Err(e) => e.to_string(),
                };
                format!("{v} => {verdict}")
            })
            .collect();
        insta::assert_debug_snapshot!(judged);
    }

    #[test]
    fn platforms_from_os_release() {
        let read = |text: &str| Platform::from_os_release(Some(text), false);
        assert_eq!(read("ID=debian\nVERSION_ID=\"12\""), Platform::Debian);
        assert_eq!(read("ID=ubuntu\nID_LIKE=debian"), Platform::Debian);
        assert_eq!(
            read("ID=linuxmint\nID_LIKE=\"ubuntu debian\""),
            Platform::Debian
        );
        assert_eq!(read("ID=fedora"), Platform::Fedora);
        assert_eq!(
            read("ID=\"rocky\"\nID_LIKE=\"rhel centos fedora\""),
            Platform::Fedora
        );
        assert_eq!(read("ID=arch"), Platform::Other);
        assert_eq!(Platform::from_os_release(None, true), Platform::MacOs);
        assert_eq!(Platform::from_os_release(None, false), Platform::Other);
    }

    #[test]
    fn guidance_leads_with_this_platform() {
        let all: Vec<String> = [Tool::Tmux, Tool::Ttyd]
            .iter()
            .flat_map(|t| {
                [
                    Platform::Debian,
                    Platform::Fedora,
                    Platform::MacOs,
                    Platform::Other,
                ]
                .map(|p| format!("{t:?} on {p:?}:\n{}", install_help(*t, p)))
            })
            .collect();
        insta::assert_snapshot!(all.join("\n\n"));
    }
}
