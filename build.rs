//! Build facts for `the-loop --version`, `the-loop version` and watch's
//! `the_loop_build_info`: the git commit and the build date, read here
//! because neither is known to the compiler. A tree without git (a crate
//! downloaded from a registry, a tarball) says `unknown` rather than failing
//! the build.

#![allow(
    clippy::print_stdout,
    reason = "Cargo reads a build script's instructions from its stdout"
)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    // Only this package's own checkout: a crate unpacked from a registry
    // may sit inside someone's dotfiles repository, whose commit is not ours.
    let checkout = Path::new(".git").exists();
    let commit = checkout
        .then(|| git(&["rev-parse", "--short", "HEAD"]))
        .flatten()
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=THE_LOOP_COMMIT={commit}");
    println!("cargo:rustc-env=THE_LOOP_BUILD_DATE={}", build_date());
    // Without any rerun-if line Cargo reruns this script whenever any file
    // of the package changes; with these it reruns only when the commit can
    // have moved or the date was pinned differently.
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=SOURCE_DATE_EPOCH");
    for path in checkout.then(commit_files).unwrap_or_default() {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}

/// A git command's trimmed output, when git is there and succeeds.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (out.status.success() && !text.is_empty()).then(|| text.to_owned())
}

/// The files whose change moves HEAD's commit: HEAD itself (a checkout),
/// the branch's loose ref (a commit), and `packed-refs` (where a branch
/// lives after `git gc`). Asked of git with `--git-path`, which in a linked
/// worktree (`.git` is a file there) names the worktree's own HEAD and the
/// shared refs. Only files that exist are named: Cargo takes a missing one
/// as changed on every build. A branch not yet written as a loose file has
/// its directory watched, where its first commit will write it.
fn commit_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut watch = |relative: &str| {
        let Some(path) = git(&["rev-parse", "--git-path", relative]) else {
            return false;
        };
        let path = PathBuf::from(path);
        let exists = path.exists();
        if exists {
            files.push(path);
        }
        exists
    };
    watch("HEAD");
    watch("packed-refs");
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        if !watch(&branch) {
            let parent = Path::new(&branch).parent().map(Path::to_path_buf);
            if let Some(parent) = parent {
                watch(&parent.to_string_lossy());
            }
        }
    }
    files
}

/// `YYYY-MM-DD` in UTC: from `SOURCE_DATE_EPOCH` when set (reproducible
/// builds, and Debian's own), else today. A day, not a time: this script
/// reruns only when the commit moves, so a finer stamp would claim a
/// precision it does not have.
fn build_date() -> String {
    let secs = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0)
        });
    let (y, m, d) = civil_from_days(secs / 86_400);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's
/// algorithm, as `src/clock.rs` uses; a build script cannot import it).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + u64::from(m <= 2);
    (y, m, d)
}
