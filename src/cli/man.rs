//! `the-loop man`: manual pages generated from the same definitions as
//! `--help` (clap_mangen), so the two cannot disagree. Packagers install them
//! with `the-loop man --out-dir <dir>/share/man/man1`.

use clap::{Args, CommandFactory};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write the-loop.1 and one page per subcommand (the-loop-sessions-list.1,
    /// …) into this directory instead of printing the-loop.1 on stdout.
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
}

pub fn run(args: ManArgs) -> miette::Result<ExitCode> {
    let command = super::Cli::command();
    match args.out_dir {
        Some(dir) => {
            std::fs::create_dir_all(&dir)
                .and_then(|()| clap_mangen::generate_to(command, &dir))
                .map_err(|err| {
                    miette::miette!(
                        code = "the_loop::man::write",
                        help = "pass a directory you can write to",
                        "cannot write manual pages into {}: {}",
                        dir.display(),
                        crate::fsutil::IoKind(err.kind())
                    )
                })?;
            crate::outln!("Wrote manual pages into {}.", dir.display());
        }
        None => {
            let mut out = std::io::stdout().lock();
            clap_mangen::Man::new(command)
                .render(&mut out)
                .map_err(|err| {
                    miette::miette!(
                        code = "the_loop::man::write",
                        "cannot print the manual page: {}",
                        crate::fsutil::IoKind(err.kind())
                    )
                })?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
