//! One conformance suite over every native byte source: memory, file, HTTP
//! (against a fault server on 127.0.0.1 written here) and object_store
//! (in memory and over a local directory). Each case ends in the right
//! bytes or one specific error code, within a bounded number of requests.
//!
//! Cases a source cannot meet by construction are said so where they are
//! skipped: a memory object cannot be missing or replaced, and a local file
//! cannot answer with fewer or more bytes than asked.

#![cfg(all(feature = "http", feature = "cloud"))]

use std::collections::HashMap;
use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::ops::Range;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use atlas_wasm::source::{
    ByteSource, FileSource, HttpOptions, HttpSource, MemorySource, ObjectStoreSource, Tail,
};
use futures_executor::block_on;
use object_store::memory::InMemory;
use object_store::path::Path as StorePath;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload};

/// A recognisable object: byte `i` is `i * 7 + seed`, wrapping.
fn object(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(7).wrapping_add(seed))
        .collect()
}

fn code<T: fmt::Debug>(result: atlas_wasm::Result<T>) -> &'static str {
    match result {
        Ok(v) => panic!("expected an error, got {v:?}"),
        Err(e) => e.code(),
    }
}

fn tail(source: &dyn ByteSource, len: u64) -> atlas_wasm::Result<Tail> {
    block_on(source.read_tail(len))
}

fn read(source: &dyn ByteSource, range: Range<u64>) -> atlas_wasm::Result<Vec<u8>> {
    block_on(source.read_range(range))
}

// ─── The fault server ──────────────────────────────────────────────────────

/// One request as the server saw it.
#[derive(Debug, Clone)]
struct Seen {
    path: String,
    if_match: Option<String>,
    status: u16,
}

#[derive(Default)]
struct State {
    /// name -> (bytes, version); the ETag is `"v{version}"`.
    objects: Mutex<HashMap<String, (Vec<u8>, u32)>>,
    log: Mutex<Vec<Seen>>,
}

/// The faults this server serves: the first segment of a path
/// (`/ok/NAME` serves ranges by the rules). They are the `faults` of
/// `http_faults.json`, which js/test/server.mjs serves too.
const FAULTS: &[&str] = &[
    "ok",
    "ignore-range",
    "416",
    "416-bare",
    "gzip",
    "br",
    "wrong-range",
    "multipart",
    "short",
    "long",
    "weak-etag",
    "ignore-if-match",
    "etag-change",
    "flaky",
    "down",
    "reset",
    "stall",
    "redirect-302",
    "redirect-307",
];

/// An HTTP/1.1 server on 127.0.0.1, one request per connection. The first
/// path segment picks the behaviour, one of [`FAULTS`] (anything else is
/// 501); it stops when dropped.
struct FaultServer {
    base: String,
    state: Arc<State>,
    stop: Arc<AtomicBool>,
}

impl FaultServer {
    fn start() -> FaultServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let state = Arc::new(State::default());
        let stop = Arc::new(AtomicBool::new(false));
        let (shared, stopped) = (state.clone(), stop.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (state, stop) = (shared.clone(), stopped.clone());
                std::thread::spawn(move || {
                    let _ = answer(stream, &state, &stop);
                });
            }
        });
        FaultServer { base, state, stop }
    }

    fn put(&self, name: &str, bytes: Vec<u8>) {
        let mut objects = self.state.objects.lock().unwrap();
        let version = objects.get(name).map_or(1, |(_, v)| v + 1);
        objects.insert(name.to_string(), (bytes, version));
    }

    fn source(&self, fault: &str, name: &str) -> HttpSource {
        let mut options = HttpOptions::default();
        options.backoff = Duration::from_millis(5);
        options.timeout = Duration::from_secs(5);
        HttpSource::with_options(format!("{}/{fault}/{name}", self.base), options)
    }

    /// Requests for object `name` so far, under any fault.
    fn seen(&self, name: &str) -> Vec<Seen> {
        let suffix = format!("/{name}");
        let log = self.state.log.lock().unwrap();
        log.iter()
            .filter(|s| s.path.ends_with(&suffix))
            .cloned()
            .collect()
    }
}

impl Drop for FaultServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(self.base.trim_start_matches("http://"));
    }
}

/// What `range` (a `Range` header value) asks of an object of `size`
/// bytes: `Ok(start..end)`, or `Err(())` when it cannot be satisfied.
fn resolve(range: &str, size: u64) -> Result<Range<u64>, ()> {
    let spec = range.strip_prefix("bytes=").ok_or(())?;
    let (a, b) = spec.split_once('-').ok_or(())?;
    if a.is_empty() {
        let n: u64 = b.parse().map_err(|_| ())?;
        return if size == 0 || n == 0 {
            Err(())
        } else {
            Ok(size - n.min(size)..size)
        };
    }
    let start: u64 = a.parse().map_err(|_| ())?;
    let end: u64 = b.parse().map_err(|_| ())?;
    if start >= size || end < start {
        return Err(());
    }
    Ok(start..end.min(size - 1) + 1)
}

fn answer(mut stream: TcpStream, state: &State, stop: &AtomicBool) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
    let (mut range, mut if_match) = (None, None);
    for _ in 0..100 {
        let mut header = String::new();
        if reader.read_line(&mut header)? <= 2 {
            break;
        }
        let (name, value) = header.split_once(':').unwrap_or(("", ""));
        match name.trim().to_ascii_lowercase().as_str() {
            "range" => range = Some(value.trim().to_string()),
            "if-match" => if_match = Some(value.trim().to_string()),
            _ => {}
        }
    }
    let mut parts = path.trim_start_matches('/').splitn(2, '/');
    let (fault, name) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let earlier = state
        .log
        .lock()
        .unwrap()
        .iter()
        .filter(|s| s.path == path)
        .count();
    let object = state.objects.lock().unwrap().get(name).cloned();

    // Logged before the answer goes out, so a client that hangs up early
    // cannot race the log.
    let send = |status_line: &str, headers: &[String], body: &[u8], out: &mut TcpStream| {
        let status = status_line
            .split(' ')
            .next()
            .unwrap_or("0")
            .parse()
            .unwrap_or(0);
        let seen = Seen {
            path: path.clone(),
            if_match: if_match.clone(),
            status,
        };
        state.log.lock().unwrap().push(seen);
        let mut head = format!("HTTP/1.1 {status_line}\r\nConnection: close\r\n");
        for h in headers {
            head.push_str(h);
            head.push_str("\r\n");
        }
        head.push_str("\r\n");
        let _ = out.write_all(head.as_bytes());
        let _ = out.write_all(body);
    };

    let weak = fault == "weak-etag";
    match (fault, object) {
        (fault, _) if !FAULTS.contains(&fault) => send(
            "501 Not Implemented",
            &["Content-Length: 0".into()],
            b"",
            &mut stream,
        ),
        ("redirect-302" | "redirect-307", _) => {
            let code = if fault == "redirect-302" {
                "302 Found"
            } else {
                "307 Temporary Redirect"
            };
            send(
                code,
                &[format!("Location: /ok/{name}"), "Content-Length: 0".into()],
                b"",
                &mut stream,
            );
        }
        ("down", _) => send(
            "503 Service Unavailable",
            &["Content-Length: 0".into()],
            b"",
            &mut stream,
        ),
        ("flaky", _) if earlier == 0 => send(
            "500 Internal Server Error",
            &["Content-Length: 0".into()],
            b"",
            &mut stream,
        ),
        (_, None) => send(
            "404 Not Found",
            &["Content-Length: 0".into()],
            b"",
            &mut stream,
        ),
        ("ignore-range", Some((bytes, _))) => send(
            "200 OK",
            &[format!("Content-Length: {}", bytes.len())],
            &bytes,
            &mut stream,
        ),
        ("416", Some((bytes, _))) => send(
            "416 Range Not Satisfiable",
            &[
                format!("Content-Range: bytes */{}", bytes.len()),
                "Content-Length: 0".into(),
            ],
            b"",
            &mut stream,
        ),
        ("416-bare", Some(_)) => send(
            "416 Range Not Satisfiable",
            &["Content-Length: 0".into()],
            b"",
            &mut stream,
        ),
        (_, Some((bytes, version))) => {
            let size = bytes.len() as u64;
            let etag = if weak {
                format!("W/\"v{version}\"")
            } else if fault == "etag-change" {
                format!("\"v{}\"", if earlier == 0 { 1 } else { 2 })
            } else {
                format!("\"v{version}\"")
            };
            let honours_if_match = fault != "ignore-if-match";
            let span = resolve(range.as_deref().unwrap_or(""), size);
            if honours_if_match && if_match.as_ref().is_some_and(|m| *m != etag) {
                send(
                    "412 Precondition Failed",
                    &["Content-Length: 0".into()],
                    b"",
                    &mut stream,
                );
            } else if let Err(()) = span {
                send(
                    "416 Range Not Satisfiable",
                    &[
                        format!("Content-Range: bytes */{size}"),
                        "Content-Length: 0".into(),
                    ],
                    b"",
                    &mut stream,
                );
            } else if let Ok(span) = span {
                let (start, end) = (span.start, span.end);
                let body = &bytes[start as usize..end as usize];
                let mut headers = vec![format!("ETag: {etag}")];
                let content_range = format!("Content-Range: bytes {start}-{}/{size}", end - 1);
                match fault {
                    "gzip" | "br" => {
                        headers.extend([content_range, format!("Content-Encoding: {fault}")]);
                        headers.push(format!("Content-Length: {}", body.len()));
                        send("206 Partial Content", &headers, body, &mut stream);
                    }
                    "wrong-range" => {
                        headers.push(format!("Content-Range: bytes {}-{}/{size}", start + 1, end));
                        headers.push(format!("Content-Length: {}", body.len()));
                        send("206 Partial Content", &headers, body, &mut stream);
                    }
                    "multipart" => {
                        let mut part = format!(
                            "--XX\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes {start}-{}/{size}\r\n\r\n",
                            end - 1
                        )
                        .into_bytes();
                        part.extend_from_slice(body);
                        part.extend_from_slice(b"\r\n--XX--\r\n");
                        headers.push("Content-Type: multipart/byteranges; boundary=XX".into());
                        headers.push(format!("Content-Length: {}", part.len()));
                        send("206 Partial Content", &headers, &part, &mut stream);
                    }
                    "short" => {
                        headers
                            .extend([content_range, format!("Content-Length: {}", body.len() - 1)]);
                        send("206 Partial Content", &headers, &body[1..], &mut stream);
                    }
                    "long" => {
                        let mut longer = body.to_vec();
                        longer.push(0);
                        headers
                            .extend([content_range, format!("Content-Length: {}", longer.len())]);
                        send("206 Partial Content", &headers, &longer, &mut stream);
                    }
                    "reset" | "stall" => {
                        // Half the body, then the connection breaks or stalls.
                        headers.extend([content_range, format!("Content-Length: {}", body.len())]);
                        send(
                            "206 Partial Content",
                            &headers,
                            &body[..body.len() / 2],
                            &mut stream,
                        );
                        let _ = stream.flush();
                        if fault == "stall" {
                            let until = Instant::now() + Duration::from_secs(3);
                            while Instant::now() < until && !stop.load(Ordering::SeqCst) {
                                std::thread::sleep(Duration::from_millis(20));
                            }
                        }
                        let _ = stream.shutdown(std::net::Shutdown::Both);
                    }
                    _ => {
                        headers.extend([content_range, format!("Content-Length: {}", body.len())]);
                        send("206 Partial Content", &headers, body, &mut stream);
                    }
                }
            }
        }
    }
    Ok(())
}

// ─── Every source ──────────────────────────────────────────────────────────

/// A place objects live, and how its source reads one.
trait Backend {
    fn label(&self) -> String;
    /// Creates or replaces `key`.
    fn put(&self, key: &str, bytes: &[u8]);
    /// A source for `key`; `Err` when the backend fails at open.
    fn source(&self, key: &str) -> atlas_wasm::Result<Box<dyn ByteSource>>;
    /// What a read sees after the object was replaced mid-session.
    fn after_replace(&self) -> AfterReplace;
}

#[derive(Debug, PartialEq)]
enum AfterReplace {
    /// The source refuses: the object changed.
    Changed,
    /// The source still reads the version it opened (an open file handle
    /// keeps the replaced file alive).
    OldBytes,
    /// The object cannot be replaced (it is the bytes in memory).
    CannotHappen,
}

/// Memory objects live in a map here only so the cases can be written once;
/// a `MemorySource` holds its bytes and cannot be missing or replaced.
struct Memory(Mutex<HashMap<String, Vec<u8>>>);

impl Backend for Memory {
    fn label(&self) -> String {
        "memory".into()
    }
    fn put(&self, key: &str, bytes: &[u8]) {
        self.0.lock().unwrap().insert(key.into(), bytes.to_vec());
    }
    fn source(&self, key: &str) -> atlas_wasm::Result<Box<dyn ByteSource>> {
        let bytes = self.0.lock().unwrap().get(key).cloned();
        Ok(Box::new(MemorySource::new(bytes.expect("put first"))))
    }
    fn after_replace(&self) -> AfterReplace {
        AfterReplace::CannotHappen
    }
}

struct Files(PathBuf);

impl Backend for Files {
    fn label(&self) -> String {
        "file".into()
    }
    fn put(&self, key: &str, bytes: &[u8]) {
        // As every atlas writer replaces a file: a new file renamed over it.
        let staging = self.0.join(format!("{key}.new"));
        std::fs::write(&staging, bytes).unwrap();
        std::fs::rename(staging, self.0.join(key)).unwrap();
    }
    fn source(&self, key: &str) -> atlas_wasm::Result<Box<dyn ByteSource>> {
        Ok(Box::new(FileSource::open(self.0.join(key))?))
    }
    fn after_replace(&self) -> AfterReplace {
        AfterReplace::OldBytes
    }
}

struct Http(FaultServer);

impl Backend for Http {
    fn label(&self) -> String {
        "http".into()
    }
    fn put(&self, key: &str, bytes: &[u8]) {
        self.0.put(key, bytes.to_vec());
    }
    fn source(&self, key: &str) -> atlas_wasm::Result<Box<dyn ByteSource>> {
        Ok(Box::new(self.0.source("ok", key)))
    }
    fn after_replace(&self) -> AfterReplace {
        AfterReplace::Changed
    }
}

struct Store {
    label: &'static str,
    store: Arc<dyn ObjectStore>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl Backend for Store {
    fn label(&self) -> String {
        self.label.into()
    }
    fn put(&self, key: &str, bytes: &[u8]) {
        let payload = PutPayload::from(bytes.to_vec());
        block_on(self.store.put(&StorePath::from(key), payload)).unwrap();
    }
    fn source(&self, key: &str) -> atlas_wasm::Result<Box<dyn ByteSource>> {
        let source = ObjectStoreSource::new(self.store.clone(), StorePath::from(key));
        Ok(Box::new(match &self.runtime {
            Some(runtime) => source.with_runtime(runtime.handle().clone()),
            None => source,
        }))
    }
    fn after_replace(&self) -> AfterReplace {
        AfterReplace::Changed
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("atlas-conformance-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn backends(test: &str) -> Vec<Box<dyn Backend>> {
    let local = scratch(&format!("{test}-store"));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    vec![
        Box::new(Memory(Mutex::default())),
        Box::new(Files(scratch(&format!("{test}-files")))),
        Box::new(Http(FaultServer::start())),
        Box::new(Store {
            label: "object_store InMemory",
            store: Arc::new(InMemory::new()),
            runtime: None,
        }),
        Box::new(Store {
            label: "object_store LocalFileSystem on a runtime",
            store: Arc::new(object_store::local::LocalFileSystem::new_with_prefix(local).unwrap()),
            runtime: Some(runtime),
        }),
    ]
}

#[test]
fn short_and_long_tails_and_ranges_give_the_right_bytes() {
    let bytes = object(1000, 3);
    for b in backends("bytes") {
        b.put("obj", &bytes);
        let source = b.source("obj").unwrap();
        let label = b.label();
        let t = tail(&*source, 100).unwrap();
        assert_eq!(
            (t.bytes.as_slice(), t.object_size),
            (&bytes[900..], 1000),
            "{label}"
        );
        let t = tail(&*source, 5000).unwrap();
        assert_eq!(
            (t.bytes, t.object_size),
            (bytes.clone(), 1000),
            "{label}: tail longer than the object"
        );
        assert_eq!(read(&*source, 10..20).unwrap(), &bytes[10..20], "{label}");
        assert_eq!(read(&*source, 0..1000).unwrap(), bytes, "{label}");
        assert_eq!(read(&*source, 5..5).unwrap(), b"", "{label}");
    }
}

#[test]
fn reads_past_the_end_are_out_of_bounds() {
    let bytes = object(1000, 5);
    for b in backends("past-end") {
        b.put("obj", &bytes);
        let label = b.label();
        // Before anything pinned the size, and after.
        for pinned in [false, true] {
            let source = b.source("obj").unwrap();
            if pinned {
                tail(&*source, 10).unwrap();
            }
            assert_eq!(
                code(read(&*source, 990..1010)),
                "OutOfBounds",
                "{label} pinned={pinned}"
            );
            assert_eq!(
                code(read(&*source, 2000..2010)),
                "OutOfBounds",
                "{label} pinned={pinned}"
            );
        }
    }
}

#[test]
fn an_empty_object_has_an_empty_tail() {
    for b in backends("empty") {
        b.put("empty", b"");
        let source = b.source("empty").unwrap();
        let label = b.label();
        let t = tail(&*source, 64).unwrap();
        assert_eq!((t.bytes.len(), t.object_size), (0, 0), "{label}");
        assert_eq!(read(&*source, 0..0).unwrap(), b"", "{label}");
        assert_eq!(code(read(&*source, 0..1)), "OutOfBounds", "{label}");
    }
}

#[test]
fn a_missing_object_is_not_found() {
    for b in backends("missing") {
        let label = b.label();
        if label == "memory" {
            continue; // a MemorySource is its bytes: it cannot be missing
        }
        match b.source("absent") {
            // Memory and files fail at open; the others at the first read.
            Err(e) => assert_eq!(e.code(), "NotFound", "{label}"),
            Ok(source) => {
                assert_eq!(code(tail(&*source, 64)), "NotFound", "{label}");
                assert_eq!(code(read(&*source, 0..10)), "NotFound", "{label}");
            }
        }
    }
}

#[test]
fn an_object_replaced_mid_session_is_refused_or_still_the_old_one() {
    let (old, new) = (object(1000, 1), object(1200, 2));
    for b in backends("replaced") {
        let label = b.label();
        b.put("obj", &old);
        let source = b.source("obj").unwrap();
        tail(&*source, 100).unwrap();
        match b.after_replace() {
            AfterReplace::CannotHappen => continue,
            AfterReplace::OldBytes => {
                b.put("obj", &new);
                assert_eq!(read(&*source, 0..10).unwrap(), &old[..10], "{label}");
            }
            AfterReplace::Changed => {
                b.put("obj", &new);
                assert_eq!(code(read(&*source, 0..10)), "ObjectChanged", "{label}");
                assert_eq!(code(tail(&*source, 10)), "ObjectChanged", "{label}");
            }
        }
    }
}

// ─── HTTP faults: the table both fault servers serve ───────────────────────

fn fault_table() -> serde_json::Value {
    serde_json::from_str(include_str!("http_faults.json")).expect("http_faults.json")
}

/// `keys` of `object` that this side does not know how to serve or assert.
fn unknown_keys<'a>(object: &'a serde_json::Value, known: &[&str]) -> Vec<&'a str> {
    let object = object.as_object().expect("an object");
    object
        .keys()
        .map(String::as_str)
        .filter(|k| !known.contains(k))
        .collect()
}

#[test]
fn the_fault_server_serves_exactly_the_faults_of_the_table() {
    let table = fault_table();
    let mut listed: Vec<&str> = table["faults"]
        .as_object()
        .expect("faults")
        .keys()
        .map(String::as_str)
        .collect();
    let mut served = FAULTS.to_vec();
    listed.sort_unstable();
    served.sort_unstable();
    assert_eq!(served, listed);
    let server = server_with("obj", object(10, 1));
    assert_eq!(
        code(tail(&server.source("no-such-fault", "obj"), 4)),
        "HttpStatus"
    );
}

#[test]
fn every_case_of_the_fault_table_ends_as_it_says() {
    let table = fault_table();
    let cases = table["cases"].as_array().expect("cases");
    let server = FaultServer::start();
    for (i, case) in cases.iter().enumerate() {
        let name = case["name"].as_str().expect("a name");
        let known = [
            "name", "fault", "size", "options", "steps", "statuses", "if_match",
        ];
        let unknown = unknown_keys(case, &known);
        assert!(
            unknown.is_empty(),
            "{name}: this side does not know {unknown:?}"
        );
        let fault = case["fault"].as_str().expect("a fault");
        let size = case.get("size").map_or(1000, |v| v.as_u64().unwrap()) as usize;
        let key = format!("case-{i}");
        let mut current = object(size, i as u8);
        server.put(&key, current.clone());

        let mut options = HttpOptions::default();
        options.backoff = Duration::from_millis(5);
        options.timeout = Duration::from_secs(5);
        let mut timeout = None;
        if let Some(given) = case.get("options") {
            for (option, value) in given.as_object().expect("options") {
                let value = value.as_u64().expect("a number");
                match option.as_str() {
                    "retries" => options.retries = value as u32,
                    "timeout_ms" => {
                        options.timeout = Duration::from_millis(value);
                        timeout = Some(options.timeout);
                    }
                    other => panic!("{name}: option {other} is not one this side knows"),
                }
            }
        }
        let source = HttpSource::with_options(format!("{}/{fault}/{key}", server.base), options);

        for step in case["steps"].as_array().expect("steps") {
            let known = [
                "tail",
                "read",
                "replace",
                "expect",
                "status",
                "message",
                "within_ms",
            ];
            let unknown = unknown_keys(step, &known);
            assert!(
                unknown.is_empty(),
                "{name}: this side does not know {unknown:?}"
            );
            if step.get("replace").is_some() {
                current = object(size, i as u8 ^ 0x55);
                server.put(&key, current.clone());
                continue;
            }
            let started = Instant::now();
            let (got, want) = if let Some(n) = step.get("tail") {
                let n = n.as_u64().unwrap() as usize;
                let got = tail(&source, n as u64).map(|t| {
                    assert_eq!(t.object_size, size as u64, "{name}: the size");
                    t.bytes
                });
                (got, &current[size - n.min(size)..])
            } else if let Some(range) = step.get("read") {
                let (start, end) = (range[0].as_u64().unwrap(), range[1].as_u64().unwrap());
                let got = read(&source, start..end);
                (got, &current[start as usize..end as usize])
            } else {
                panic!("{name}: a step that is no tail, read or replace: {step}");
            };
            let took = started.elapsed();
            match step["expect"].as_str().expect("expect") {
                "bytes" => assert_eq!(got.as_deref().unwrap(), want, "{name}"),
                expected => {
                    let error = got.expect_err(name);
                    assert_eq!(error.code(), expected, "{name}: {error}");
                    if let Some(status) = step.get("status") {
                        let status = status.as_u64().map(|s| s as u16);
                        assert_eq!(error.http_status(), status, "{name}");
                    }
                    if let Some(phrase) = step.get("message") {
                        let phrase = phrase.as_str().unwrap();
                        assert!(error.to_string().contains(phrase), "{name}: {error}");
                    }
                }
            }
            if let Some(ms) = step.get("within_ms") {
                let at_least = timeout.unwrap_or_default();
                let at_most = Duration::from_millis(ms.as_u64().unwrap());
                assert!(took >= at_least && took < at_most, "{name}: {took:?}");
            }
        }

        let seen = server.seen(&key);
        let statuses: Vec<u64> = seen.iter().map(|s| s.status as u64).collect();
        let want: Vec<u64> = case["statuses"]
            .as_array()
            .expect("statuses")
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(statuses, want, "{name}: statuses");
        if let Some(if_match) = case.get("if_match") {
            let sent: Vec<bool> = seen.iter().map(|s| s.if_match.is_some()).collect();
            let want: Vec<bool> = if_match
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_bool().unwrap())
                .collect();
            assert_eq!(sent, want, "{name}: If-Match sent");
        }
    }
}

fn server_with(name: &str, bytes: Vec<u8>) -> FaultServer {
    let server = FaultServer::start();
    server.put(name, bytes);
    server
}

#[test]
fn a_strong_etag_goes_out_as_it_came() {
    let server = server_with("obj", object(1000, 1));
    let source = server.source("ok", "obj");
    tail(&source, 64).unwrap();
    read(&source, 0..10).unwrap();
    let if_match: Vec<Option<String>> =
        server.seen("obj").into_iter().map(|s| s.if_match).collect();
    assert_eq!(if_match, [None, Some("\"v1\"".to_string())]);
}

#[test]
fn a_refused_connection_is_a_network_error() {
    // Nothing listening at all: refused at once.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut options = HttpOptions::default();
    options.retries = 1;
    options.backoff = Duration::from_millis(1);
    let nowhere = HttpSource::with_options(format!("http://127.0.0.1:{port}/x"), options);
    assert_eq!(code(tail(&nowhere, 64)), "Network");
}

#[test]
fn the_default_timeout_is_finite() {
    assert!(HttpOptions::default().timeout < Duration::from_secs(600));
}

// ─── object_store faults ───────────────────────────────────────────────────

/// An in-memory store whose answers carry one byte too few or too many.
#[derive(Debug)]
struct Liar {
    inner: InMemory,
    long: bool,
}

impl fmt::Display for Liar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Liar(long={})", self.long)
    }
}

type StoreResult<T> = object_store::Result<T>;

#[async_trait::async_trait]
impl ObjectStore for Liar {
    async fn put_opts(
        &self,
        location: &StorePath,
        payload: PutPayload,
        opts: object_store::PutOptions,
    ) -> StoreResult<object_store::PutResult> {
        self.inner.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &StorePath,
        opts: object_store::PutMultipartOptions,
    ) -> StoreResult<Box<dyn object_store::MultipartUpload>> {
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(
        &self,
        location: &StorePath,
        options: object_store::GetOptions,
    ) -> StoreResult<object_store::GetResult> {
        let answer = self.inner.get_opts(location, options).await?;
        let (meta, range, attributes) = (
            answer.meta.clone(),
            answer.range.clone(),
            answer.attributes.clone(),
        );
        let mut bytes = answer.bytes().await?.to_vec();
        if self.long {
            bytes.push(0);
        } else {
            bytes.pop();
        }
        let body = futures_util::stream::once(async move { Ok(bytes::Bytes::from(bytes)) });
        Ok(object_store::GetResult {
            payload: object_store::GetResultPayload::Stream(Box::pin(body)),
            meta,
            range,
            attributes,
        })
    }

    fn delete_stream(
        &self,
        locations: futures_util::stream::BoxStream<'static, StoreResult<StorePath>>,
    ) -> futures_util::stream::BoxStream<'static, StoreResult<StorePath>> {
        self.inner.delete_stream(locations)
    }

    fn list(
        &self,
        prefix: Option<&StorePath>,
    ) -> futures_util::stream::BoxStream<'static, StoreResult<object_store::ObjectMeta>> {
        self.inner.list(prefix)
    }

    async fn list_with_delimiter(
        &self,
        prefix: Option<&StorePath>,
    ) -> StoreResult<object_store::ListResult> {
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(
        &self,
        from: &StorePath,
        to: &StorePath,
        options: object_store::CopyOptions,
    ) -> StoreResult<()> {
        self.inner.copy_opts(from, to, options).await
    }
}

#[test]
fn a_store_that_answers_too_few_or_too_many_bytes_is_an_io_error() {
    for long in [false, true] {
        let store = Liar {
            inner: InMemory::new(),
            long,
        };
        block_on(store.put(&StorePath::from("obj"), PutPayload::from(object(1000, 1)))).unwrap();
        let source = ObjectStoreSource::new(Arc::new(store), StorePath::from("obj"));
        assert_eq!(code(tail(&source, 64)), "Io", "long={long}");
        assert_eq!(code(read(&source, 10..20)), "Io", "long={long}");
    }
}
