//! The collection module's bindings (`bindings/collection`, over
//! `bindings/js`): JavaScript sources through the core, abort
//! on drop, errors with codes, and the exported handles' typed answers.
#![cfg(target_arch = "wasm32")]

use std::sync::Arc;

use atlas_wasm::{Atlas, ByteSource, Error, MemorySource};
use atlas_wasm_collection::AtlasHandle;
use atlas_wasm_js::{JsByteSource, JsSource};
use futures_util::future::{ready, select, Either};
use js_sys::{Array, Function, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::wasm_bindgen_test;

#[allow(dead_code)]
#[path = "../../tests/common/dump.rs"]
mod dump;

const DATA: &[u8] = include_bytes!("../fixtures/every_dtype_zstd/data.atlas");

#[wasm_bindgen(inline_js = r#"
export function bytesSource(bytes, log) {
  return {
    describe: () => "test bytes",
    readTail: async (length) => {
      log.push(`tail ${length}`);
      return { size: bytes.length, bytes: bytes.slice(Math.max(0, bytes.length - length)) };
    },
    read: async (offset, length) => {
      log.push(`read ${offset} ${length}`);
      return bytes.slice(offset, offset + length);
    },
  };
}
export function hangingSource(signals) {
  const hang = (signal) => { signals.push(signal); return new Promise(() => {}); };
  return { describe: () => "hangs", readTail: (length, signal) => hang(signal), read: (o, l, signal) => hang(signal) };
}
export function failingSource(code) {
  const fail = async () => { const e = new Error("gone"); if (code) e.code = code; throw e; };
  return { describe: () => "fails", readTail: fail, read: fail };
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = bytesSource)]
    fn bytes_source(bytes: &Uint8Array, log: &Array) -> JsSource;
    #[wasm_bindgen(js_name = hangingSource)]
    fn hanging_source(signals: &Array) -> JsSource;
    #[wasm_bindgen(js_name = failingSource)]
    fn failing_source(code: Option<String>) -> JsSource;
}

fn js_bytes(log: &Array) -> JsSource {
    bytes_source(&Uint8Array::from(DATA), log)
}

fn get(target: &JsValue, key: &str) -> JsValue {
    Reflect::get(target, &key.into()).unwrap()
}

/// Calls `target[method](...args)`, as JavaScript would.
fn call(target: &JsValue, method: &str, args: &[JsValue]) -> Result<JsValue, JsValue> {
    let f: Function = get(target, method).dyn_into().unwrap();
    f.apply(target, &args.iter().collect::<Array>())
}

#[wasm_bindgen_test]
async fn a_javascript_source_reads_what_memory_reads() {
    let log = Array::new();
    let through_js = Atlas::open(Arc::new(JsByteSource::new(js_bytes(&log))), None)
        .await
        .unwrap();
    let in_memory = Atlas::open(Arc::new(MemorySource::new(DATA.to_vec())), None)
        .await
        .unwrap();
    assert_eq!(
        log.get(0).as_string().unwrap(),
        "tail 65536",
        "open is one tail read"
    );
    assert_eq!(log.length(), 1);
    assert_eq!(
        dump::dump(&through_js).await.unwrap(),
        dump::dump(&in_memory).await.unwrap()
    );
}

#[wasm_bindgen_test]
async fn a_mask_that_is_not_found_hides_nothing_and_other_failures_fail() {
    let absent = Arc::new(JsByteSource::new(failing_source(Some("NotFound".into()))));
    let atlas = Atlas::open(Arc::new(MemorySource::new(DATA.to_vec())), Some(absent))
        .await
        .unwrap();
    assert_eq!(atlas.deleted_count(), 0);

    let broken = Arc::new(JsByteSource::new(failing_source(None)));
    let error = Atlas::open(Arc::new(MemorySource::new(DATA.to_vec())), Some(broken))
        .await
        .unwrap_err();
    assert!(
        matches!(&error, Error::Io(m) if m.contains("fails: gone")),
        "{error:?}"
    );
}

#[wasm_bindgen_test]
async fn a_dropped_read_aborts_its_request() {
    let signals = Array::new();
    let source = JsByteSource::new(hanging_source(&signals));
    let read = source.read_range(0..8);
    match select(read, ready(())).await {
        Either::Right(((), pending)) => drop(pending),
        Either::Left(_) => panic!("a hanging source answered"),
    }
    assert_eq!(signals.length(), 1);
    assert_eq!(get(&signals.get(0), "aborted"), JsValue::TRUE);
}

#[wasm_bindgen_test]
async fn a_short_answer_is_an_error() {
    let source = JsByteSource::new(js_bytes(&Array::new()));
    assert!(matches!(source.read_range(0..8).await, Ok(b) if b == DATA[..8]));
    let past_the_end = DATA.len() as u64;
    let error = source
        .read_range(past_the_end - 4..past_the_end + 4)
        .await
        .unwrap_err();
    assert!(
        matches!(&error, Error::Io(m) if m.contains("answered 4 bytes")),
        "{error:?}"
    );
}

#[wasm_bindgen_test]
async fn handles_answer_typed_arrays_and_coded_errors() {
    let handle: JsValue = JsFuture::from(AtlasHandle::open(
        js_bytes(&Array::new()),
        None,
        JsValue::UNDEFINED,
        None,
    ))
    .await
    .unwrap();
    let dataset = call(&handle, "dataset", &["chunked".into()]).unwrap();
    let expected = [
        ("int8", "Int8Array"),
        ("uint16", "Uint16Array"),
        ("int64", "BigInt64Array"),
        ("uint64", "BigUint64Array"),
        ("float32", "Float32Array"),
        ("timestamp_ns", "BigInt64Array"),
        ("string", "Array"),
        ("binary", "Array"),
    ];
    for (array, class) in expected {
        let none = JsValue::UNDEFINED;
        let promise = call(
            &dataset,
            "read",
            &[array.into(), none.clone(), none.clone(), none.clone(), none],
        )
        .unwrap();
        let read = JsFuture::from(js_sys::Promise::from(promise))
            .await
            .unwrap();
        assert_eq!(get(&read, "dtype").as_string().unwrap(), array);
        let data = get(&read, "data");
        assert_eq!(
            get(&get(&data, "constructor"), "name").as_string().unwrap(),
            class,
            "{array}"
        );
    }
    let missing = call(&handle, "dataset", &["nope".into()]).unwrap_err();
    assert_eq!(
        get(&missing, "code").as_string().unwrap(),
        "DatasetNotFound"
    );
}
