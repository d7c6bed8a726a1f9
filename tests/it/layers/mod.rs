//! The layers point only down, and no two folders import each other.
//!
//! `src/` is read with `syn`, every path a file names (in `use` trees, in
//! code, and `crate::`/`super::` paths inside macro calls) is resolved to
//! the file that defines it (following re-exports, so `crate::apply::Outcome`
//! is the file that declares `Outcome`, not `apply/mod.rs`), and the
//! resulting file graph is held to the rules in `docs/architecture.md`:
//!
//! - a file imports only from its own layer or one below it ([`LAYERS`]);
//! - no import circle joins files of different folders;
//! - a circle inside one folder is allowed only where that folder's
//!   `mod.rs` (`lib.rs` for `src/`) names each of its files on a line that
//!   says `circle`, with the reason.

mod import_graph;

use import_graph::{circles, folder_of, index_of};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each top-level module of `src/`, lowest layer first. A module may import
/// from its own layer and from the layers below, never from above. A new
/// top-level module must be placed here.
const LAYERS: &[&[&str]] = &[
    // Base: no knowledge of sessions, plans or rolls.
    &[
        "bounded_read",
        "build_info",
        "clock",
        "console",
        "fsutil",
        "host_kind",
        "lockfile",
        "parallel",
        "preflight",
        "proc_env",
        "process_env",
        "secret",
        "style",
        "tmux",
        "typed_text",
    ],
    &["registry", "events", "activity", "desired"],
    &["observed", "harness"],
    &["runner", "plan"],
    &["apply", "hosts"],
    &["lifecycle"],
    &["ops", "services", "web_terminal", "announce"],
    &["views", "watch", "schemas"],
    &["cli"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

/// One module of the crate: a file, or an inline `mod name { .. }` in one.
#[derive(Default)]
struct Module {
    file: usize,
    /// Names this module's `use` items bring in, to the absolute paths they
    /// name (relative ones already resolved).
    imports: BTreeMap<String, Vec<String>>,
    /// Raw paths this module names, before resolution.
    names: Vec<Vec<String>>,
    /// A `#[cfg(test)]` module: its imports count for the layers, not for
    /// circles (a unit test may use a sibling's fixtures).
    test: bool,
}

struct Crate {
    files: Vec<PathBuf>,
    modules: BTreeMap<Vec<String>, Module>,
}

fn module_path_of(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .with_extension("")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if parts.last().map(String::as_str) == Some("mod") {
        parts.pop();
    }
    if parts.len() == 1 && (parts[0] == "lib" || parts[0] == "main") {
        parts.clear();
    }
    parts
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every way `src/` breaks the rules, one line each; empty when it keeps them.
fn violations(src: &Path) -> Vec<String> {
    let krate = Crate::read(src);
    let edges = krate.edges(true);
    let mut found = Vec::new();
    let name = |f: usize| krate.files[f].display().to_string();
    for (&from, targets) in &edges {
        let from_module = krate.top_module(from);
        if from_module == "main" || from_module == "lib" {
            continue;
        }
        let Some(from_layer) = layer_of(&from_module) else {
            found.push(format!(
                "{}: module `{from_module}` has no layer in tests/it/layers/mod.rs",
                name(from)
            ));
            continue;
        };
        for &to in targets {
            let to_module = krate.top_module(to);
            match layer_of(&to_module) {
                Some(to_layer) if to_layer > from_layer => found.push(format!(
                    "{} imports {} (`{to_module}` is above `{from_module}`)",
                    name(from),
                    name(to)
                )),
                _ => {}
            }
        }
    }
    for circle in circles(&krate.edges(false), krate.files.len()) {
        let folders: BTreeSet<PathBuf> = circle
            .iter()
            .map(|&f| folder_of(src, &krate.files[f]))
            .collect();
        let files: Vec<String> = circle.iter().map(|&f| name(f)).collect();
        if folders.len() > 1 {
            found.push(format!(
                "import circle across folders: {}",
                files.join(" ↔ ")
            ));
            continue;
        }
        let folder = folders.into_iter().next().unwrap();
        let index = index_of(src, &folder);
        let said = std::fs::read_to_string(src.parent().unwrap().join(&index)).unwrap_or_default();
        let explained = circle.iter().all(|&f| {
            let file = krate.files[f].file_name().unwrap().to_string_lossy();
            said.lines()
                .any(|l| l.contains("circle") && l.contains(file.as_ref()))
        });
        if !explained {
            found.push(format!(
                "import circle that {} does not explain: {}",
                index.display(),
                files.join(" ↔ ")
            ));
        }
    }
    found
}

#[test]
fn layers_point_only_down_and_folders_form_no_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = violations(&src);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The checker itself catches what it is for: an upward import, a circle
/// between folders, and a circle inside one folder that nobody explained.
#[test]
fn the_checker_finds_an_upward_import_and_circles() {
    let root = tempfile::tempdir().unwrap();
    let src = root.path().join("src");
    let write = |path: &str, text: &str| {
        let path = src.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("lib.rs", "pub mod plan; pub mod apply; pub mod observed;");
    write("plan/mod.rs", "pub mod gather;");
    write(
        "plan/gather.rs",
        "pub fn g() { crate::apply::journal::entries(); }",
    );
    write("apply/mod.rs", "pub mod journal; pub use journal::Entry;");
    write(
        "apply/journal.rs",
        "use crate::plan::gather::g; pub struct Entry; pub fn entries() { g() }",
    );
    write("observed/mod.rs", "pub mod a; pub mod b;");
    write("observed/a.rs", "use super::b::B; pub struct A;");
    write("observed/b.rs", "pub struct B(super::a::A);");
    let found = violations(&src);
    assert!(
        found
            .iter()
            .any(|v| v
                == "src/plan/gather.rs imports src/apply/journal.rs (`apply` is above `plan`)"),
        "{found:#?}"
    );
    assert!(
        found.iter().any(|v| v
            == "import circle across folders: src/apply/journal.rs ↔ src/plan/gather.rs"),
        "{found:#?}"
    );
    assert!(
        found.iter().any(|v| v
            == "import circle that src/observed/mod.rs does not explain: src/observed/a.rs ↔ src/observed/b.rs"),
        "{found:#?}"
    );
    write(
        "observed/mod.rs",
        "//! Import circle: a.rs ↔ b.rs, because they are one type.\npub mod a; pub mod b;",
    );
    let found = violations(&src);
    assert!(!found.iter().any(|v| v.contains("observed")), "{found:#?}");
}
