//! wasm-bindgen tests of atlas-wasm compiled to wasm32: the core against
//! the interop fixtures, and the collection module's bindings against JavaScript
//! sources. The tests live in `tests/`; this library is empty.
//!
//! Run in this directory, with nothing set in the environment:
//!
//! ```text
//! wasm-pack test --node                # fixtures.rs, bindings.rs
//! wasm-pack test --headless --chrome   # browser.rs: the same tests and a fetch ByteSource
//! ```
//!
//! The fixtures compiled in are committed under `fixtures/` (rewritten by
//! `fixtures/regenerate.sh`; `tests/committed_fixtures.rs`, a native test,
//! holds them to what atlas-rust and atlas-python write today).
