//! A collection of 100,000 datasets (or `ATLAS_SCALE_DATASETS`), generated
//! here, read by ranges under the wasm default memory budget (64 MiB): each
//! call's requests counted, every value asserted against what was written.

#![cfg(feature = "writer")]

mod common;

use std::future::Future;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use atlas_wasm::source::{CountingSource, RequestLog, SourceFuture};
use atlas_wasm::write::{AtlasWriter, WriterConfig};
use atlas_wasm::{AcrossRequest, Atlas, Attr, ByteSource, MemorySource, ReadOptions, Tail};

/// 100,000 unless `ATLAS_SCALE_DATASETS` asks for more (e.g. 1000000: the
/// same assertions at a million, docs/read-path.md).
fn datasets() -> u64 {
    static N: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *N.get_or_init(|| {
        std::env::var("ATLAS_SCALE_DATASETS")
            .ok()
            .map(|n| n.parse().expect("ATLAS_SCALE_DATASETS: a number"))
            .unwrap_or(100_000)
            .max(100_000)
    })
}
const LEN: u64 = 24;
const BLOCK: usize = 16 << 10;

fn name(d: u64) -> String {
    // Every seventh name is longer than rkyv keeps inside a row.
    match d % 7 {
        3 => format!("argo-float-{d:07}-profile"),
        _ => format!("p{d:07}"),
    }
}

/// Every tenth dataset declares no `value`, so a dataset's row in that
/// segment is its rank among the others, not its ordinal.
fn has_value(d: u64) -> bool {
    d % 10 != 9
}

fn values(d: u64) -> Vec<f32> {
    (0..LEN).map(|i| (d * 100 + i) as f32).collect()
}

fn write(dir: &Path) {
    // Blocks of 16 KiB, so a read's data costs little beside its footer bytes.
    let config = WriterConfig {
        block_target_size: BLOCK,
        ..WriterConfig::default()
    };
    let writer = AtlasWriter::create(dir, config).unwrap();
    for d in 0..datasets() {
        let mut ds = writer.add_dataset(&name(d)).unwrap();
        if has_value(d) {
            ds.define_array::<f32>("value", vec!["level".into()], &[LEN], None, None)
                .unwrap();
            ds.write_array("value", &[0], &[LEN], &values(d)).unwrap();
            ds.set_array_attribute("value", "units", Attr::String("degC".into()))
                .unwrap();
        } else {
            ds.define_array::<i32>("flag", vec![], &[], None, None)
                .unwrap();
            ds.write_array("flag", &[], &[], &[d as i32]).unwrap();
        }
        ds.set_attribute("platform", Attr::Int64(d as i64));
        ds.set_attribute("site", Attr::String(format!("a site name of {}", d % 50)));
        ds.finish().unwrap();
    }
    writer.finish().unwrap();
}

fn collection() -> &'static Path {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("atlas-wasm-scale-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        write(&dir);
        dir
    })
}

/// A network that answers in round trips: every request waits until the
/// reader can make no progress without an answer, then all requests in
/// flight are answered together. [`Net::run`] counts those deliveries.
#[derive(Clone, Default)]
struct Net {
    waiting: Arc<Mutex<Vec<Waiting>>>,
}

/// A request in flight: the flag its answer sets, and who to wake.
type Waiting = (Arc<AtomicBool>, Waker);

struct Answer {
    answered: Arc<AtomicBool>,
    net: Net,
}

impl Future for Answer {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.answered.load(Ordering::SeqCst) {
            return Poll::Ready(());
        }
        let mut waiting = self.net.waiting.lock().unwrap();
        waiting.push((self.answered.clone(), cx.waker().clone()));
        Poll::Pending
    }
}

impl Net {
    fn wait(&self) -> Answer {
        Answer {
            answered: Arc::new(AtomicBool::new(false)),
            net: self.clone(),
        }
    }

    /// Runs `f` to its end; answers it and the round trips it took.
    fn run<F: Future>(&self, f: F) -> (F::Output, usize) {
        let mut f = std::pin::pin!(f);
        let mut cx = Context::from_waker(Waker::noop());
        let mut trips = 0;
        loop {
            if let Poll::Ready(out) = f.as_mut().poll(&mut cx) {
                return (out, trips);
            }
            let waiting = std::mem::take(&mut *self.waiting.lock().unwrap());
            assert!(!waiting.is_empty(), "the reader waits on no request");
            trips += 1;
            for (answered, waker) in waiting {
                answered.store(true, Ordering::SeqCst);
                waker.wake();
            }
        }
    }
}

struct OnNet<S> {
    inner: S,
    net: Net,
}

impl<S: ByteSource> ByteSource for OnNet<S> {
    fn read_range(&self, range: Range<u64>) -> SourceFuture<'_, Vec<u8>> {
        let answer = self.net.wait();
        Box::pin(async move {
            answer.await;
            self.inner.read_range(range).await
        })
    }
    fn read_tail(&self, len: u64) -> SourceFuture<'_, Tail> {
        let answer = self.net.wait();
        Box::pin(async move {
            answer.await;
            self.inner.read_tail(len).await
        })
    }
    fn describe(&self) -> String {
        self.inner.describe()
    }
}

/// A reader of `dir` under the wasm default budget, its request log, and
/// the network it reads over.
fn open(dir: &Path) -> (Atlas, RequestLog, Net) {
    let source = CountingSource::new(MemorySource::new(
        std::fs::read(dir.join("data.atlas")).unwrap(),
    ));
    let log = source.log();
    let net = Net::default();
    let source = OnNet {
        inner: source,
        net: net.clone(),
    };
    let options = ReadOptions {
        memory_budget: 64 << 20,
        ..ReadOptions::default()
    };
    let (atlas, trips) = net.run(Atlas::open_with(Arc::new(source), None, options));
    assert!(trips <= 2, "open: {trips} round trips, {:?}", log.entries());
    (atlas.unwrap(), log, net)
}

/// Dataset `d`'s `value`, and the round trips it took.
fn read_value(atlas: &Atlas, net: &Net, d: u64) -> (Vec<f32>, usize) {
    let ds = atlas.dataset(&name(d)).unwrap();
    let (read, trips) = net.run(ds.read_array_as::<f32>("value", &[], &[]));
    (read.unwrap().data, trips)
}

#[test]
fn one_dataset_of_a_hundred_thousand_costs_three_round_trips() {
    for d in [datasets() / 2 + 3, 0, 1, datasets() - 2, 70_003] {
        // Each from a fresh open: the first read of the variable.
        let (atlas, log, net) = open(collection());
        assert_eq!(atlas.dataset_count() as u64, datasets());
        log.reset();
        // The segment's root; its row, its run, the pools and block rows
        // (guessed); the block. At most 64 KiB of footer.
        let (read, trips) = read_value(&atlas, &net, d);
        assert_eq!(read, values(d), "dataset {d}");
        assert_eq!(trips, 3, "dataset {d}: {:?}", log.entries());
        assert!(
            log.bytes() <= (64 << 10) + BLOCK as u64,
            "dataset {d}: {:?}",
            log.entries()
        );
        // Another dataset of the same variable: its row and run, its block.
        let other = (d + datasets() / 3) % datasets() / 10 * 10;
        log.reset();
        let (read, trips) = read_value(&atlas, &net, other);
        assert_eq!(read, values(other), "dataset {other}");
        assert_eq!(trips, 2, "then dataset {other}: {:?}", log.entries());
    }
}

#[test]
fn every_call_on_one_dataset_answers_what_was_written() {
    let (atlas, _, net) = open(collection());
    for d in [3, 9, 10, 99_999, 50_003, 42] {
        let ds = atlas.dataset(&name(d)).unwrap();
        let attrs = net.run(ds.attributes()).0.unwrap();
        assert_eq!(attrs["platform"], Attr::Int64(d as i64), "dataset {d}");
        assert_eq!(
            attrs["site"],
            Attr::String(format!("a site name of {}", d % 50))
        );
        if !has_value(d) {
            let flag = net
                .run(ds.read_array_as::<i32>("flag", &[], &[]))
                .0
                .unwrap();
            assert_eq!(flag.data, vec![d as i32]);
            continue;
        }
        let layout = net.run(ds.array_layout("value")).0.unwrap();
        assert_eq!(layout.shape, vec![LEN]);
        assert_eq!(layout.dimension_names, vec!["level".to_string()]);
        let units = net.run(ds.array_attributes("value")).0.unwrap();
        assert_eq!(units["units"], Attr::String("degC".into()));
        let stats = net.run(ds.array_stats("value")).0.unwrap().unwrap();
        assert_eq!(stats.row_count, LEN);
        let window = net
            .run(ds.read_array_as::<f32>("value", &[5], &[3]))
            .0
            .unwrap();
        assert_eq!(window.data, values(d)[5..8].to_vec());
    }
}

#[test]
fn a_thousand_neighbours_read_across_in_a_few_requests() {
    let (atlas, log, net) = open(collection());
    let chosen: Vec<u64> = (40_000..41_200)
        .filter(|&d| has_value(d))
        .take(1000)
        .collect();
    log.reset();
    let request = AcrossRequest {
        datasets: Some(chosen.iter().map(|&d| name(d)).collect()),
        ..AcrossRequest::default()
    };
    let (stacked, trips) = net.run(atlas.read_stacked("value", &request));
    assert!(trips <= 4, "{trips} round trips: {:?}", log.entries());
    let stacked = stacked.unwrap();
    let all = stacked.array.into_typed::<f32>().unwrap().data;
    for (i, &d) in chosen.iter().enumerate() {
        let at = i * LEN as usize;
        assert_eq!(all[at..at + LEN as usize], values(d)[..], "dataset {d}");
    }
}

/// The same shape of collection written by atlas-rust 0.17.2, with a
/// dataset abandoned after `define_array` at ordinal 500: its orphan row
/// shifts every later row one past its rank.
fn atlas_rust_collection() -> &'static Path {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir =
            std::env::temp_dir().join(format!("atlas-wasm-scale-rust-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let config = atlas::WriterConfig {
                block_target_size: BLOCK,
                ..atlas::WriterConfig::default()
            };
            let writer = atlas::AtlasWriter::create_path(&dir, config).await.unwrap();
            for d in 0..datasets() {
                if d == 500 {
                    let mut abandoned = writer.add_dataset("abandoned").await.unwrap();
                    abandoned
                        .define_array::<f32>(
                            "value",
                            vec!["level".into()],
                            vec![LEN as usize],
                            None,
                            None,
                        )
                        .await
                        .unwrap();
                    drop(abandoned);
                }
                let mut ds = writer.add_dataset(&name(d)).await.unwrap();
                if has_value(d) {
                    let grid =
                        ndarray::Array::from_shape_vec(ndarray::IxDyn(&[LEN as usize]), values(d))
                            .unwrap();
                    ds.define_array::<f32>(
                        "value",
                        vec!["level".into()],
                        vec![LEN as usize],
                        None,
                        None,
                    )
                    .await
                    .unwrap();
                    ds.write_array("value", vec![0], grid.view()).await.unwrap();
                } else {
                    let flag = ndarray::Array::from_shape_vec(ndarray::IxDyn(&[1]), vec![d as i32])
                        .unwrap();
                    ds.define_array::<i32>("flag", vec!["n".into()], vec![1], None, None)
                        .await
                        .unwrap();
                    ds.write_array("flag", vec![0], flag.view()).await.unwrap();
                }
                ds.set_attribute("platform", atlas::Attr::Int64(d as i64));
                ds.finish().await.unwrap();
            }
            writer.finish().await.unwrap();
        });
        dir
    })
}

#[test]
fn atlas_rust_files_read_by_ranges_past_an_orphan_row() {
    let (atlas, log, net) = open(atlas_rust_collection());
    assert_eq!(atlas.dataset_count() as u64, datasets());
    for d in [0, 498, 501, 502, 50_003, datasets() - 2] {
        log.reset();
        let (read, trips) = read_value(&atlas, &net, d);
        assert_eq!(read, values(d), "dataset {d}");
        // Past the orphan a rank misses by one row: one round trip more.
        assert!(
            trips <= 4,
            "dataset {d}: {trips} round trips, {:?}",
            log.entries()
        );
        let ds = atlas.dataset(&name(d)).unwrap();
        let attrs = net.run(ds.attributes()).0.unwrap();
        assert_eq!(attrs["platform"], Attr::Int64(d as i64));
    }
    // atlas-rust reads what we read.
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let theirs = rt
        .block_on(atlas::Atlas::open_path(atlas_rust_collection()))
        .unwrap();
    for d in [501, 77_777] {
        let ds = theirs.dataset(&name(d)).unwrap();
        let read = rt
            .block_on(ds.read_array::<f32>("value", vec![], vec![]))
            .unwrap();
        assert_eq!(read.iter().copied().collect::<Vec<f32>>(), values(d));
        assert_eq!(read_value(&atlas, &net, d).0, values(d));
    }
}

#[test]
fn calls_over_every_dataset_stream_the_footer_in_batches() {
    // A footer of 100,000 entries decoded whole needs about 128 MB: past the budget.
    let (atlas, log, net) = open(collection());
    let with_value = (0..datasets()).filter(|&d| has_value(d)).count();
    let stats = net.run(atlas.array_stats("value")).0.unwrap().unwrap();
    assert_eq!(stats.row_count, with_value as u64 * LEN);
    assert_eq!(stats.min, Some(atlas_wasm::StatValue::Float(0.0)));
    let last = (0..datasets()).rev().find(|&d| has_value(d)).unwrap();
    assert_eq!(
        stats.max,
        // Values are float32: past 2^24 the stored maximum is rounded.
        Some(atlas_wasm::StatValue::Float(
            (last * 100 + LEN - 1) as f32 as f64
        ))
    );
    let each = net.run(atlas.array_stats_by_dataset("value")).0.unwrap();
    assert_eq!(each.len(), with_value);
    assert_eq!(each[12_345].name, name(12_345 + 12_345 / 9));
    let platforms = net
        .run(atlas.attributes_by_dataset(None, "platform"))
        .0
        .unwrap();
    assert_eq!(platforms.len() as u64, datasets());
    for d in [0, 1, 77_777, datasets() - 1] {
        assert_eq!(platforms[&name(d)], Attr::Int64(d as i64));
    }
    let units = net
        .run(atlas.attributes_by_dataset(Some("value"), "units"))
        .0
        .unwrap();
    assert_eq!(units.len(), with_value);
    eprintln!(
        "three scans: {} requests, {} MB",
        log.requests(),
        log.bytes() >> 20
    );
}

/// Writes the 100,000-dataset collection into `$ATLAS_FIXTURES/scale` with a
/// `samples.json` of sample datasets, for js/test/scale.test.mjs (not an
/// `expected.json`: the fixture suite's tests take every directory with one).
#[test]
#[ignore = "writes the scale fixture for the JS tests (js/scripts/test.sh runs it)"]
fn write_scale_fixture() {
    let root =
        std::env::var_os("ATLAS_FIXTURES").expect("ATLAS_FIXTURES names the fixture directory");
    let out = Path::new(&root).join("scale");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    std::fs::copy(collection().join("data.atlas"), out.join("data.atlas")).unwrap();
    let samples: Vec<serde_json::Value> = [0, 1, 3, 9, 12_345, 50_003, 70_003, datasets() - 1]
        .iter()
        .map(|&d| {
            serde_json::json!({
                "name": name(d),
                "value": has_value(d).then(|| values(d)),
                "platform": d,
                "site": format!("a site name of {}", d % 50),
            })
        })
        .collect();
    let neighbours: Vec<String> = (40_000..41_200)
        .filter(|&d| has_value(d))
        .take(1000)
        .map(name)
        .collect();
    let with_value = (0..datasets()).filter(|&d| has_value(d)).count() as u64;
    let last = (0..datasets()).rev().find(|&d| has_value(d)).unwrap();
    let expected = serde_json::json!({
        "datasets": datasets(),
        "length": LEN,
        "block": BLOCK,
        "samples": samples,
        "neighbours": neighbours,
        "neighbourValues": (40_000..41_200).filter(|&d| has_value(d)).take(1000).flat_map(values).collect::<Vec<f32>>(),
        "valueStats": { "rowCount": with_value * LEN, "min": 0.0, "max": (last * 100 + LEN - 1) as f32 as f64 },
        "withValue": with_value,
    });
    std::fs::write(
        out.join("samples.json"),
        serde_json::to_vec(&expected).unwrap(),
    )
    .unwrap();
}
