//! Pages of one large segment footer, fetched as calls need them and kept
//! (least recently used out) under a byte limit.
//!
//! Ranges asked together are fetched together: the missing pages of each
//! are joined into runs, one request per run, all in flight at once; a
//! page another call is already fetching is awaited, not asked again.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use futures_util::future::{join_all, FutureExt, Shared};

use crate::error::{Error, Result};
use crate::source::{ByteSource, SourceFuture};

/// Bytes per page: small enough that one dataset's entry costs a few, large
/// enough that a window of neighbours is one.
pub(crate) const PAGE: u64 = 8 * 1024;

type Span = Shared<SourceFuture<'static, Arc<Vec<u8>>>>;

struct Slot {
    /// The request that brings the page, and where the page starts in it.
    span: Span,
    at: usize,
    used: u64,
}

/// The pages of the footer at `start..end` of the container.
pub(crate) struct Pages {
    source: Arc<dyn ByteSource>,
    start: u64,
    end: u64,
    keep: usize,
    slots: Mutex<(HashMap<u64, Slot>, u64)>,
}

impl Pages {
    /// Pages of the footer at `footer` (container offsets), keeping at most
    /// `limit` bytes of them; `tail` holds bytes already read, from a
    /// footer-relative position to the footer's end.
    pub(crate) fn new(
        source: Arc<dyn ByteSource>,
        footer: Range<u64>,
        limit: u64,
        tail: (u64, Vec<u8>),
    ) -> Pages {
        let pages = Pages {
            source,
            start: footer.start,
            end: footer.end,
            keep: (limit / PAGE).max(16) as usize,
            slots: Mutex::new((HashMap::new(), 0)),
        };
        let (from, bytes) = tail;
        let first = from.div_ceil(PAGE);
        let len = pages.len();
        let bytes = Arc::new(bytes);
        let mut slots = pages.lock();
        for page in first..len.div_ceil(PAGE) {
            let at = (page * PAGE - from) as usize;
            let ready: SourceFuture<'static, Arc<Vec<u8>>> =
                Box::pin(std::future::ready(Ok(bytes.clone())));
            slots.0.insert(
                page,
                Slot {
                    span: ready.shared(),
                    at,
                    used: 0,
                },
            );
        }
        drop(slots);
        pages
    }

    /// The footer's length.
    pub(crate) fn len(&self) -> u64 {
        self.end - self.start
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (HashMap<u64, Slot>, u64)> {
        self.slots.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The bytes of each footer-relative range, fetching the missing pages
    /// of all of them at once.
    pub(crate) async fn read(&self, ranges: &[Range<u64>]) -> Result<Vec<Vec<u8>>> {
        let len = self.len();
        if let Some(bad) = ranges.iter().find(|r| r.start > r.end || r.end > len) {
            return Err(Error::corrupt_collection(format!(
                "a segment footer of {len} bytes has no bytes {}..{}",
                bad.start, bad.end
            )));
        }
        let wanted: Vec<Vec<(u64, Span, usize)>> = {
            let mut slots = self.lock();
            let mut missing: Vec<u64> = ranges
                .iter()
                .flat_map(pages_of)
                .filter(|p| !slots.0.contains_key(p))
                .collect();
            missing.sort_unstable();
            missing.dedup();
            for run in runs(&missing) {
                let (from, to) = (run.start * PAGE, (run.end * PAGE).min(len));
                let source = self.source.clone();
                let absolute = self.start + from..self.start + to;
                let fetch: SourceFuture<'static, Arc<Vec<u8>>> =
                    Box::pin(async move { source.read_range(absolute).await.map(Arc::new) });
                let span = fetch.shared();
                for page in run.clone() {
                    let at = ((page - run.start) * PAGE) as usize;
                    slots.0.insert(
                        page,
                        Slot {
                            span: span.clone(),
                            at,
                            used: 0,
                        },
                    );
                }
            }
            slots.1 += 1;
            let now = slots.1;
            let wanted = ranges
                .iter()
                .map(|r| {
                    pages_of(r)
                        .map(|p| {
                            let slot = slots.0.get_mut(&p).expect("inserted above");
                            slot.used = now;
                            (p, slot.span.clone(), slot.at)
                        })
                        .collect()
                })
                .collect();
            self.evict(&mut slots.0);
            wanted
        };
        // Every page of every range at once: a span is asked when first polled.
        let spans = join_all(wanted.iter().flatten().map(|(_, span, _)| span.clone())).await;
        let mut spans = spans.into_iter();
        let mut answers = Vec::with_capacity(ranges.len());
        for (range, pages) in ranges.iter().zip(&wanted) {
            let mut bytes = Vec::with_capacity((range.end - range.start) as usize);
            for (page, _, at) in pages {
                let span = match spans.next().expect("one answer per page") {
                    Ok(span) => span,
                    Err(e) => {
                        // Let a later call ask again (a network error may pass).
                        let failed: Vec<u64> =
                            wanted.iter().flatten().map(|(p, _, _)| *p).collect();
                        self.lock().0.retain(|p, _| !failed.contains(p));
                        return Err(e);
                    }
                };
                let page_start = page * PAGE;
                let from = range.start.max(page_start) - page_start;
                let to = range.end.min(page_start + PAGE).min(len) - page_start;
                let (from, to) = (*at + from as usize, *at + to as usize);
                let slice = span.get(from..to).ok_or_else(|| {
                    Error::Io(format!(
                        "{} answered {} bytes for a footer page",
                        self.source.describe(),
                        span.len()
                    ))
                })?;
                bytes.extend_from_slice(slice);
            }
            answers.push(bytes);
        }
        Ok(answers)
    }

    fn evict(&self, slots: &mut HashMap<u64, Slot>) {
        if slots.len() <= self.keep {
            return;
        }
        let mut ages: Vec<u64> = slots.values().map(|s| s.used).collect();
        ages.sort_unstable();
        let oldest = ages[slots.len() - self.keep - 1];
        slots.retain(|_, s| s.used > oldest);
    }
}

fn pages_of(range: &Range<u64>) -> Range<u64> {
    if range.start == range.end {
        return 0..0;
    }
    range.start / PAGE..range.end.div_ceil(PAGE)
}

/// Sorted page numbers as runs of consecutive ones.
fn runs(pages: &[u64]) -> Vec<Range<u64>> {
    let mut runs: Vec<Range<u64>> = Vec::new();
    for &page in pages {
        match runs.last_mut() {
            Some(run) if run.end == page => run.end += 1,
            _ => runs.push(page..page + 1),
        }
    }
    runs
}
