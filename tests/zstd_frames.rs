//! zstd frames for the wasm builds' patched libzstd (js/scripts/
//! libzstd-wasm32.patch runs its fast Huffman loop on wasm32): literal-heavy
//! frames of many sizes and levels, and corrupted copies of some, each with
//! what the native decoder makes of it. `js/test/zstd-frames.test.mjs`
//! decodes every frame with the package's wasm and wants the same answer:
//! the same bytes, or an error with the same code.
//!
//! The fixtures are written by
//! `cargo test --test zstd_frames -- --ignored write_zstd_frames`.

mod common;

use atlas_wasm::format::codec::decompress_prefix;
use atlas_wasm::format::segment::CodecId;

/// One frame, and how much of its output a read asks for.
struct Frame {
    name: String,
    /// The file holding `bytes`; a prefix read shares its whole frame's.
    file: String,
    bytes: Vec<u8>,
    size: usize,
    wanted: usize,
    /// The hash of the first `wanted` bytes compressed, for a valid frame;
    /// none for a corrupted one.
    content: Option<u32>,
}

impl Frame {
    /// A corrupted frame, read whole, in a file of its own.
    fn corrupted(name: String, bytes: Vec<u8>, size: usize) -> Frame {
        Frame {
            file: name.clone(),
            name,
            bytes,
            size,
            wanted: size,
            content: None,
        }
    }
}

/// A deterministic xorshift64*: the same frames on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// Bytes whose literals Huffman-code well and rarely repeat: what the fast
/// loop decodes. `kind` picks the distribution.
fn content(kind: &str, len: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed | 1);
    match kind {
        // Symbols of geometric frequency, a Huffman table of many lengths.
        "skewed" => (0..len)
            .map(|_| {
                let r = rng.next();
                (r.trailing_zeros() as u8).wrapping_mul(17) ^ (r >> 61) as u8
            })
            .collect(),
        // A smooth float32 field with noise, as atlas-python's blocks hold.
        "floats" => (0..len.div_ceil(4))
            .flat_map(|i| {
                let noise = (rng.next() >> 40) as f32 / (1u64 << 24) as f32;
                let value = 288.0 + 20.0 * ((i as f32) * 0.013).sin() + noise;
                value.to_le_bytes()
            })
            .take(len)
            .collect(),
        // Uniform bytes: stored as raw literals, no Huffman table.
        _ => (0..len).map(|_| rng.next() as u8).collect(),
    }
}

fn frames() -> Vec<Frame> {
    let mut frames = Vec::new();
    let sizes = [1, 7, 64, 300, 4_096, 70_000, 131_072, 131_073, 700_000];
    for kind in ["skewed", "floats", "uniform"] {
        for (s, &size) in sizes.iter().enumerate() {
            if kind == "uniform" && size > 70_000 {
                continue;
            }
            let data = content(kind, size, 1 + s as u64);
            for level in [1, 3, 19] {
                let bytes = zstd::bulk::compress(&data, level).unwrap();
                let name = format!("{kind}-{size}-l{level}");
                for (suffix, wanted) in [("-prefix", size / 2), ("", size)] {
                    frames.push(Frame {
                        name: format!("{name}{suffix}"),
                        file: name.clone(),
                        bytes: bytes.clone(),
                        size,
                        wanted,
                        content: Some(fnv1a(&data[..wanted])),
                    });
                }
            }
        }
    }
    // Corrupted copies: one byte flipped at spread positions (entropy
    // tables, the four streams' jump table and bodies, their ends), and cuts.
    for (kind, size) in [("skewed", 70_000), ("floats", 131_073), ("skewed", 700)] {
        let data = content(kind, size, 99);
        let good = zstd::bulk::compress(&data, 3).unwrap();
        let positions = 48.min(good.len() - 1);
        for p in 0..positions {
            let at = 1 + p * (good.len() - 2) / positions;
            for mask in [0x01u8, 0xFF] {
                let mut bytes = good.clone();
                bytes[at] ^= mask;
                let name = format!("{kind}-{size}-flip{at}x{mask:02x}");
                frames.push(Frame::corrupted(name, bytes, size));
            }
        }
        for cut in [1, 2, 5, 9, 17, 100, 1000] {
            if cut < good.len() {
                let name = format!("{kind}-{size}-cut{cut}");
                frames.push(Frame::corrupted(
                    name,
                    good[..good.len() - cut].to_vec(),
                    size,
                ));
            }
        }
    }
    frames
}

/// FNV-1a, 32 bits: the JavaScript test computes the same in a few lines.
fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811C_9DC5u32, |hash, &b| {
        (hash ^ b as u32).wrapping_mul(0x0100_0193)
    })
}

/// What the native reader makes of a frame: its output's length and hash,
/// or its error's code.
fn native(frame: &Frame) -> Result<(usize, u32), &'static str> {
    let zstd = CodecId::Named("zstd".into());
    decompress_prefix(&zstd, &frame.bytes, frame.size as u64, frame.wanted as u64)
        .map(|out| (out.len(), fnv1a(&out)))
        .map_err(|error| error.code())
}

#[test]
fn valid_frames_decode_to_their_content_and_corrupt_ones_fail_or_decode() {
    let frames = frames();
    let mut failed = 0;
    for frame in &frames {
        let answer = native(frame);
        match frame.content {
            Some(content) => assert_eq!(answer, Ok((frame.wanted, content)), "{}", frame.name),
            None => failed += answer.is_err() as usize,
        }
    }
    // A flipped literal bit often decodes to other bytes of the right
    // length (these frames carry no checksum); headers, tables and cuts fail.
    assert!(failed >= 30, "only {failed} corrupted frames failed");
}

#[test]
#[ignore = "writes fixtures for js/test/zstd-frames.test.mjs"]
fn write_zstd_frames() {
    let root = common::js_fixture_dir("zstd-frames");
    let mut listed = Vec::new();
    for frame in frames() {
        std::fs::write(root.join(format!("{}.zst", frame.file)), &frame.bytes).unwrap();
        let native = match native(&frame) {
            Ok((length, hash)) => format!("{{\"length\": {length}, \"fnv1a\": {hash}}}"),
            Err(code) => format!("{{\"error\": \"{code}\"}}"),
        };
        listed.push(format!(
            "  {{\"name\": \"{}\", \"file\": \"{}.zst\", \"size\": {}, \"wanted\": {}, \"native\": {native}}}",
            frame.name, frame.file, frame.size, frame.wanted
        ));
    }
    let json = format!("[\n{}\n]\n", listed.join(",\n"));
    std::fs::write(root.join("cases.json"), json).unwrap();
}
