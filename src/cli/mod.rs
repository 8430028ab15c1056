//! The `atlas` command (feature `cli`): atlas-python's `create`, `ls`,
//! `show`, `info` and `rm`, with the same output, plus `get`, `rewrite` and `merge`.
//! Every reading command takes a local directory, an `http(s)://` URL of
//! one, or (feature `cloud`) a bucket prefix.
//!
//! Not a stable API: `src/bin/atlas.rs` calls [`main`] and nothing else.
//!
//! One file per command; beside them, `args` (the parser), `output`
//! (printing), `log` (`--log-file`), `py` and `values` (atlas-python's
//! value printing) and `sources` (where a collection lives).

mod args;
#[cfg(feature = "cloud")]
mod bucket;
#[cfg(feature = "cloud")]
mod bucket_merge;
mod create;
mod get;
#[cfg(feature = "atria")]
mod import_atria;
mod info;
mod interrupt;
mod log;
mod ls;
mod merge;
mod output;
mod py;
mod pyjson;
mod rewrite;
mod rm;
#[cfg(feature = "cloud")]
mod s3_copy;
mod show;
mod sources;
mod values;

use std::process::ExitCode;

use clap::Parser;

use crate::Error;
use args::{Cli, Command};

/// An error the user sees as one line: `atlas: message`.
#[derive(Debug)]
pub(crate) struct CliError(String);

impl CliError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        CliError(message.into())
    }
}

impl From<Error> for CliError {
    fn from(e: Error) -> Self {
        CliError(e.to_string())
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        CliError(e.to_string())
    }
}

/// How a command that did not fail ended.
pub(crate) enum Outcome {
    Done,
    /// Some inputs were skipped: exit status 1, as atlas-python.
    Partial,
}

/// Parses the command line, runs the command, and maps the result to an
/// exit status (errors go to standard error as one line).
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    interrupt::watch();
    if let Some(path) = &cli.log_file {
        if let Err(e) = log::open(path) {
            eprintln!("atlas: cannot open log file: {e}");
            return ExitCode::FAILURE;
        }
        // Say where it went, so nobody has to guess.
        eprintln!(
            "atlas: logging to {}",
            std::path::absolute(path).unwrap_or(path.clone()).display()
        );
        let args: Vec<String> = std::env::args().skip(1).collect();
        log::record(
            log::Level::Info,
            "cli",
            &format!("atlas {}: {}", env!("CARGO_PKG_VERSION"), args.join(" ")),
        );
    }
    match run(cli.command) {
        Ok(Outcome::Done) => ExitCode::SUCCESS,
        Ok(Outcome::Partial) => ExitCode::FAILURE,
        // `atlas ls … | head` closes the pipe: not an error.
        Err(e) if e.0.contains("Broken pipe") => ExitCode::SUCCESS,
        // An upload gave itself up on a signal: clean up and say so.
        Err(_) if interrupt::requested() => interrupt::clean_and_exit(),
        Err(e) => {
            log::record(log::Level::Error, "cli", &e.0);
            eprintln!("atlas: {}", e.0.replace('\n', " "));
            ExitCode::FAILURE
        }
    }
}

/// `create` and `rm` block on their own; the reading commands are async
/// over the core and run to completion here, on this thread.
fn run(command: Command) -> Result<Outcome, CliError> {
    use futures_executor::block_on;
    let done = match command {
        Command::Create(args) => return create::run(args),
        Command::Ls(args) => block_on(ls::run(args)),
        Command::Show(args) => block_on(show::run(args)),
        Command::Info(args) => block_on(info::run(args)),
        Command::Rm(args) => rm::run(args),
        Command::Get(args) => block_on(get::run(args)),
        Command::Rewrite(args) => block_on(rewrite::run(args)),
        Command::Merge(args) => merge::run(args),
        #[cfg(feature = "atria")]
        Command::ImportAtria(args) => return import_atria::run(args),
    };
    done.map(|()| Outcome::Done)
}
