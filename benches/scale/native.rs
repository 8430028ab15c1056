//! Open and one dataset's first read at 1,000 to 1,000,000 datasets,
//! natively: our reader against atlas-rust 0.17.2, on collections written by
//! atlas-rust and by our writer, each measurement in a fresh process of its
//! own so its peak RSS is its own. `benches/scale/run.sh` runs this, then the
//! same reads in Node and headless Chromium over HTTP (benches/js/scale.mjs).
//!
//! ```text
//! cargo bench --features writer --bench scale                  # 1k, 10k, 100k, 1M
//! ATLAS_SCALE_SIZES=1000,100000 cargo bench --features writer --bench scale
//! ```
//!
//! Collections (each dataset one float32 `value`[24] and two attributes,
//! 8 MiB blocks, both writers' defaults) are kept under
//! `target/tmp/scale-v1/{n}` (atlas-rust) and `target/tmp/scale-v1/ours-{n}`
//! and reused; `ours-64k-{n}` has 64 KiB blocks. Reads are from the local file: the numbers are CPU, memory
//! and bytes read, not the network (see benches/read_latency.rs). Besides
//! the wall time, each child reports the time it spent on a CPU
//! (`/proc/self/schedstat`), which other work on the machine does not
//! inflate, and its read calls and bytes (`syscr`, `rchar` of
//! /proc/self/io).

use std::path::{Path, PathBuf};
use std::time::Instant;

#[path = "../common/mod.rs"]
mod common;
use common::{add_dataset, own, run_child, values, LEN};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [mode, dir, name] = &args[..] {
        if mode == "--ours" || mode == "--theirs" {
            return child(mode, Path::new(dir), name);
        }
    }
    let sizes: Vec<usize> = std::env::var("ATLAS_SCALE_SIZES")
        .unwrap_or_else(|_| "1000,10000,100000,1000000".into())
        .split(',')
        .map(|s| s.trim().parse().expect("ATLAS_SCALE_SIZES: numbers"))
        .collect();
    println!("| datasets | written by | reader | open + first read | on CPU | read calls | bytes read | peak RSS |");
    println!("|---:|---|---|---:|---:|---:|---:|---:|");
    for n in sizes {
        let name = format!("d{:07}", n / 2 + 1);
        for (writer, dir) in [
            ("atlas-rust", collection_by_atlas_rust(n)),
            ("atlas-wasm", collection_by_ours(n, None)),
            (
                "atlas-wasm, 64 KiB blocks",
                collection_by_ours(n, Some(64 << 10)),
            ),
        ] {
            let ours = measure("--ours", &dir, &name);
            let theirs = measure("--theirs", &dir, &name);
            for (who, m) in [("atlas-wasm", &ours), ("atlas-rust 0.17.2", &theirs)] {
                println!(
                    "| {n} | {writer} | {who} | {:.1} ms | {:.1} ms | {} | {} | {:.0} MiB |",
                    m.ms, m.cpu_ms, m.read_calls, m.bytes_read, m.rss_mib
                );
            }
            println!(
                "| {n} | {writer} | ratio (atlas-rust / ours) | {:.1}× | {:.1}× | {:.1}× | {:.1}× | {:.1}× |",
                theirs.ms / ours.ms,
                theirs.cpu_ms / ours.cpu_ms,
                theirs.read_calls as f64 / ours.read_calls as f64,
                theirs.bytes_read as f64 / ours.bytes_read as f64,
                theirs.rss_mib / ours.rss_mib
            );
        }
    }
}

/// What one child measured of itself.
struct Measured {
    ms: f64,
    rss_mib: f64,
    cpu_ms: f64,
    read_calls: u64,
    bytes_read: u64,
}

/// Runs one reader in a child process and takes what it measured.
fn measure(mode: &str, dir: &Path, name: &str) -> Measured {
    let fields = run_child(&[mode, &dir.display().to_string(), name]);
    let [ms, rss_mib, cpu_ms, read_calls, bytes_read] = fields[..] else {
        panic!("{mode} printed {fields:?}")
    };
    Measured {
        ms,
        rss_mib,
        cpu_ms,
        read_calls: read_calls as u64,
        bytes_read: bytes_read as u64,
    }
}

fn child(mode: &str, dir: &Path, name: &str) {
    let (start, cpu_start, io_start) = (Instant::now(), on_cpu_ms(), io());
    let read: Vec<f32> = if mode == "--ours" {
        let atlas = futures_executor::block_on(atlas_wasm::Atlas::open_path(dir)).unwrap();
        if std::env::var_os("ATLAS_SCALE_SPLIT").is_some() {
            eprintln!("open {:.1} ms", start.elapsed().as_secs_f64() * 1e3);
        }
        let ds = atlas.dataset(name).unwrap();
        futures_executor::block_on(ds.read_array_as::<f32>("value", &[], &[]))
            .unwrap()
            .data
    } else {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let atlas = atlas::Atlas::open_path(dir).await.unwrap();
            let ds = atlas.dataset(name).unwrap();
            ds.read_array::<f32>("value", vec![], vec![])
                .await
                .unwrap()
                .iter()
                .copied()
                .collect()
        })
    };
    let ms = start.elapsed().as_secs_f64() * 1e3;
    assert_eq!(read.len(), LEN);
    let io_end = io();
    println!(
        "{ms} {} {} {} {}",
        peak_rss_mib(),
        on_cpu_ms() - cpu_start,
        io_end.0 - io_start.0,
        io_end.1 - io_start.1
    );
}

/// Time this process's threads have run on a CPU: the sum of the first
/// field of each thread's schedstat. A running thread's figure is brought up
/// to date when it leaves the CPU, hence the yield. atlas-rust's file reads
/// run on tokio's blocking threads, which are still alive here (they idle
/// for 10 s before they exit).
fn on_cpu_ms() -> f64 {
    std::thread::yield_now();
    let mut ns = 0.0;
    for task in std::fs::read_dir("/proc/self/task").unwrap() {
        let stat = std::fs::read_to_string(task.unwrap().path().join("schedstat")).unwrap();
        ns += stat
            .split_whitespace()
            .next()
            .unwrap()
            .parse::<f64>()
            .unwrap();
    }
    ns / 1e6
}

/// This process's read calls and bytes read so far (`syscr`, `rchar`).
fn io() -> (u64, u64) {
    (own("io", "syscr:") as u64, own("io", "rchar:") as u64)
}

fn peak_rss_mib() -> f64 {
    own("status", "VmHWM:") / 1024.0
}

fn collection_dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("target/tmp/scale-v1/{name}"))
}

/// The collection of `n` datasets, written by our writer once, with its
/// default blocks or blocks of `block` bytes. At 1,000 datasets `value` is
/// one 96 KB block either way; past 100,000 a first read fetches and
/// decodes a whole 8 MiB block, and small blocks show what the scale
/// itself costs without it.
fn collection_by_ours(n: usize, block: Option<usize>) -> PathBuf {
    use atlas_wasm::write::{AtlasWriter, WriterConfig};
    let dir = match block {
        None => collection_dir(&format!("ours-{n}")),
        Some(bytes) => collection_dir(&format!("ours-{}k-{n}", bytes >> 10)),
    };
    if dir.join("data.atlas").exists() {
        return dir;
    }
    let _ = std::fs::remove_dir_all(&dir);
    let mut config = WriterConfig::default();
    if let Some(bytes) = block {
        config.block_target_size = bytes;
    }
    let writer = AtlasWriter::create(&dir, config).unwrap();
    for d in 0..n {
        add_dataset(&writer, d);
    }
    writer.finish().unwrap();
    dir
}

/// The collection of `n` datasets, written by atlas-rust once.
fn collection_by_atlas_rust(n: usize) -> PathBuf {
    let dir = collection_dir(&n.to_string());
    if dir.join("data.atlas").exists() {
        return dir;
    }
    let _ = std::fs::remove_dir_all(&dir);
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async {
        let writer = atlas::AtlasWriter::create_path(&dir, atlas::WriterConfig::default())
            .await
            .unwrap();
        for d in 0..n {
            let mut ds = writer.add_dataset(&format!("d{d:07}")).await.unwrap();
            let values = ndarray::Array::from_shape_vec(ndarray::IxDyn(&[LEN]), values(d)).unwrap();
            ds.define_array::<f32>("value", vec!["level".into()], vec![LEN], None, None)
                .await
                .unwrap();
            ds.write_array("value", vec![0], values.view())
                .await
                .unwrap();
            ds.set_attribute("platform", atlas::Attr::Int64(d as i64));
            ds.set_attribute("site", atlas::Attr::String(format!("site {}", d % 50)));
            ds.finish().await.unwrap();
        }
        writer.finish().await.unwrap();
    });
    dir
}
