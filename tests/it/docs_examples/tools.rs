//! The scenes of `docs/fleet.md`, whose blocks run other programs than
//! the-loop: a real `ansible-playbook` over two inventory hosts, and `curl`
//! of a real Prometheus scraping two watches. Both are built by the code of
//! the tests that check these tools ([`crate::fleet_ansible`],
//! [`crate::metrics`]); when a tool is missing the scene's blocks are
//! skipped as those tests skip (loudly, or failing under
//! THE_LOOP_REQUIRE_TOOLS).

use crate::fleet_ansible::{self, Host};
use crate::metrics::{self, Background};
use crate::support::*;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What a tool scene runs its blocks with.
pub enum Tools {
    /// The tool is not installed: the scene's blocks are skipped.
    Missing,
    /// `fleet`: ansible-playbook, and the two inventory hosts of
    /// `tests/it/fleet_ansible/` (`agents-1` with two sessions, `agents-2`
    /// with one), their fleets born on the retired token, the env file
    /// rotated on both.
    Fleet {
        bin: PathBuf,
        _hosts: Vec<Host>,
        scratch: tempfile::TempDir,
        inventory: PathBuf,
    },
    /// `prometheus`: two hosts (two sessions each) whose watches report
    /// only, scraped every second by a Prometheus that evaluates the
    /// example rules; the env file rotated on both, and the drift alert of
    /// both hosts pending.
    Prometheus {
        _prometheus: Background,
        at: SocketAddr,
        _hosts: Vec<(World, Background)>,
    },
}

/// The playbook command every ansible block runs, then its own flags:
/// `inventory.yml` is the scene's inventory, and `plans` a directory of
/// its own.
pub const PLAYBOOK: &str =
    "ansible-playbook -i inventory.yml fleet.yml -e the_loop_plans_dir=plans";

/// The Prometheus the pages' `curl` lines name, as a default install
/// listens; a line is pointed at the scene's Prometheus instead.
pub const PROMETHEUS: &str = "localhost:9090";

/// The scene `name`, if it is a tool's.
pub fn build(name: &str) -> Option<Tools> {
    let test = format!("docs_examples ({name} scene of docs/fleet.md)");
    match name {
        "fleet" => Some(fleet(&test)),
        "prometheus" => Some(prometheus(&test)),
        _ => None,
    }
}

fn fleet(test: &str) -> Tools {
    let Some(bin) = fleet_ansible::ansible_playbook(test) else {
        return Tools::Missing;
    };
    let hosts = vec![
        fleet_ansible::host("agents-1", 2),
        fleet_ansible::host("agents-2", 1),
    ];
    let scratch = tempfile::tempdir().unwrap();
    let inventory = fleet_ansible::inventory(&hosts.iter().collect::<Vec<_>>(), scratch.path());
    Tools::Fleet {
        bin,
        _hosts: hosts,
        scratch,
        inventory,
    }
}

fn prometheus(test: &str) -> Tools {
    let Some(bin) = metrics::tool("prometheus", test) else {
        return Tools::Missing;
    };
    let mut targets = Vec::new();
    let hosts: Vec<(World, Background)> = (0..2)
        .map(|_| {
            let w = World::new();
            metrics::clean_fleet(&w);
            // Reports only, so the drift stays for Prometheus to see.
            let (watch, address) =
                metrics::start_watch(&w, &["--interval", "3600", "--debounce-ms", "200"]);
            watch.wait_for_log("no drift: 2 running session(s)", Duration::from_secs(10));
            targets.push(address);
            (w, watch)
        })
        .collect();
    let rules =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/prometheus/the-loop.rules.yml");
    let (prometheus, at) =
        metrics::start_prometheus(&bin, hosts[0].0.root().as_path(), &targets, Some(&rules));
    let count = |expr: &str, want: &str| metrics::wait_for_query(&prometheus, at, expr, want);
    count("count(up{job=\"the-loop\"} == 1)", "2");
    count("count(the_loop_sessions_drifted == 0)", "2");
    for (w, watch) in &hosts {
        metrics::rotate(w);
        watch.wait_for_log("env drift:", Duration::from_secs(10));
    }
    count(
        "count(ALERTS{alertname=\"TheLoopDriftUnrolled\",alertstate=\"pending\"})",
        "2",
    );
    Tools::Prometheus {
        _prometheus: prometheus,
        at,
        _hosts: hosts,
    }
}

/// Runs one ansible block's command line (its words after
/// `ansible-playbook`) with fleet_ansible's [`fleet_ansible::run_playbook`]:
/// what it printed ([`hosts_in_order`]), then `[exit code N]` when it did
/// not exit 0.
pub fn playbook(tools: &Tools, words: &[String]) -> Result<String, String> {
    let Tools::Fleet {
        bin,
        scratch,
        inventory,
        ..
    } = tools
    else {
        return Err("ansible-playbook outside the fleet scene".into());
    };
    let fixed: Vec<&str> = PLAYBOOK.split(' ').skip(1).collect();
    if words.len() < fixed.len() || words[..fixed.len()] != fixed[..] {
        return Err(format!("an ansible block's command starts `{PLAYBOOK}`"));
    }
    let extra: Vec<&str> = words[fixed.len()..].iter().map(String::as_str).collect();
    let out = fleet_ansible::run_playbook(bin, inventory, scratch.path(), &extra);
    let mut text = hosts_in_order(&fleet_ansible::said(&out));
    match out.status.code() {
        Some(0) => {}
        Some(code) => text.push_str(&format!("[exit code {code}]\n")),
        None => text.push_str("[killed by a signal]\n"),
    }
    Ok(text)
}

/// A play's output as the pages show it: each task's one-line host results
/// (`ok: [agents-2]`) in inventory order (the hosts' names sort so), where
/// Ansible prints them in the order the hosts finished; and no spaces at
/// the ends of lines (the YAML callback leaves some after `=>` and in the
/// recap), which a terminal does not show.
fn hosts_in_order(text: &str) -> String {
    let result = regex::Regex::new(r"^(ok|changed|skipping|fatal): \[[^\]]+\]$").unwrap();
    let mut lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    let mut start = 0;
    while start < lines.len() {
        let end = (start..lines.len())
            .find(|&i| !result.is_match(lines[i]))
            .unwrap_or(lines.len());
        lines[start..end].sort_by_key(|l| l.split_once('[').map(|(_, host)| host));
        start = end + 1;
    }
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// The address a `curl` of [`PROMETHEUS`] goes to.
pub fn prometheus_address(tools: Option<&Tools>) -> Option<String> {
    match tools {
        Some(Tools::Prometheus { at, .. }) => Some(at.to_string()),
        _ => None,
    }
}

/// What differs from run to run in a tool's output: the watches' ports
/// (`127.0.0.1:[PORT]`), and the Unix times of Prometheus's samples.
pub fn redact(tools: Option<&Tools>, r: &mut snapbox::Redactions) {
    let regex = |r: &str| regex::Regex::new(r).unwrap();
    if let Some(Tools::Prometheus { .. }) = tools {
        r.insert("[PORT]", regex(r"127\.0\.0\.1:(?<redacted>\d+)"))
            .unwrap();
        r.insert("[EPOCH]", regex(r#""value":\[(?<redacted>\d+(?:\.\d+)?),"#))
            .unwrap();
    }
}
