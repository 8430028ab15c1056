//! Read latency of atlas-wasm against atlas-rust 0.17.2, measured in one run
//! under one simulated network.
//!
//! Every request costs one round trip (20 ms unless `ATLAS_BENCH_RTT_MS` says
//! otherwise) and bandwidth is unlimited. Ours reads through [`Remote`], a
//! `ByteSource` that sleeps before it answers. atlas-rust reads through
//! object_store's `ThrottledStore` (`wait_get_per_call`), wrapped in
//! [`Metered`]. Both log into a [`Wire`], so requests, bytes and round trips
//! are counted the same way for both. The machines this runs on are noisy:
//! the ratios are the claim, not the milliseconds.
//!
//! ```text
//! cargo bench --bench read_latency
//! ATLAS_BENCH_RUNS=15 ATLAS_BENCH_RTT_MS=50 cargo bench --bench read_latency
//! ```
//!
//! The collection (1,000 datasets × float32 [90, 180], zstd, 8 MiB blocks) is
//! written once by atlas-rust under `target/tmp/read_latency-v1/` and reused.

use std::fmt;
use std::future::Future;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use atlas_wasm::format::codec::decompress_block;
use atlas_wasm::format::container::{decode_trailer, TAIL_PROBE_SIZE};
use atlas_wasm::format::footer::CollectionFooter;
use atlas_wasm::format::segment::{
    decode_segment_footer, decode_segment_trailer, BlockMeta, SegmentFooter,
};
use atlas_wasm::source::{ByteSource, SourceFuture, Tail};
use atlas_wasm::{ArrayData, MemorySource, ReadOptions};
use futures_util::future::join_all;
use futures_util::stream::BoxStream;
use object_store::memory::InMemory;
use object_store::path::Path as StorePath;
use object_store::throttle::{ThrottleConfig, ThrottledStore};
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    ObjectStoreExt, PutMultipartOptions, PutOptions, PutPayload, PutResult,
};

const DATASETS: usize = 1000;
const ROWS: usize = 90;
const COLS: usize = 180;
const VARIABLE: &str = "temperature";
/// The dataset scenario 3 reads a window of: mid-collection, mid-block.
const PROBED: &str = "ds_0500";
const WINDOW_START: [u64; 2] = [40, 85];
const WINDOW_SHAPE: [u64; 2] = [10, 10];
/// Bumped whenever the collection below changes, so a stale copy is not reused.
const DATA_DIR: &str = "read_latency-v1";

fn main() {
    let rtt = Duration::from_millis(env_number("ATLAS_BENCH_RTT_MS", 20));
    let runs = env_number("ATLAS_BENCH_RUNS", 7).max(1) as usize;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");

    let dir = collection(&rt);
    let file: Arc<[u8]> = std::fs::read(dir.join("data.atlas"))
        .expect("data.atlas")
        .into();
    let store = Arc::new(InMemory::new());
    rt.block_on(store.put(
        &StorePath::from("bench/data.atlas"),
        PutPayload::from(file.to_vec()),
    ))
    .expect("the in-memory store takes data.atlas");
    let layout = Layout::of(&file);
    println!(
        "collection: {} datasets, {} MB container; '{VARIABLE}' in {} blocks of {:.1} MB compressed on average ({:.1} MB raw); round trip {} ms; {runs} runs per case, after one warm-up; {} CPUs",
        DATASETS,
        mb(file.len() as u64),
        layout.footer.blocks.len(),
        mb(layout.compressed()) / layout.footer.blocks.len() as f64,
        mb(layout.uncompressed()) / layout.footer.blocks.len() as f64,
        rtt.as_millis(),
        std::thread::available_parallelism().map_or(1, |n| n.get()),
    );
    if let Ok(load) = std::fs::read_to_string("/proc/loadavg") {
        // Other jobs share these CPUs; the load says how much they took.
        println!("load average at start: {}", load.trim());
    }
    agree(&rt, &file, &store);

    let net = Net {
        file: file.clone(),
        store: store.clone(),
        rtt,
    };
    let mut cases = vec![
        Case::new(
            1,
            "open + list + `month` of all",
            Reader::Ours,
            "attributes_by_dataset",
            {
                let net = net.clone();
                move |wire| Box::pin(net.clone().ours_catalogue(wire))
            },
        ),
        Case::new(
            1,
            "open + list + `month` of all",
            Reader::Rust,
            "attributes_by_dataset",
            {
                let net = net.clone();
                move |wire| Box::pin(net.clone().rust_catalogue(wire))
            },
        ),
        Case::new(
            2,
            "open + 1,000 whole arrays",
            Reader::Ours,
            "read_across",
            {
                let net = net.clone();
                move |wire| Box::pin(net.clone().ours_across(wire, ReadOptions::default()))
            },
        ),
        Case::new(
            2,
            "open + 1,000 whole arrays",
            Reader::Ours,
            "join_all(read_array)",
            {
                let net = net.clone();
                move |wire| Box::pin(net.clone().ours_each(wire))
            },
        ),
        Case::new(
            2,
            "open + 1,000 whole arrays",
            Reader::Rust,
            "read_array, one by one",
            {
                let net = net.clone();
                move |wire| Box::pin(net.clone().rust_each(wire, false))
            },
        ),
        Case::new(
            2,
            "open + 1,000 whole arrays",
            Reader::Rust,
            "join_all(read_array)",
            {
                let net = net.clone();
                move |wire| Box::pin(net.clone().rust_each(wire, true))
            },
        ),
        Case::new(
            3,
            "open + [10, 10] window of one",
            Reader::Ours,
            "read_array",
            {
                let net = net.clone();
                move |wire| Box::pin(net.clone().ours_window(wire))
            },
        ),
        Case::new(
            3,
            "open + [10, 10] window of one",
            Reader::Rust,
            "read_array",
            {
                let net = net.clone();
                move |wire| Box::pin(net.clone().rust_window(wire))
            },
        ),
    ];
    measure(&rt, &mut cases, runs, rtt);

    println!("\n## Same network, same run (ms are wall time from a fresh handle, caches cold)\n");
    print_cases(&cases, rtt);
    println!("\n## Ratios (atlas-rust ÷ ours; above 1 means ours is faster or lighter)\n");
    println!("| comparison | median ms | requests | round trips | bytes |");
    println!("|---|---:|---:|---:|---:|");
    let find = |reader: Reader, variant: &str, scenario: u8| {
        cases
            .iter()
            .find(|c| c.reader == reader && c.variant == variant && c.scenario == scenario)
            .expect("a case of that name")
    };
    for (label, ours, theirs) in [
        (
            "1: catalogue",
            find(Reader::Ours, "attributes_by_dataset", 1),
            find(Reader::Rust, "attributes_by_dataset", 1),
        ),
        (
            "2: read_across ÷ rust one by one",
            find(Reader::Ours, "read_across", 2),
            find(Reader::Rust, "read_array, one by one", 2),
        ),
        (
            "2: read_across ÷ rust join_all",
            find(Reader::Ours, "read_across", 2),
            find(Reader::Rust, "join_all(read_array)", 2),
        ),
        (
            "2: join_all ÷ rust join_all",
            find(Reader::Ours, "join_all(read_array)", 2),
            find(Reader::Rust, "join_all(read_array)", 2),
        ),
        (
            "3: window",
            find(Reader::Ours, "read_array", 3),
            find(Reader::Rust, "read_array", 3),
        ),
    ] {
        let (o, t) = (ours.summary(rtt), theirs.summary(rtt));
        println!(
            "| {label} | {:.2}× | {:.2}× | {:.2}× | {:.2}× |",
            t.median_ms / o.median_ms,
            t.requests as f64 / o.requests as f64,
            t.round_trips / o.round_trips,
            t.bytes as f64 / o.bytes as f64,
        );
    }

    let window = find(Reader::Ours, "read_array", 3).summary(rtt);
    let theirs = find(Reader::Rust, "read_array", 3).summary(rtt);
    let (block, floor) = layout.block_of(PROBED);
    println!(
        "\nScenario 3: the chunk of '{PROBED}' lives in block {block}, {floor} bytes compressed; the format forces that block. Largest request: ours {} bytes, atlas-rust {} bytes.",
        window.largest, theirs.largest
    );

    analyse(&rt, &net, &layout, runs);
}

// ── The network ──────────────────────────────────────────────────────

/// One request as the wire saw it.
#[derive(Debug, Clone, Copy)]
struct Exchange {
    bytes: u64,
    start: Instant,
}

/// Every request of one run, from either reader.
#[derive(Debug, Clone)]
struct Wire {
    log: Arc<Mutex<Vec<Exchange>>>,
    rtt: Duration,
}

/// What one run cost on the wire.
#[derive(Debug, Clone, Copy, Default)]
struct Traffic {
    requests: usize,
    bytes: u64,
    largest: u64,
    /// Time with at least one request on the wire, each one counted from its
    /// start for one round trip. Divided by the round trip it counts the
    /// round trips on the critical path: two concurrent requests cost one,
    /// two in a row cost two. A request's *answer* can wait longer, for a
    /// thread busy decoding; that wait is the reader's, not the network's.
    in_flight: Duration,
}

impl Wire {
    fn new(rtt: Duration) -> Wire {
        Wire {
            log: Arc::default(),
            rtt,
        }
    }

    fn log(&self, start: Instant, bytes: u64) {
        self.lock().push(Exchange { bytes, start });
    }

    fn traffic(&self) -> Traffic {
        let mut log = self.lock().clone();
        log.sort_by_key(|e| e.start);
        let mut in_flight = Duration::ZERO;
        let mut open: Option<(Instant, Instant)> = None;
        for e in &log {
            let end = e.start + self.rtt;
            open = match open {
                Some((from, to)) if e.start <= to => Some((from, to.max(end))),
                Some((from, to)) => {
                    in_flight += to - from;
                    Some((e.start, end))
                }
                None => Some((e.start, end)),
            };
        }
        if let Some((from, to)) = open {
            in_flight += to - from;
        }
        Traffic {
            requests: log.len(),
            bytes: log.iter().map(|e| e.bytes).sum(),
            largest: log.iter().map(|e| e.bytes).max().unwrap_or(0),
            in_flight,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Exchange>> {
        self.log.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Ours: a source one round trip away. It sleeps, then answers.
struct Remote {
    inner: Arc<dyn ByteSource>,
    rtt: Duration,
    wire: Wire,
}

impl ByteSource for Remote {
    fn read_range(&self, range: Range<u64>) -> SourceFuture<'_, Vec<u8>> {
        Box::pin(async move {
            let start = Instant::now();
            tokio::time::sleep(self.rtt).await;
            let answer = self.inner.read_range(range).await;
            self.wire
                .log(start, answer.as_ref().map_or(0, |b| b.len() as u64));
            answer
        })
    }

    fn read_tail(&self, len: u64) -> SourceFuture<'_, Tail> {
        Box::pin(async move {
            let start = Instant::now();
            tokio::time::sleep(self.rtt).await;
            let answer = self.inner.read_tail(len).await;
            self.wire
                .log(start, answer.as_ref().map_or(0, |t| t.bytes.len() as u64));
            answer
        })
    }

    fn describe(&self) -> String {
        format!("{} ({:?} away)", self.inner.describe(), self.rtt)
    }
}

/// A `deleted.mask` nobody wrote: over HTTP, a 404 that still costs its trip.
struct Absent;

impl ByteSource for Absent {
    fn read_range(&self, _range: Range<u64>) -> SourceFuture<'_, Vec<u8>> {
        Box::pin(async { Err(atlas_wasm::Error::NotFound("deleted.mask".into())) })
    }

    fn read_tail(&self, _len: u64) -> SourceFuture<'_, Tail> {
        Box::pin(async { Err(atlas_wasm::Error::NotFound("deleted.mask".into())) })
    }

    fn describe(&self) -> String {
        "deleted.mask (absent)".into()
    }
}

/// atlas-rust's store: logs every call it makes, then forwards it to a
/// `ThrottledStore`, which sleeps `wait_get_per_call` before each get.
///
/// object_store 0.13 routes `get`, `get_range` and `head` through
/// `get_opts`, so one wrapped method sees every read. A head moves no bytes.
/// atlas-rust's reader never lists; a list would be logged as a request.
#[derive(Debug)]
struct Metered {
    inner: ThrottledStore<Arc<InMemory>>,
    wire: Wire,
}

impl fmt::Display for Metered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Metered({})", self.inner)
    }
}

#[async_trait]
impl ObjectStore for Metered {
    async fn put_opts(
        &self,
        location: &StorePath,
        payload: PutPayload,
        opts: PutOptions,
    ) -> object_store::Result<PutResult> {
        self.inner.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &StorePath,
        opts: PutMultipartOptions,
    ) -> object_store::Result<Box<dyn MultipartUpload>> {
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(
        &self,
        location: &StorePath,
        options: GetOptions,
    ) -> object_store::Result<GetResult> {
        let start = Instant::now();
        let head = options.head;
        let answer = self.inner.get_opts(location, options).await;
        let bytes = match &answer {
            Ok(r) if !head => r.range.end - r.range.start,
            _ => 0,
        };
        self.wire.log(start, bytes);
        answer
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, object_store::Result<StorePath>>,
    ) -> BoxStream<'static, object_store::Result<StorePath>> {
        self.inner.delete_stream(locations)
    }

    fn list(
        &self,
        prefix: Option<&StorePath>,
    ) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        self.wire.log(Instant::now(), 0);
        self.inner.list(prefix)
    }

    async fn list_with_delimiter(
        &self,
        prefix: Option<&StorePath>,
    ) -> object_store::Result<ListResult> {
        let start = Instant::now();
        let answer = self.inner.list_with_delimiter(prefix).await;
        self.wire.log(start, 0);
        answer
    }

    async fn copy_opts(
        &self,
        from: &StorePath,
        to: &StorePath,
        options: CopyOptions,
    ) -> object_store::Result<()> {
        self.inner.copy_opts(from, to, options).await
    }
}

/// What every case opens from: the same bytes, one round trip away.
#[derive(Clone)]
struct Net {
    file: Arc<[u8]>,
    store: Arc<InMemory>,
    rtt: Duration,
}

impl Net {
    async fn ours(&self, wire: &Wire, options: ReadOptions) -> atlas_wasm::Atlas {
        let remote = |inner: Arc<dyn ByteSource>| -> Arc<dyn ByteSource> {
            Arc::new(Remote {
                inner,
                rtt: self.rtt,
                wire: wire.clone(),
            })
        };
        let data = remote(Arc::new(MemorySource::new(self.file.clone())));
        let mask = remote(Arc::new(Absent));
        atlas_wasm::Atlas::open_with(data, Some(mask), options)
            .await
            .expect("ours opens")
    }

    async fn rust(&self, wire: &Wire) -> atlas::Atlas {
        let config = ThrottleConfig {
            wait_get_per_call: self.rtt,
            wait_list_per_call: self.rtt,
            wait_list_with_delimiter_per_call: self.rtt,
            ..ThrottleConfig::default()
        };
        let store = Metered {
            inner: ThrottledStore::new(self.store.clone(), config),
            wire: wire.clone(),
        };
        atlas::Atlas::open(Arc::new(store), StorePath::from("bench"))
            .await
            .expect("atlas-rust opens")
    }

    async fn ours_catalogue(self, wire: Wire) {
        let atlas = self.ours(&wire, ReadOptions::default()).await;
        assert_eq!(atlas.list_datasets().len(), DATASETS);
        let months = atlas.attributes_by_dataset(None, "month").await.unwrap();
        assert_eq!(months.len(), DATASETS);
    }

    async fn rust_catalogue(self, wire: Wire) {
        let atlas = self.rust(&wire).await;
        assert_eq!(atlas.list_datasets().len(), DATASETS);
        let months = atlas.attributes_by_dataset(None, "month").await.unwrap();
        assert_eq!(months.len(), DATASETS);
    }

    async fn ours_across(self, wire: Wire, options: ReadOptions) {
        let atlas = self.ours(&wire, options).await;
        let arrays = atlas.read_across(VARIABLE, &[], &[]).await.unwrap();
        assert_eq!(arrays.len(), DATASETS);
        assert!(arrays.iter().all(|(_, a)| a.data.len() == ROWS * COLS));
    }

    async fn ours_each(self, wire: Wire) {
        let atlas = self.ours(&wire, ReadOptions::default()).await;
        let names = atlas.list_datasets();
        let reads = names.iter().map(|name| {
            let atlas = &atlas;
            async move { atlas.dataset(name)?.read_array(VARIABLE, &[], &[]).await }
        });
        let arrays = join_all(reads).await;
        assert!(arrays
            .iter()
            .all(|a| a.as_ref().unwrap().data.len() == ROWS * COLS));
    }

    async fn rust_each(self, wire: Wire, concurrent: bool) {
        let atlas = self.rust(&wire).await;
        let names = atlas.list_datasets();
        let read = |name: &str| {
            let view = atlas.dataset(name).unwrap();
            async move { view.read_array::<f32>(VARIABLE, vec![], vec![]).await }
        };
        let arrays = if concurrent {
            join_all(names.iter().map(|n| read(n))).await
        } else {
            let mut arrays = Vec::with_capacity(names.len());
            for name in &names {
                arrays.push(read(name).await);
            }
            arrays
        };
        assert!(arrays
            .iter()
            .all(|a| a.as_ref().unwrap().len() == ROWS * COLS));
    }

    async fn ours_window(self, wire: Wire) {
        let atlas = self.ours(&wire, ReadOptions::default()).await;
        let window = atlas
            .dataset(PROBED)
            .unwrap()
            .read_array(VARIABLE, &WINDOW_START, &WINDOW_SHAPE)
            .await
            .unwrap();
        assert_eq!(window.data.len(), 100);
    }

    async fn rust_window(self, wire: Wire) {
        let atlas = self.rust(&wire).await;
        let start = WINDOW_START.iter().map(|&s| s as usize).collect();
        let shape = WINDOW_SHAPE.iter().map(|&s| s as usize).collect();
        let window = atlas
            .dataset(PROBED)
            .unwrap()
            .read_array::<f32>(VARIABLE, start, shape)
            .await
            .unwrap();
        assert_eq!(window.len(), 100);
    }
}

/// Both readers must see the same numbers before their speed means anything.
fn agree(rt: &tokio::runtime::Runtime, file: &Arc<[u8]>, store: &Arc<InMemory>) {
    rt.block_on(async {
        let ours = atlas_wasm::Atlas::open(Arc::new(MemorySource::new(file.clone())), None)
            .await
            .unwrap();
        let theirs = atlas::Atlas::open(store.clone(), StorePath::from("bench"))
            .await
            .unwrap();
        let across = ours.read_across(VARIABLE, &[], &[]).await.unwrap();
        for name in ["ds_0000", PROBED, "ds_0999"] {
            let mine = &across.iter().find(|(n, _)| n == name).unwrap().1.data;
            let ArrayData::Float32(mine) = mine else {
                panic!("'{name}' did not read as float32");
            };
            let reference = theirs
                .dataset(name)
                .unwrap()
                .read_array::<f32>(VARIABLE, vec![], vec![])
                .await
                .unwrap();
            let same = mine
                .iter()
                .zip(reference.iter())
                .all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(
                same && mine.len() == reference.len(),
                "'{name}' differs between the readers"
            );
        }
    });
}

// ── Cases and their numbers ──────────────────────────────────────────

#[derive(Debug, Clone, Copy, PartialEq)]
enum Reader {
    Ours,
    Rust,
}

type Job = Box<dyn Fn(Wire) -> Pin<Box<dyn Future<Output = ()>>>>;

struct Case {
    scenario: u8,
    what: &'static str,
    reader: Reader,
    variant: &'static str,
    job: Job,
    runs: Vec<(Duration, Traffic)>,
}

/// One case's runs, reduced.
struct Summary {
    best_ms: f64,
    median_ms: f64,
    requests: usize,
    /// `(fewest, most)` requests over the runs; they differ only if a read raced.
    request_spread: (usize, usize),
    bytes: u64,
    largest: u64,
    round_trips: f64,
    /// Median wall time with no request in flight: the CPU on the critical path.
    quiet_ms: f64,
}

impl Case {
    fn new(
        scenario: u8,
        what: &'static str,
        reader: Reader,
        variant: &'static str,
        job: impl Fn(Wire) -> Pin<Box<dyn Future<Output = ()>>> + 'static,
    ) -> Case {
        Case {
            scenario,
            what,
            reader,
            variant,
            job: Box::new(job),
            runs: Vec::new(),
        }
    }

    fn run(&self, rt: &tokio::runtime::Runtime, rtt: Duration) -> (Duration, Traffic) {
        let wire = Wire::new(rtt);
        let start = Instant::now();
        rt.block_on((self.job)(wire.clone()));
        (start.elapsed(), wire.traffic())
    }

    fn summary(&self, rtt: Duration) -> Summary {
        let mut by_time = self.runs.clone();
        by_time.sort_by_key(|(t, _)| *t);
        let (median, traffic) = by_time[by_time.len() / 2];
        let requests = self.runs.iter().map(|(_, t)| t.requests);
        let mut quiet: Vec<f64> = self
            .runs
            .iter()
            .map(|(t, w)| ms(&t.saturating_sub(w.in_flight)))
            .collect();
        quiet.sort_by(f64::total_cmp);
        Summary {
            best_ms: ms(&by_time[0].0),
            median_ms: ms(&median),
            requests: traffic.requests,
            request_spread: (requests.clone().min().unwrap(), requests.max().unwrap()),
            bytes: traffic.bytes,
            largest: traffic.largest,
            round_trips: traffic.in_flight.as_secs_f64() / rtt.as_secs_f64(),
            quiet_ms: quiet[quiet.len() / 2],
        }
    }
}

/// Runs every case `runs` times, interleaved, so that a slow stretch of a
/// noisy machine lands on both readers alike.
fn measure(rt: &tokio::runtime::Runtime, cases: &mut [Case], runs: usize, rtt: Duration) {
    for case in cases.iter() {
        case.run(rt, rtt);
    }
    for _ in 0..runs {
        for case in cases.iter_mut() {
            let run = case.run(rt, rtt);
            case.runs.push(run);
        }
    }
}

fn print_cases(cases: &[Case], rtt: Duration) {
    println!("| # | scenario | reader | call | best ms | median ms | requests | round trips | bytes fetched | ms with nothing in flight |");
    println!("|---|---|---|---|---:|---:|---:|---:|---:|---:|");
    for case in cases {
        let s = case.summary(rtt);
        let requests = match s.request_spread {
            (a, b) if a == b => a.to_string(),
            (a, b) => format!("{a}–{b}"),
        };
        println!(
            "| {} | {} | {} | {} | {:.0} | {:.0} | {requests} | {:.1} | {} | {:.0} |",
            case.scenario,
            case.what,
            match case.reader {
                Reader::Ours => "atlas-wasm",
                Reader::Rust => "atlas-rust",
            },
            case.variant,
            s.best_ms,
            s.median_ms,
            s.round_trips,
            bytes(s.bytes),
            s.quiet_ms,
        );
    }
}

// ── Where the time goes ──────────────────────────────────────────────

/// Splits scenarios 2 and 3 into their parts: block decoding alone (ruzstd,
/// which we use, against libzstd, which atlas-rust uses, on one thread and on
/// all), both readers with no network at all, and ours with every block
/// fetched in one wave.
fn analyse(rt: &tokio::runtime::Runtime, net: &Net, layout: &Layout, runs: usize) {
    println!("\n## Where the time goes\n");
    let blocks: Vec<_> = layout
        .footer
        .blocks
        .iter()
        .map(|b| {
            let from = (layout.segment_offset + b.file_offset) as usize;
            (b, &net.file[from..from + b.compressed_size as usize])
        })
        .collect();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (block, _) = layout.block_of(PROBED);
    let one = &blocks[block as usize..block as usize + 1];
    println!("| step | median ms | note |");
    println!("|---|---:|---|");
    for (what, set, threads) in [
        ("one block (scenario 3's)", one, 1),
        ("all blocks, one thread", &blocks[..], 1),
        ("all blocks, every CPU", &blocks[..], threads),
    ] {
        let raw = mb(set.iter().map(|(b, _)| b.uncompressed_size).sum());
        for (codec, decode) in [
            ("ruzstd (ours)", with_ruzstd as Decode),
            ("libzstd (atlas-rust)", with_libzstd),
        ] {
            let (mut walls, cpus): (Vec<_>, Vec<_>) =
                (0..runs).map(|_| decode_all(set, threads, decode)).unzip();
            let wall = median(&mut walls);
            let cpu = match cpus.iter().copied().collect::<Option<Vec<_>>>() {
                Some(mut cpus) => {
                    let cpu = median(&mut cpus);
                    format!(
                        "; {:.0} ms on CPU, {:.0} MB/s per CPU",
                        ms(&cpu),
                        raw / cpu.as_secs_f64()
                    )
                }
                None => String::new(),
            };
            println!(
                "| decode {what}, {codec} | {:.0} | {:.0} MB/s of output over {threads} thread(s){cpu} |",
                ms(&wall),
                raw / wall.as_secs_f64()
            );
        }
    }

    let ours_cpu = locally(rt, runs, || async {
        let atlas = atlas_wasm::Atlas::open(Arc::new(MemorySource::new(net.file.clone())), None)
            .await
            .unwrap();
        let arrays = atlas.read_across(VARIABLE, &[], &[]).await.unwrap();
        assert_eq!(arrays.len(), DATASETS);
    });
    println!(
        "| ours, no network: open + read_across | {:.0} | the CPU floor: decode, copy, convert |",
        ms(&ours_cpu)
    );
    for concurrent in [false, true] {
        let theirs_cpu = locally(rt, runs, || async move {
            let atlas = atlas::Atlas::open(net.store.clone(), StorePath::from("bench"))
                .await
                .unwrap();
            let names = atlas.list_datasets();
            let read = |name: &str| {
                let view = atlas.dataset(name).unwrap();
                async move { view.read_array::<f32>(VARIABLE, vec![], vec![]).await }
            };
            if concurrent {
                join_all(names.iter().map(|n| read(n))).await;
            } else {
                for name in &names {
                    read(name).await.unwrap();
                }
            }
        });
        println!(
            "| atlas-rust, no network: open + {} | {:.0} | |",
            if concurrent {
                "join_all(read_array)"
            } else {
                "read_array one by one"
            },
            ms(&theirs_cpu)
        );
    }
    let warm = rt.block_on(async {
        let atlas = atlas_wasm::Atlas::open(Arc::new(MemorySource::new(net.file.clone())), None)
            .await
            .unwrap();
        atlas.read_across(VARIABLE, &[], &[]).await.unwrap();
        let mut times = Vec::new();
        for _ in 0..runs {
            let start = Instant::now();
            let arrays = atlas.read_across(VARIABLE, &[], &[]).await.unwrap();
            times.push(start.elapsed());
            assert_eq!(arrays.len(), DATASETS);
        }
        median(&mut times)
    });
    println!(
        "| ours, no network, blocks cached: read_across again | {:.0} | plan, copy, convert: all but the decode |",
        ms(&warm)
    );
    let ours_window = locally(rt, runs, || async {
        let atlas = atlas_wasm::Atlas::open(Arc::new(MemorySource::new(net.file.clone())), None)
            .await
            .unwrap();
        let window = atlas.dataset(PROBED).unwrap();
        let window = window.read_array(VARIABLE, &WINDOW_START, &WINDOW_SHAPE);
        assert_eq!(window.await.unwrap().data.len(), 100);
    });
    let theirs_window = locally(rt, runs, || async {
        let atlas = atlas::Atlas::open(net.store.clone(), StorePath::from("bench"))
            .await
            .unwrap();
        let start = WINDOW_START.iter().map(|&s| s as usize).collect();
        let shape = WINDOW_SHAPE.iter().map(|&s| s as usize).collect();
        let window = atlas.dataset(PROBED).unwrap();
        let window = window.read_array::<f32>(VARIABLE, start, shape);
        assert_eq!(window.await.unwrap().len(), 100);
    });
    println!(
        "| no network: open + [10, 10] window, ours / atlas-rust | {:.0} / {:.0} | scenario 3's CPU floor |",
        ms(&ours_window),
        ms(&theirs_window)
    );
    for (concurrency, threads) in [(6, false), (16, false), (6, true), (16, true)] {
        let mut case = Case::new(2, "", Reader::Ours, "", {
            let net = net.clone();
            move |wire| {
                let decoder: Option<Arc<dyn atlas_wasm::BlockDecoder>> = threads
                    .then(|| Arc::new(BlockingPoolDecoder) as Arc<dyn atlas_wasm::BlockDecoder>);
                Box::pin(net.clone().ours_across(
                    wire,
                    ReadOptions {
                        max_concurrency: concurrency,
                        decoder,
                        ..ReadOptions::default()
                    },
                ))
            }
        });
        measure(rt, std::slice::from_mut(&mut case), runs, net.rtt);
        let s = case.summary(net.rtt);
        println!(
            "| ours, read_across, max_concurrency {concurrency}{} | {:.0} | {:.1} round trips, {:.0} ms with nothing in flight |",
            if threads { ", blocks decoded on tokio's blocking pool" } else { "" },
            s.median_ms, s.round_trips, s.quiet_ms
        );
    }
}

/// Decodes blocks on tokio's blocking pool, several at once: what a native
/// host plugs into `ReadOptions::decoder` (the core itself has no threads).
struct BlockingPoolDecoder;

impl atlas_wasm::BlockDecoder for BlockingPoolDecoder {
    fn decode(&self, block: atlas_wasm::CompressedBlock) -> SourceFuture<'static, Vec<u8>> {
        Box::pin(async move {
            tokio::task::spawn_blocking(move || block.decompress())
                .await
                .map_err(|e| atlas_wasm::Error::Io(e.to_string()))?
        })
    }
}

type Decode = fn(&BlockMeta, &[u8]) -> usize;

fn with_ruzstd(block: &BlockMeta, bytes: &[u8]) -> usize {
    decompress_block(&block.codec, bytes, block.uncompressed_size)
        .unwrap()
        .len()
}

fn with_libzstd(block: &BlockMeta, bytes: &[u8]) -> usize {
    zstd::bulk::decompress(bytes, block.uncompressed_size as usize)
        .unwrap()
        .len()
}

/// Decodes `blocks` over `threads` threads, round robin, as a reader that
/// hands each block to a pool would. Returns the wall time and, where Linux
/// tells, the CPU time of all the threads together.
fn decode_all(
    blocks: &[(&BlockMeta, &[u8])],
    threads: usize,
    decode: Decode,
) -> (Duration, Option<Duration>) {
    let start = Instant::now();
    let cpu = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    let before = thread_cpu();
                    for (block, bytes) in blocks.iter().skip(t).step_by(threads) {
                        assert_eq!(decode(block, bytes) as u64, block.uncompressed_size);
                    }
                    Some(thread_cpu()? - before?)
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("a decoding thread"))
            .sum::<Option<Duration>>()
    });
    (start.elapsed(), cpu)
}

/// Time this thread has spent on a CPU. Wall time on a shared machine
/// includes the time other jobs held the CPU; this does not.
fn thread_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns = stat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// Median wall time of `runs` runs of `job`, with no network in the way.
fn locally<F, Fut>(rt: &tokio::runtime::Runtime, runs: usize, job: F) -> Duration
where
    F: Fn() -> Fut,
    Fut: Future<Output = ()>,
{
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            rt.block_on(job());
            start.elapsed()
        })
        .collect();
    median(&mut times)
}

/// Where `temperature` lies, read with our own format module.
struct Layout {
    segment_offset: u64,
    footer: SegmentFooter,
}

impl Layout {
    fn of(file: &[u8]) -> Layout {
        let size = file.len() as u64;
        let tail = &file[size.saturating_sub(TAIL_PROBE_SIZE) as usize..];
        let range = decode_trailer(tail, size).unwrap();
        let footer = CollectionFooter::decode(
            &file[range.start as usize..range.end as usize],
            size,
            u64::MAX,
        )
        .unwrap();
        let entry = footer
            .variables
            .iter()
            .find(|v| footer.string(v.name) == VARIABLE)
            .expect("the collection holds the variable");
        let segment = &file[entry.seg_offset as usize..(entry.seg_offset + entry.seg_len) as usize];
        let range = decode_segment_trailer(segment, entry.seg_len).unwrap();
        let footer =
            decode_segment_footer(&segment[range.start as usize..range.end as usize]).unwrap();
        Layout {
            segment_offset: entry.seg_offset,
            footer,
        }
    }

    fn compressed(&self) -> u64 {
        self.footer.blocks.iter().map(|b| b.compressed_size).sum()
    }

    fn uncompressed(&self) -> u64 {
        self.footer.blocks.iter().map(|b| b.uncompressed_size).sum()
    }

    /// The block holding `dataset`'s one chunk, and its compressed size.
    fn block_of(&self, dataset: &str) -> (u32, u64) {
        let array = self
            .footer
            .arrays
            .iter()
            .find(|a| a.name == dataset)
            .expect("the dataset stores the variable");
        let id = array.chunks[0].address.block_id.0;
        (id, self.footer.blocks[id as usize].compressed_size)
    }
}

// ── The collection ───────────────────────────────────────────────────

/// Writes the collection with atlas-rust, once; later runs reuse it. The
/// write goes to a scratch directory that is renamed when complete, so an
/// interrupted write is never taken for a finished one.
fn collection(rt: &tokio::runtime::Runtime) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(DATA_DIR);
    if dir.join("data.atlas").exists() {
        return dir;
    }
    let scratch = dir.with_extension("partial");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).expect("a scratch directory");
    let start = Instant::now();
    rt.block_on(write_collection(&scratch));
    std::fs::rename(&scratch, &dir).expect("the finished collection moves into place");
    println!(
        "wrote {} in {:.1} s",
        dir.display(),
        start.elapsed().as_secs_f64()
    );
    dir
}

/// 1,000 datasets × float32 [90, 180], one chunk each, default codec (zstd)
/// and blocks (8 MiB); attributes `month` (Int64) and `source` (String); and
/// a small second variable, `qc` (int32 [16]).
async fn write_collection(dir: &Path) {
    let writer = atlas::AtlasWriter::create_path(dir, atlas::WriterConfig::default())
        .await
        .unwrap();
    for d in 0..DATASETS {
        let mut ds = writer.add_dataset(&format!("ds_{d:04}")).await.unwrap();
        let grid = ndarray::Array::from_shape_vec(ndarray::IxDyn(&[ROWS, COLS]), field(d)).unwrap();
        ds.define_array::<f32>(
            VARIABLE,
            vec!["lat".into(), "lon".into()],
            vec![ROWS, COLS],
            None,
            None,
        )
        .await
        .unwrap();
        ds.write_array(VARIABLE, vec![0, 0], grid.view())
            .await
            .unwrap();
        let qc: Vec<i32> = (0..16).map(|i| ((d * 7 + i) % 5) as i32).collect();
        let qc = ndarray::Array::from_shape_vec(ndarray::IxDyn(&[16]), qc).unwrap();
        ds.define_array::<i32>("qc", vec!["flag".into()], vec![16], None, None)
            .await
            .unwrap();
        ds.write_array("qc", vec![0], qc.view()).await.unwrap();
        ds.set_attribute("month", atlas::Attr::Int64((d % 12 + 1) as i64));
        ds.set_attribute(
            "source",
            atlas::Attr::String(["buoy", "ship", "argo", "model"][d % 4].into()),
        );
        ds.finish().await.unwrap();
    }
    writer.finish().await.unwrap();
}

/// A global temperature field in °C on a 2° grid: warm equator, a seasonal
/// tilt by month, a wave along longitude, and sensor noise of ±0.3 °C. The
/// noise keeps full float32 precision, as measured fields do, so blocks
/// compress about as well as real ones.
fn field(d: usize) -> Vec<f32> {
    let season = (std::f64::consts::TAU * (d % 12) as f64 / 12.0).cos();
    let mut state = (d as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (0..ROWS * COLS)
        .map(|i| {
            let lat = (-89.0 + 2.0 * (i / COLS) as f64).to_radians();
            let lon = (2.0 * (i % COLS) as f64).to_radians();
            let t = 14.0 + 16.0 * lat.cos() - 8.0 * lat.sin() * season
                + 2.5 * (3.0 * lon + 0.1 * d as f64).sin()
                + 0.3 * noise(&mut state);
            t as f32
        })
        .collect()
}

/// xorshift64: uniform in [-1, 1). No dependency, same numbers every run.
fn noise(state: &mut u64) -> f64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    (*state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
}

// ── Small things ─────────────────────────────────────────────────────

fn env_number(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v} is not a whole number")),
        Err(_) => default,
    }
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(d: &Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

fn bytes(n: u64) -> String {
    match n {
        n if n >= 1_000_000 => format!("{:.2} MB", mb(n)),
        n if n >= 1_000 => format!("{:.1} kB", n as f64 / 1e3),
        n => format!("{n} B"),
    }
}
