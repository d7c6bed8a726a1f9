//! `validate`'s text when everything loaded (an error is the loaders' own
//! diagnostic, printed as every command prints one).

use super::Style;
use crate::ops::validate::ValidateReport;
use std::fmt::Write;

pub fn render(report: &ValidateReport, style: Style) -> String {
    let mut out = format!("{}\n", style.green("The configuration is valid."));
    if let Some(config) = &report.config {
        let _ = writeln!(out, "  config    {}", config.display());
    }
    match (&report.env_file, report.names) {
        (Some(file), Some(names)) => {
            let candidate = if report.candidate {
                ", a candidate"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "  env file  {} ({}{candidate})",
                file.display(),
                super::names_declared(names)
            );
        }
        _ => out.push_str(
            "  env file  none configured: `plan` and `apply` refuse until env.file names one\n",
        ),
    }
    for warning in &report.warnings {
        let _ = writeln!(out, "{} {}", style.yellow("warning:"), warning.message);
        if let Some(help) = &warning.help {
            let _ = writeln!(out, "  help: {help}");
        }
    }
    out
}
