//! The `atlas` command line (feature `cli`); it lives in the library's
//! `cli` module.

fn main() -> std::process::ExitCode {
    atlas_wasm::cli::main()
}
