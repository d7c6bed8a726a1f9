//! `the-loop version` as text, or as its JSON document
//! (`schemas/version.schema.json`).

use super::{print_json, Format};
use crate::build_info::BuildInfo;

pub fn show(info: &BuildInfo, format: Format) {
    match format {
        Format::Json => print_json(info),
        Format::Text => crate::out!("{}", render(info)),
    }
}

/// One fact a line, labelled, so a bug report can paste it whole.
pub fn render(info: &BuildInfo) -> String {
    format!(
        "the-loop    {}\ncommit      {}\nbuild date  {}\n",
        info.version, info.commit, info.build_date
    )
}
