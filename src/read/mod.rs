//! The read path: open a collection from its tail, answer catalogue questions
//! from memory, and read segments and blocks lazily.

mod across;
mod ahead;
mod array;
mod atlas;
mod cache;
pub(crate) mod collection_stats;
mod dataset;
mod decode;
mod open;
mod segment;
mod window;

pub use across::{AcrossRequest, Skipped, StackSink, Stacked, StackedLayout};
pub use array::{ArrayData, Element, NdArray, TimestampNs, TypedArray};
pub use atlas::{Atlas, ReadOptions};
pub use dataset::{ArrayLayout, ArrayMetaView, DatasetView, SchemaView};
pub use decode::{BlockDecoder, CompressedBlock};

pub(crate) use atlas::Shared;
