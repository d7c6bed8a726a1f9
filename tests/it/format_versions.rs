//! Every `--json` document a script reads starts with `format_version`
//! (docs/contracts.md): here the ones that lacked it (issue 47), `standing
//! list` and `sessions pause`/`resume`; `import`'s is checked where a
//! session is imported (`uninstall.rs`).

use crate::support::*;

#[test]
fn standing_list_pause_and_resume_name_their_format_version() {
    let w = World::new();
    w.write_env("A=1\n");
    let cwd = w.work.to_str().unwrap();
    ok(w.the_loop(&["standing", "create", "triage", "--cwd", cwd]));
    let s = w.legacy_session("github:octo/repo#15", "github-octo-repo-15");
    for args in [
        vec!["standing", "list", "--json"],
        vec!["sessions", "pause", &s.reference, "--json"],
        vec!["sessions", "resume", &s.reference, "--json"],
    ] {
        let doc = json(&ok(w.the_loop(&args)));
        assert_eq!(doc["format_version"], "1", "{args:?}: {doc}");
    }
}
