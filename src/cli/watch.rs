//! `the-loop watch`

use crate::apply::fleet::DEFAULT_PARALLELISM;
use crate::watch::{run as run_watch, WatchOptions};
use clap::Args;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Debug, Args)]
pub struct WatchArgs {
    /// Re-plan every SECONDS even when no file changed, to catch sessions
    /// started by other means. From 1 to 86400 (a day).
    #[arg(long, default_value_t = 60, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub interval: u64,
    /// Roll drifted sessions (as `apply --auto-approve` would). Without it,
    /// drift is reported only, unless the config sets env.autoApply: true.
    #[arg(long)]
    pub apply: bool,
    /// How long the files must be quiet before a burst of writes counts as
    /// one change (an editor's save is several events). From 0 to 600000
    /// (ten minutes).
    #[arg(long, default_value_t = 500, value_name = "MS", value_parser = clap::value_parser!(u64).range(0..=600_000))]
    pub debounce_ms: u64,
    /// How many sessions to respawn at once after the canary. From 1 to 65535.
    #[arg(long, default_value_t = DEFAULT_PARALLELISM, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub parallelism: u16,
    /// Serve Prometheus metrics at http://ADDR/metrics (for example
    /// 127.0.0.1:9464): sessions by probe state, drifted sessions, and roll
    /// outcomes, updated on every re-plan and roll. Port 0 picks a free port.
    #[arg(long, value_name = "ADDR")]
    pub metrics_listen: Option<std::net::SocketAddr>,
}

pub fn run(config: Option<&Path>, args: WatchArgs) -> miette::Result<ExitCode> {
    run_watch(WatchOptions {
        config: config.map(Path::to_path_buf),
        interval: Duration::from_secs(args.interval),
        debounce: Duration::from_millis(args.debounce_ms),
        apply: args.apply,
        parallelism: args.parallelism.into(),
        metrics_listen: args.metrics_listen,
    })
}
