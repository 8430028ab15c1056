//! The `#[wasm_bindgen]` layer under the npm package `atlas-wasm`.
//!
//! Thin on purpose: every answer comes from the core ([`Atlas`](crate::Atlas),
//! [`DatasetView`](crate::DatasetView)); this module only moves values across
//! the boundary. The JavaScript facade in `js/src/` owns what is idiomatic
//! there (sources, URLs, `AbortSignal`), so the classes exported here are
//! internal: `AtlasHandle`, `DatasetHandle`.
//!
//! | File | What crosses |
//! |---|---|
//! | `error.rs` | [`Error`](crate::Error) out as `AtlasError {code}`, JS errors in |
//! | `source.rs` | one [`ByteSource`](crate::ByteSource) over any JS source object |
//! | `task.rs` | abort and progress around one call |
//! | `convert.rs` | arrays, attributes, statistics, layouts as JS values |
//! | `handle.rs` | the exported classes |
//! | `decoder.rs` | blocks out to the decode pool |
//! | `block.rs` | `decodeBlock`, the decode module's one export |

mod error;

/// The largest integer a JavaScript number holds exactly (2^53 - 1).
pub(crate) const MAX_SAFE: u64 = (1 << 53) - 1;

/// Numbers from JavaScript that must be whole and non-negative (2^53 at most).
pub(crate) fn whole(value: f64, what: &str) -> crate::Result<u64> {
    if value.fract() == 0.0 && (0.0..=MAX_SAFE as f64).contains(&value) {
        Ok(value as u64)
    } else {
        // JavaScript prints the number: Rust's float formatting costs 15 KB of wasm.
        let shown: String = js_sys::Number::from(value)
            .to_string_with_radix(10)
            .map(Into::into)
            .unwrap_or_default();
        Err(crate::Error::InvalidArgument(format!(
            "{what} must be a whole number >= 0, not {shown}"
        )))
    }
}

// The decode module (feature `decode-module`, `atlas_decode_bg.wasm`): only
// `decodeBlock`, for the pool's workers, built for speed (see block.rs).
#[cfg(feature = "decode-module")]
mod block;

#[cfg(not(feature = "decode-module"))]
mod convert;
#[cfg(not(feature = "decode-module"))]
mod source;
#[cfg(not(feature = "decode-module"))]
mod task;
#[cfg(not(feature = "decode-module"))]
pub use source::{JsByteSource, JsSource};

// The Atria module (`atlas-wasm/atria`, built with feature `atria`) never
// calls the collection classes: without them it is about half the size.
#[cfg(not(any(feature = "atria", feature = "decode-module")))]
mod decoder;
#[cfg(not(any(feature = "atria", feature = "decode-module")))]
mod handle;
#[cfg(not(any(feature = "atria", feature = "decode-module")))]
pub use handle::{AtlasHandle, DatasetHandle};

#[cfg(all(feature = "atria", not(feature = "decode-module")))]
mod atria;
