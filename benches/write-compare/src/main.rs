//! `write-compare ours|theirs DIR [DATASETS]`: writes DATASETS datasets of
//! 5 MiB raw each (default 410, about 2.1 GB) and prints time and peak RSS.
//! `write-compare codecs`: ruzstd's encoder against C zstd on 8 MiB blocks
//! of the same data.
//!
//! Each writer runs in its own process, so each peak RSS is its own.

use std::time::Instant;

const SIDE: usize = 1024;
const CHUNK: usize = 256;

/// One dataset's temperature field: smooth, with a little noise, so that
/// compression has real work (about 2:1 under zstd).
fn field(d: usize, out: &mut Vec<f32>) {
    out.clear();
    let mut state = 0x9E37_79B9u32 ^ d as u32;
    for y in 0..SIDE {
        for x in 0..SIDE {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let noise = (state >> 20) as f32 / 4096.0;
            out.push(
                280.0
                    + (y as f32 * 0.01 + d as f32 * 0.1).sin() * 10.0
                    + x as f32 * 0.005
                    + noise * 0.01,
            );
        }
    }
}

fn mask(d: usize) -> Vec<u8> {
    (0..SIDE * SIDE)
        .map(|i| (i / SIDE + d).is_multiple_of(7) as u8)
        .collect()
}

fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb: f64 = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0);
    kb / 1024.0
}

fn ours(dir: &str, n: usize) {
    use atlas_wasm::write::{AtlasWriter, WriterConfig};
    let w = AtlasWriter::create(dir, WriterConfig::default()).unwrap();
    let mut buf = Vec::with_capacity(SIDE * SIDE);
    let shape = [SIDE as u64, SIDE as u64];
    let chunk = [CHUNK as u64, CHUNK as u64];
    for d in 0..n {
        let mut ds = w.add_dataset(&format!("day{d:04}")).unwrap();
        field(d, &mut buf);
        ds.define_array::<f32>(
            "temperature",
            vec!["y".into(), "x".into()],
            &shape,
            Some(&chunk),
            None,
        )
        .unwrap();
        ds.write_array("temperature", &[0, 0], &shape, &buf)
            .unwrap();
        ds.define_array::<u8>(
            "mask",
            vec!["y".into(), "x".into()],
            &shape,
            Some(&chunk),
            None,
        )
        .unwrap();
        ds.write_array("mask", &[0, 0], &shape, &mask(d)).unwrap();
        ds.set_attribute("day", atlas_wasm::Attr::Int64(d as i64));
        ds.finish().unwrap();
    }
    w.finish().unwrap();
}

fn theirs(dir: &str, n: usize) {
    use atlas::{AtlasWriter, Attr, WriterConfig};
    use ndarray::{Array, IxDyn};
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let w = AtlasWriter::create_path(dir, WriterConfig::default())
            .await
            .unwrap();
        let mut buf = Vec::with_capacity(SIDE * SIDE);
        for d in 0..n {
            let mut ds = w.add_dataset(&format!("day{d:04}")).await.unwrap();
            field(d, &mut buf);
            let dims = vec!["y".to_string(), "x".to_string()];
            ds.define_array::<f32>(
                "temperature",
                dims.clone(),
                vec![SIDE, SIDE],
                Some(vec![CHUNK, CHUNK]),
                None,
            )
            .await
            .unwrap();
            let data = Array::from_shape_vec(IxDyn(&[SIDE, SIDE]), buf.clone()).unwrap();
            ds.write_array("temperature", vec![0, 0], data.view())
                .await
                .unwrap();
            ds.define_array::<u8>(
                "mask",
                dims,
                vec![SIDE, SIDE],
                Some(vec![CHUNK, CHUNK]),
                None,
            )
            .await
            .unwrap();
            let data = Array::from_shape_vec(IxDyn(&[SIDE, SIDE]), mask(d)).unwrap();
            ds.write_array("mask", vec![0, 0], data.view())
                .await
                .unwrap();
            ds.set_attribute("day", Attr::Int64(d as i64));
            ds.finish().await.unwrap();
        }
        w.finish().await.unwrap();
    });
}

/// 16 blocks of 8 MiB (two datasets' temperature each) through each encoder.
fn codecs() {
    let mut blocks = Vec::new();
    let mut buf = Vec::new();
    for d in 0..32 {
        field(d, &mut buf);
        let bytes: Vec<u8> = buf.iter().flat_map(|v| v.to_le_bytes()).collect();
        if d % 2 == 0 {
            blocks.push(bytes);
        } else {
            blocks.last_mut().unwrap().extend_from_slice(&bytes);
        }
    }
    let raw: usize = blocks.iter().map(Vec::len).sum();
    let report = |name: &str, f: &dyn Fn(&[u8]) -> Vec<u8>| {
        let started = Instant::now();
        let packed: usize = blocks.iter().map(|b| f(b).len()).sum();
        let secs = started.elapsed().as_secs_f64();
        println!(
            "{name:<22} {:>8.1} MB/s  ratio {:.3}  ({packed} of {raw} bytes)",
            raw as f64 / secs / 1e6,
            raw as f64 / packed as f64
        );
    };
    report("ruzstd 0.9 Fastest", &|b| {
        ruzstd::encoding::compress_to_vec(b, ruzstd::encoding::CompressionLevel::Fastest)
    });
    report("zstd (C) level 1", &|b| zstd::bulk::compress(b, 1).unwrap());
    report("zstd (C) level 3", &|b| zstd::bulk::compress(b, 3).unwrap());
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("codecs") => codecs(),
        Some(which @ ("ours" | "theirs")) => {
            let dir = args.get(1).expect("a destination directory");
            let n: usize = args.get(2).map_or(410, |s| s.parse().unwrap());
            let _ = std::fs::remove_dir_all(dir);
            let started = Instant::now();
            if which == "ours" {
                ours(dir, n)
            } else {
                theirs(dir, n)
            }
            let secs = started.elapsed().as_secs_f64();
            let size = std::fs::metadata(format!("{dir}/data.atlas"))
                .unwrap()
                .len();
            let raw = n as f64 * (SIDE * SIDE * 5) as f64;
            println!(
                "{which:<6} datasets {n}  raw {:.2} GB  container {:.2} GB  time {secs:.1} s  ({:.0} MB/s raw)  peak RSS {:.0} MiB",
                raw / 1e9,
                size as f64 / 1e9,
                raw / secs / 1e6,
                peak_rss_mib()
            );
        }
        _ => eprintln!("usage: write-compare ours|theirs DIR [DATASETS] | write-compare codecs"),
    }
}
