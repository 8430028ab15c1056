//! Collections that lie at every level, made by hand: each must end in one
//! specific typed error, quickly, and without the allocation its lie asks for.
//! A counting global allocator measures the peak of each case.

#![cfg(feature = "writer")]

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use atlas_wasm::format::catalogue::DatasetCatalogue;
use atlas_wasm::format::container::{encode_header, encode_trailer};
use atlas_wasm::format::footer::{CollectionFooter, InternedSchema, VariableEntry};
use atlas_wasm::format::mask::encode_mask;
use atlas_wasm::format::segment::{
    encode_segment_footer, ArrayMeta, BlockId, BlockMeta, ChunkAddress, ChunkEntry, CodecId,
    SegmentFooter, SEGMENT_VERSION,
};
use atlas_wasm::{Atlas, ByteSource, Codec, DType, Error, MemorySource, ReadOptions};
use common::block_on;

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = CURRENT.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const BUDGET: u64 = 64 << 20;

/// The allocator's counts are global: tests that read them take turns.
static MEASURING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Opens and reads everything; the error, and the peak memory above the start.
fn attempt(data: Vec<u8>, mask: Option<Vec<u8>>) -> (Result<(), Error>, usize) {
    let data: Arc<dyn ByteSource> = Arc::new(MemorySource::new(data));
    let mask = mask.map(|m| Arc::new(MemorySource::new(m)) as Arc<dyn ByteSource>);
    let base = CURRENT.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let result = block_on(async {
        let options = ReadOptions {
            memory_budget: BUDGET,
            ..ReadOptions::default()
        };
        let atlas = Atlas::open_with(data, mask, options).await?;
        for name in atlas.list_datasets() {
            let ds = atlas.dataset(&name)?;
            for array in ds.list_arrays() {
                ds.read_array(&array, &[], &[]).await?;
            }
        }
        Ok(())
    });
    (result, PEAK.load(Ordering::Relaxed) - base)
}

fn zstd(bytes: &[u8]) -> Vec<u8> {
    zstd::bulk::compress(bytes, 3).unwrap()
}

/// A container around `segments`, with a footer declaring one dataset `d`
/// holding each segment's variable as `dtype`.
fn container(segments: &[(&str, DType, Vec<u8>)]) -> Vec<u8> {
    let mut file = encode_header().to_vec();
    let mut strings = vec!["d_unused".to_string()];
    let mut variables = Vec::new();
    let mut arrays = Vec::new();
    let mut dtypes = Vec::new();
    for (name, dtype, bytes) in segments {
        strings.push(name.to_string());
        dtypes.push(dtype.clone());
        let name_index = strings.len() as u32 - 1;
        variables.push(VariableEntry {
            name: name_index,
            seg_offset: file.len() as u64,
            seg_len: bytes.len() as u64,
        });
        arrays.push((name_index, dtypes.len() as u32 - 1));
        file.extend_from_slice(bytes);
    }
    let footer = CollectionFooter {
        version: 8,
        codec: Codec::Zstd,
        created_unix_ms: 0,
        string_pool: strings,
        dtype_pool: dtypes,
        schema_pool: vec![InternedSchema {
            arrays,
            ..InternedSchema::default()
        }],
        variables,
        datasets: DatasetCatalogue::from_pairs([("d", 0)]).unwrap(),
    };
    with_footer(file, &zstd(&footer.to_msgpack().unwrap()))
}

/// A zstd frame that does not declare its content size, as streaming encoders write.
fn zstd_unsized(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
    encoder.include_contentsize(false).unwrap();
    std::io::Write::write_all(&mut encoder, bytes).unwrap();
    encoder.finish().unwrap()
}

fn with_footer(mut file: Vec<u8>, footer: &[u8]) -> Vec<u8> {
    file.extend_from_slice(footer);
    file.extend_from_slice(&encode_trailer(footer.len() as u64));
    file
}

/// One segment holding dataset `d`'s array, with one block of `block` bytes.
fn segment(array: ArrayMeta, block: Vec<u8>, declared: u64) -> Vec<u8> {
    let footer = SegmentFooter {
        version: SEGMENT_VERSION,
        blocks: vec![BlockMeta {
            id: BlockId(0),
            file_offset: 0,
            compressed_size: block.len() as u64,
            uncompressed_size: declared,
            codec: CodecId::Named("zstd".into()),
        }],
        strings: vec![],
        values: vec![],
        arrays: vec![array],
    };
    let mut out = block;
    out.extend_from_slice(&encode_segment_footer(&footer).unwrap());
    out
}

fn array(
    dtype: DType,
    shape: Vec<u32>,
    chunk_shape: Vec<u32>,
    chunks: Vec<ChunkEntry>,
) -> ArrayMeta {
    ArrayMeta {
        name: "d".into(),
        dtype,
        dimension_names: vec![],
        shape,
        chunk_shape,
        chunks,
        fill_value: None,
        attributes: vec![],
        stats: None,
    }
}

fn chunk(coord: Vec<u32>, size: u32) -> ChunkEntry {
    ChunkEntry {
        coord,
        address: ChunkAddress {
            block_id: BlockId(0),
            offset: 0,
            size,
        },
    }
}

/// A msgpack footer whose string pool claims `count` items, followed by that
/// many one-byte nils: small compressed, huge declared.
fn nil_pool(count: u32) -> Vec<u8> {
    let mut packed = vec![0x98, 0x08, 0xa4];
    packed.extend_from_slice(b"Zstd");
    packed.push(0x00);
    packed.push(0xdd);
    packed.extend_from_slice(&count.to_be_bytes());
    packed.resize(packed.len() + count as usize, 0xc0);
    packed
}

fn nested_list(depth: usize) -> DType {
    (0..depth).fold(DType::UInt8, |child, _| DType::List {
        child: Box::new(child),
    })
}

/// What a case is, its container, its mask, and the code it must end in.
type Case = (&'static str, Vec<u8>, Option<Vec<u8>>, &'static str);

/// Every forged collection, one lie each.
fn cases() -> Vec<Case> {
    let float_block = zstd(&[0u8; 64]);
    vec![
        (
            "a footer pool of 120 M one-byte nils",
            with_footer(encode_header().to_vec(), &zstd(&nil_pool(120_000_000))),
            None,
            "TooLarge",
        ),
        (
            "a 3 MB footer whose pool claims 3 M strings (72 MB decoded)",
            with_footer(encode_header().to_vec(), &zstd(&nil_pool(3_000_000))),
            None,
            "TooLarge",
        ),
        (
            "a footer that inflates to 480 MB",
            with_footer(encode_header().to_vec(), &zstd(&vec![0u8; 480 << 20])),
            None,
            "TooLarge",
        ),
        (
            "a footer that inflates to 480 MB from a frame declaring no size",
            with_footer(
                encode_header().to_vec(),
                &zstd_unsized(&vec![0u8; 480 << 20]),
            ),
            None,
            "TooLarge",
        ),
        (
            "a trailer declaring a 1 TB footer",
            {
                let mut file = encode_header().to_vec();
                file.extend_from_slice(&[0; 64]);
                file.extend_from_slice(&encode_trailer(1 << 40));
                file
            },
            None,
            "CorruptCollection",
        ),
        (
            "a shape whose element count overflows 64 bits",
            container(&[(
                "t",
                DType::Float32,
                segment(
                    array(DType::Float32, vec![u32::MAX; 3], vec![u32::MAX; 3], vec![]),
                    float_block.clone(),
                    64,
                ),
            )]),
            None,
            "TooLarge",
        ),
        (
            "a 2^48-cell chunk grid of a zero-width element type",
            {
                let dtype = DType::FixedSizeList {
                    child: Box::new(DType::UInt8),
                    size: 0,
                };
                container(&[(
                    "t",
                    dtype.clone(),
                    segment(
                        array(
                            dtype,
                            vec![1 << 16; 3],
                            vec![1; 3],
                            vec![chunk(vec![0, 0, 0], 0)],
                        ),
                        float_block.clone(),
                        64,
                    ),
                )])
            },
            None,
            "InvalidArgument",
        ),
        (
            "a block declaring 4 GiB",
            container(&[(
                "t",
                DType::UInt8,
                segment(
                    array(DType::UInt8, vec![16], vec![16], vec![chunk(vec![0], 16)]),
                    float_block.clone(),
                    4 << 30,
                ),
            )]),
            None,
            "TooLarge",
        ),
        (
            "list dtypes nested 10,000 deep in a segment footer",
            {
                let dtype = nested_list(10_000);
                container(&[(
                    "t",
                    DType::UInt8,
                    segment(
                        array(dtype, vec![1], vec![1], vec![]),
                        float_block.clone(),
                        64,
                    ),
                )])
            },
            None,
            "CorruptCollection",
        ),
        (
            "a mask of 100 MB",
            container(&[]),
            Some({
                let mut mask = encode_mask(&[0].into_iter().collect());
                mask.resize(100 << 20, 0);
                mask
            }),
            "TooLarge",
        ),
    ]
}

#[test]
fn every_lie_ends_in_its_typed_error_within_the_budget() {
    let _turn = MEASURING.lock().unwrap_or_else(|p| p.into_inner());
    let mut report = Vec::new();
    for (what, data, mask, code) in cases() {
        let size = data.len();
        let started = Instant::now();
        let (result, peak) = attempt(data, mask);
        let took = started.elapsed();
        let err = result.expect_err(what);
        report.push(format!(
            "{what}: {} bytes -> {} in {took:?}, peak {} KiB",
            size,
            err.code(),
            peak / 1024
        ));
        assert_eq!(err.code(), code, "{what}: {err}");
        assert!(took < Duration::from_secs(20), "{what} took {took:?}");
        // No single allocation passes the budget; an inflating footer's
        // output grows by doubling, so up to 1.5x the budget while it moves.
        assert!(peak < 2 * BUDGET as usize, "{what}: peak {peak} bytes");
    }
    println!("{}", report.join("\n"));
}

/// Writes every case to `$ATLAS_FIXTURES/forged/` (default
/// `target/atlas-fixtures/forged/`) for the Node test that reads them through
/// the npm package (js/test/forged.test.mjs): `NN/data.atlas`, `NN/deleted.mask`
/// when the case has one, and `cases.json` with each case's lie and code.
/// Run by js/scripts/test.sh: `cargo test --features writer --test
/// reader_forged -- --ignored write_forged_fixtures`.
#[test]
#[ignore = "writes fixtures for js/test/forged.test.mjs"]
fn write_forged_fixtures() {
    let root = common::js_fixture_dir("forged");
    let mut listed = Vec::new();
    for (i, (what, data, mask, code)) in cases().into_iter().enumerate() {
        let dir = root.join(format!("{i:02}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("data.atlas"), &data).unwrap();
        if let Some(mask) = &mask {
            std::fs::write(dir.join("deleted.mask"), mask).unwrap();
        }
        listed.push(format!(
            "  {{\"dir\": \"{i:02}\", \"what\": \"{what}\", \"code\": \"{code}\", \"bytes\": {}}}",
            data.len()
        ));
    }
    let json = format!("[\n{}\n]\n", listed.join(",\n"));
    std::fs::write(root.join("cases.json"), json).unwrap();
}

/// What the memory budget must allow for a collection of N datasets: the
/// open handle (decoded footer, name index) and one opened segment, per
/// dataset, measured on atlas-rust's 10,000-dataset fixture.
#[test]
fn what_a_collection_costs_per_dataset() {
    let dir = common::suite().join("ten_thousand_datasets");
    let data = std::fs::read(dir.join("data.atlas")).unwrap();
    let _turn = MEASURING.lock().unwrap_or_else(|p| p.into_inner());
    let source: Arc<dyn ByteSource> = Arc::new(MemorySource::new(data));
    let base = CURRENT.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let atlas = block_on(Atlas::open(source, None)).unwrap();
    let n = atlas.dataset_count() as u64;
    let opened = CURRENT.load(Ordering::Relaxed) - base;
    let open_peak = PEAK.load(Ordering::Relaxed) - base;
    let array = atlas.list_arrays().into_iter().next().unwrap();
    block_on(atlas.array_stats(&array)).unwrap();
    let with_segment = CURRENT.load(Ordering::Relaxed) - base;
    let per_dataset = opened as u64 / n;
    let segment_per_dataset = (with_segment - opened) as u64 / n;
    println!(
        "{n} datasets: open handle {opened} bytes ({per_dataset} per dataset, peak {open_peak}); \
         one segment adds {} bytes ({segment_per_dataset} per dataset)",
        with_segment - opened
    );
    // docs/read-path.md quotes these; the bounds keep the quote honest.
    assert!(per_dataset < 400, "{per_dataset} bytes per dataset to open");
    assert!(
        segment_per_dataset < 1000,
        "{segment_per_dataset} bytes per dataset per segment"
    );
}
