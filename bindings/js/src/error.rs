//! Errors across the boundary.
//!
//! Out: every [`Error`] becomes an instance of the class the facade
//! registers (`AtlasError`; the Atria module's `AtriaError`), built as
//! `new AtlasError(message, code)` where `code` is [`Error::code`]; the
//! Atria module passes its own errors' codes to [`js_error`]. In: a source written
//! in JavaScript throws `AtlasError`s too, and their `code` picks the
//! core's variant, so "object missing" stays [`Error::NotFound`] on its way
//! through the core (a code only an Atria reader gives is no source's, and
//! comes in as `Io`).

use std::cell::RefCell;

use js_sys::{Array, Function, Reflect};
use wasm_bindgen::prelude::*;

use atlas_wasm::Error;

thread_local! {
    static ERROR_CLASS: RefCell<Option<Function>> = const { RefCell::new(None) };
}

/// Makes errors instances of `class`; the facade calls this once after init.
#[wasm_bindgen(js_name = setErrorClass)]
pub fn set_error_class(class: Function) {
    ERROR_CLASS.with(|c| *c.borrow_mut() = Some(class));
}

/// The registered `AtlasError` class, or `undefined` before the facade's init.
pub(crate) fn error_class() -> JsValue {
    ERROR_CLASS.with(|c| c.borrow().clone().map_or(JsValue::UNDEFINED, Into::into))
}

/// The JavaScript form of `error`.
pub fn to_js(error: Error) -> JsValue {
    js_error(&error.to_string(), error.code(), error.http_status())
}

/// `new AtlasError(message, code, {status})`, or a plain `Error` carrying
/// `code` (and `status`) before the facade has registered its class.
pub fn js_error(message: &str, code: &str, status: Option<u16>) -> JsValue {
    let options = js_sys::Object::new();
    if let Some(status) = status {
        let _ = Reflect::set(&options, &"status".into(), &status.into());
    }
    if let Some(class) = ERROR_CLASS.with(|c| c.borrow().clone()) {
        let args = Array::of3(&message.into(), &code.into(), &options);
        if let Ok(error) = Reflect::construct(&class, &args) {
            return error;
        }
    }
    let error = js_sys::Error::new(message);
    error.set_name("AtlasError");
    let _ = Reflect::set(&error, &"code".into(), &code.into());
    if let Some(status) = status {
        let _ = Reflect::set(&error, &"status".into(), &status.into());
    }
    error.into()
}

/// The core error for what a JavaScript source threw. Our own sources throw
/// `AtlasError`s whose `code` (and `status`) is kept; anything else is
/// [`Error::Io`] naming the source.
pub fn from_js(thrown: &JsValue, source: &str) -> Error {
    let text = |key: &str| {
        Reflect::get(thrown, &key.into())
            .ok()
            .and_then(|v| v.as_string())
    };
    let message = text("message")
        .or_else(|| thrown.as_string())
        .unwrap_or_else(|| "the source failed without a message".to_string());
    if text("name").as_deref() == Some("AbortError") {
        return Error::Aborted;
    }
    let status = Reflect::get(thrown, &"status".into())
        .ok()
        .and_then(|v| v.as_f64())
        .filter(|s| (100.0..1000.0).contains(s))
        .map(|s| s as u16);
    text("code")
        .and_then(|code| Error::from_code(&code, message.clone(), status))
        // A user's source failing in its own words: say which source it was.
        .unwrap_or_else(|| Error::Io(format!("{source}: {message}")))
}
