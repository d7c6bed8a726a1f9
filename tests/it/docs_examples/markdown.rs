//! The command examples of a Markdown page: its ```` ```console ```` blocks,
//! each split into `$ the-loop …` commands and the output shown under
//! each, with the `<!-- docs-test: … -->` comment that may stand before it.

use std::path::{Path, PathBuf};

/// One ```` ```console ```` block.
#[derive(Debug)]
pub struct Block {
    pub file: PathBuf,
    /// 1-based line of the opening fence.
    pub line: usize,
    /// The directives of the comment just before the fence.
    pub directives: Vec<Directive>,
    pub steps: Vec<Step>,
    /// 0-based line indices of the block's first and past-last content lines.
    pub body: (usize, usize),
}

/// A command and the output the page shows for it.
#[derive(Debug)]
pub struct Step {
    /// What follows `$ ` on the command line.
    pub command: String,
    pub expected: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Directive {
    /// `skip: REASON`: shown, never run. The reason is required.
    Skip(String),
    /// `scene: NAME`: a fresh world built by that scene, for this block and
    /// the ones after it in the page.
    Scene(String),
    /// `setup: ACTION ARGS`: done before the block, its output not shown.
    Setup(String),
    /// `tty`: the block's commands run on a terminal of their own (a
    /// pseudo-terminal), for what the-loop prints only there.
    Tty,
    /// `unordered`: the output's lines are compared as a set, for output
    /// whose order is not fixed (the series of a metrics family).
    Unordered,
}

/// A fenced block that is not a console block but shows a `$ the-loop`
/// command: an example nobody runs, unless it is made a console block.
#[derive(Debug)]
pub struct Stray {
    pub file: PathBuf,
    pub line: usize,
    pub info: String,
}

pub struct Page {
    pub blocks: Vec<Block>,
    pub strays: Vec<Stray>,
}

const MARK: &str = "docs-test:";

pub fn parse(file: &Path, text: &str) -> Result<Page, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut page = Page {
        blocks: Vec::new(),
        strays: Vec::new(),
    };
    let mut i = 0;
    while i < lines.len() {
        let Some(info) = lines[i].strip_prefix("```") else {
            i += 1;
            continue;
        };
        let info = info.trim().to_owned();
        let open = i;
        let close = (open + 1..lines.len())
            .find(|&j| lines[j].trim_end() == "```")
            .ok_or_else(|| format!("{}:{}: unclosed code block", file.display(), open + 1))?;
        let body = &lines[open + 1..close];
        let language = info.split([',', ' ']).next().unwrap_or("");
        if language == "console" {
            page.blocks.push(Block {
                file: file.to_path_buf(),
                line: open + 1,
                directives: directives_before(file, &lines, open)?,
                steps: steps(file, open, body)?,
                body: (open + 1, close),
            });
        } else if body.iter().any(|l| l.starts_with("$ the-loop")) {
            page.strays.push(Stray {
                file: file.to_path_buf(),
                line: open + 1,
                info,
            });
        }
        i = close + 1;
    }
    Ok(page)
}

/// The directives of a `<!-- docs-test: … -->` comment ending on the last
/// non-blank line before the fence (it may span lines); `;` separates
/// several, and `skip: REASON` comes last.
fn directives_before(file: &Path, lines: &[&str], fence: usize) -> Result<Vec<Directive>, String> {
    let Some(last) = lines[..fence].iter().rposition(|l| !l.trim().is_empty()) else {
        return Ok(Vec::new());
    };
    if !lines[last].trim_end().ends_with("-->") {
        return Ok(Vec::new());
    }
    let Some(first) = lines[..=last]
        .iter()
        .rposition(|l| l.trim_start().starts_with("<!--"))
    else {
        return Ok(Vec::new());
    };
    let comment = lines[first..=last].join(" ");
    let Some(inner) = comment
        .trim()
        .strip_prefix("<!--")
        .and_then(|c| c.strip_suffix("-->"))
        .map(str::trim)
        .and_then(|c| c.strip_prefix(MARK))
    else {
        return Ok(Vec::new());
    };
    let at = || format!("{}:{}", file.display(), fence);
    let mut directives = Vec::new();
    let mut parts = inner.split(';').map(str::trim).filter(|d| !d.is_empty());
    while let Some(part) = parts.next() {
        let (word, rest) = part.split_once(':').unwrap_or((part, ""));
        let rest = rest.trim();
        directives.push(match word.trim() {
            // A reason is prose, and may hold `;`: it takes the rest.
            "skip" => {
                let reason: Vec<&str> = std::iter::once(rest).chain(parts.by_ref()).collect();
                let reason = reason.join("; ").trim().to_owned();
                if reason.is_empty() {
                    return Err(format!("{}: `skip` needs a reason", at()));
                }
                Directive::Skip(reason)
            }
            "scene" => Directive::Scene(rest.to_owned()),
            "setup" => Directive::Setup(rest.to_owned()),
            "tty" if rest.is_empty() => Directive::Tty,
            "unordered" if rest.is_empty() => Directive::Unordered,
            other => return Err(format!("{}: unknown directive `{other}`", at())),
        });
    }
    Ok(directives)
}

/// `$ ` starts a command; the lines up to the next one are its output.
fn steps(file: &Path, open: usize, body: &[&str]) -> Result<Vec<Step>, String> {
    let mut steps: Vec<Step> = Vec::new();
    for (n, line) in body.iter().enumerate() {
        if let Some(command) = line.strip_prefix("$ ") {
            steps.push(Step {
                command: command.to_owned(),
                expected: String::new(),
            });
        } else if let Some(step) = steps.last_mut() {
            step.expected.push_str(line);
            step.expected.push('\n');
        } else if !line.trim().is_empty() {
            return Err(format!(
                "{}:{}: a console block starts with a `$ ` command line",
                file.display(),
                open + 2 + n
            ));
        }
    }
    Ok(steps)
}

impl Block {
    pub fn skip_reason(&self) -> Option<&str> {
        self.directives.iter().find_map(|d| match d {
            Directive::Skip(reason) => Some(reason.as_str()),
            _ => None,
        })
    }

    pub fn scene(&self) -> Option<&str> {
        self.directives.iter().find_map(|d| match d {
            Directive::Scene(name) => Some(name.as_str()),
            _ => None,
        })
    }

    pub fn setups(&self) -> impl Iterator<Item = &str> {
        self.directives.iter().filter_map(|d| match d {
            Directive::Setup(action) => Some(action.as_str()),
            _ => None,
        })
    }

    pub fn has(&self, directive: &Directive) -> bool {
        self.directives.contains(directive)
    }

    pub fn at(&self) -> String {
        format!("{}:{}", self.file.display(), self.line)
    }
}
