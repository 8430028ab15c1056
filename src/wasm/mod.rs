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
//! | `decoder.rs` | blocks out to the decode pool, and `decodeBlock` for its workers |

mod convert;
mod error;
mod source;
mod task;

// The Atria module (`atlas-wasm/atria`, built with feature `atria`) never
// calls the collection classes: without them it is about half the size.
#[cfg(not(feature = "atria"))]
mod decoder;
#[cfg(not(feature = "atria"))]
mod handle;
#[cfg(not(feature = "atria"))]
pub use handle::{AtlasHandle, DatasetHandle};

#[cfg(feature = "atria")]
mod atria;

pub use source::{JsByteSource, JsSource};
