//! Read ATLAS collections — thousands of N-dimensional datasets in one
//! immutable file — from any byte-range source, natively or in WebAssembly;
//! write them natively (feature `writer`).
//!
//! # Reading
//!
//! Opening reads the container's tail (and the deletion mask) and nothing
//! else; the catalogue is then in memory, and every read fetches only the
//! blocks that hold the asked window.
//!
//! ```no_run
//! # async fn demo() -> atlas_wasm::Result<()> {
//! let atlas = atlas_wasm::Atlas::open_path("my_collection").await?;
//! for name in atlas.list_datasets() {
//!     let ds = atlas.dataset(&name)?;
//!     let window = ds.read_array_as::<f32>("temperature", &[0, 0], &[2, 2]).await?;
//!     println!("{name}: {:?}", window.data);
//! }
//! // One variable of every dataset, planned as one set of requests.
//! let all = atlas.read_across("temperature", &[], &[]).await?;
//! # let _ = all; Ok(()) }
//! ```
//!
//! # Any storage: a custom [`ByteSource`]
//!
//! A source answers two questions: "these bytes, please" and "the last N
//! bytes, and how big are you?". Everything else (HTTP, R2, a Blob, a file)
//! is a short adapter over that trait.
//!
//! ```
//! use std::ops::Range;
//! use std::sync::Arc;
//! use atlas_wasm::source::{check_range, ByteSource, SourceFuture, Tail};
//!
//! /// An object held in a `Vec`, to show the shape of an adapter.
//! struct InVec(Vec<u8>);
//!
//! impl ByteSource for InVec {
//!     fn read_range(&self, range: Range<u64>) -> SourceFuture<'_, Vec<u8>> {
//!         let bytes = check_range(&range, self.0.len() as u64, "the vector")
//!             .map(|()| self.0[range.start as usize..range.end as usize].to_vec());
//!         Box::pin(async move { bytes })
//!     }
//!     fn read_tail(&self, len: u64) -> SourceFuture<'_, Tail> {
//!         let from = self.0.len().saturating_sub(len as usize);
//!         let tail = Tail { bytes: self.0[from..].to_vec(), object_size: self.0.len() as u64 };
//!         Box::pin(async move { Ok(tail) })
//!     }
//!     fn describe(&self) -> String {
//!         "a vector".into()
//!     }
//! }
//!
//! // Not a collection: opening it is a typed error, never a panic.
//! let open = atlas_wasm::Atlas::open(Arc::new(InVec(b"not an atlas".to_vec())), None);
//! let err = futures_executor::block_on(open).unwrap_err();
//! assert_eq!(err.code(), "NotAnAtlasCollection");
//! ```
//!
//! # Writing (feature `writer`)
//!
//! ```
//! # #[cfg(feature = "writer")]
//! # fn demo() -> atlas_wasm::Result<()> {
//! use atlas_wasm::write::{AtlasWriter, WriterConfig};
//! use atlas_wasm::Attr;
//!
//! let dir = std::env::temp_dir().join(format!("atlas-doc-{}", std::process::id()));
//! let writer = AtlasWriter::create(&dir, WriterConfig::default())?;
//! let mut jan = writer.add_dataset("jan")?;
//! jan.define_array::<f32>("t2m", vec!["y".into(), "x".into()], &[2, 2], None, None)?;
//! jan.write_array("t2m", &[0, 0], &[2, 2], &[1.0f32, 2.0, 3.0, 4.0])?;
//! jan.set_attribute("month", Attr::Int32(1));
//! jan.finish()?;
//! writer.finish()?; // nothing is visible at `dir` before this returns
//!
//! let atlas = futures_executor::block_on(atlas_wasm::Atlas::open_path(&dir))?;
//! let t2m = futures_executor::block_on(
//!     atlas.dataset("jan")?.read_array_as::<f32>("t2m", &[1, 0], &[1, 2]),
//! )?;
//! assert_eq!(t2m.data, [3.0, 4.0]);
//! # std::fs::remove_dir_all(&dir).ok();
//! # Ok(()) }
//! # #[cfg(feature = "writer")]
//! # demo().unwrap();
//! ```
//!
//! # Layout
//!
//! - [`source`]: the byte-range seam and its native adapters.
//! - [`format`](mod@format): every byte of the format, and sans-IO open decoders; no I/O.
//!   Low level and versioned with the format, not with this API.
//! - The reader ([`Atlas`], [`DatasetView`], [`ReadOptions`] and the value
//!   types), re-exported here from the private `read` module.
//! - [`write`](mod@write) (feature `writer`) and [`ingest`] (feature `netcdf`).
//! - `atria` (feature `atria`): readers of Atria's dataset caches.
//!
//! The npm package's wasm modules are crates of their own under `bindings/`,
//! each built on this crate's public API and adding only what it exports.

#![warn(missing_docs)]
// One `Arc` type serves both targets: natively the shared state is `Send + Sync`
// (which the native lint checks); on wasm32 byte sources are `?Send` and the
// program has one thread, so an `Arc` of them is simply a shared pointer.
#![cfg_attr(target_arch = "wasm32", allow(clippy::arc_with_non_send_sync))]

#[cfg(feature = "atria")]
pub mod atria;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod cli;
mod error;
pub mod format;
#[cfg(feature = "netcdf")]
pub mod ingest;
mod nd;
#[cfg(feature = "netcdf")]
pub(crate) mod pytext;
mod read;
pub mod source;
#[cfg(feature = "writer")]
pub mod write;

pub use error::{Error, Result};
pub use format::dtype::DType;
pub use format::footer::Codec;
pub use format::value::{ArrayStats, Attr, FillValue, StatValue};
pub use read::{
    AcrossRequest, ArrayData, ArrayLayout, ArrayMetaView, Atlas, BlockDecoder, CollectionStats,
    CompressedBlock, DatasetView, Element, NdArray, ReadOptions, SchemaView, Skipped, StackSink,
    Stacked, StackedLayout, TimestampNs, TypedArray,
};
pub use source::{ByteSource, MemorySource, Tail};
