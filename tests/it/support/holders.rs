//! Which live processes hold a conversation, read from `/proc`: the tests of
//! "one conversation, one harness" count them.

use super::cmdline;

/// The live processes whose argv names conversation `id` (`--resume ID` or
/// `--session-id ID`); with `claude_only`, only those whose argv runs a
/// `claude` binary (the stand-in's subshells share its argv briefly).
pub fn holding(id: &str, claude_only: bool) -> Vec<i32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let argv = cmdline(pid);
        let names = argv
            .windows(2)
            .any(|w| (w[0] == "--resume" || w[0] == "--session-id") && w[1] == id);
        if names && (!claude_only || argv.iter().any(|w| w.ends_with("/claude"))) {
            found.push(pid);
        }
    }
    // A harness's child forked and not yet exec'd (a hook, a tool) shows
    // its parent's argv for a moment: it is that harness, not another.
    let parent = |pid: i32| {
        the_loop::proc_env::ProcStat::read(std::path::Path::new("/proc"), pid).map(|s| s.parent)
    };
    let holders = found.clone();
    found.retain(|pid| parent(*pid).is_none_or(|p| !holders.contains(&p)));
    found
}
