use super::*;
use crate::format::dtype::DType;
use crate::format::segment::{
    decode_segment_footer, decode_segment_trailer, encode_segment_footer, BlockId, ChunkAddress,
    ChunkEntry, CodecId, SegmentFooter,
};
use crate::format::value::{ArrayStats, FillValue, StatValue};

fn block(id: u32, codec: CodecId) -> BlockMeta {
    BlockMeta {
        id: BlockId(id),
        file_offset: id as u64 * 16,
        compressed_size: 16,
        uncompressed_size: 64,
        codec,
    }
}

/// Arrays that between them fill every pointer site a row can hold.
fn arrays() -> Vec<ArrayMeta> {
    let long = "a-dataset-name-longer-than-sixteen-bytes";
    let mut all = Vec::new();
    for (k, name) in ["short", long, "", "x"].iter().enumerate() {
        let dtype = match k {
            1 => DType::List {
                child: Box::new(DType::List {
                    child: Box::new(DType::Float32),
                }),
            },
            2 => DType::FixedSizeList {
                child: Box::new(DType::Int16),
                size: 3,
            },
            _ => DType::Float64,
        };
        let fill_value = match k {
            0 => Some(FillValue::Float(f64::NAN)),
            1 => Some(FillValue::String(
                "a fill string longer than sixteen".into(),
            )),
            2 => Some(FillValue::String("short".into())),
            _ => None,
        };
        let bound = |b: &[u8]| Some(StatValue::Bytes(b.to_vec()));
        let stats = match k {
            0 => Some(ArrayStats {
                name: name.to_string(),
                min: Some(StatValue::Float(-1.0)),
                max: None,
                null_count: 1,
                row_count: 8,
            }),
            1 => Some(ArrayStats {
                name: long.into(),
                min: bound(b"aa"),
                max: bound(b"zz-a-long-maximum-bound"),
                null_count: 0,
                row_count: 3,
            }),
            _ => None,
        };
        let rank = if k == 3 { 0 } else { 2 };
        all.push(ArrayMeta {
            name: name.to_string(),
            dtype,
            shape: vec![4; rank],
            dimension_names: match k {
                0 => vec!["y".into(), "x".into()],
                1 => vec!["a-long-dimension-name-here".into(), "x".into()],
                _ => vec![],
            },
            chunk_shape: vec![2; rank],
            chunks: if rank == 0 {
                vec![]
            } else {
                (0..k as u32 + 1)
                    .map(|c| ChunkEntry {
                        coord: vec![c / 2, c % 2],
                        address: ChunkAddress {
                            block_id: BlockId(c % 2),
                            offset: 0,
                            size: 8,
                        },
                    })
                    .collect()
            },
            fill_value,
            attributes: (0..k as u32).map(|a| (a, a)).collect(),
            stats,
        });
    }
    all
}

fn values() -> Vec<DiskValue> {
    vec![
        DiskValue::Bool(true),
        DiskValue::Int8(-3),
        DiskValue::String(1),
        DiskValue::Binary(vec![1, 2, 3].into()),
        DiskValue::BoolList(vec![true, false].into()),
        DiskValue::Int8List(vec![-1].into()),
        DiskValue::Int16List(vec![-1, 2].into()),
        DiskValue::Int32List(vec![7; 5].into()),
        DiskValue::Int64List(vec![i64::MIN].into()),
        DiskValue::UInt8List(vec![9; 3].into()),
        DiskValue::UInt16List(vec![1].into()),
        DiskValue::UInt32List(vec![1, 2].into()),
        DiskValue::UInt64List(vec![u64::MAX].into()),
        DiskValue::Float32List(vec![1.5].into()),
        DiskValue::Float64List(vec![2.5, 3.5].into()),
        DiskValue::StringList(vec![0, 1].into()),
        DiskValue::BinaryList(vec![vec![1].into(), vec![].into(), vec![2, 3].into()].into()),
        DiskValue::Float64(1.0),
        DiskValue::Int64List(vec![].into()),
    ]
}

fn footer() -> SegmentFooter {
    SegmentFooter {
        version: SEGMENT_VERSION,
        blocks: vec![
            block(0, CodecId::Named("zstd".into())),
            block(1, CodecId::None),
            block(2, CodecId::Named("a-codec-name-past-sixteen-bytes".into())),
        ],
        strings: vec![
            "units".into(),
            "a string longer than sixteen bytes".into(),
            "".into(),
        ],
        values: values(),
        arrays: arrays(),
    }
}

/// The footer's bytes, without the trailer.
fn archived(footer: &SegmentFooter) -> Vec<u8> {
    let bytes = encode_segment_footer(footer).unwrap();
    let range = decode_segment_trailer(&bytes, bytes.len() as u64).unwrap();
    bytes[range.start as usize..range.end as usize].to_vec()
}

fn root_of(bytes: &[u8]) -> FooterRoot {
    let len = bytes.len() as u64;
    FooterRoot::decode(&bytes[(len - ROOT_SIZE) as usize..], len).unwrap()
}

fn row<T: Decoded>(bytes: &[u8], table: &Table, k: u64) -> Result<T> {
    row_in(bytes, table, k)
}

#[test]
fn every_row_decodes_alone_as_the_whole_footer_decodes_it() {
    let footer = footer();
    let bytes = archived(&footer);
    let whole = decode_segment_footer(&bytes).unwrap();
    assert_eq!(whole, footer);
    let root = root_of(&bytes);
    assert_eq!(root.arrays.rows, 4);
    assert_eq!(root.arrays.row_size, 256);
    assert_eq!(root.arrays.end(), bytes.len() as u64 - ROOT_SIZE);
    for (k, want) in footer.arrays.iter().enumerate() {
        assert_eq!(
            &row::<ArrayMeta>(&bytes, &root.arrays, k as u64).unwrap(),
            want
        );
    }
    for (k, want) in footer.blocks.iter().enumerate() {
        assert_eq!(
            &row::<BlockMeta>(&bytes, &root.blocks, k as u64).unwrap(),
            want
        );
    }
    for (k, want) in footer.strings.iter().enumerate() {
        assert_eq!(
            &row::<String>(&bytes, &root.strings, k as u64).unwrap(),
            want
        );
    }
    for (k, want) in footer.values.iter().enumerate() {
        assert_eq!(
            &row::<DiskValue>(&bytes, &root.values, k as u64).unwrap(),
            want,
            "value {k}"
        );
    }
}

#[test]
fn a_row_nests_its_dtype_as_deep_as_a_whole_footer_may_and_no_deeper() {
    let lists = |depth: usize| {
        (0..depth).fold(DType::Int8, |child, _| DType::List {
            child: Box::new(child),
        })
    };
    for (depth, ok) in [(MAX_DTYPE_NESTING, true), (MAX_DTYPE_NESTING + 1, false)] {
        let mut footer = footer();
        footer.arrays[2].dtype = lists(depth);
        let bytes = archived(&footer);
        assert_eq!(decode_segment_footer(&bytes).is_ok(), ok);
        let got = row::<ArrayMeta>(&bytes, &root_of(&bytes).arrays, 2);
        assert_eq!(got.is_ok(), ok, "depth {depth}: {got:?}");
    }
}

#[test]
fn forged_roots_and_rows_are_corrupt_not_panics() {
    let bytes = archived(&footer());
    let len = bytes.len();
    let root_at = len - ROOT_SIZE as usize;
    let arrays = offset_of!(ArchivedSegmentFooter, arrays);
    let forge_root = |at: usize, value: u64| {
        let mut forged = bytes.clone();
        forged[root_at + at..root_at + at + 8].copy_from_slice(&value.to_le_bytes());
        FooterRoot::decode(&forged[root_at..], len as u64)
    };
    // More rows than the footer holds; a table before the one it follows; past the root.
    for (at, value) in [
        (arrays + 8, 1 << 40),
        (arrays + 8, u64::MAX),
        (arrays, (-(root_at as i64) - arrays as i64) as u64),
        (arrays, 8),
        (arrays, 3),
    ] {
        let error = forge_root(at, value).unwrap_err();
        assert_eq!(error.code(), "CorruptCollection", "{error}");
    }
    let mut version = bytes.clone();
    version[root_at] = 5;
    assert!(FooterRoot::decode(&version[root_at..], len as u64).is_err());
    assert!(FooterRoot::decode(&bytes[root_at + 1..], len as u64).is_err());

    // Every byte of every row flipped: an error or a row, never a panic.
    let root = root_of(&bytes);
    for k in 0..root.arrays.rows {
        let at = root.arrays.row(k).unwrap();
        for i in at.start..at.end {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut forged = bytes.clone();
                forged[i as usize] ^= flip;
                let _ = row::<ArrayMeta>(&forged, &root.arrays, k);
            }
        }
    }
    // A run that overlaps its predecessor's: the previous row's pointer moved past this one's.
    let first = root.arrays.row(1).unwrap();
    let shape = first.start as usize + offset_of!(ArchivedArrayMeta, shape);
    let mut overlapping = bytes.clone();
    let far = i64_at(&bytes, shape) + 4096;
    overlapping[shape..shape + 8].copy_from_slice(&far.to_le_bytes());
    let error = row::<ArrayMeta>(&overlapping, &root.arrays, 2).unwrap_err();
    assert_eq!(error.code(), "CorruptCollection");
}
