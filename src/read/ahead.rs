//! Block loads yielded in order, with their range reads started ahead.
//!
//! A block load is its fetch and then its decode. Were the loads the only
//! thing polled, a request could leave only once an earlier block had been
//! decoded and taken; here the fetches run on their own, so the next request
//! leaves as soon as a slot frees, while the decoder is still busy.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_util::stream::Stream;
use futures_util::FutureExt;

/// A range read that item `last` of a load stream (and maybe earlier ones) awaits.
pub(crate) struct Prefetch<F> {
    pub(crate) fetch: F,
    /// Compressed bytes it brings.
    pub(crate) bytes: u64,
    /// The last item that needs it: once that is yielded, the read is behind.
    pub(crate) last: usize,
}

/// `loads` yielded in order, the first `concurrency` of them polled at a
/// time, and `queued` (in the order the loads need them) started early: at
/// most `concurrency` at a time, at most `2 × concurrency` reads and `limit`
/// bytes ahead of the item being yielded (always one). A fetch must be
/// shared with the loads that await it.
///
/// Polled in turn rather than through `FuturesUnordered`: a handful each,
/// and the wasm module is smaller without it.
pub(crate) struct InOrder<L: Future, F> {
    loads: VecDeque<Slot<L>>,
    queued: VecDeque<Prefetch<F>>,
    /// `(last, bytes)` of the reads started and not yet behind.
    ahead: VecDeque<(usize, u64)>,
    running: Vec<F>,
    yielded: usize,
    concurrency: usize,
    limit: u64,
}

enum Slot<L: Future> {
    Waiting(L),
    Done(L::Output),
}

impl<L: Future + Unpin, F: Future + Unpin> InOrder<L, F> {
    pub(crate) fn new(
        loads: impl IntoIterator<Item = L>,
        queued: VecDeque<Prefetch<F>>,
        concurrency: usize,
        limit: u64,
    ) -> Self {
        InOrder {
            loads: loads.into_iter().map(Slot::Waiting).collect(),
            queued,
            ahead: VecDeque::new(),
            running: Vec::new(),
            yielded: 0,
            concurrency: concurrency.max(1),
            limit,
        }
    }

    /// Forgets reads now behind, starts what the bounds allow, and polls
    /// the running ones (a read is sent when first polled).
    fn fetch_ahead(&mut self, cx: &mut Context<'_>) {
        while self
            .ahead
            .front()
            .is_some_and(|&(last, _)| last < self.yielded)
        {
            self.ahead.pop_front();
        }
        // Reads the loads already started and awaited themselves.
        while self.queued.front().is_some_and(|p| p.last < self.yielded) {
            self.queued.pop_front();
        }
        self.poll_running(cx);
        while self.running.len() < self.concurrency
            && self.ahead.len() < self.concurrency.saturating_mul(2)
        {
            let held: u64 = self.ahead.iter().map(|&(_, bytes)| bytes).sum();
            let room = self.limit.saturating_sub(held);
            match self.queued.front() {
                Some(next) if self.ahead.is_empty() || next.bytes <= room => {}
                _ => break,
            }
            let Some(next) = self.queued.pop_front() else {
                break;
            };
            self.ahead.push_back((next.last, next.bytes));
            self.running.push(next.fetch);
        }
        self.poll_running(cx);
    }

    fn poll_running(&mut self, cx: &mut Context<'_>) {
        self.running
            .retain_mut(|fetch| fetch.poll_unpin(cx).is_pending());
    }
}

impl<L, F> Stream for InOrder<L, F>
where
    L: Future + Unpin,
    L::Output: Unpin,
    F: Future + Unpin,
{
    type Item = L::Output;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<L::Output>> {
        let this = self.get_mut();
        this.fetch_ahead(cx);
        for slot in this.loads.iter_mut().take(this.concurrency) {
            if let Slot::Waiting(load) = slot {
                if let Poll::Ready(out) = load.poll_unpin(cx) {
                    *slot = Slot::Done(out);
                }
            }
        }
        match this.loads.front() {
            None => return Poll::Ready(None),
            Some(Slot::Waiting(_)) => return Poll::Pending,
            Some(Slot::Done(_)) => {}
        }
        let Some(Slot::Done(out)) = this.loads.pop_front() else {
            return Poll::Pending; // checked just above
        };
        // Before the caller spends time on this item.
        this.yielded += 1;
        this.fetch_ahead(cx);
        Poll::Ready(Some(out))
    }
}
