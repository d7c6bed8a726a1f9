//! A real Prometheus for the tests that run one: started on a free port,
//! scraping watches, and asked through its query API.

use super::{try_get, Background};
use crate::support::*;
use std::net::SocketAddr;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// Prometheus's instant query; the single result's value, if any.
fn query(prometheus: SocketAddr, expr: &str) -> Option<String> {
    let encoded: String = expr
        .bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect();
    let (status, _, body) = try_get(prometheus, &format!("/api/v1/query?query={encoded}")).ok()?;
    if !status.contains(" 200 ") {
        return None;
    }
    // The body may be chunked; the JSON object is between the outer braces.
    let json = &body[body.find('{')?..=body.rfind('}')?];
    let answer: serde_json::Value = serde_json::from_str(json).ok()?;
    let result = answer["data"]["result"].as_array()?;
    assert!(result.len() <= 1, "one series expected: {answer}");
    result.first()?["value"][1].as_str().map(str::to_owned)
}

pub(crate) fn wait_for_query(prometheus: &Background, at: SocketAddr, expr: &str, want: &str) {
    let start = Instant::now();
    let mut last = None;
    while start.elapsed() < Duration::from_secs(60) {
        last = query(at, expr);
        if last.as_deref() == Some(want) {
            return;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    panic!(
        "Prometheus never answered {expr} = {want} (last {last:?}); its log:\n{}",
        prometheus.text()
    );
}

/// A real Prometheus under `dir`, scraping `targets` as job `the-loop`
/// every second (evaluating `rules`, when given, as often), on a free port.
pub(crate) fn start_prometheus(
    bin: &Path,
    dir: &Path,
    targets: &[SocketAddr],
    rules: Option<&Path>,
) -> (Background, SocketAddr) {
    let rule_files = rules.map_or(String::new(), |r| {
        format!("rule_files:\n  - {}\n", r.display())
    });
    let targets: Vec<String> = targets.iter().map(|t| format!("'{t}'")).collect();
    let config = dir.join("prometheus.yml");
    std::fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n{rule_files}scrape_configs:\n  - job_name: the-loop\n    static_configs:\n      - targets: [{}]\n",
            targets.join(", ")
        ),
    )
    .unwrap();
    let at: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    let mut command = Command::new(bin);
    command
        .arg(format!("--config.file={}", config.display()))
        .arg(format!(
            "--storage.tsdb.path={}",
            dir.join("tsdb").display()
        ))
        .arg(format!("--web.listen-address={at}"))
        .arg("--log.level=warn")
        .current_dir(dir);
    (Background::start(command, dir.join("prometheus.log")), at)
}
