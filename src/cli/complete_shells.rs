//! The-loop's own wrappers around clap_complete's bash and zsh scripts, so
//! a ref completes at every depth: `the-loop apply --target github:oc<Tab>`
//! gives `github:octo/`, and the Tabs after it reach `github:octo/repo#12`.
//!
//! Upstream passes the shell's words to the binary as the shell split and
//! quoted them, which breaks a ref in two ways (both open upstream):
//!
//! - bash splits a word at every character of `COMP_WORDBREAKS`, `:`
//!   included, so `github:oc` reaches the completer as three words and
//!   matches nothing (clap#6280,
//!   <https://github.com/clap-rs/clap/issues/6280>);
//! - zsh, and fish for the word under the cursor, hand over a word as it
//!   stands on the command line, quoted, so once a Tab has inserted
//!   `github:octo/repo\#`, the next one asks for candidates starting with
//!   a backslash and gets none (the quoting of clap#6365,
//!   <https://github.com/clap-rs/clap/issues/6365>).
//!
//! As jj and just do, the upstream function is kept as generated and a
//! local one is registered in its place: bash's joins the pieces the
//! shell split with no space between them (read from `COMP_LINE`, so it
//! needs no bash-completion) and takes the joined part back off each
//! candidate, since bash replaces only its own last piece; zsh's unquotes
//! the words; fish's line asks a function for the unescaped token. elvish
//! and PowerShell are clap_complete's own. When upstream fixes these, the
//! wrappers can go.

use clap_complete::env::{Bash, Elvish, EnvCompleter, Fish, Powershell, Shells, Zsh};
use std::ffi::OsString;
use std::io::Write;
use std::path::Path;

/// The shells `THE_LOOP_COMPLETE` and `the-loop completions` know.
pub const SHELLS: Shells<'static> = Shells(&[
    &Wrapped(&Bash, bash_wrapper),
    &Elvish,
    &Wrapped(&Fish, fish_wrapper),
    &Powershell,
    &Wrapped(&Zsh, zsh_wrapper),
]);

/// A clap_complete shell, and what turns its script (for the command named
/// first) into the-loop's.
struct Wrapped(
    &'static dyn EnvCompleter,
    fn(&str, String) -> std::io::Result<String>,
);

/// The function name clap_complete derives from the command's name.
fn ident(name: &str) -> String {
    name.replace('-', "_")
}

/// bash: rejoins the words of the current line that bash split at a
/// `COMP_WORDBREAKS` character (no blank between them), calls the upstream
/// function on the joined words, and removes from each candidate the part
/// of the joined word that lies before bash's own current piece.
fn bash_wrapper(name: &str, upstream: String) -> std::io::Result<String> {
    let id = ident(name);
    let wrapper = format!(
        r#"
# the-loop: ':' is in COMP_WORDBREAKS, so bash splits a ref; see clap#6280.
_the_loop_complete_{id}() {{
    local line=${{COMP_LINE:0:COMP_POINT}} cur word prefix
    local -a joined=()
    local i n blank
    for ((i = 0; i <= COMP_CWORD && i < ${{#COMP_WORDS[@]}}; i++)); do
        word=${{COMP_WORDS[i]}}
        blank=0
        while [[ $line == [[:space:]]* ]]; do line=${{line:1}}; blank=1; done
        # The word under the cursor ends there: `:` alone, or half a word.
        ((i == COMP_CWORD)) && word=$line
        line=${{line:${{#word}}}}
        n=${{#joined[@]}}
        if ((n > 0 && !blank)); then
            joined[n-1]+=$word
        else
            joined[n]=$word
        fi
    done
    n=${{#joined[@]}}
    ((n == 0)) && return 0
    cur=${{joined[n-1]}}
    # What bash replaces is $2, the end of the joined word; the rest of it
    # comes off each candidate.
    [[ $cur == *"$2" ]] && prefix=${{cur:0:${{#cur}}-${{#2}}}}
    local COMP_CWORD=$((n - 1))
    local -a COMP_WORDS=("${{joined[@]}}")
    _clap_complete_{id} "$1" "$cur" "$3"
    if [[ -n $prefix ]]; then
        local -a trimmed=()
        for word in "${{COMPREPLY[@]}}"; do
            [[ $word == "$prefix"* ]] && trimmed+=("${{word:${{#prefix}}}}")
        done
        COMPREPLY=("${{trimmed[@]}}")
    fi
}}
if [[ "${{BASH_VERSINFO[0]}}" -eq 4 && "${{BASH_VERSINFO[1]}}" -ge 4 || "${{BASH_VERSINFO[0]}}" -gt 4 ]]; then
    complete -o nospace -o bashdefault -o nosort -F _the_loop_complete_{id} {name}
else
    complete -o nospace -o bashdefault -F _the_loop_complete_{id} {name}
fi
"#
    );
    Ok(upstream + &wrapper)
}

/// zsh: the same words, unquoted (`\#` back to `#`), for the upstream
/// function. The name [`zsh_function`] gives.
fn zsh_wrapper(name: &str, upstream: String) -> std::io::Result<String> {
    let id = ident(name);
    let wrapper = format!(
        r#"
# the-loop: zsh hands over the words quoted (`\#`); see clap#6365.
function {function}() {{
    local -a words=("${{(@Q)words}}")
    _clap_dynamic_completer_{id} "$@"
}}
compdef {function} {name}
"#,
        function = zsh_function(name),
    );
    Ok(upstream + &wrapper)
}

/// fish: the upstream line, asking for the token under the cursor through
/// a function that unescapes it (`string unescape`, or the token as typed
/// when it does not parse, as an unclosed quote does not); the tokens
/// before it fish already hands over unescaped (`--tokenize`).
fn fish_wrapper(name: &str, upstream: String) -> std::io::Result<String> {
    const TOKEN: &str = "(commandline --current-token)";
    let function = format!("__the_loop_token_{}", ident(name));
    if upstream.matches(TOKEN).count() != 1 {
        return Err(std::io::Error::other(
            "clap_complete's fish script changed: the-loop's wrapper no longer fits it",
        ));
    }
    Ok(format!(
        "# the-loop: fish hands over the token as typed (`\\#`); see clap#6365.\n\
         function {function}\n    \
         set -l token (commandline --current-token)\n    \
         string unescape -- \"$token\"; or printf '%s\\n' \"$token\"\n\
         end\n{}",
        upstream.replace(TOKEN, &format!("({function})"))
    ))
}

/// The zsh completion function the-loop registers for `name`.
pub fn zsh_function(name: &str) -> String {
    format!("_the_loop_complete_{}", ident(name))
}

impl EnvCompleter for Wrapped {
    fn name(&self) -> &'static str {
        self.0.name()
    }

    fn is(&self, name: &str) -> bool {
        self.0.is(name)
    }

    fn write_registration(
        &self,
        var: &str,
        name: &str,
        bin: &str,
        completer: &str,
        buf: &mut dyn Write,
    ) -> std::io::Result<()> {
        let mut upstream = Vec::new();
        self.0
            .write_registration(var, name, bin, completer, &mut upstream)?;
        let upstream = String::from_utf8(upstream).map_err(std::io::Error::other)?;
        buf.write_all((self.1)(name, upstream)?.as_bytes())
    }

    fn write_complete(
        &self,
        cmd: &mut clap::Command,
        args: Vec<OsString>,
        current_dir: Option<&Path>,
        buf: &mut dyn Write,
    ) -> std::io::Result<()> {
        self.0.write_complete(cmd, args, current_dir, buf)
    }
}
