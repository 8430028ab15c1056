//! A wrapper that records every request, so tests can assert what a call costs.

use std::ops::Range;
use std::sync::{Arc, Mutex};

use super::{ByteSource, SourceFuture, Tail};

/// What a [`CountingSource`] has seen: each request as `(offset, length)`.
/// A tail read is logged with the offset it resolved to.
#[derive(Debug, Default, Clone)]
pub struct RequestLog {
    inner: Arc<Mutex<Vec<(u64, u64)>>>,
}

impl RequestLog {
    /// Number of requests so far.
    pub fn requests(&self) -> usize {
        self.lock().len()
    }

    /// Bytes moved so far.
    pub fn bytes(&self) -> u64 {
        self.lock().iter().map(|&(_, len)| len).sum()
    }

    /// Every request so far, in order.
    pub fn entries(&self) -> Vec<(u64, u64)> {
        self.lock().clone()
    }

    /// Forgets what was logged.
    pub fn reset(&self) {
        self.lock().clear();
    }

    fn push(&self, offset: u64, len: u64) {
        self.lock().push((offset, len));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(u64, u64)>> {
        // A poisoned log only means a test panicked mid-push; the data is fine.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Forwards to an inner source and logs each request in a [`RequestLog`].
pub struct CountingSource<S> {
    inner: S,
    log: RequestLog,
}

impl<S: ByteSource> CountingSource<S> {
    /// Wraps `inner`; read the counts through [`log`](Self::log).
    pub fn new(inner: S) -> Self {
        Self {
            inner,
            log: RequestLog::default(),
        }
    }

    /// A handle to the log that stays valid after the source moves.
    pub fn log(&self) -> RequestLog {
        self.log.clone()
    }
}

impl<S: ByteSource> ByteSource for CountingSource<S> {
    fn read_range(&self, range: Range<u64>) -> SourceFuture<'_, Vec<u8>> {
        self.log
            .push(range.start, range.end.saturating_sub(range.start));
        self.inner.read_range(range)
    }

    fn read_tail(&self, len: u64) -> SourceFuture<'_, Tail> {
        Box::pin(async move {
            let tail = self.inner.read_tail(len).await;
            match &tail {
                Ok(t) => self
                    .log
                    .push(t.object_size - t.bytes.len() as u64, t.bytes.len() as u64),
                Err(_) => self.log.push(0, 0),
            }
            tail
        })
    }

    fn describe(&self) -> String {
        self.inner.describe()
    }
}
