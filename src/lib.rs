//! Read ATLAS collections — thousands of N-dimensional datasets in one
//! immutable file — from any byte-range source, natively or in WebAssembly.
//!
//! ```no_run
//! # async fn demo() -> atlas_wasm::Result<()> {
//! let atlas = atlas_wasm::Atlas::open_path("my_collection").await?;
//! for name in atlas.list_datasets() {
//!     let ds = atlas.dataset(&name)?;
//!     let window = ds.read_array_as::<f32>("temperature", &[0, 0], &[2, 2]).await?;
//!     println!("{name}: {:?}", window.data);
//! }
//! # Ok(()) }
//! ```
//!
//! Layout: [`source`] is the byte-range seam, [`format`] owns every byte and
//! does no I/O, and [`read`] (re-exported here) is the async read path.

#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod cli;
pub mod error;
pub mod format;
#[cfg(feature = "netcdf")]
pub mod ingest;
mod nd;
#[cfg(feature = "netcdf")]
pub(crate) mod pytext;
pub mod read;
pub mod source;
#[cfg(target_arch = "wasm32")]
pub mod wasm;
#[cfg(feature = "writer")]
pub mod write;

pub use error::{Error, Result};
pub use format::dtype::DType;
pub use format::footer::Codec;
pub use format::value::{ArrayStats, Attr, FillValue, StatValue};
pub use read::{
    ArrayData, ArrayLayout, ArrayMetaView, Atlas, BlockDecoder, CompressedBlock, DatasetView,
    Element, NdArray, ReadOptions, SchemaView, TimestampNs, TypedArray,
};
pub use source::{ByteSource, MemorySource, Tail};
