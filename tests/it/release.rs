//! What a release is made of: the version a binary reports (with the commit
//! it was built from), and the release workflow, which cannot run here, read
//! as YAML and held to the archive names `cargo binstall` looks for.

use crate::support::*;
use serde_yaml::Value;
use std::path::Path;

fn repo_file(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path))
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `git rev-parse --short HEAD` of this checkout, when git and a checkout
/// are there (CI's fresh clone is one).
fn head_commit() -> Option<String> {
    let out = std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    let commit = String::from_utf8(out.stdout).ok()?.trim().to_owned();
    (out.status.success() && !commit.is_empty()).then_some(commit)
}

#[test]
fn version_names_the_commit_this_checkout_is_at_and_the_build_date() {
    let w = World::new();
    let doc = json(&ok(w.the_loop(&["version", "--json"])));
    assert_eq!(doc["format_version"], "1");
    assert_eq!(doc["version"], env!("CARGO_PKG_VERSION"));
    let commit = doc["commit"].as_str().unwrap();
    // A commit made since the last build must reach the binary: build.rs
    // reruns when HEAD or the branch it points at moves.
    if Path::new(env!("CARGO_MANIFEST_DIR")).join(".git").exists() {
        if let Some(head) = head_commit() {
            assert_eq!(commit, head, "the binary's commit is HEAD's");
        }
    }
    let date = doc["build_date"].as_str().unwrap();
    let today = the_loop::clock::now_utc();
    assert!(
        the_loop::clock::parse_utc(&format!("{date}T00:00:00Z")).is_some() && date <= &today[..10],
        "a day, not after today: {date}"
    );

    let line = stdout(&ok(w.the_loop(&["--version"])));
    assert_eq!(
        line,
        format!("the-loop {} ({commit} {date})\n", env!("CARGO_PKG_VERSION"))
    );
    let text = stdout(&ok(w.the_loop(&["version"])));
    assert_eq!(
        text,
        format!(
            "the-loop    {}\ncommit      {commit}\nbuild date  {date}\n",
            env!("CARGO_PKG_VERSION")
        )
    );
}

/// The archive the release workflow makes for `target`, at tag `v0.1.0`,
/// and the binary's path inside it, as its run script names them.
fn workflow_archive(script: &str, target: &str) -> (String, String) {
    assert!(
        script.contains(r#"name="the-loop-$GITHUB_REF_NAME-$TARGET""#)
            && script.contains(r#"tar czf "dist/$name.tar.gz" "$name""#)
            && script.contains(r#"cp "$bin" LICENSE README.md "$name/""#),
        "the archive step changed; keep [package.metadata.binstall] in step:\n{script}"
    );
    let name = format!("the-loop-v0.1.0-{target}");
    (format!("{name}.tar.gz"), format!("{name}/the-loop"))
}

#[test]
fn the_release_workflow_parses_and_uploads_what_binstall_looks_for() {
    let workflow: Value = serde_yaml::from_str(&repo_file(".github/workflows/release.yml"))
        .expect("release.yml is YAML");
    // CI's own workflow is YAML too.
    let _: Value = serde_yaml::from_str(&repo_file(".github/workflows/ci.yml")).unwrap();

    let on = &workflow["on"];
    assert_eq!(on["push"]["tags"][0], "v*", "{on:?}");
    let jobs = workflow["jobs"].as_mapping().expect("jobs");
    for (name, job) in jobs {
        assert!(job["runs-on"].is_string(), "{name:?} has runs-on");
        for step in job["steps"].as_sequence().expect("steps") {
            assert!(
                step["uses"].is_string() ^ step["run"].is_string(),
                "{name:?}: each step uses an action or runs a script: {step:?}"
            );
        }
    }
    let build = &workflow["jobs"]["build"];
    let targets: Vec<&str> = build["strategy"]["matrix"]["include"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|t| t["target"].as_str().unwrap())
        .collect();
    assert_eq!(
        targets,
        ["x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu"]
    );
    let script: String = build["steps"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter_map(|s| s["run"].as_str())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(script.contains("scripts/package-deb.sh"), "{script}");

    let manifest: toml_edit::DocumentMut = repo_file("Cargo.toml").parse().unwrap();
    let binstall = &manifest["package"]["metadata"]["binstall"];
    let repo = manifest["package"]["repository"].as_str().unwrap();
    for target in targets {
        // binstall's own template words, for the-loop 0.1.0 on `target`.
        let fill = |template: &str| {
            template
                .replace("{ repo }", repo)
                .replace("{ name }", "the-loop")
                .replace("{ version }", "0.1.0")
                .replace("{ target }", target)
                .replace("{ archive-suffix }", ".tar.gz")
                .replace("{ bin }", "the-loop")
                .replace("{ binary-ext }", "")
        };
        let url = fill(binstall["pkg-url"].as_str().unwrap());
        let bin = fill(binstall["bin-dir"].as_str().unwrap());
        let (archive, inside) = workflow_archive(&script, target);
        assert_eq!(
            url,
            format!("{repo}/releases/download/v0.1.0/{archive}"),
            "binstall looks where the workflow uploads"
        );
        assert_eq!(bin, inside, "and finds the binary where it is packed");
    }
    assert_eq!(binstall["pkg-fmt"].as_str(), Some("tgz"));
}

/// The jobs `name` waits for, directly or through the jobs it waits for.
fn waits_for(jobs: &serde_yaml::Mapping, name: &str) -> std::collections::BTreeSet<String> {
    let mut found = std::collections::BTreeSet::new();
    let mut next = vec![name.to_owned()];
    while let Some(job) = next.pop() {
        let needs = &jobs[job.as_str()]["needs"];
        let direct: Vec<&str> = match needs.as_sequence() {
            Some(list) => list.iter().filter_map(Value::as_str).collect(),
            None => needs.as_str().into_iter().collect(),
        };
        for need in direct {
            if found.insert(need.to_owned()) {
                next.push(need.to_owned());
            }
        }
    }
    found
}

/// Issue 47: `cargo binstall the-loop` finds a version through crates.io
/// first, and nothing published the crate. One job does, last: after every
/// build uploaded its archives and the release was made public, so the
/// registry never names a version whose archives are not there.
#[test]
fn the_crate_is_published_only_after_every_release_build() {
    let workflow: Value = serde_yaml::from_str(&repo_file(".github/workflows/release.yml"))
        .expect("release.yml is YAML");
    let jobs = workflow["jobs"].as_mapping().expect("jobs");
    let publishing: Vec<(&str, &Value)> = jobs
        .iter()
        .flat_map(|(name, job)| {
            let steps = job["steps"].as_sequence().into_iter().flatten();
            steps.map(move |step| (name.as_str().unwrap(), step))
        })
        .filter(|(_, step)| {
            step["run"]
                .as_str()
                .is_some_and(|r| r.contains("cargo publish"))
        })
        .collect();
    let [(job, step)] = publishing[..] else {
        panic!("one step publishes the crate: {publishing:?}")
    };
    assert_eq!(
        step["run"].as_str().map(str::trim),
        Some("cargo publish --locked")
    );
    assert_eq!(
        step["env"]["CARGO_REGISTRY_TOKEN"].as_str(),
        Some("${{ secrets.CARGO_REGISTRY_TOKEN }}"),
        "the token comes from the repository's secrets"
    );
    let before = waits_for(jobs, job);
    for after in ["create-release", "build", "publish"] {
        assert!(
            before.contains(after),
            "{job} waits for {after}: {before:?}"
        );
    }
}

/// What `cargo publish` would upload: the manifest's fields crates.io
/// needs, and only what `cargo install the-loop` builds from (`include` in
/// Cargo.toml), asked of `cargo package --list` offline.
#[test]
fn the_crate_carries_what_cargo_install_builds_from_and_no_more() {
    let manifest: toml_edit::DocumentMut = repo_file("Cargo.toml").parse().unwrap();
    for field in ["description", "license", "repository", "readme"] {
        assert!(
            manifest["package"][field]
                .as_str()
                .is_some_and(|v| !v.is_empty()),
            "Cargo.toml: package.{field} is set"
        );
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new(env!("CARGO"))
        .args([
            "package",
            "--list",
            "--locked",
            "--offline",
            "--no-verify",
            "--allow-dirty",
        ])
        .current_dir(root)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo package --list: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed = String::from_utf8(out.stdout).unwrap();
    let listed: std::collections::BTreeSet<&str> = listed.lines().collect();
    for needed in [
        "Cargo.toml",
        "Cargo.lock",
        "build.rs",
        "README.md",
        "LICENSE",
    ] {
        assert!(listed.contains(needed), "{needed} is packaged: {listed:?}");
    }
    // Every source file, and nothing but them and the files above.
    let mut sources = Vec::new();
    let mut dirs = vec![root.join("src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                sources.push(path.strip_prefix(root).unwrap().display().to_string());
            }
        }
    }
    for source in &sources {
        assert!(listed.contains(source.as_str()), "{source} is packaged");
    }
    let others: Vec<&&str> = listed
        .iter()
        .filter(|f| !f.starts_with("src/"))
        .filter(|f| {
            !matches!(
                **f,
                "Cargo.toml" | "Cargo.toml.orig" | "Cargo.lock" | ".cargo_vcs_info.json"
            )
        })
        .filter(|f| !matches!(**f, "build.rs" | "README.md" | "LICENSE" | "SECURITY.md"))
        .collect();
    assert!(
        others.is_empty(),
        "packaged beyond what a build needs: {others:?}"
    );
    assert_eq!(
        listed.iter().filter(|f| f.starts_with("src/")).count(),
        sources.len()
    );
}
