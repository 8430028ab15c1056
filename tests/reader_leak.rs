//! A read dropped while its segment opens or its block loads (a timeout, an
//! abandoned promise) must not keep the collection alive: the shared futures
//! it leaves in the handle's maps hold the handle only weakly. The proof is
//! the data source, which only the handle holds: it must be dropped when
//! the handle is.

mod common;

use std::future::Future;
use std::ops::Range;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Waker};

use atlas_wasm::source::{SourceFuture, Tail};
use atlas_wasm::{Atlas, ByteSource, MemorySource};
use common::block_on;

/// Serves the bytes until `pend_from` range reads have been made; every
/// read after that never answers. Says when it is dropped.
struct Gate {
    inner: MemorySource,
    reads: Arc<AtomicUsize>,
    pend_from: Arc<AtomicUsize>,
    pended: Arc<AtomicBool>,
    dropped: Arc<AtomicBool>,
}

impl Drop for Gate {
    fn drop(&mut self) {
        self.dropped.store(true, Ordering::SeqCst);
    }
}

impl ByteSource for Gate {
    fn read_range(&self, range: Range<u64>) -> SourceFuture<'_, Vec<u8>> {
        let n = self.reads.fetch_add(1, Ordering::SeqCst);
        if n >= self.pend_from.load(Ordering::SeqCst) {
            self.pended.store(true, Ordering::SeqCst);
            return Box::pin(std::future::pending());
        }
        self.inner.read_range(range)
    }

    fn read_tail(&self, len: u64) -> SourceFuture<'_, Tail> {
        self.inner.read_tail(len)
    }

    fn describe(&self) -> String {
        "a gated source".into()
    }
}

/// Opens large_window (one array in one block, in a segment too large to be
/// read whole, so the segment footer and the block take a request each),
/// lets `allowed` range reads through, polls a read until it waits on the
/// next, drops it, drops the handle: is the source dropped?
fn source_freed_after_a_read_dropped_at(allowed: usize) -> bool {
    let bytes = std::fs::read(common::suite().join("large_window/data.atlas")).unwrap();
    let reads = Arc::new(AtomicUsize::new(0));
    let pend_from = Arc::new(AtomicUsize::new(usize::MAX));
    let (pended, dropped) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicBool::new(false)),
    );
    let gate = Gate {
        inner: MemorySource::new(bytes),
        reads: reads.clone(),
        pend_from: pend_from.clone(),
        pended: pended.clone(),
        dropped: dropped.clone(),
    };
    let atlas = block_on(Atlas::open(Arc::new(gate), None)).unwrap();
    pend_from.store(reads.load(Ordering::SeqCst) + allowed, Ordering::SeqCst);
    let dataset = atlas.dataset("grid").unwrap();
    {
        let mut read = pin!(dataset.read_array("field", &[], &[]));
        let mut cx = Context::from_waker(Waker::noop());
        for _ in 0..100 {
            assert!(
                read.as_mut().poll(&mut cx).is_pending(),
                "the gate holds the read"
            );
            if pended.load(Ordering::SeqCst) {
                break;
            }
        }
        assert!(pended.load(Ordering::SeqCst), "the read reached the gate");
    } // the read is dropped here, mid-request
    drop(dataset);
    drop(atlas);
    dropped.load(Ordering::SeqCst)
}

#[test]
fn a_read_dropped_while_its_segment_opens_frees_the_collection() {
    assert!(source_freed_after_a_read_dropped_at(0));
}

#[test]
fn a_read_dropped_while_its_block_loads_frees_the_collection() {
    assert!(source_freed_after_a_read_dropped_at(1));
}

#[test]
fn an_undisturbed_handle_frees_its_source() {
    // The control: without a pending read the source goes with the handle.
    let bytes = std::fs::read(common::suite().join("large_window/data.atlas")).unwrap();
    let dropped = Arc::new(AtomicBool::new(false));
    let gate = Gate {
        inner: MemorySource::new(bytes),
        reads: Arc::default(),
        pend_from: Arc::new(AtomicUsize::new(usize::MAX)),
        pended: Arc::default(),
        dropped: dropped.clone(),
    };
    let atlas = block_on(Atlas::open(Arc::new(gate), None)).unwrap();
    let values = block_on(atlas.dataset("grid").unwrap().read_array("field", &[], &[])).unwrap();
    drop(values);
    drop(atlas);
    assert!(dropped.load(Ordering::SeqCst));
}
