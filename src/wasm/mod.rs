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
