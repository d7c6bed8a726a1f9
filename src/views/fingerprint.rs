//! `fingerprint` as text, or as its JSON report
//! (`schemas/fingerprint.schema.json`).

use super::{print_json, Format};
use crate::ops::fingerprint::{EnvFileValue, FingerprintReport};
use crate::secret::fingerprint::WITHHELD_NOTE;
use crate::secret::{FingerprintMode, Shown};

pub fn show(report: &FingerprintReport, format: Format) {
    match format {
        Format::Json => print_json(report),
        Format::Text => crate::out!("{}", render(report)),
    }
}

/// The fingerprint as the plan shows it, how it was made, and how the
/// value compares with the env file's.
pub fn render(report: &FingerprintReport) -> String {
    let name = &report.name;
    let shown = match report.fingerprint {
        Shown::Fingerprint(fp) => fp.to_string(),
        Shown::Withheld => format!("withheld {WITHHELD_NOTE}"),
    };
    let how = match (report.fingerprints.mode, report.fingerprints.key_id) {
        (FingerprintMode::Sha256, _) if report.fingerprint.is_withheld() => {
            "env.fingerprint: sha256; plans, reports and events show this value as `withheld`"
                .to_owned()
        }
        (FingerprintMode::Sha256, _) => {
            "env.fingerprint: sha256, the first 8 hex digits of `printf %s \"$V\" | sha256sum`"
                .to_owned()
        }
        (FingerprintMode::Keyed, Some(id)) => format!(
            "env.fingerprint: keyed, HMAC-SHA-256 under key {id} (<state root>/fingerprint.key)"
        ),
        (FingerprintMode::Keyed, None) => "env.fingerprint: keyed".to_owned(),
    };
    let file = match report.env_file_value {
        None => "no env file is configured".to_owned(),
        Some(EnvFileValue::Same) => format!("the env file's current value of {name}: this one"),
        Some(EnvFileValue::Different) => {
            format!("the env file's current value of {name}: another one")
        }
        Some(EnvFileValue::Undeclared) => format!("the env file does not declare {name}"),
    };
    format!("{name}  {shown}\n  {how}\n  {file}\n")
}
