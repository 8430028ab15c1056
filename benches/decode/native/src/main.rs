//! The native half of the decode benchmark (benches/decode/run.sh).
//!
//! Reads one array of every dataset of a collection, catching each zstd
//! block as the reader hands it to its `BlockDecoder`, writes the blocks to
//! OUT_DIR (`block-N.zst` and `blocks.json`) for the wasm half, and times
//! ruzstd, libzstd and this crate's own decoder on them, printing one JSON
//! line per decoder.
//!
//!     cargo run --release --manifest-path benches/decode/native/Cargo.toml -- COLLECTION_DIR ARRAY OUT_DIR

use std::collections::HashSet;
use std::io::Read;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use atlas_wasm::source::SourceFuture;
use atlas_wasm::{Atlas, BlockDecoder, CompressedBlock, MemorySource, ReadOptions};

/// Keeps a copy of every distinct block it decodes.
#[derive(Default)]
struct Recorder {
    blocks: Mutex<Vec<(Vec<u8>, u64)>>,
    seen: Mutex<HashSet<Vec<u8>>>,
}

impl BlockDecoder for Recorder {
    fn decode(&self, block: CompressedBlock) -> SourceFuture<'static, Vec<u8>> {
        let bytes = block.bytes[block.range.clone()].to_vec();
        if self.seen.lock().unwrap().insert(bytes.clone()) {
            self.blocks
                .lock()
                .unwrap()
                .push((bytes, block.uncompressed_size));
        }
        Box::pin(std::future::ready(block.decompress()))
    }
}

type Decode = fn(&[u8], usize) -> Vec<u8>;

fn with_ruzstd(bytes: &[u8], size: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(size);
    ruzstd::decoding::StreamingDecoder::new(bytes)
        .unwrap()
        .read_to_end(&mut out)
        .unwrap();
    out
}

fn with_libzstd(bytes: &[u8], size: usize) -> Vec<u8> {
    zstd::bulk::decompress(bytes, size).unwrap()
}

fn with_ours(bytes: &[u8], size: usize) -> Vec<u8> {
    atlas_wasm::format::codec::zstd_decompress(bytes, size).unwrap()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [collection, array, out] = &args[..] else {
        panic!("usage: decode_bench COLLECTION_DIR ARRAY OUT_DIR");
    };
    let data = std::fs::read(format!("{collection}/data.atlas")).expect("data.atlas");
    let recorder = Arc::new(Recorder::default());
    let options = ReadOptions {
        decoder: Some(recorder.clone()),
        ..ReadOptions::default()
    };
    futures_executor::block_on(async {
        let atlas = Atlas::open_with(Arc::new(MemorySource::new(data)), None, options)
            .await
            .expect("open");
        for name in atlas.list_datasets() {
            let view = atlas.dataset(&name).expect("dataset");
            view.read_array(array, &[], &[]).await.expect("read");
        }
    });
    let blocks = std::mem::take(&mut *recorder.blocks.lock().unwrap());
    std::fs::create_dir_all(out).expect("out dir");
    let mut index = Vec::new();
    for (n, (bytes, size)) in blocks.iter().enumerate() {
        std::fs::write(format!("{out}/block-{n}.zst"), bytes).expect("write block");
        index.push(format!(
            "{{\"file\":\"block-{n}.zst\",\"uncompressed\":{size}}}"
        ));
    }
    std::fs::write(
        format!("{out}/blocks.json"),
        format!("[{}]", index.join(",")),
    )
    .expect("blocks.json");

    let total: u64 = blocks.iter().map(|(_, size)| size).sum();
    let decoders: [(&str, Decode); 3] = [
        ("native ruzstd 0.9", with_ruzstd),
        ("native libzstd (zstd crate, bulk)", with_libzstd),
        ("native ours (codec.rs)", with_ours),
    ];
    for (label, decode) in decoders {
        let mut best = f64::MAX;
        for _ in 0..3 {
            let started = Instant::now();
            for (bytes, size) in &blocks {
                let decoded = decode(bytes, *size as usize);
                assert_eq!(decoded.len() as u64, *size);
            }
            best = best.min(started.elapsed().as_secs_f64());
        }
        println!(
            "{{\"option\":\"{label}\",\"blocks\":{},\"bytes\":{total},\"seconds\":{best:.4},\"mbps\":{:.0}}}",
            blocks.len(),
            total as f64 / best / 1e6
        );
    }
}
