//! The integration tests, in one binary so the shared support (a private
//! tmux world per test, the stand-in harness) is compiled and linked once
//! rather than once per file. Each former `tests/<name>.rs` is a module here;
//! `cargo test --locked` still runs them all, and `cargo test --test it
//! <module>::` runs one file's tests.

// The tests that load the whole machine run in `tests/heavy/`, alone.
mod support;

mod activity_hooks;
mod announce;
mod api_key_helper;
mod apply;
mod apply_batch;
mod apply_lock;
mod apply_pipeline;
mod argv_audit;
mod blind;
mod canary_sweep;
mod closed_output;
mod completion;
mod config;
mod config_deprecation;
mod deliver_ready;
mod docs_examples;
mod envfile;
mod events_schema;
mod extreme_values;
mod faults;
mod fingerprint_modes;
mod fingerprints;
mod fleet_ansible;
mod history;
mod hostile_files;
mod identity;
mod journal;
mod launch_args;
mod layers;
mod lifecycle;
mod list_attach;
mod metrics;
mod metrics_attack;
mod operator_cli;
mod ownership;
mod packaging;
mod panes;
mod plain_errors;
mod plan_core;
mod plan_story;
mod preflight;
mod prepare;
mod prespawn;
mod read_ahead;
mod registry;
mod release;
mod remain_on_exit;
mod residue;
mod rewrites;
mod safe_points;
mod safe_points_screen;
mod schemas;
mod session_loop;
mod sessions;
mod stand_in;
mod start_faults;
mod systemd;
mod terraform_habits;
mod texts;
mod tmux_call_count;
mod tmux_compat;
mod top;
mod top_calls;
mod top_keys;
mod typed_text;
mod unmanaged;
mod unmanaged_word;
mod watch;
mod watch_held;
mod web_terminal;
