//! The deprecated `routing.runner` key is warned about through tracing.
//!
//! Alone in its own test binary: tracing caches each log site's interest
//! process-wide, and a test thread without a subscriber running the same
//! site at the same moment can make a thread-local subscriber miss it.

#[test]
fn the_deprecated_runner_key_is_warned_about() {
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
