//! Delivering a message to a session and reading back what came of it, as
//! the delivery tests do (`tests/it/lifecycle/`,
//! `tests/it/delivery_faults.rs`): one way to call `sessions deliver`, and
//! one way to read the paste and the ids the record keeps, so the tests
//! agree on what a delivery looks like.

use super::World;
use std::process::Output;

/// Bracketed paste's opening and closing marks, as the stand-in reads them.
pub const ESC_OPEN: &str = "\u{1b}[200~";
pub const ESC_CLOSE: &str = "\u{1b}[201~";

/// `sessions deliver <reference> --message <message> --delivery-id <id>
/// --json`.
pub fn deliver(w: &World, reference: &str, message: &str, id: &str) -> Output {
    w.the_loop(&[
        "sessions",
        "deliver",
        reference,
        "--message",
        message,
        "--delivery-id",
        id,
        "--json",
    ])
}

/// A bracketed paste of `message` as the stand-in reads it (one line).
pub fn pasted(message: &str) -> String {
    format!("{ESC_OPEN}{message}{ESC_CLOSE}")
}

/// The delivery ids the record of `slug` keeps (`recentDeliveries`).
pub fn deliveries(w: &World, slug: &str) -> Vec<String> {
    w.record(slug).unwrap()["recentDeliveries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}
