//! The byte-range seam: everything the reader needs from storage.
//!
//! A [`ByteSource`] is one immutable object that answers two questions: "give
//! me these bytes" and "give me the last N bytes, and tell me how big you
//! are". The second one is what lets an HTTP source open a collection in one
//! round trip (`Range: bytes=-N` answers with the total size in
//! `Content-Range`). Nothing here knows about ATLAS, so the same sources serve
//! any format addressed by byte ranges.
//!
//! Futures are `Send` on native targets, so a handle can move across tokio
//! worker threads, and `?Send` on wasm32, where JavaScript promises are not.

mod counting;
#[cfg(not(target_arch = "wasm32"))]
mod file;
#[cfg(all(feature = "http", not(target_arch = "wasm32")))]
mod http;
mod memory;
#[cfg(all(feature = "cloud", not(target_arch = "wasm32")))]
mod object_store;

#[cfg(all(feature = "cloud", not(target_arch = "wasm32")))]
pub use self::object_store::ObjectStoreSource;
pub use counting::{CountingSource, RequestLog};
#[cfg(not(target_arch = "wasm32"))]
pub use file::FileSource;
#[cfg(all(feature = "http", not(target_arch = "wasm32")))]
pub use http::{HttpOptions, HttpSource};
pub use memory::MemorySource;

use std::future::Future;
use std::ops::Range;
use std::pin::Pin;

use crate::error::Result;

/// The last bytes of an object together with the object's full size.
#[derive(Debug, Clone, PartialEq)]
pub struct Tail {
    /// The final `min(asked, size)` bytes.
    pub bytes: Vec<u8>,
    /// The size of the whole object.
    pub object_size: u64,
}

/// A boxed future that is `Send` wherever the platform allows it.
#[cfg(not(target_arch = "wasm32"))]
pub type SourceFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T>> + Send + 'a>>;
/// A boxed future that is `Send` wherever the platform allows it.
#[cfg(target_arch = "wasm32")]
pub type SourceFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T>> + 'a>>;

/// `Send + Sync` on native targets, nothing on wasm32.
#[cfg(not(target_arch = "wasm32"))]
pub trait MaybeSendSync: Send + Sync {}
#[cfg(not(target_arch = "wasm32"))]
impl<T: Send + Sync + ?Sized> MaybeSendSync for T {}
/// `Send + Sync` on native targets, nothing on wasm32.
#[cfg(target_arch = "wasm32")]
pub trait MaybeSendSync {}
#[cfg(target_arch = "wasm32")]
impl<T: ?Sized> MaybeSendSync for T {}

/// One immutable object, read by byte ranges.
///
/// Implementors answer exactly what was asked or fail: a short read, a
/// server that ignored the range, or an object that changed under the reader
/// is an [`Error`](crate::Error), never fewer or other bytes.
pub trait ByteSource: MaybeSendSync {
    /// Reads `range` (end exclusive). A range past the end of the object is
    /// an error.
    fn read_range(&self, range: Range<u64>) -> SourceFuture<'_, Vec<u8>>;

    /// Reads the last `min(len, size)` bytes and reports the object's size,
    /// in one request where the backend allows it. A missing object is
    /// [`Error::NotFound`](crate::Error::NotFound).
    fn read_tail(&self, len: u64) -> SourceFuture<'_, Tail>;

    /// A short description for error messages (a path, a URL).
    fn describe(&self) -> String;
}

/// Checks that a range is well-formed and inside an object of `size` bytes.
pub fn check_range(range: &Range<u64>, size: u64, what: &str) -> Result<()> {
    if range.start > range.end || range.end > size {
        return Err(crate::Error::OutOfBounds(format!(
            "range {}..{} is outside {what} of {size} bytes",
            range.start, range.end
        )));
    }
    Ok(())
}
