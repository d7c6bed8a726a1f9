//! Links between the pages, and the files the source's comments cite, must
//! lead somewhere: a moved section or a renamed heading fails here rather
//! than on a reader.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every Markdown file of the repository's own (not `target/`, not the
/// fuzz corpus, not a dependency).
fn markdown_files(dir: &Path, into: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if path.is_dir() {
            if !name.starts_with('.')
                && !["target", "node_modules", "corpus", "artifacts"].contains(&&*name)
            {
                markdown_files(&path, into);
            }
        } else if name.ends_with(".md") {
            into.push(path);
        }
    }
}

/// GitHub's anchor for a heading: lower case, spaces to `-`, everything
/// but letters, digits, `-` and `_` dropped; a repeated one gets `-1`, `-2`.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#').trim();
        let slug: String = title
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_ascii_lowercase()),
                _ => None,
            })
            .collect::<String>()
            .to_lowercase();
        let mut anchor = slug.clone();
        let mut n = 0;
        while seen.contains(&anchor) {
            n += 1;
            anchor = format!("{slug}-{n}");
        }
        seen.insert(anchor);
    }
    seen
}

/// The `](target)` links of a page, outside code blocks and code spans.
fn links(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let outside_code: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = outside_code.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            if let Some(end) = rest.find(')') {
                found.push(rest[..end].to_owned());
                rest = &rest[end..];
            }
        }
    }
    found
}

#[test]
fn every_link_between_the_pages_leads_to_a_file_and_a_heading() {
    let mut pages = Vec::new();
    markdown_files(&root(), &mut pages);
    let mut broken = Vec::new();
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        for link in links(&text) {
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = link.split_once('#').unwrap_or((&link, ""));
            let target = if path.is_empty() {
                page.clone()
            } else {
                page.parent().unwrap().join(path)
            };
            if !target.exists() {
                broken.push(format!("{}: {link}: no such file", page.display()));
                continue;
            }
            if !anchor.is_empty() && target.extension().is_some_and(|e| e == "md") {
                let headings = anchors(&std::fs::read_to_string(&target).unwrap());
                if !headings.contains(anchor) {
                    broken.push(format!("{}: {link}: no such heading", page.display()));
                }
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// Comments in `src/` and `tests/` cite files of this repository only, and
/// the pages they cite exist.
#[test]
fn source_comments_cite_pages_that_are_in_the_repository() {
    let mut problems = Vec::new();
    let doc = regex::Regex::new(r"\b(?:docs/[A-Za-z0-9_/.-]+\.md|SECURITY\.md)").unwrap();
    for dir in ["src", "tests", "examples"] {
        for file in rust_files(&root().join(dir)) {
            let text = std::fs::read_to_string(&file).unwrap();
            if text.contains(concat!("DESIGN", ".md")) {
                problems.push(format!(
                    "{}: cites a design document outside the repository; cite docs/contracts.md",
                    file.display()
                ));
            }
            for cited in doc.find_iter(&text) {
                if !root().join(cited.as_str()).exists() {
                    problems.push(format!(
                        "{}: cites {}, which does not exist",
                        file.display(),
                        cited.as_str()
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}
