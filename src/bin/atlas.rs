//! The `atlas` command line (feature `cli`); the code lives in `src/cli/`.

#[path = "../cli/mod.rs"]
mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
