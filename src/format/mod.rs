//! Every byte of the format lives here, and nothing here does I/O.
//!
//! - [`container`]: the `ATLS` header and trailer of `data.atlas`.
//! - [`footer`]: the msgpack + zstd collection footer (datasets, schemas, segments).
//! - [`catalogue`]: the footer's datasets: names in order, indexed by name.
//! - [`mask`]: the `deleted.mask` sidecar.
//! - [`segment`]: one variable's array-format v6 file (rkyv footer, `ARRF` trailer).
//! - [`open`]: the sans-IO machinery of decoders that find a structure from its object's end.
//! - [`container_open`]: the open decoder of `data.atlas` (tail, then collection footer).
//! - [`budget`]: the memory limit every file-declared size is held against.
//! - `cursor`: the one bounded byte cursor of the byte-by-byte decoders
//!   (the footer's msgpack here; msgpack records, thrift and JSON in `atria/`).
//! - [`chunk`]: the bytes of one chunk: elements, offset tables, fills.
//! - [`codec`]: block decompression.
//! - [`dtype`], [`value`]: element types, attribute values, fill values, statistics.

pub mod budget;
pub mod catalogue;
pub mod chunk;
pub mod codec;
pub mod container;
pub mod container_open;
pub(crate) mod cursor;
pub mod dtype;
pub mod footer;
pub mod mask;
mod msgpack;
pub mod open;
pub mod rows;
pub mod segment;
pub mod value;
