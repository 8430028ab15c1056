//! wasm-bindgen tests of atlas-wasm compiled to wasm32: the core against
//! the interop fixtures, and the bindings of `src/wasm/` against JavaScript
//! sources. The tests live in `tests/`; this library is empty.
//!
//! Run from the repository root, after `atlas-interop suite DIR` (and
//! `python DIR`) wrote the fixtures, which are compiled in:
//!
//! ```text
//! ATLAS_FIXTURES=DIR wasm-pack test --node wasm-tests
//! ATLAS_FIXTURES=DIR WASM_BINDGEN_USE_BROWSER=1 wasm-pack test --headless --chrome wasm-tests
//! ```
