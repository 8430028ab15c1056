//! Natively, the time to read every row of each file held in memory: the
//! `parquet` crate's record API (rows iterated, values not converted)
//! against `atlas_wasm::atria::parquet` (every row group into `Value`s).
//! Best of 15 runs each, interleaved; the ratio is ours / the crate's.
//!   cargo run --release -p speed -- FILE.parquet…   (snappy or uncompressed files:
//!   the crate build has no other codec)

use std::sync::Arc;
use std::time::{Duration, Instant};

use atlas_wasm::atria::parquet::ParquetFile;
use atlas_wasm::{ByteSource, MemorySource};
use parquet::file::reader::{FileReader, SerializedFileReader};

fn with_crate(bytes: &bytes::Bytes) -> usize {
    let reader = SerializedFileReader::new(bytes.clone()).unwrap();
    reader.get_row_iter(None).unwrap().map(|r| r.unwrap()).count()
}

fn ours(bytes: &[u8]) -> usize {
    let source: Arc<dyn ByteSource> = Arc::new(MemorySource::new(bytes.to_vec()));
    futures_executor::block_on(async {
        let file = ParquetFile::open(source).await.unwrap();
        let mut n = 0;
        for g in 0..file.row_groups() {
            n += file.read_row_group(g, None).await.unwrap().len();
        }
        n
    })
}

fn main() {
    for path in std::env::args().skip(1) {
        let raw = std::fs::read(&path).unwrap();
        let shared = bytes::Bytes::from(raw.clone());
        assert_eq!(with_crate(&shared), ours(&raw), "{path}: row counts differ");
        let (mut best_crate, mut best_ours) = (Duration::MAX, Duration::MAX);
        for _ in 0..15 {
            let t = Instant::now();
            std::hint::black_box(with_crate(&shared));
            best_crate = best_crate.min(t.elapsed());
            let t = Instant::now();
            std::hint::black_box(ours(&raw));
            best_ours = best_ours.min(t.elapsed());
        }
        println!(
            "{path}: parquet crate {:.3} ms, ours {:.3} ms, ratio {:.2}",
            best_crate.as_secs_f64() * 1e3,
            best_ours.as_secs_f64() * 1e3,
            best_ours.as_secs_f64() / best_crate.as_secs_f64()
        );
    }
}
