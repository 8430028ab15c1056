//! One function per fuzz target: each takes the raw fuzzer input, runs it
//! through a decoder that reads untrusted bytes, and returns the first typed
//! error (or `Ok`). A panic, an abort or a refused allocation is the finding.
//!
//! Compiled twice: into the fuzz crate, and (by `#[path]`) into
//! `tests/fuzz_regressions.rs`, which replays saved inputs in plain `cargo test`.

use std::sync::Arc;

use atlas_wasm::format::codec::decompress_block;
use atlas_wasm::format::container_open::ContainerOpen;
use atlas_wasm::format::footer::CollectionFooter;
use atlas_wasm::format::mask::{decode_mask, MaskOpen};
use atlas_wasm::format::open::{Fetched, Need, OpenDecoder, Step};
use atlas_wasm::format::rows::{row_in, Decoded, FooterRoot, Table, ROOT_SIZE};
use atlas_wasm::format::segment::{
    decode_segment_footer, decode_segment_trailer, CodecId, SegmentOpen,
};
use atlas_wasm::{Atlas, ByteSource, MemorySource, ReadOptions, Result};

/// Every target reads with this memory budget; the allocator cap is far above it.
pub const BUDGET: u64 = 16 << 20;

/// A decoder promises to finish in a few requests whatever the bytes say.
const MAX_REQUESTS: usize = 8;

/// Drives an open decoder over `object` held in memory, as `read::open` does
/// over a byte source.
pub fn drive<D: OpenDecoder>(mut decoder: D, object: &[u8]) -> Result<D::Output> {
    for _ in 0..MAX_REQUESTS {
        let fetched = match decoder.next()? {
            Step::Done(value) => return Ok(value),
            Step::Need(Need::Tail(n)) => {
                let from = object
                    .len()
                    .saturating_sub(usize::try_from(n).unwrap_or(usize::MAX));
                Fetched::tail(object[from..].to_vec(), object.len() as u64)
            }
            Step::Need(Need::Range(r)) => {
                let bytes = usize::try_from(r.start)
                    .ok()
                    .zip(usize::try_from(r.end).ok())
                    .and_then(|(s, e)| object.get(s..e))
                    .unwrap_or_else(|| {
                        panic!(
                            "a decoder asked for {r:?} of a {}-byte object",
                            object.len()
                        )
                    });
                Fetched::range(r.start, bytes.to_vec())
            }
        };
        decoder.push(fetched)?;
    }
    panic!("a decoder made more than {MAX_REQUESTS} requests");
}

/// The collection footer three ways: the input as footer msgpack (compressed
/// here, so mutations reach the msgpack decoder), as compressed footer bytes,
/// and as a whole `data.atlas` opened by [`ContainerOpen`].
pub fn collection_footer(data: &[u8]) -> Result<()> {
    let size = data.len() as u64;
    let packed = zstd::bulk::compress(data, 1).expect("zstd compresses any bytes");
    let as_msgpack = CollectionFooter::decode(&packed, size, BUDGET).map(drop);
    let as_zstd = CollectionFooter::decode(data, size, BUDGET).map(drop);
    let small_probe = drive(ContainerOpen::new(64, BUDGET), data).map(drop);
    let large_probe = drive(ContainerOpen::new(64 << 10, BUDGET), data).map(drop);
    as_msgpack.and(as_zstd).and(small_probe).and(large_probe)
}

/// A segment (data region, rkyv footer, trailer): its trailer and footer
/// decoded and validated by hand, the input as bare footer bytes, and the
/// segment opened by [`SegmentOpen`] with a small and a large probe.
pub fn segment_footer(data: &[u8]) -> Result<()> {
    let len = data.len() as u64;
    let by_trailer = decode_segment_trailer(data, len).and_then(|footer| {
        let bytes = &data[footer.start as usize..footer.end as usize];
        decode_segment_footer(bytes)?.validate(footer.start)
    });
    let bare = decode_segment_footer(data).and_then(|footer| footer.validate(len));
    let small_probe = drive(SegmentOpen::new(0, len, 16, BUDGET), data).map(drop);
    let large_probe = drive(SegmentOpen::new(0, len, 64 << 10, BUDGET), data).map(drop);
    by_trailer.and(bare).and(small_probe).and(large_probe)
}

/// `deleted.mask`: decoded for a small and an unbounded collection, and read
/// from its end by [`MaskOpen`] with a probe smaller than most masks.
pub fn mask(data: &[u8]) -> Result<()> {
    let small = decode_mask(data, 100).map(drop);
    let all = decode_mask(data, usize::MAX).map(drop);
    let opened = drive(MaskOpen::new(16, 1 << 20), data).map(|m| drop(m.hidden_of(100)));
    small.and(all).and(opened)
}

/// One block: byte 0 picks the codec, bytes 1..5 the declared size (u32 LE,
/// held to [`BUDGET`]), the rest is the compressed block.
pub fn block_decode(data: &[u8]) -> Result<()> {
    let (Some(&pick), Some(declared)) = (data.first(), data.get(1..5)) else {
        return Ok(());
    };
    let codec = match pick % 4 {
        0 => CodecId::None,
        1 => CodecId::Named("zstd".into()),
        2 => CodecId::Named("lz4".into()),
        _ => CodecId::Named("brotli".into()),
    };
    let declared =
        u64::from(u32::from_le_bytes(declared.try_into().expect("4 bytes"))) % (BUDGET + 1);
    let out = decompress_block(&codec, &data[5..], declared)?;
    assert_eq!(
        out.len() as u64,
        declared,
        "a block came back the wrong size"
    );
    Ok(())
}

/// Splits an `open_and_read` input: when bit 0 of byte 0 is set, bytes 1..3
/// (u16 LE) give the length of a `deleted.mask` that follows; the rest is
/// `data.atlas`.
pub fn split_collection(data: &[u8]) -> (&[u8], Option<&[u8]>) {
    match data {
        [flags, a, b, rest @ ..] if flags & 1 == 1 => {
            let n = usize::from(u16::from_le_bytes([*a, *b])).min(rest.len());
            (&rest[n..], Some(&rest[..n]))
        }
        [_, rest @ ..] => (rest, None),
        [] => (&[], None),
    }
}

/// Opens the collection (see [`split_collection`]) over memory and reads
/// everything a user can: every dataset's attributes, every array's layout,
/// attributes and whole contents, every array's statistics.
pub fn open_and_read(data: &[u8]) -> Result<()> {
    let (container, mask) = split_collection(data);
    let mask = mask.map(|m| Arc::new(MemorySource::new(m.to_vec())) as Arc<dyn ByteSource>);
    let options = ReadOptions {
        memory_budget: BUDGET,
        ..ReadOptions::default()
    };
    futures_executor::block_on(async {
        let source = Arc::new(MemorySource::new(container.to_vec()));
        let atlas = Atlas::open_with(source, mask, options).await?;
        let mut first_error = Ok(());
        for name in atlas.list_datasets() {
            let dataset = atlas.dataset(&name)?;
            keep_first(&mut first_error, dataset.attributes().await.map(drop));
            for array in dataset.list_arrays() {
                keep_first(
                    &mut first_error,
                    dataset.array_layout(&array).await.map(drop),
                );
                keep_first(
                    &mut first_error,
                    dataset.array_attributes(&array).await.map(drop),
                );
                keep_first(
                    &mut first_error,
                    dataset.read_array(&array, &[], &[]).await.map(drop),
                );
            }
        }
        for array in atlas.list_arrays() {
            keep_first(&mut first_error, atlas.array_stats(&array).await.map(drop));
        }
        first_error
    })
}

/// Reading goes on past an error (later reads reach other code), but the
/// first one is the answer.
fn keep_first<E>(first: &mut Result<(), E>, next: Result<(), E>) {
    if first.is_ok() {
        *first = next;
    }
}

/// A target's typed error: the core's, or with feature `atria` an Atria
/// reader's (which carries a core error as `atria::Error::Core`).
#[cfg(feature = "atria")]
pub type TargetError = atlas_wasm::atria::Error;
/// A target's typed error.
#[cfg(not(feature = "atria"))]
pub type TargetError = atlas_wasm::Error;

/// One fuzz target: the bytes in, a typed error or nothing out.
pub type Target = fn(&[u8]) -> Result<(), TargetError>;

/// Every target by name, for replaying saved inputs.
pub const TARGETS: &[(&str, Target)] = &[
    ("collection_footer", |d| Ok(collection_footer(d)?)),
    ("segment_footer", |d| Ok(segment_footer(d)?)),
    ("segment_rows", |d| Ok(segment_rows(d)?)),
    ("mask", |d| Ok(mask(d)?)),
    ("block_decode", |d| Ok(block_decode(d)?)),
    ("open_and_read", |d| Ok(open_and_read(d)?)),
    #[cfg(feature = "atria")]
    ("parquet_read", parquet_read),
    #[cfg(feature = "atria")]
    ("msgpack_shard", msgpack_shard),
    #[cfg(feature = "atria")]
    ("tar_shard", tar_shard),
    #[cfg(feature = "atria")]
    ("delta_log", delta_log),
    #[cfg(feature = "atria")]
    ("deletion_vector", deletion_vector),
];

/// Opens the input as a parquet file (`atlas_wasm::atria::parquet`) and
/// reads every row group, every column.
#[cfg(feature = "atria")]
pub fn parquet_read(data: &[u8]) -> atlas_wasm::atria::Result<()> {
    use atlas_wasm::atria::parquet::ParquetFile;
    let source: Arc<dyn ByteSource> = Arc::new(MemorySource::new(data.to_vec()));
    futures_executor::block_on(async {
        let file = ParquetFile::open_with_budget(source, BUDGET).await?;
        let _ = (file.num_rows(), file.columns(), file.row_group_rows());
        for group in 0..file.row_groups() {
            file.read_row_group(group, None).await?;
        }
        Ok(())
    })
}

/// A cache's objects, held in memory under their relative paths; any other
/// path is `NotFound`, as a missing file in a cache's directory is.
#[cfg(feature = "atria")]
fn store_of(files: Vec<(&'static str, &[u8])>) -> impl atlas_wasm::atria::Store + Clone + 'static {
    let files: Arc<Vec<(&'static str, Vec<u8>)>> =
        Arc::new(files.into_iter().map(|(p, b)| (p, b.to_vec())).collect());
    move |path: &str| -> Result<Arc<dyn ByteSource>> {
        files
            .iter()
            .find(|(name, _)| *name == path)
            .map(|(_, bytes)| Arc::new(MemorySource::new(bytes.clone())) as Arc<dyn ByteSource>)
            .ok_or_else(|| atlas_wasm::Error::NotFound(path.to_string()))
    }
}

/// The input cut into parts: bytes 0..4 are two u16 LE lengths, of the first
/// and the second part; the rest of the input is the third.
#[cfg(feature = "atria")]
fn three_parts(data: &[u8]) -> [&[u8]; 3] {
    let (lengths, rest) = data.split_at(data.len().min(4));
    let length = |at: usize| {
        lengths
            .get(at..at + 2)
            .map_or(0, |b| usize::from(u16::from_le_bytes([b[0], b[1]])))
    };
    let (first, rest) = rest.split_at(length(0).min(rest.len()));
    let (second, third) = rest.split_at(length(2).min(rest.len()));
    [first, second, third]
}

/// A datadings shard: the input's parts (see [`three_parts`]) are the
/// `.offsets` sidecar, the `.keys` sidecar (absent when empty) and the
/// `.msgpack` file. Opens it, reads its first records raw and decoded, one
/// past its end, and one by key.
#[cfg(feature = "atria")]
pub fn msgpack_shard(data: &[u8]) -> atlas_wasm::atria::Result<()> {
    use atlas_wasm::atria::MsgpackShard;
    let [offsets, keys, shard] = three_parts(data);
    let mut files = vec![("s.msgpack", shard), ("s.msgpack.offsets", offsets)];
    if !keys.is_empty() {
        files.push(("s.msgpack.keys", keys));
    }
    let store = store_of(files);
    futures_executor::block_on(async {
        let shard = MsgpackShard::open_with_budget(&store, "s.msgpack", BUDGET).await?;
        let mut first_error = Ok(());
        for index in 0..shard.count().min(8) {
            keep_first(&mut first_error, shard.raw_record(index).await.map(drop));
            keep_first(&mut first_error, shard.record(index).await.map(drop));
        }
        // Past the end is an error whatever the bytes: run, not kept.
        let _ = shard.record(shard.count()).await;
        if let Ok(names) = shard.keys().await {
            if let Some(name) = names.first() {
                keep_first(&mut first_error, shard.record_by_key(name).await.map(drop));
            }
        }
        first_error
    })
}

/// A WebDataset TAR shard: indexes its members, groups them into samples,
/// and reads the first members by offset, by a pointer that is right, and by
/// one a byte off (recovered by name, or refused).
#[cfg(feature = "atria")]
pub fn tar_shard(data: &[u8]) -> atlas_wasm::atria::Result<()> {
    use atlas_wasm::atria::TarShards;
    let shards = TarShards::new(store_of(vec![("s.tar", data)]));
    futures_executor::block_on(async {
        let index = shards.index("s.tar").await?;
        shards.samples("s.tar").await?;
        let mut first_error = Ok(());
        for member in index.members.iter().take(8) {
            let (offset, size) = (member.offset, member.size);
            keep_first(
                &mut first_error,
                shards.read_member("s.tar", offset, size).await.map(drop),
            );
            let pointer = format!("s.tar?offset={offset}&length={size}");
            keep_first(
                &mut first_error,
                shards.content(&pointer, &member.name).await.map(drop),
            );
            // A byte off: recovered by name or refused; run, not kept.
            let off = format!("s.tar?offset={}&length={size}", offset.saturating_add(1));
            let _ = shards.content(&off, &member.name).await;
        }
        first_error
    })
}

/// A Delta Lake table whose log is the input as its first commit
/// (`_delta_log/00000000000000000000.json`): replays it (the replay decodes
/// the schema, protocol and every action; its getters only hand them out).
/// Data files are `parquet_read`'s business.
#[cfg(feature = "atria")]
pub fn delta_log(data: &[u8]) -> atlas_wasm::atria::Result<()> {
    use atlas_wasm::atria::DeltaTable;
    let store = store_of(vec![("t/_delta_log/00000000000000000000.json", data)]);
    futures_executor::block_on(DeltaTable::open_with_budget(&store, "t", BUDGET)).map(drop)
}

/// Rows compared by their debug form, so a NaN equals itself.
fn assert_same<T: std::fmt::Debug>(whole: &T, alone: &T, what: &str, k: u64) {
    let (whole, alone) = (format!("{whole:?}"), format!("{alone:?}"));
    assert_eq!(
        whole, alone,
        "{what} row {k} read alone differs from the whole footer's"
    );
}

/// A segment's footer read one row at a time, as a ranged reader reads it:
/// the root, then the first and last rows of each table from their runs
/// alone. Where the whole footer decodes and validates, every row read alone
/// must equal the whole footer's; a difference is a finding.
pub fn segment_rows(data: &[u8]) -> Result<()> {
    let footer = decode_segment_trailer(data, data.len() as u64)?;
    let bytes = &data[footer.start as usize..footer.end as usize];
    let len = bytes.len() as u64;
    let root_bytes = &bytes[bytes.len().saturating_sub(ROOT_SIZE as usize)..];
    let root = FooterRoot::decode(root_bytes, len)?;
    let whole = decode_segment_footer(bytes)
        .and_then(|f| f.validate(footer.start).map(|()| f))
        .ok();
    let whole = whole.as_ref();
    check_rows(bytes, &root.arrays, whole.map(|w| &w.arrays[..]), "array")
        .and(check_rows(
            bytes,
            &root.blocks,
            whole.map(|w| &w.blocks[..]),
            "block",
        ))
        .and(check_rows(
            bytes,
            &root.strings,
            whole.map(|w| &w.strings[..]),
            "string",
        ))
        .and(check_rows(
            bytes,
            &root.values,
            whole.map(|w| &w.values[..]),
            "value",
        ))
}

/// The first and last eight rows of `table` read alone, each held to the
/// whole footer's row where there is one; the first error, if any.
fn check_rows<T: Decoded + std::fmt::Debug>(
    bytes: &[u8],
    table: &Table,
    whole: Option<&[T]>,
    what: &str,
) -> Result<()> {
    let rows = table.rows;
    let picks = (0..rows.min(8)).chain(rows.saturating_sub(8).max(8)..rows);
    let mut first_error = Ok(());
    for k in picks {
        match (row_in::<T>(bytes, table, k), whole) {
            (Ok(row), Some(whole)) => assert_same(&whole[k as usize], &row, what, k),
            (Ok(_), None) => {}
            (Err(e), _) => {
                if first_error.is_ok() {
                    first_error = Err(e);
                }
            }
        }
    }
    first_error
}

/// A Delta deletion vector two ways: the input as a portable 64-bit roaring
/// bitmap (its set's answers checked against each other), and as a whole
/// deletion vector file (version byte, size, bitmap, CRC-32) that the `add`
/// of a real one-file table (delta-rs's table-with-dv-small) points at,
/// read through the table's rows.
#[cfg(feature = "atria")]
pub fn deletion_vector(data: &[u8]) -> atlas_wasm::atria::Result<()> {
    use atlas_wasm::atria::{DeltaRows, DeltaTable, RowSet};
    const LOG0: &[u8] = include_bytes!(
        "../../tests/atria/delta-dv/table-with-dv-small/delta/train/_delta_log/00000000000000000000.json"
    );
    const DATA: &[u8] = include_bytes!(
        "../../tests/atria/delta-dv/table-with-dv-small/delta/train/part-00000-fae5310a-a37d-4e51-827b-c3d5516560ca-c000.snappy.parquet"
    );
    const PART: &str = "part-00000-fae5310a-a37d-4e51-827b-c3d5516560ca-c000.snappy.parquet";
    let bitmap = RowSet::decode_portable(data, "input");
    if let Ok(set) = &bitmap {
        let mut last = None;
        for n in 0..64u64 {
            let row = set.nth_absent(n);
            assert!(!set.contains(row), "row {row} is both deleted and live");
            assert!(
                last.is_none_or(|l| row > l),
                "live rows out of order at {n}"
            );
            last = Some(row);
        }
        assert_eq!(set.iter().count() as u64, set.len());
    }
    let cardinality = bitmap.as_ref().map_or(2, |s| s.len());
    let size = data.len().saturating_sub(9);
    let commit = format!(
        r#"{{"add":{{"path":"{PART}","partitionValues":{{}},"size":635,"stats":"{{\"numRecords\":10}}","deletionVector":{{"storageType":"u","pathOrInlineDv":"vBn[lx{{q8@P<9BNH/isA","offset":1,"sizeInBytes":{size},"cardinality":{cardinality}}}}}}}"#
    );
    let files: Vec<(&'static str, &[u8])> = vec![
        ("t/_delta_log/00000000000000000000.json", LOG0),
        ("t/_delta_log/00000000000000000001.json", commit.as_bytes()),
        (
            "t/part-00000-fae5310a-a37d-4e51-827b-c3d5516560ca-c000.snappy.parquet",
            DATA,
        ),
        (
            "t/deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin",
            data,
        ),
    ];
    let store = store_of(files);
    futures_executor::block_on(async {
        let table = DeltaTable::open_with_budget(&store, "t", BUDGET).await?;
        let rows = DeltaRows::new(table, Arc::new(store)).await?;
        for i in 0..rows.num_rows() {
            rows.row(i).await?;
        }
        Ok(())
    })
}
