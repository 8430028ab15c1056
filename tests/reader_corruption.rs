//! Damaged, truncated and foreign input: every case ends in a typed error (or,
//! for damage a format without checksums cannot see, in some answer), and
//! never in a panic, a hang or an allocation sized by a forged length.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use atlas_wasm::{Atlas, ByteSource, Error, MemorySource, ReadOptions};
use common::{block_on, suite};

/// Opens `data` (+ `mask`) and reads everything; returns the first error.
fn read_everything(data: Vec<u8>, mask: Option<Vec<u8>>) -> Result<(), Error> {
    let mask: Option<Arc<dyn ByteSource>> =
        mask.map(|m| Arc::new(MemorySource::new(m)) as Arc<dyn ByteSource>);
    block_on(async {
        // A forged shape may claim gigabytes; the answer limit must refuse it.
        let options = ReadOptions {
            memory_budget: 64 << 20,
            ..ReadOptions::default()
        };
        let atlas = Atlas::open_with(Arc::new(MemorySource::new(data)), mask, options).await?;
        for name in atlas.list_datasets() {
            let ds = atlas.dataset(&name)?;
            ds.attributes().await?;
            for array in ds.list_arrays() {
                ds.array_layout(&array).await?;
                ds.array_attributes(&array).await?;
                ds.read_array(&array, &[], &[]).await?;
            }
        }
        for array in atlas.list_arrays() {
            atlas.array_stats(&array).await?;
        }
        Ok(())
    })
}

fn must_not_panic(what: &str, data: Vec<u8>, mask: Option<Vec<u8>>) -> Result<(), Error> {
    catch_unwind(AssertUnwindSafe(|| read_everything(data, mask)))
        .unwrap_or_else(|_| panic!("{what} panicked"))
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(suite().join(name).join("data.atlas")).unwrap()
}

#[test]
fn a_truncated_container_is_an_error_at_every_length() {
    for name in [
        "every_dtype_zstd",
        "small_blocks",
        "attributes_every_variant",
    ] {
        let bytes = fixture(name);
        let step = (bytes.len() / 300).max(1);
        for len in (0..bytes.len())
            .step_by(step)
            .chain(bytes.len() - 40..bytes.len())
        {
            let result =
                must_not_panic(&format!("{name} cut to {len}"), bytes[..len].to_vec(), None);
            assert!(
                result.is_err(),
                "{name} cut to {len} bytes read without error"
            );
        }
    }
}

#[test]
fn flipped_bytes_never_panic_and_structural_damage_is_reported() {
    for name in [
        "every_dtype_zstd",
        "every_dtype_lz4",
        "small_blocks",
        "attributes_every_variant",
        "deleted_datasets",
    ] {
        let bytes = fixture(name);
        let mut positions: Vec<usize> = (bytes.len().saturating_sub(1500)..bytes.len()).collect();
        positions.extend((0..bytes.len()).step_by((bytes.len() / 300).max(1)));
        for &at in &positions {
            for mask in [0x01u8, 0xFF] {
                let mut damaged = bytes.clone();
                damaged[at] ^= mask;
                let result =
                    must_not_panic(&format!("{name} with byte {at} ^ {mask:#x}"), damaged, None);
                if at >= bytes.len() - 16 {
                    assert!(
                        result.is_err(),
                        "{name}: a damaged trailer byte {at} went unnoticed"
                    );
                }
            }
        }
    }
}

#[test]
fn a_foreign_file_is_not_an_atlas_collection() {
    let foreign: Vec<u8> = b"PAR1"
        .iter()
        .copied()
        .chain((0..10_000u32).map(|i| (i * 7) as u8))
        .chain(*b"PAR1")
        .collect();
    assert_eq!(
        read_everything(foreign, None).unwrap_err().code(),
        "NotAnAtlasCollection"
    );
    assert_eq!(
        read_everything(Vec::new(), None).unwrap_err().code(),
        "NotAnAtlasCollection"
    );
    let mut small = fixture("empty_collection");
    small[0] = b'X';
    assert_eq!(
        read_everything(small, None).unwrap_err().code(),
        "NotAnAtlasCollection"
    );
}

#[test]
fn a_future_version_is_named_with_both_numbers() {
    let mut bytes = fixture("every_dtype_zstd");
    let at = bytes.len() - 8;
    bytes[at] = 9;
    assert_eq!(
        read_everything(bytes, None).unwrap_err(),
        Error::UnsupportedVersion {
            found: 9,
            expected: 8
        }
    );
}

#[test]
fn masks_are_forgiven_where_safe_and_refused_where_foreign() {
    let data = fixture("deleted_datasets");
    let mask = std::fs::read(suite().join("deleted_datasets").join("deleted.mask")).unwrap();
    read_everything(data.clone(), Some(mask.clone())).unwrap();
    for len in 12..mask.len() {
        read_everything(data.clone(), Some(mask[..len].to_vec())).unwrap();
    }
    let mut far = mask.clone();
    far.extend_from_slice(&u32::MAX.to_le_bytes());
    far[8..12].copy_from_slice(&((mask.len() as u32 - 12) / 4 + 1).to_le_bytes());
    read_everything(data.clone(), Some(far)).unwrap();
    let mut forged = mask.clone();
    forged[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
    read_everything(data.clone(), Some(forged)).unwrap();
    let err = read_everything(data.clone(), Some(b"not a mask at all".to_vec())).unwrap_err();
    assert_eq!(err.code(), "CorruptMask");
    read_everything(data, Some(Vec::new())).unwrap();
}
