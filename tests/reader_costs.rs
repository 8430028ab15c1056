//! What each call costs in requests, asserted with a counting source: the
//! properties the format exists for, turned from assumptions into tests.

mod common;

use std::path::Path;
use std::sync::Arc;

use atlas::{AtlasWriter, Codec, WriterConfig};
use atlas_wasm::source::{CountingSource, RequestLog};
use atlas_wasm::{Atlas, ByteSource, MemorySource};
use common::block_on;

const DATASETS: usize = 8;
const ROWS: usize = 256;
const COLS: usize = 256;

/// 8 datasets × float32 [256, 256] chunked [64, 256] (64 KiB chunks),
/// uncompressed, 256 KiB blocks: one block per dataset, a 2 MiB segment.
/// Two small variables ride along, and a dataset attribute.
fn write_collection(dir: &Path) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async {
        let config = WriterConfig {
            codec: Codec::Uncompressed,
            block_target_size: 256 * 1024,
        };
        let writer = AtlasWriter::create_path(dir, config).await.unwrap();
        for d in 0..DATASETS {
            let mut ds = writer.add_dataset(&format!("day_{d:02}")).await.unwrap();
            let grid: Vec<f32> = (0..ROWS * COLS)
                .map(|i| (d * 1_000_000 + i) as f32)
                .collect();
            let grid = ndarray::Array::from_shape_vec(ndarray::IxDyn(&[ROWS, COLS]), grid).unwrap();
            ds.define_array::<f32>(
                "temperature",
                vec!["y".into(), "x".into()],
                vec![ROWS, COLS],
                Some(vec![64, COLS]),
                None,
            )
            .await
            .unwrap();
            ds.write_array("temperature", vec![0, 0], grid.view())
                .await
                .unwrap();
            let t =
                ndarray::Array::from_shape_vec(ndarray::IxDyn(&[4]), vec![d as i32; 4]).unwrap();
            ds.define_array::<i32>("station", vec!["n".into()], vec![4], None, None)
                .await
                .unwrap();
            ds.write_array("station", vec![0], t.view()).await.unwrap();
            ds.set_attribute("day", atlas::Attr::Int64(d as i64));
            ds.finish().await.unwrap();
        }
        writer.finish().await.unwrap();
    });
}

struct Counted {
    atlas: Atlas,
    data: RequestLog,
    mask: RequestLog,
}

fn open_counted(dir: &Path, with_mask: bool) -> Counted {
    let data = CountingSource::new(MemorySource::new(
        std::fs::read(dir.join("data.atlas")).unwrap(),
    ));
    let mask_bytes = std::fs::read(dir.join("deleted.mask")).unwrap_or_default();
    let mask = CountingSource::new(MemorySource::new(mask_bytes));
    let (data_log, mask_log) = (data.log(), mask.log());
    let mask: Option<Arc<dyn ByteSource>> =
        with_mask.then(|| Arc::new(mask) as Arc<dyn ByteSource>);
    let atlas = block_on(Atlas::open(Arc::new(data), mask)).unwrap();
    Counted {
        atlas,
        data: data_log,
        mask: mask_log,
    }
}

fn fixture() -> &'static Path {
    static DIR: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("costs");
        let _ = std::fs::remove_dir_all(&dir);
        write_collection(&dir);
        dir
    })
}

#[test]
fn opening_costs_one_tail_read_and_one_mask_read_in_parallel() {
    let c = open_counted(fixture(), true);
    assert_eq!(c.data.requests(), 1, "one tail read opens the container");
    assert!(c.data.bytes() <= 64 * 1024);
    assert_eq!(
        c.mask.requests(),
        1,
        "the mask is read alongside, not after"
    );
    assert_eq!(c.atlas.dataset_count(), DATASETS);
}

#[test]
fn catalogue_questions_cost_nothing() {
    let c = open_counted(fixture(), false);
    c.data.reset();
    assert_eq!(c.atlas.list_datasets().len(), DATASETS);
    assert_eq!(c.atlas.list_arrays(), vec!["station", "temperature"]);
    let ds = c.atlas.dataset("day_03").unwrap();
    assert_eq!(ds.ordinal(), 3);
    assert_eq!(
        ds.schema().names().collect::<Vec<_>>(),
        vec!["temperature", "station"]
    );
    assert_eq!(
        ds.array_meta("temperature").unwrap().dtype().name(),
        "float32"
    );
    assert!(c.atlas.dataset_exists("day_07") && !c.atlas.dataset_exists("day_08"));
    assert_eq!(c.data.requests(), 0);
}

#[test]
fn a_variable_opens_once_and_a_second_dataset_costs_only_its_block() {
    let c = open_counted(fixture(), false);
    c.data.reset();
    let first = c.atlas.dataset("day_02").unwrap();
    let window = block_on(first.read_array_as::<f32>("temperature", &[10, 20], &[2, 3])).unwrap();
    assert_eq!(
        window.data,
        vec![
            2_002_580.0,
            2_002_581.0,
            2_002_582.0,
            2_002_836.0,
            2_002_837.0,
            2_002_838.0
        ]
    );
    assert_eq!(
        c.data.requests(),
        2,
        "segment tail + the one block holding row 10: {:?}",
        c.data.entries()
    );
    let block = c.data.entries()[1].1;
    assert!(
        block <= 256 * 1024,
        "one block, not the segment: {block} bytes"
    );

    c.data.reset();
    let second = c.atlas.dataset("day_05").unwrap();
    let window =
        block_on(second.read_array_as::<f32>("temperature", &[255, 255], &[1, 1])).unwrap();
    assert_eq!(window.data, vec![(5_000_000 + 255 * 256 + 255) as f32]);
    assert_eq!(
        c.data.requests(),
        1,
        "the segment is cached; only the block is fetched"
    );

    c.data.reset();
    block_on(first.read_array_as::<f32>("temperature", &[0, 0], &[1, 1])).unwrap();
    assert_eq!(c.data.requests(), 0, "a cached block costs nothing");
}

#[test]
fn metadata_of_a_variable_costs_one_segment_open_for_the_whole_collection() {
    let c = open_counted(fixture(), false);
    c.data.reset();
    for name in c.atlas.list_datasets() {
        let ds = c.atlas.dataset(&name).unwrap();
        let layout = block_on(ds.array_layout("temperature")).unwrap();
        assert_eq!(layout.shape, vec![ROWS as u64, COLS as u64]);
        assert_eq!(layout.dimension_names, vec!["y", "x"]);
    }
    let stats = block_on(c.atlas.array_stats("temperature"))
        .unwrap()
        .unwrap();
    assert_eq!(stats.row_count, (DATASETS * ROWS * COLS) as u64);
    assert_eq!(c.data.requests(), 1, "{:?}", c.data.entries());

    c.data.reset();
    let days = block_on(c.atlas.attributes_by_dataset(None, "day")).unwrap();
    assert_eq!(days.len(), DATASETS);
    assert_eq!(days["day_06"], atlas_wasm::Attr::Int64(6));
    assert_eq!(
        c.data.requests(),
        0,
        "the _datasets segment, written last, lies inside the open's tail read"
    );
}

#[test]
fn a_tail_probe_that_holds_the_file_serves_every_later_read() {
    let bytes = std::fs::read(fixture().join("data.atlas")).unwrap();
    let data = CountingSource::new(MemorySource::new(bytes.clone()));
    let log = data.log();
    let options = atlas_wasm::ReadOptions {
        tail_probe_bytes: bytes.len() as u64,
        ..Default::default()
    };
    let atlas = block_on(Atlas::open_with(Arc::new(data), None, options)).unwrap();
    assert_eq!(log.requests(), 1);
    let all = block_on(atlas.read_across("temperature", &[], &[])).unwrap();
    assert_eq!(
        all[3].1.clone().into_typed::<f32>().unwrap().data[7],
        3_000_007.0
    );
    let days = block_on(atlas.attributes_by_dataset(None, "day")).unwrap();
    assert_eq!(days["day_06"], atlas_wasm::Attr::Int64(6));
    assert_eq!(log.requests(), 1, "{:?}", log.entries());
}

/// Block reads of a whole-variable sweep of the fixture: its `temperature`
/// segment packs into 8 blocks of 256 KiB, each fetched once.
const BLOCK_REQUESTS: usize = 8;

#[test]
fn concurrent_reads_of_one_variable_fetch_each_block_once() {
    let c = open_counted(fixture(), false);
    block_on(c.atlas.array_stats("temperature")).unwrap();
    c.data.reset();
    let names = c.atlas.list_datasets();
    let reads = names.iter().map(|n| {
        let ds = c.atlas.dataset(n).unwrap();
        async move { ds.read_array_as::<f32>("temperature", &[], &[]).await }
    });
    let all = block_on(futures_util::future::try_join_all(reads)).unwrap();
    assert_eq!(all[7].data[0], 7_000_000.0);
    // Sorted, no two requests share or overlap a byte range: no block twice.
    let mut ranges = c.data.entries();
    ranges.sort_unstable();
    for pair in ranges.windows(2) {
        let ((a, a_len), (b, _)) = (pair[0], pair[1]);
        assert!(a + a_len <= b, "a block fetched twice: {ranges:?}");
    }
    assert_eq!(
        (ranges.len(), c.data.requests()),
        (BLOCK_REQUESTS, BLOCK_REQUESTS),
        "{ranges:?}"
    );
}

#[test]
fn a_sweep_across_datasets_coalesces_neighbouring_blocks() {
    let c = open_counted(fixture(), false);
    block_on(c.atlas.array_stats("temperature")).unwrap();
    c.data.reset();
    let all = block_on(c.atlas.read_across("temperature", &[100, 0], &[2, 2])).unwrap();
    assert_eq!(all.len(), DATASETS);
    assert_eq!(all[7].0, "day_07");
    let values = all[7].1.clone().into_typed::<f32>().unwrap();
    assert_eq!(
        values.data,
        vec![7_025_600.0, 7_025_601.0, 7_025_856.0, 7_025_857.0]
    );
    // Eight touching 256 KiB blocks travel as two 1 MiB reads (the 4 MiB
    // coalescing limit is not the bound here: the blocks are).
    assert!(c.data.requests() < DATASETS, "{:?}", c.data.entries());
    assert!(c.data.bytes() <= (DATASETS * 256 * 1024) as u64);
}

#[test]
fn unwritten_data_costs_no_io() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("costs-unwritten");
    let _ = std::fs::remove_dir_all(&dir);
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async {
        let writer = AtlasWriter::create_path(&dir, WriterConfig::default())
            .await
            .unwrap();
        let mut ds = writer.add_dataset("sparse").await.unwrap();
        ds.define_array::<f64>(
            "v",
            vec!["t".into()],
            vec![1000],
            Some(vec![100]),
            Some(atlas::FillValue::Float(-9.0)),
        )
        .await
        .unwrap();
        let head =
            ndarray::Array::from_shape_vec(ndarray::IxDyn(&[100]), vec![1.5f64; 100]).unwrap();
        ds.write_array("v", vec![0], head.view()).await.unwrap();
        ds.finish().await.unwrap();
        writer.finish().await.unwrap();
    });
    let c = open_counted(&dir, false);
    let ds = c.atlas.dataset("sparse").unwrap();
    block_on(ds.array_layout("v")).unwrap();
    c.data.reset();
    let tail = block_on(ds.read_array_as::<f64>("v", &[500], &[10])).unwrap();
    assert_eq!(tail.data, vec![-9.0; 10]);
    assert_eq!(
        c.data.requests(),
        0,
        "never-written chunks come from the fill value"
    );
}

/// Decodes each block on a thread of its own, and counts them.
struct ThreadDecoder(std::sync::atomic::AtomicUsize);

impl atlas_wasm::BlockDecoder for ThreadDecoder {
    fn decode(
        &self,
        block: atlas_wasm::CompressedBlock,
    ) -> atlas_wasm::source::SourceFuture<'static, Vec<u8>> {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        // A std channel is enough here: the test blocks on the answer anyway.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || tx.send(block.decompress()));
        Box::pin(async move { rx.recv().unwrap() })
    }
}

#[test]
fn a_block_decoder_takes_over_decompression_and_sees_each_block_once() {
    let decoder = Arc::new(ThreadDecoder(Default::default()));
    let data = MemorySource::new(std::fs::read(fixture().join("data.atlas")).unwrap());
    let options = atlas_wasm::ReadOptions {
        decoder: Some(decoder.clone()),
        ..Default::default()
    };
    let atlas = block_on(Atlas::open_with(Arc::new(data), None, options)).unwrap();
    let all = block_on(atlas.read_across("temperature", &[], &[])).unwrap();
    assert_eq!(
        all[3].1.clone().into_typed::<f32>().unwrap().data[7],
        3_000_007.0
    );
    assert_eq!(
        decoder.0.load(std::sync::atomic::Ordering::SeqCst),
        DATASETS,
        "one block per dataset"
    );
}

/// Records how much of each block a read asked decoded, and whether the
/// read needed that block alone.
#[derive(Default)]
struct DecodeLog(
    std::sync::Mutex<Vec<(u64, u64)>>,
    std::sync::Mutex<Vec<bool>>,
);

impl atlas_wasm::BlockDecoder for DecodeLog {
    fn decode(
        &self,
        block: atlas_wasm::CompressedBlock,
    ) -> atlas_wasm::source::SourceFuture<'static, Vec<u8>> {
        self.0
            .lock()
            .unwrap()
            .push((block.wanted, block.uncompressed_size));
        self.1.lock().unwrap().push(block.alone);
        Box::pin(std::future::ready(block.decompress()))
    }
}

#[test]
fn a_window_decodes_its_block_only_as_far_as_its_chunks_and_a_later_read_needs_no_request() {
    let dir = fixture();
    let data = CountingSource::new(MemorySource::new(
        std::fs::read(dir.join("data.atlas")).unwrap(),
    ));
    let log = data.log();
    let decodes = Arc::new(DecodeLog::default());
    let options = atlas_wasm::ReadOptions {
        decoder: Some(decodes.clone()),
        ..Default::default()
    };
    let atlas = block_on(Atlas::open_with(Arc::new(data), None, options)).unwrap();
    let ds = atlas.dataset("day_04").unwrap();
    let taken = |decodes: &DecodeLog| std::mem::take(&mut *decodes.0.lock().unwrap());

    // Row 10 is in the first of the block's four 64 KiB chunks.
    let first = block_on(ds.read_array_as::<f32>("temperature", &[10, 0], &[1, 2])).unwrap();
    assert_eq!(first.data, vec![4_002_560.0, 4_002_561.0]);
    assert_eq!(
        taken(&decodes),
        vec![(64 * 1024, 256 * 1024)],
        "the first chunk only"
    );

    // Row 200 is in the last: the block is decoded again, whole, from the
    // compressed bytes the cache kept, with no request.
    log.reset();
    let last = block_on(ds.read_array_as::<f32>("temperature", &[200, 7], &[1, 1])).unwrap();
    assert_eq!(last.data, vec![(4_000_000 + 200 * 256 + 7) as f32]);
    assert_eq!(log.requests(), 0, "{:?}", log.entries());
    assert_eq!(taken(&decodes), vec![(256 * 1024, 256 * 1024)]);

    // Now every chunk of the block is decoded: nothing more to do.
    let middle = block_on(ds.read_array_as::<f32>("temperature", &[100, 1], &[1, 1])).unwrap();
    assert_eq!(middle.data, vec![(4_000_000 + 100 * 256 + 1) as f32]);
    assert_eq!((log.requests(), taken(&decodes).len()), (0, 0));

    // A read across datasets wants whole blocks; concurrent reads of one
    // block, one wanting more than the other, still fetch it once.
    log.reset();
    let other = atlas.dataset("day_06").unwrap();
    let (a, b) = block_on(async {
        futures_util::join!(
            other.read_array_as::<f32>("temperature", &[0, 0], &[1, 1]),
            other.read_array_as::<f32>("temperature", &[255, 255], &[1, 1])
        )
    });
    assert_eq!(a.unwrap().data, vec![6_000_000.0]);
    assert_eq!(b.unwrap().data, vec![(6_000_000 + 255 * 256 + 255) as f32]);
    assert_eq!(log.requests(), 1, "{:?}", log.entries());
}

#[test]
fn a_decoder_is_told_whether_other_blocks_are_loading() {
    let data = MemorySource::new(std::fs::read(fixture().join("data.atlas")).unwrap());
    let decodes = Arc::new(DecodeLog::default());
    let options = atlas_wasm::ReadOptions {
        decoder: Some(decodes.clone()),
        cache_bytes: 0,
        ..Default::default()
    };
    let atlas = block_on(Atlas::open_with(Arc::new(data), None, options)).unwrap();
    let alone = || std::mem::take(&mut *decodes.1.lock().unwrap());

    let ds = atlas.dataset("day_02").unwrap();
    block_on(ds.read_array_as::<f32>("temperature", &[3, 4], &[2, 2])).unwrap();
    assert_eq!(alone(), vec![true], "a window inside one block");
    let whole = atlas.dataset("day_05").unwrap();
    let all = [ROWS as u64, COLS as u64];
    block_on(whole.read_array_as::<f32>("temperature", &[0, 0], &all)).unwrap();
    assert_eq!(alone(), vec![true], "a whole array that is one block");

    // Blocks are decoded in order, each load ending before the next decodes:
    // only the last is decoded with nothing else loading.
    block_on(atlas.read_across("temperature", &[], &[])).unwrap();
    let mut across = vec![false; DATASETS - 1];
    across.push(true);
    assert_eq!(alone(), across, "one block per dataset, read together");
}

#[test]
fn a_block_is_not_alone_while_another_read_loads_one() {
    let bytes = std::fs::read(fixture().join("data.atlas")).unwrap();
    let reads = Turnstile::new(usize::MAX);
    let decodes = Arc::new(DecodeLog::default());
    let options = atlas_wasm::ReadOptions {
        decoder: Some(decodes.clone()),
        cache_bytes: 0,
        ..Default::default()
    };
    let source = Parked(MemorySource::new(bytes), reads.clone());
    let atlas = block_on(Atlas::open_with(Arc::new(source), None, options)).unwrap();
    let (a, b) = (
        atlas.dataset("day_01").unwrap(),
        atlas.dataset("day_06").unwrap(),
    );
    block_on(a.array_layout("temperature")).unwrap(); // the segment is open
    reads.allow(reads.counts().0);

    // Two windows in two blocks: both requests leave before either block is in.
    let window = |ds| async move {
        let ds: &atlas_wasm::DatasetView = ds;
        ds.read_array_as::<f32>("temperature", &[1, 1], &[1, 1])
            .await
    };
    let mut both = std::pin::pin!(async { futures_util::join!(window(&a), window(&b)) });
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    assert!(std::future::Future::poll(both.as_mut(), &mut cx).is_pending());
    assert_eq!(reads.counts().1, 2, "both block requests are waiting");
    reads.allow(usize::MAX);
    let (x, y) = block_on(both);
    assert_eq!(x.unwrap().data, vec![(1_000_000 + 257) as f32]);
    assert_eq!(y.unwrap().data, vec![(6_000_000 + 257) as f32]);
    let alone = std::mem::take(&mut *decodes.1.lock().unwrap());
    assert!(
        !alone[0],
        "the first decoded while the other was loading: {alone:?}"
    );
}

#[test]
fn the_read_plan_tells_its_ranges_before_requesting_them() {
    let bytes = std::fs::read(fixture().join("data.atlas")).unwrap();
    let data = CountingSource::new(MemorySource::new(bytes));
    let log = data.log();
    let atlas = block_on(Atlas::open(Arc::new(data), None)).unwrap();
    block_on(atlas.array_stats("temperature")).unwrap(); // opens the segment, plans nothing
    log.reset();
    /// A sink that records each plan it is told, and checks that nothing of
    /// it has been requested yet when it is told.
    struct Told {
        log: atlas_wasm::source::RequestLog,
        plans: Vec<Vec<(u64, u64)>>,
        parts: usize,
    }
    impl atlas_wasm::StackSink for Told {
        fn begin(&mut self, _: &atlas_wasm::StackedLayout) -> atlas_wasm::Result<()> {
            Ok(())
        }
        fn append(&mut self, _: atlas_wasm::ArrayData) -> atlas_wasm::Result<()> {
            self.parts += 1;
            Ok(())
        }
        fn planned(&mut self, requests: &[std::ops::Range<u64>]) {
            let sent = self.log.requests();
            let plan = requests
                .iter()
                .map(|r| (r.start, r.end - r.start))
                .collect();
            self.plans.push(plan);
            assert_eq!(self.log.requests(), sent);
        }
    }
    let mut sink = Told {
        log: log.clone(),
        plans: Vec::new(),
        parts: 0,
    };
    let window = atlas_wasm::AcrossRequest {
        start: vec![100, 0],
        shape: vec![2, 2],
        ..Default::default()
    };
    block_on(atlas.read_stacked_into("temperature", &window, &mut sink)).unwrap();
    assert_eq!(sink.parts, DATASETS);
    let mut requested = log.entries();
    requested.sort_unstable();
    assert_eq!(
        sink.plans,
        vec![requested],
        "one plan, exactly what was requested"
    );
    // Again: every block is cached, so the plan is told and is empty.
    block_on(atlas.read_stacked_into("temperature", &window, &mut sink)).unwrap();
    assert_eq!(sink.plans.last(), Some(&Vec::new()));
}

/// Futures that end only as a test lets them: the first `allowed` tickets
/// ever issued pass. Counts tickets issued and passed.
struct Turnstile(std::sync::Mutex<TurnstileState>);

struct TurnstileState {
    issued: usize,
    passed: usize,
    allowed: usize,
    waiting: Vec<std::task::Waker>,
}

impl Turnstile {
    fn new(allowed: usize) -> Arc<Self> {
        Arc::new(Turnstile(std::sync::Mutex::new(TurnstileState {
            issued: 0,
            passed: 0,
            allowed,
            waiting: Vec::new(),
        })))
    }

    fn ticket(self: &Arc<Self>) -> impl std::future::Future<Output = ()> + Send + 'static {
        let number = {
            let mut state = self.0.lock().unwrap();
            state.issued += 1;
            state.issued - 1
        };
        let gate = self.clone();
        std::future::poll_fn(move |cx| {
            let mut state = gate.0.lock().unwrap();
            if number < state.allowed {
                state.passed += 1;
                return std::task::Poll::Ready(());
            }
            state.waiting.push(cx.waker().clone());
            std::task::Poll::Pending
        })
    }

    /// Lets the first `allowed` tickets pass.
    fn allow(&self, allowed: usize) {
        let mut state = self.0.lock().unwrap();
        state.allowed = allowed;
        state.waiting.drain(..).for_each(|w| w.wake());
    }

    /// `(issued, waiting to pass)`.
    fn counts(&self) -> (usize, usize) {
        let state = self.0.lock().unwrap();
        (state.issued, state.issued - state.passed)
    }
}

/// A memory source whose range reads each wait for a ticket.
struct Parked(MemorySource, Arc<Turnstile>);

impl ByteSource for Parked {
    fn read_range(
        &self,
        range: std::ops::Range<u64>,
    ) -> atlas_wasm::source::SourceFuture<'_, Vec<u8>> {
        let ticket = self.1.ticket();
        Box::pin(async move {
            ticket.await;
            self.0.read_range(range).await
        })
    }
    fn read_tail(&self, len: u64) -> atlas_wasm::source::SourceFuture<'_, atlas_wasm::Tail> {
        self.0.read_tail(len)
    }
    fn describe(&self) -> String {
        "parked".into()
    }
}

/// Decodes a block once it has a ticket.
struct ParkedDecoder(Arc<Turnstile>);

impl atlas_wasm::BlockDecoder for ParkedDecoder {
    fn decode(
        &self,
        block: atlas_wasm::CompressedBlock,
    ) -> atlas_wasm::source::SourceFuture<'static, Vec<u8>> {
        let ticket = self.0.ticket();
        Box::pin(async move {
            ticket.await;
            block.decompress()
        })
    }
}

#[test]
fn requests_leave_while_earlier_blocks_are_still_decoding_and_stay_within_max_concurrency() {
    let bytes = std::fs::read(fixture().join("data.atlas")).unwrap();
    let (reads, decodes) = (Turnstile::new(usize::MAX), Turnstile::new(0));
    let options = atlas_wasm::ReadOptions {
        max_concurrency: 2,
        coalesce_bytes: 1, // one request per block
        decoder: Some(Arc::new(ParkedDecoder(decodes.clone()))),
        ..Default::default()
    };
    let source = Parked(MemorySource::new(bytes), reads.clone());
    let atlas = block_on(Atlas::open_with(Arc::new(source), None, options)).unwrap();
    let ds = atlas.dataset("day_00").unwrap();
    block_on(ds.array_layout("temperature")).unwrap(); // the segment is open
    let before = reads.counts().0;
    reads.allow(before);

    let mut read = std::pin::pin!(atlas.read_across("temperature", &[], &[]));
    let mut poll = || {
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        assert!(std::future::Future::poll(read.as_mut(), &mut cx).is_pending());
        let (issued, waiting) = reads.counts();
        assert!(
            waiting <= 2,
            "{waiting} requests in flight, max_concurrency is 2"
        );
        issued - before
    };
    assert_eq!(poll(), 2, "two requests leave at once");
    // Each request answered starts the next, though no block is decoded.
    for answered in 1..=2 {
        reads.allow(before + answered);
        assert_eq!(poll(), 2 + answered);
    }
    // Four blocks (2 × max_concurrency) fetched ahead of the first decode: no more.
    reads.allow(usize::MAX);
    assert_eq!(poll(), 4);
    assert_eq!(
        decodes.counts(),
        (2, 2),
        "the first two blocks are decoding"
    );

    decodes.allow(usize::MAX);
    let all = block_on(read).unwrap();
    assert_eq!(
        reads.counts().0 - before,
        DATASETS,
        "each block fetched once"
    );
    for (d, (name, array)) in all.iter().enumerate() {
        assert_eq!(name, &format!("day_{d:02}"));
        let values = array.clone().into_typed::<f32>().unwrap().data;
        assert_eq!(
            values[ROWS * COLS - 1],
            (d * 1_000_000 + ROWS * COLS - 1) as f32
        );
    }
}

#[test]
fn a_segment_refused_for_its_size_is_not_requested_again() {
    // A budget the collection footer fits and a segment footer (8 entries of
    // ~320 bytes) does not; a small first probe keeps the segments out of it.
    let options = atlas_wasm::ReadOptions {
        memory_budget: 2048,
        tail_probe_bytes: 1024,
        ..Default::default()
    };
    let data = CountingSource::new(MemorySource::new(
        std::fs::read(fixture().join("data.atlas")).unwrap(),
    ));
    let log = data.log();
    let atlas = block_on(Atlas::open_with(Arc::new(data), None, options)).unwrap();
    let ds = atlas.dataset("day_01").unwrap();
    log.reset();
    let first = block_on(ds.read_array_as::<f32>("temperature", &[0, 0], &[1, 1])).unwrap_err();
    assert_eq!(first.code(), "TooLarge", "{first}");
    assert!(
        log.requests() >= 1,
        "the first read asks for the segment footer"
    );
    log.reset();
    let again = block_on(atlas.dataset("day_02").unwrap().array_stats("temperature")).unwrap_err();
    assert_eq!(again, first);
    assert_eq!(
        log.requests(),
        0,
        "the refusal is kept, not asked for again"
    );
}
