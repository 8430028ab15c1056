//! How one call runs: polled from JavaScript, cut short by its abort promise.
//!
//! Abort drops the core's future, so nothing more is asked of the sources on
//! the call's behalf; a source read that only this call awaited is aborted
//! too (see `source.rs`). A read's progress reporter travels with its answer
//! (the collection module's `JsStack`), which the core tells what the read
//! will request.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use atlas_wasm::Error;
use futures_util::future::{select, Either};
use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::error::{error_class, to_js};

/// One boxed future type for every call, so the code below exists once. Its
/// error is already in its JavaScript form: each module gives its own
/// errors' (the core's, or Atria's).
type Call = Pin<Box<dyn Future<Output = Result<JsValue, JsValue>>>>;

/// A module's call before its error is in JavaScript form: boxed by the
/// module, so that [`spawn_abortable`] exists once per error type, not once
/// per call.
pub type ModuleCall<E> = Pin<Box<dyn Future<Output = Result<JsValue, E>>>>;

/// A call's future, polled from JavaScript rather than from wasm-bindgen's
/// microtask queue.
///
/// Why: with `panic = "abort"` a panic in Rust is a wasm trap. Polled from
/// wasm-bindgen-futures' queue, the trap surfaces in a microtask nobody
/// awaits, as an uncaught `RuntimeError: unreachable` that kills a Node
/// process and poisons a page. Polled from `drive` (below), it surfaces
/// inside a `try` that turns it into a rejected promise with code `Internal`.
#[wasm_bindgen]
pub struct Task {
    id: u32,
    call: Option<Call>,
    value: Option<JsValue>,
}

thread_local! {
    /// Each pending task's JavaScript `wake` function, by task id. A `Waker`
    /// must be `Send + Sync`; an id is, a JavaScript function is not.
    static WAKERS: RefCell<std::collections::HashMap<u32, Function>> = RefCell::default();
    static NEXT_ID: Cell<u32> = const { Cell::new(0) };
    /// The message of the last panic, for the `Internal` error that reports it.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
    /// `take_panic_message` as a JavaScript function, made once.
    static PANIC_READER: Function = Closure::<dyn Fn() -> Option<String>>::new(take_panic_message)
        .into_js_value()
        .unchecked_into();
}

struct JsWake(u32);

impl std::task::Wake for JsWake {
    fn wake(self: std::sync::Arc<Self>) {
        self.wake_by_ref()
    }

    fn wake_by_ref(self: &std::sync::Arc<Self>) {
        let wake = WAKERS.with(|w| w.borrow().get(&self.0).cloned());
        if let Some(wake) = wake {
            let _ = wake.call0(&JsValue::NULL);
        }
    }
}

#[wasm_bindgen]
impl Task {
    /// Polls once; `true` when the call is done and [`take`](Self::take)
    /// holds its value. `wake` is called when polling again can make progress.
    pub fn poll(&mut self, wake: &Function) -> std::result::Result<bool, JsValue> {
        let Some(call) = self.call.as_mut() else {
            return Ok(true);
        };
        WAKERS.with(|w| w.borrow_mut().insert(self.id, wake.clone()));
        let waker = std::task::Waker::from(std::sync::Arc::new(JsWake(self.id)));
        let polled = call.as_mut().poll(&mut Context::from_waker(&waker));
        match polled {
            Poll::Pending => Ok(false),
            Poll::Ready(result) => {
                self.finish();
                self.value = Some(result?);
                Ok(true)
            }
        }
    }

    /// Ends the call before its time, its `AbortSignal` having fired: drops
    /// its future (so nothing more is asked of the sources on its behalf)
    /// and returns the `Aborted` error to reject with.
    pub fn abort(&mut self) -> JsValue {
        self.finish();
        to_js(Error::Aborted)
    }

    /// The value of a finished call.
    pub fn take(&mut self) -> JsValue {
        self.value.take().unwrap_or(JsValue::UNDEFINED)
    }

    fn finish(&mut self) {
        self.call = None;
        WAKERS.with(|w| w.borrow_mut().remove(&self.id));
    }
}

impl Drop for Task {
    fn drop(&mut self) {
        self.finish();
    }
}

/// The message of the panic that trapped the instance, if any (then cleared).
#[wasm_bindgen(js_name = takePanicMessage)]
pub fn take_panic_message() -> Option<String> {
    LAST_PANIC.with(|p| p.borrow_mut().take())
}

/// Records panic messages before the trap, so `drive` can report them.
fn remember_panics() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let message = info.to_string();
            let _ = LAST_PANIC.try_with(|p| p.try_borrow_mut().map(|mut p| *p = Some(message)));
        }))
    });
}

thread_local! {
    /// The facade's `drive` (js/src/drive.js), registered once at init.
    static DRIVER: RefCell<Option<Function>> = const { RefCell::new(None) };
}

/// Registers the function that polls every call's [`Task`] from JavaScript;
/// the facade calls this once after init. A plain JS module rather than
/// `inline_js`: a snippet is one more file every bundler and workerd's module
/// list would have to be told about.
#[wasm_bindgen(js_name = setDriver)]
pub fn set_driver(drive: Function) {
    DRIVER.with(|d| *d.borrow_mut() = Some(drive));
}

/// Runs `call` to its end under [`Task`]: a promise of its value or of its
/// `AtlasError`, and of an `Internal` error if it panics. When `abort` (an
/// `AbortSignal`'s promise) settles first, `drive` drops the call through
/// [`Task::abort`]. Why not `select` on a `JsFuture` of `abort`: a `JsFuture`
/// dropped before its promise settles keeps its two closures alive for good,
/// and a signal that never fires is the common case.
fn settle(call: Call, abort: Option<Promise>) -> Promise {
    remember_panics();
    let Some(drive) = DRIVER.with(|d| d.borrow().clone()) else {
        // Not under the facade (the wasm-bindgen tests): wasm-bindgen's own queue.
        return wasm_bindgen_futures::future_to_promise(async move {
            match abort {
                None => call.await,
                Some(abort) => match select(call, JsFuture::from(abort)).await {
                    Either::Left((result, _)) => result,
                    Either::Right(_) => Err(to_js(Error::Aborted)),
                },
            }
        });
    };
    let id = NEXT_ID.with(|n| {
        let id = n.get();
        n.set(id.wrapping_add(1));
        id
    });
    let task = Task {
        id,
        call: Some(call),
        value: None,
    };
    let take_panic = PANIC_READER.with(Clone::clone);
    let args = js_sys::Array::of4(
        &task.into(),
        &error_class(),
        &take_panic,
        &abort.map_or(JsValue::UNDEFINED, JsValue::from),
    );
    match drive.apply(&JsValue::NULL, &args) {
        Ok(promise) => promise.unchecked_into(),
        Err(thrown) => Promise::reject(&thrown),
    }
}

/// A call that panics after its first suspension: the package's tests use it
/// to prove that a panic reaches the caller as a rejected promise with code
/// `Internal`, and that the instance goes on serving other handles.
#[doc(hidden)]
#[wasm_bindgen(js_name = "__panicInsideCall")]
pub fn panic_inside_call() -> Promise {
    settle(
        Box::pin(async {
            let resolved = Promise::resolve(&JsValue::NULL);
            let _ = JsFuture::from(resolved).await;
            let forged: Vec<u8> = Vec::new();
            // An index out of bounds, as a forged length once caused.
            Ok(JsValue::from(forged[usize::from(forged.is_empty())]))
        }),
        None,
    )
}

/// Runs `call`, which `abort` (an `AbortSignal`'s promise) may cut short,
/// on the JavaScript event loop: a promise of its value or of its error in
/// JavaScript form (`to_js`: [`to_js`] for the core's errors, the Atria
/// module's own for Atria's).
pub fn spawn_abortable<E: 'static>(
    call: ModuleCall<E>,
    to_js: fn(E) -> JsValue,
    abort: Option<Promise>,
) -> Promise {
    settle(Box::pin(async move { call.await.map_err(to_js) }), abort)
}
