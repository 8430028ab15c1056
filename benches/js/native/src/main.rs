//! One measurement of atlas-rust 0.17.2 over HTTP, in a fresh process:
//!
//! ```text
//! atlas-rust-reader w1|w2 BASE_URL
//! atlas-rust-reader w3 BASE_URL DATASET START SHAPE     (START, SHAPE like 40,85)
//! ```
//!
//! `BASE_URL` serves the workload directory (the collection under `atlas/`).
//! Prints one JSON line: wall milliseconds from open to answer, the checksum
//! of what was read (the same sum `make_workload.py` and `reader.mjs` take,
//! after the clock stops), and the peak RSS in KiB.

use std::sync::Arc;
use std::time::Instant;

use atlas::{Atlas, Attr};
use object_store::http::HttpBuilder;
use object_store::path::Path;
use object_store::ClientOptions;

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (workload, base, window_args) = match args.as_slice() {
        [w, base, rest @ ..] => (w.as_str(), base, rest),
        _ => {
            eprintln!("usage: atlas-rust-reader w1|w2|w3 BASE_URL [DATASET START SHAPE]");
            std::process::exit(2);
        }
    };
    let store = HttpBuilder::new()
        .with_url(base)
        .with_client_options(ClientOptions::new().with_allow_http(true))
        .build()
        .expect("an HTTP store");
    let started = Instant::now();
    let atlas = Atlas::open(Arc::new(store), Path::from("atlas"))
        .await
        .expect("open");
    let answer = match workload {
        "w1" => Answer::Text(catalogue(&atlas).await),
        "w2" => Answer::Words(every_temperature(&atlas).await),
        "w3" => Answer::Words(window(&atlas, window_args).await),
        other => panic!("no workload {other}"),
    };
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    // Checked after the clock stops: verifying is not part of the read.
    let checksum = match answer {
        Answer::Text(text) => weighted_bytes(text.as_bytes()),
        Answer::Words(words) => weighted(&words),
    };
    println!(
        "{{\"ms\":{ms:.2},\"checksum\":{checksum},\"rssKb\":{}}}",
        peak_rss_kb()
    );
}

/// What a workload read: the catalogue's text, or float32s as their bits.
enum Answer {
    Text(String),
    Words(Vec<u32>),
}

/// Every name and its `station`, as "name=station\n" lines.
async fn catalogue(atlas: &Atlas) -> String {
    let names = atlas.list_datasets();
    let stations = atlas
        .attributes_by_dataset(None, "station")
        .await
        .expect("attributes");
    let mut text = String::new();
    for name in names {
        let Some(Attr::String(station)) = stations.get(&name) else {
            panic!("{name} has no station");
        };
        text.push_str(&format!("{name}={station}\n"));
    }
    text
}

/// `temperature` of every dataset, all reads in flight at once, in one array.
async fn every_temperature(atlas: &Atlas) -> Vec<u32> {
    let names = atlas.list_datasets();
    let reads = names.iter().map(|name| async move {
        let ds = atlas.dataset(name).expect("dataset");
        ds.read_array::<f32>("temperature", vec![], vec![])
            .await
            .expect("read")
    });
    let parts = futures::future::join_all(reads).await;
    let mut words = Vec::with_capacity(parts.len() * parts[0].len());
    for part in &parts {
        words.extend(part.iter().map(|v| v.to_bits()));
    }
    words
}

/// One window of one dataset.
async fn window(atlas: &Atlas, args: &[String]) -> Vec<u32> {
    let [name, start, shape] = args else {
        panic!("w3 takes DATASET START SHAPE");
    };
    let axes =
        |s: &str| -> Vec<usize> { s.split(',').map(|n| n.parse().expect("a number")).collect() };
    let ds = atlas.dataset(name).expect("dataset");
    let part = ds
        .read_array::<f32>("temperature", axes(start), axes(shape))
        .await
        .expect("read");
    part.iter().map(|v| v.to_bits()).collect()
}

/// sum(word_i * (i + 1)) mod 2^32.
fn weighted(words: &[u32]) -> u32 {
    words.iter().enumerate().fold(0u32, |h, (i, &w)| {
        h.wrapping_add(w.wrapping_mul(i as u32 + 1))
    })
}

fn weighted_bytes(bytes: &[u8]) -> u32 {
    bytes.iter().enumerate().fold(0u32, |h, (i, &b)| {
        h.wrapping_add((b as u32).wrapping_mul(i as u32 + 1))
    })
}

fn peak_rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}
