//! A global allocator that refuses (returns null for) any allocation that
//! would take the live heap past [`LIVE_CAP`]. Rust turns the refusal into an
//! abort, which libFuzzer records as a crash with the input that caused it:
//! an allocation sized by an untrusted number cannot hide behind a machine
//! with plenty of memory.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Far above the 16 MiB memory budget the targets read with, far below
/// libFuzzer's `-rss_limit_mb=512`.
pub const LIVE_CAP: usize = 256 << 20;

/// The allocator; install it with `#[global_allocator]`.
pub struct CappedAlloc;

static LIVE: AtomicUsize = AtomicUsize::new(0);

impl CappedAlloc {
    /// Reserves `size` bytes of the cap, or says no.
    fn reserve(size: usize) -> bool {
        LIVE.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |live| {
            live.checked_add(size).filter(|&n| n <= LIVE_CAP)
        })
        .is_ok()
    }

    fn release(size: usize) {
        LIVE.fetch_sub(size, Ordering::Relaxed);
    }
}

// SAFETY: every call is passed to `System` unchanged; the counter only
// decides whether to make the call.
unsafe impl GlobalAlloc for CappedAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !Self::reserve(layout.size()) {
            return std::ptr::null_mut();
        }
        let p = System.alloc(layout);
        if p.is_null() {
            Self::release(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !Self::reserve(layout.size()) {
            return std::ptr::null_mut();
        }
        let p = System.alloc_zeroed(layout);
        if p.is_null() {
            Self::release(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        Self::release(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let old = layout.size();
        if new_size > old && !Self::reserve(new_size - old) {
            return std::ptr::null_mut();
        }
        let p = System.realloc(ptr, layout, new_size);
        if p.is_null() {
            if new_size > old {
                Self::release(new_size - old);
            }
        } else if new_size < old {
            Self::release(old - new_size);
        }
        p
    }
}
