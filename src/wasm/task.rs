//! What one call carries besides its future: an abort promise and a progress callback.
//!
//! Abort drops the core's future, so nothing more is asked of the sources on
//! the call's behalf; a source read that only this call awaited is aborted
//! too (see `source.rs`). Progress needs no hook in the core: while a call's
//! future is being polled, its progress is "current", and a source read
//! started during that poll reports to it. The module is single-threaded
//! (wasm32), so "current" is a thread-local.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use futures_util::future::{select, Either};
use js_sys::{Function, Promise};
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

use super::convert::object;
use crate::error::{Error, Result};

thread_local! {
    static CURRENT: RefCell<Option<Rc<Progress>>> = const { RefCell::new(None) };
}

/// Bytes requested and received on behalf of one call.
pub(crate) struct Progress {
    callback: Function,
    requested: Cell<f64>,
    loaded: Cell<f64>,
}

impl Progress {
    pub(crate) fn started(&self, bytes: u64) {
        self.requested.set(self.requested.get() + bytes as f64);
    }

    /// Counts `bytes` in and tells the caller `{loaded, requested}`. A
    /// callback that throws does not fail the read.
    pub(crate) fn finished(&self, bytes: u64) {
        self.loaded.set(self.loaded.get() + bytes as f64);
        let report = object(&[
            ("loaded", self.loaded.get().into()),
            ("requested", self.requested.get().into()),
        ]);
        let _ = self.callback.call1(&JsValue::NULL, &report);
    }
}

/// The progress of the call being polled now, if it asked for one.
pub(crate) fn current() -> Option<Rc<Progress>> {
    CURRENT.with(|c| c.borrow().clone())
}

/// One boxed future type for every call, so the code below exists once.
pub(crate) type Call = Pin<Box<dyn Future<Output = Result<JsValue>>>>;

/// Runs `future` to its end, or to the settling of `abort` (then
/// [`Error::Aborted`]), reporting source reads to `on_progress`.
pub(crate) async fn run(
    future: Call,
    abort: Option<Promise>,
    on_progress: Option<Function>,
) -> Result<JsValue> {
    let progress = on_progress.map(|callback| {
        Rc::new(Progress {
            callback,
            requested: Cell::new(0.0),
            loaded: Cell::new(0.0),
        })
    });
    let tracked = Tracked {
        inner: future,
        progress,
    };
    match abort {
        None => tracked.await,
        Some(abort) => match select(tracked, JsFuture::from(abort)).await {
            Either::Left((result, _)) => result,
            Either::Right(_) => Err(Error::Aborted),
        },
    }
}

/// A future that makes its progress current while it is polled.
struct Tracked {
    inner: Call,
    progress: Option<Rc<Progress>>,
}

impl Future for Tracked {
    type Output = Result<JsValue>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let previous = CURRENT.with(|c| c.replace(self.progress.clone()));
        let polled = self.inner.as_mut().poll(cx);
        CURRENT.with(|c| *c.borrow_mut() = previous);
        polled
    }
}
