//! Atria dataset caches, read through the same [`ByteSource`](crate::ByteSource)s as ATLAS
//! (feature `atria`; see docs/atria.md).
//!
//! Atria keeps a split's binary content in two layouts:
//!
//! - WebDataset TAR shards (`shards/{split}/{worker:06d}-{shard:06d}.tar`),
//!   addressed from its table by pointers `shard.tar?offset=O&length=L`.
//!   [`TarShards`] resolves a pointer with one range read and verifies the
//!   member's TAR header (name and size) before trusting it; a pointer
//!   Atria's writer got wrong is recovered by name from the shard's header
//!   index, or refused as [`Error::BadPointer`].
//! - datadings msgpack shards (`X.msgpack` with `X.msgpack.offsets`,
//!   `.keys`, …): [`MsgpackShard`] reads record *i* with one range read, and
//!   decodes msgpack-numpy arrays into [`NdArray`](crate::NdArray)s.
//!
//! Paths inside a cache are resolved by a [`Store`]: a directory natively
//! ([`DirStore`]), or any closure from a relative path to a source.
//!
//! ```no_run
//! # async fn demo() -> atlas_wasm::atria::Result<()> {
//! use atlas_wasm::atria::{DirStore, MsgpackShard, TarShards};
//!
//! let store = DirStore::new("storage/docs");
//! let shards = TarShards::new(store.clone());
//! let png = shards
//!     .content("shards/train/000000-000001.tar?offset=1536&length=37", "train-0-000004.json")
//!     .await?;
//! println!("{} bytes, recovered: {}", png.bytes.len(), png.check.recovered);
//!
//! let shard = MsgpackShard::open(&store, "msgpack/train/000000-000000.msgpack").await?;
//! let first = shard.record(0).await?;
//! println!("{} records; the first: {first:?}", shard.count());
//! # Ok(()) }
//! ```

mod cache;
mod crc32;
mod delta;
mod error;
mod json;
mod msgpack;
mod numpy;
pub mod parquet;
mod pointer;
mod roaring;
mod store;
mod tar;
mod tar_header;
mod tar_index;
mod value;
mod z85;

pub use cache::{sample_key, AtriaCache, Backend, Column, RowCursor, Split};
pub use delta::{DeletionVector, DeltaFile, DeltaRows, DeltaTable, Field};
pub use error::{Error, Result};
pub use msgpack::{MsgpackShard, MsgpackSplit, SplitRows};
pub use pointer::{Check, Defect, KeyConvention, MemberRef, Naming, Pointer};
pub use roaring::RowSet;
#[cfg(not(target_arch = "wasm32"))]
pub use store::DirStore;
pub use store::Store;
pub use tar::{Content, TarShards};
pub use tar_index::{Member, Sample, ShardIndex};
pub use value::Value;

/// The memory budget the readers use unless told otherwise: the same as
/// [`ReadOptions::memory_budget`](crate::ReadOptions::memory_budget).
pub fn default_memory_budget() -> u64 {
    crate::ReadOptions::default().memory_budget
}
