//! The read path: open a collection from its tail, answer catalogue questions
//! from memory, and read segments and blocks lazily.
//!
//! The rooms, in an order where each file imports only files below it (so
//! there is no import cycle; tests/module_graph.rs holds the table to it):
//!
//! | file | what |
//! |---|---|
//! | `atlas.rs` | [`Atlas`]: the public handle and every call on it |
//! | `dataset.rs` | [`DatasetView`] and the schema views |
//! | `across.rs` | reads of one array from many datasets (a window is the case of one) |
//! | `stats.rs` | collection-wide statistics |
//! | `handle.rs` | what clones share: footer, deletions, opened segments, the loader |
//! | `options.rs` | [`ReadOptions`] |
//! | `segment.rs` | one opened segment |
//! | `ranged.rs` | a large segment footer read by ranges: its root, rows and runs |
//! | `pages.rs` | the pages of a ranged footer, cached and shared by concurrent calls |
//! | `blocks.rs` | the block plan (pure) and the loader that carries it out |
//! | `ahead.rs` | block loads yielded in order, their requests started ahead |
//! | `plan.rs` | a window's plan and its assembly (pure) |
//! | `sink.rs` | where answers go ([`StackSink`]) |
//! | `cache.rs` | the block cache |
//! | `decode.rs` | where blocks are decompressed ([`BlockDecoder`]) |
//! | `open.rs` | the one loop that drives the sans-IO open decoders |
//! | `array.rs` | answers ([`NdArray`]) |

mod across;
mod ahead;
mod array;
mod atlas;
mod blocks;
mod cache;
mod dataset;
mod decode;
mod handle;
mod open;
mod options;
mod pages;
mod plan;
mod ranged;
mod segment;
mod sink;
pub(crate) mod stats;

pub use across::AcrossRequest;
pub use array::{ArrayData, Element, NdArray, TimestampNs, TypedArray};
pub use atlas::Atlas;
pub use dataset::{ArrayLayout, ArrayMetaView, DatasetView, SchemaView};
pub use decode::{BlockDecoder, CompressedBlock};
pub use options::ReadOptions;
pub use sink::{Skipped, StackSink, Stacked, StackedLayout};
pub use stats::CollectionStats;
