//! `the-loop watch`

use crate::apply::fleet::DEFAULT_PARALLELISM;
use crate::watch::{run as run_watch, WatchOptions};
use clap::Args;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
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
    /// Serve Prometheus metrics at http://ADDR/metrics: sessions by probe
    /// state, drifted sessions, and roll outcomes, updated on every re-plan
    /// and roll. ADDR is localhost:PORT, IPV4:PORT or [IPV6]:PORT, for
    /// example 127.0.0.1:9464; port 0 picks a free port. The port has no
    /// authentication: an address other than loopback (0.0.0.0, [::], an
    /// interface's own) is served with a warning, and anyone who can reach it
    /// can read the counts.
    #[arg(long, value_name = "ADDR", value_parser = listen_addr)]
    pub metrics_listen: Option<SocketAddr>,
    /// Bring back active sessions whose tmux session is gone (after a
    /// tmux server restart or a reboot), as `sessions start --all` does:
    /// each in its directory, resuming its conversation, verified. Off by
    /// default: a session a person ended by hand would come back too.
    #[arg(long)]
    pub start_down: bool,
}

pub fn run(config: Option<&Path>, args: WatchArgs) -> miette::Result<ExitCode> {
    run_watch(WatchOptions {
        config: config.map(Path::to_path_buf),
        interval: Duration::from_secs(args.interval),
        debounce: Duration::from_millis(args.debounce_ms),
        apply: args.apply,
        parallelism: args.parallelism.into(),
        metrics_listen: args.metrics_listen,
        start_down: args.start_down,
    })
}

/// `--metrics-listen`: `localhost:PORT` (loopback, without asking a
/// resolver), an IPv4 literal and a port, or `[IPv6]:PORT`. Host names are
/// refused: a name that resolves elsewhere would open the port elsewhere.
fn listen_addr(value: &str) -> Result<SocketAddr, String> {
    const FORMS: &str = "expected localhost:PORT, IPV4:PORT or [IPV6]:PORT, \
                         for example 127.0.0.1:9464";
    let Some((host, port)) = value.rsplit_once(':') else {
        return Err(format!("no port; {FORMS}"));
    };
    let port: u16 = port
        .parse()
        .map_err(|_| format!("the port {port:?} is not a number from 0 to 65535"))?;
    let ip = if host.eq_ignore_ascii_case("localhost") {
        IpAddr::V4(Ipv4Addr::LOCALHOST)
    } else if let Some(v6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        IpAddr::V6(
            v6.parse()
                .map_err(|_| format!("{v6:?} is not an IPv6 address; {FORMS}"))?,
        )
    } else {
        IpAddr::V4(
            host.parse()
                .map_err(|_| format!("{host:?} is not an IPv4 address or localhost; {FORMS}"))?,
        )
    };
    Ok(SocketAddr::new(ip, port))
}

#[cfg(test)]
mod tests {
    use super::listen_addr;

    #[test]
    fn metrics_listen_takes_localhost_and_ip_literals_with_a_port() {
        for (value, want) in [
            ("localhost:9464", "127.0.0.1:9464"),
            ("LOCALHOST:0", "127.0.0.1:0"),
            ("127.0.0.1:65535", "127.0.0.1:65535"),
            ("0.0.0.0:9464", "0.0.0.0:9464"),
            ("[::1]:9464", "[::1]:9464"),
            ("[::]:1", "[::]:1"),
        ] {
            assert_eq!(listen_addr(value).unwrap().to_string(), want, "{value}");
        }
        for bad in [
            "localhost",
            "127.0.0.1",
            "example.com:9464",
            "127.0.0.1:65536",
            "127.0.0.1:-1",
            "::1:9464",
            "[::1]",
            "[localhost]:1",
            ":9464",
            "127.0.0.1: 9464",
            "",
        ] {
            let err = listen_addr(bad).unwrap_err();
            assert!(
                err.contains("port") || err.contains("address"),
                "{bad}: {err}"
            );
        }
    }
}
