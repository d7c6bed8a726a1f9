//! The fuzz properties as a bounded loop that runs on stable Rust: seeds
//! from `fuzz/seeds/<target>` (and `fuzz/corpus/<target>` when libFuzzer
//! has grown one), mutated with a small deterministic generator.
//!
//! `smoke <envfile|registry|metrics|all> <seconds per target> [seed]`
//! Exits 1 and writes the input to `fuzz/artifacts/<target>/` on a failure.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Tokens the formats care about, spliced in by the mutator.
const TOKENS: &[&[u8]] = &[
    b"\"",
    b"'",
    b"\\",
    b"\n",
    b"\r\n",
    b"\r",
    b"=",
    b"#",
    b" ",
    b"\t",
    b"export ",
    b"$",
    b"${X}",
    b"\\n",
    b"\\q",
    b"\xEF\xBB\xBF",
    b"\xFF",
    b"github:",
    b"/",
    b":",
    b"#1",
    b".",
    b"..",
    b"-",
    b"_",
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b"null",
    b"\"workItem\"",
    b"\"ref\"",
    b"\"status\"",
    b"\"active\"",
    b"0",
    b"99999999999999999999",
    b"GET ",
    b"HEAD ",
    b"/metrics",
    b" HTTP/1.1",
    b" HTTP/1.0",
    b"\r\n\r\n",
    b"\n\n",
    b"?",
    b"Content-Length: ",
    b"Host: ",
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn mutate(rng: &mut Rng, input: &mut Vec<u8>) {
    for _ in 0..=rng.below(4) {
        let at = rng.below(input.len() + 1);
        match rng.below(5) {
            0 if !input.is_empty() => {
                let i = rng.below(input.len());
                input[i] = rng.next() as u8;
            }
            1 if !input.is_empty() => {
                let end = (at + rng.below(8)).min(input.len());
                input.drain(at.min(end)..end);
            }
            2 => {
                let token = TOKENS[rng.below(TOKENS.len())];
                input.splice(at..at, token.iter().copied());
            }
            3 if !input.is_empty() => {
                let from = rng.below(input.len());
                let end = (from + rng.below(16)).min(input.len());
                let chunk = input[from..end].to_vec();
                input.splice(at..at, chunk);
            }
            _ => input.insert(at, rng.next() as u8),
        }
    }
    input.truncate(4096);
}

/// Every file in `<fuzz>/seeds/<target>` and `<fuzz>/corpus/<target>`.
fn seeds(root: &Path, target: &str) -> Vec<Vec<u8>> {
    let mut found = Vec::new();
    for sub in ["seeds", "corpus"] {
        if let Ok(entries) = std::fs::read_dir(root.join(sub).join(target)) {
            for entry in entries.flatten() {
                if let Ok(bytes) = std::fs::read(entry.path()) {
                    found.push(bytes);
                }
            }
        }
    }
    if found.is_empty() {
        found.push(Vec::new());
    }
    found
}

type Check = fn(&[u8]);

fn run(target: &str, check: Check, seconds: u64, seed: u64, root: &Path) -> bool {
    let corpus = seeds(root, target);
    let mut rng = Rng(seed | 1);
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let mut runs: u64 = 0;
    std::panic::set_hook(Box::new(|_| {}));
    while Instant::now() < deadline {
        let mut input = corpus[rng.below(corpus.len())].clone();
        mutate(&mut rng, &mut input);
        runs += 1;
        if std::panic::catch_unwind(|| check(&input)).is_err() {
            let _ = std::panic::take_hook();
            let artifacts = root.join("artifacts").join(target);
            std::fs::create_dir_all(&artifacts).unwrap();
            let path = artifacts.join(format!("smoke-crash-{runs}"));
            std::fs::write(&path, &input).unwrap();
            eprintln!(
                "{target}: FAILED after {runs} runs; input saved to {}",
                path.display()
            );
            check(&input); // again, with the panic message shown
            return false;
        }
    }
    let _ = std::panic::take_hook();
    println!("{target}: {runs} runs in {seconds}s, no failure");
    true
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let which = args.get(1).map(String::as_str).unwrap_or("all");
    let seconds: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(30);
    let seed: u64 = args
        .get(3)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_1234_abcd);
    let root: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf();
    let targets: &[(&str, Check)] = &[
        ("envfile", the_loop_fuzz::envfile),
        ("registry", the_loop_fuzz::registry),
        ("metrics", the_loop_fuzz::metrics),
    ];
    let mut ok = true;
    for (name, check) in targets {
        if which == "all" || which == *name {
            ok &= run(name, *check, seconds, seed, &root);
        }
    }
    std::process::exit(if ok { 0 } else { 1 });
}
