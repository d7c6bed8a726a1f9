//! The tests that load the whole machine, in a binary of their own, one at
//! a time: 200 sessions in one roll, and the real Claude Code and Codex
//! CLIs (each start of which costs a core for a second or more). `cargo
//! test` runs one test binary after another, so these never run beside the
//! `it` binary's tests, whose timing (a grace period, a drain's two looks,
//! a hook's time against a signal's) a loaded machine can upset: on a
//! two-core CI machine a real CLI's start beside a stand-in's SIGTERM once
//! outlasted a 30 s grace, and a 200-session roll beside other tests
//! failed a plan. The files stay under `tests/it/`, beside the support
//! they share.

// Its own `dead_code` allowance covers what only the `it` binary uses.
#[path = "../it/support/mod.rs"]
mod support;

#[path = "../it/load.rs"]
mod load;
#[path = "../it/real_claude.rs"]
mod real_claude;
#[path = "../it/real_claude_background/mod.rs"]
mod real_claude_background;
#[path = "../it/real_claude_fresh.rs"]
mod real_claude_fresh;
#[path = "../it/real_claude_import.rs"]
mod real_claude_import;
#[path = "../it/real_claude_person.rs"]
mod real_claude_person;
#[path = "../it/real_claude_person_watch.rs"]
mod real_claude_person_watch;
#[path = "../it/real_claude_rename.rs"]
mod real_claude_rename;
#[path = "../it/real_claude_server.rs"]
mod real_claude_server;
#[path = "../it/real_claude_turns.rs"]
mod real_claude_turns;
#[path = "../it/real_codex.rs"]
mod real_codex;
#[path = "../it/real_codex_draft.rs"]
mod real_codex_draft;
#[path = "../it/real_codex_turns.rs"]
mod real_codex_turns;
