//! What the npm package's wasm modules share at the JavaScript boundary.
//!
//! Each module is a crate of its own that adds only what it exports: the
//! collection module (`bindings/collection`), the Atria module
//! (`bindings/atria`) and the decode pool's (`bindings/decode`, which needs
//! nothing from here). This crate holds what the first two have in common;
//! its exports (`setErrorClass`, `setDriver`, `takePanicMessage`, `Task`) are
//! in both, and the facade's `js/src/start.js` calls them for either.
//!
//! | File | What crosses |
//! |---|---|
//! | `error.rs` | errors out as the facade's error class, JS errors in |
//! | `source.rs` | one [`ByteSource`](atlas_wasm::ByteSource) over any JS source object |
//! | `task.rs` | one call: polled from JavaScript, cut short by its abort promise |
//! | `convert.rs` | the JavaScript forms every module uses: objects, strings, arrays |
#![cfg(target_arch = "wasm32")]

pub mod convert;
pub mod error;
pub mod source;
pub mod task;

pub use source::{JsByteSource, JsSource};

/// The largest integer a JavaScript number holds exactly (2^53 - 1).
pub const MAX_SAFE: u64 = (1 << 53) - 1;

/// Numbers from JavaScript that must be whole and non-negative (2^53 at most).
pub fn whole(value: f64, what: &str) -> atlas_wasm::Result<u64> {
    if value.fract() == 0.0 && (0.0..=MAX_SAFE as f64).contains(&value) {
        Ok(value as u64)
    } else {
        // JavaScript prints the number: Rust's float formatting costs 15 KB of wasm.
        let shown: String = js_sys::Number::from(value)
            .to_string_with_radix(10)
            .map(Into::into)
            .unwrap_or_default();
        Err(atlas_wasm::Error::InvalidArgument(format!(
            "{what} must be a whole number >= 0, not {shown}"
        )))
    }
}
