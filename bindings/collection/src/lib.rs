//! The npm package's core module, `atlas_wasm_bg.wasm`: one collection, its
//! datasets and their reads.
//!
//! Thin on purpose: every answer comes from the core ([`Atlas`](atlas_wasm::Atlas),
//! [`DatasetView`](atlas_wasm::DatasetView)); this crate only moves values
//! across the boundary, with what every module shares from `atlas-wasm-js`.
//! The JavaScript facade in `js/src/` owns what is idiomatic there (sources,
//! URLs, `AbortSignal`), so the classes exported here are internal:
//! `AtlasHandle`, `DatasetHandle`.
//!
//! | File | What crosses |
//! |---|---|
//! | `handle.rs` | the exported classes |
//! | `values.rs` | attributes, statistics, layouts, schemas, a read's typed array |
//! | `decoder.rs` | blocks out to the decode pool |
#![cfg(target_arch = "wasm32")]
// Byte sources are `?Send` on wasm32 and the program has one thread, so an
// `Arc` of one is simply a shared pointer.
#![allow(clippy::arc_with_non_send_sync)]

mod decoder;
mod handle;
mod values;

pub use handle::{AtlasHandle, DatasetHandle};
