//! The deprecated `routing.runner` key is warned about through tracing.
//!
//! The capture runs in a child process of this test binary that runs only
//! this test: tracing caches each log site's interest process-wide, and a
//! test thread without a subscriber running the same site at the same moment
//! can make a thread-local subscriber miss it. It was once a test binary of
//! its own for that reason; the child keeps it alone now that every
//! integration test shares one binary.

use std::process::Command;

/// Set in the child: it does the capture instead of spawning again.
const IN_CHILD: &str = "THE_LOOP_TEST_TRACING_CHILD";

#[test]
fn the_deprecated_runner_key_is_warned_about() {
    if std::env::var_os(IN_CHILD).is_some() {
        capture_the_warning();
        return;
    }
    // libtest names a test by its path without the crate: `it::a::b` → `a::b`.
    let module = module_path!()
        .split_once("::")
        .map_or(module_path!(), |(_, rest)| rest);
    let name = format!("{module}::the_deprecated_runner_key_is_warned_about");
    let out = Command::new(std::env::current_exe().unwrap())
        .args([name.as_str(), "--exact", "--test-threads=1", "--nocapture"])
        .env(IN_CHILD, "1")
        .output()
        .expect("the test binary runs again");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    // The child ran the test (an exact filter that matched nothing would
    // also exit 0).
    assert!(stdout.contains("1 passed"), "{stdout}\n{stderr}");
}

fn capture_the_warning() {
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cli-config.yaml");
    std::fs::write(&path, "routing:\n  runner: process\n").unwrap();
    tracing::subscriber::with_default(subscriber, || {
        the_loop::desired::config::load(&path).unwrap();
    });
    let logged = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(logged.contains("WARN"), "{logged}");
    assert!(logged.contains("routing.runner is deprecated"), "{logged}");
}
