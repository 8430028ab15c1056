//! A column chunk's pages, decompressed and decoded into its levels and
//! non-null values.

use crate::atria::error::{Error, Result};
use crate::atria::Value;
use crate::format::budget::Budget;

use super::encoding::{corrupt, plain, rle_hybrid, unsupported, values, width_of};
use super::meta::{page_header, PageKind, BIT_PACKED};
use super::schema::Leaf;
use super::snappy;

/// One leaf column of one row group, decoded.
#[derive(Debug, Default)]
pub(crate) struct LeafData {
    /// Definition levels, one per entry; empty when the column has none
    /// (all entries are then at the maximum).
    pub def: Vec<u16>,
    /// Repetition levels, one per entry; empty when the column has none.
    pub rep: Vec<u16>,
    /// The entries' values where defined at the maximum level, in order.
    pub values: Vec<Value>,
    /// The number of entries.
    pub entries: usize,
}

/// Decodes the pages of a column chunk (`bytes`, compressed with `codec`).
pub(crate) fn decode_chunk(
    bytes: &[u8],
    leaf: &Leaf,
    codec: i64,
    expected_values: i64,
    budget: &mut Budget,
) -> Result<LeafData> {
    let mut data = LeafData::default();
    let mut dictionary: Option<Vec<Value>> = None;
    let mut pos = 0;
    while pos < bytes.len() && (data.entries as i64) < expected_values {
        let (header, used) = page_header(&bytes[pos..], budget)?;
        pos += used;
        let body = bytes
            .get(pos..pos.saturating_add(header.compressed))
            .ok_or_else(|| {
                corrupt(format!(
                    "a page of {} bytes runs past the column chunk '{}'",
                    header.compressed, leaf.path
                ))
            })?;
        pos += header.compressed;
        match header.kind {
            PageKind::Dictionary {
                num_values,
                encoding,
            } => {
                if encoding != 0 && encoding != 2 {
                    return Err(corrupt(format!("a dictionary page in encoding {encoding}")));
                }
                budget.charge_items(
                    num_values as u64,
                    std::mem::size_of::<Value>(),
                    "a parquet dictionary",
                )?;
                let raw = decompress(codec, body, header.uncompressed, budget)?;
                dictionary = Some(plain(&raw, leaf, num_values, budget)?);
            }
            PageKind::DataV1 {
                num_values,
                encoding,
                def_encoding,
                rep_encoding,
            } => {
                let levels = [
                    ("definition", def_encoding, leaf.max_def),
                    ("repetition", rep_encoding, leaf.max_rep),
                ];
                for (kind, encoding, max) in levels {
                    // A column without levels of a kind writes none, whatever
                    // encoding its header names for them.
                    if encoding == BIT_PACKED && max > 0 {
                        return Err(unsupported(format!(
                            "{kind} levels in the deprecated BIT_PACKED encoding (column '{}')",
                            leaf.path
                        )));
                    }
                }
                charge_entries(num_values, leaf, budget)?;
                let raw = decompress(codec, body, header.uncompressed, budget)?;
                let mut at = 0;
                let rep = prefixed_levels(&raw, &mut at, leaf.max_rep, num_values)?;
                let def = prefixed_levels(&raw, &mut at, leaf.max_def, num_values)?;
                add_page(
                    &mut data,
                    rep,
                    def,
                    num_values,
                    leaf,
                    |count, budget| {
                        values(
                            encoding,
                            &raw[at..],
                            leaf,
                            count,
                            dictionary.as_deref(),
                            budget,
                        )
                    },
                    budget,
                )?;
            }
            PageKind::DataV2 {
                num_values,
                encoding,
                def_bytes,
                rep_bytes,
                compressed,
            } => {
                charge_entries(num_values, leaf, budget)?;
                let levels = rep_bytes.saturating_add(def_bytes);
                if levels > body.len() || levels > header.uncompressed {
                    return Err(corrupt(format!(
                        "levels of {levels} bytes in a page of {} bytes",
                        body.len()
                    )));
                }
                let rep = levels_of(&body[..rep_bytes], leaf.max_rep, num_values)?;
                let def = levels_of(&body[rep_bytes..levels], leaf.max_def, num_values)?;
                let rest = &body[levels..];
                let raw = if compressed {
                    decompress(codec, rest, header.uncompressed - levels, budget)?
                } else {
                    rest.to_vec()
                };
                add_page(
                    &mut data,
                    rep,
                    def,
                    num_values,
                    leaf,
                    |count, budget| {
                        values(encoding, &raw, leaf, count, dictionary.as_deref(), budget)
                    },
                    budget,
                )?;
            }
            PageKind::Other => {}
        }
    }
    if data.entries as i64 != expected_values {
        return Err(corrupt(format!(
            "the column chunk '{}' holds {} entries, its metadata says {expected_values}",
            leaf.path, data.entries
        )));
    }
    Ok(data)
}

fn charge_entries(entries: usize, leaf: &Leaf, budget: &mut Budget) -> Result<()> {
    // Two levels and, at most, one value per entry.
    let per_entry = 2 * std::mem::size_of::<u16>() + std::mem::size_of::<Value>();
    Ok(budget.charge_items(
        entries as u64,
        per_entry,
        &format!("the parquet column '{}'", leaf.path),
    )?)
}

/// Levels of a v1 page: a 4-byte length, then the hybrid encoding.
fn prefixed_levels(raw: &[u8], at: &mut usize, max: u16, count: usize) -> Result<Vec<u16>> {
    if max == 0 {
        return Ok(Vec::new());
    }
    let len = raw
        .get(*at..*at + 4)
        .ok_or_else(|| corrupt("levels without their length".into()))?;
    let n = u32::from_le_bytes(len.try_into().expect("4 bytes")) as usize;
    let body = raw
        .get(*at + 4..(*at + 4).saturating_add(n))
        .ok_or_else(|| corrupt(format!("levels of {n} bytes run past the page")))?;
    *at += 4 + n;
    levels_of(body, max, count)
}

fn levels_of(body: &[u8], max: u16, count: usize) -> Result<Vec<u16>> {
    if max == 0 {
        return Ok(Vec::new());
    }
    let levels = rle_hybrid(body, width_of(max), count)?;
    levels
        .into_iter()
        .map(|l| {
            u16::try_from(l)
                .ok()
                .filter(|&l| l <= max)
                .ok_or_else(|| corrupt(format!("a level {l} above the maximum {max}")))
        })
        .collect()
}

fn add_page(
    data: &mut LeafData,
    rep: Vec<u16>,
    def: Vec<u16>,
    entries: usize,
    leaf: &Leaf,
    decode: impl FnOnce(usize, &mut Budget) -> Result<Vec<Value>>,
    budget: &mut Budget,
) -> Result<()> {
    if leaf.max_rep > 0 && rep.first().is_some_and(|&r| r != 0) && data.entries == 0 {
        return Err(corrupt(format!(
            "the column '{}' starts inside a row",
            leaf.path
        )));
    }
    let defined = if leaf.max_def == 0 {
        entries
    } else {
        def.iter().filter(|&&d| d == leaf.max_def).count()
    };
    let values = decode(defined, budget)?;
    if values.len() != defined {
        return Err(corrupt(format!(
            "a page of '{}' decodes {} values for {defined} defined entries",
            leaf.path,
            values.len()
        )));
    }
    data.rep.extend(rep);
    data.def.extend(def);
    data.values.extend(values);
    data.entries += entries;
    Ok(())
}

/// An LZ4 block that decompresses to `size` bytes.
fn lz4_block(body: &[u8], size: usize) -> Result<Vec<u8>> {
    // lz4 cannot expand more than 255×: a larger size is a lie.
    if size as u64 > (body.len() as u64).saturating_mul(255) + 16 {
        return Err(corrupt(format!(
            "an lz4 page of {} bytes claims {size} bytes",
            body.len()
        )));
    }
    let mut out = vec![0u8; size];
    let n = lz4_flex::block::decompress_into(body, &mut out)
        .map_err(|e| corrupt(format!("lz4 data: {e}")))?;
    out.truncate(n);
    Ok(out)
}

/// Hadoop's LZ4 framing: frames of a big-endian u32 decompressed size, a
/// u32 compressed size and that LZ4 block, filling exactly `size` bytes;
/// `None` when the body is not so framed.
fn lz4_hadoop(body: &[u8], size: usize) -> Option<Vec<u8>> {
    let mut out = vec![0u8; size];
    let (mut rest, mut filled) = (body, 0usize);
    while !rest.is_empty() {
        let header = rest.get(..8)?;
        let raw = u32::from_be_bytes(header[..4].try_into().ok()?) as usize;
        let packed = u32::from_be_bytes(header[4..].try_into().ok()?) as usize;
        let block = rest.get(8..8usize.checked_add(packed)?)?;
        let end = filled.checked_add(raw).filter(|&end| end <= size)?;
        let n = lz4_flex::block::decompress_into(block, &mut out[filled..end]).ok()?;
        if n != raw {
            return None;
        }
        filled = end;
        rest = &rest[8 + packed..];
    }
    (filled == size).then_some(out)
}

/// A page body decompressed by the chunk's codec, exactly `size` bytes.
fn decompress(codec: i64, body: &[u8], size: usize, budget: &mut Budget) -> Result<Vec<u8>> {
    budget.charge(size as u64, "a parquet page")?;
    let out = match codec {
        0 => body.to_vec(),
        1 => snappy::decompress(body, size)?,
        2 => super::gzip::gunzip(body, size)?,
        6 => crate::format::codec::zstd_decompress(body, size).map_err(|e| match e {
            crate::Error::TooLarge(m) => corrupt(format!("a zstd page {m}")),
            crate::Error::CorruptCollection(m) => corrupt(format!("a zstd page: {m}")),
            other => other.into(),
        })?,
        // LZ4 (deprecated): Hadoop's framing, or a bare block as some
        // writers put under this codec (pyarrow and arrow-rs fall back so).
        5 => match lz4_hadoop(body, size) {
            Some(out) => out,
            None => lz4_block(body, size)?,
        },
        7 => lz4_block(body, size)?,
        other => {
            return Err(Error::UnsupportedProtocol(format!(
                "parquet: compression codec {} is not supported (UNCOMPRESSED, SNAPPY, GZIP, ZSTD, LZ4 and LZ4_RAW are)",
                codec_name(other)
            )))
        }
    };
    if out.len() != size {
        return Err(corrupt(format!(
            "a page decompressed to {} bytes, its header says {size}",
            out.len()
        )));
    }
    Ok(out)
}

fn codec_name(code: i64) -> String {
    match code {
        3 => "LZO".into(),
        4 => "BROTLI".into(),
        other => format!("#{other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(raw: &[u8]) -> Vec<u8> {
        let block = lz4_flex::block::compress(raw);
        let mut out = (raw.len() as u32).to_be_bytes().to_vec();
        out.extend_from_slice(&(block.len() as u32).to_be_bytes());
        out.extend_from_slice(&block);
        out
    }

    #[test]
    fn lz4_pages_in_hadoop_frames_or_bare() {
        let (a, b) = (b"hello hello hello hello".to_vec(), vec![7u8; 5000]);
        let framed = [frame(&a), frame(&b)].concat();
        let whole = [a.clone(), b.clone()].concat();
        let mut budget = Budget::new(1 << 20);
        assert_eq!(
            decompress(5, &framed, whole.len(), &mut budget).unwrap(),
            whole
        );
        // A bare block under codec 5 falls back; LZ4_RAW reads only bare.
        let bare = lz4_flex::block::compress(&whole);
        assert_eq!(lz4_hadoop(&bare, whole.len()), None);
        assert_eq!(
            decompress(5, &bare, whole.len(), &mut budget).unwrap(),
            whole
        );
        assert_eq!(
            decompress(7, &bare, whole.len(), &mut budget).unwrap(),
            whole
        );
        // Frames that claim more than the page, or end early, are no framing;
        // as a bare block they are then Corrupt.
        assert_eq!(lz4_hadoop(&framed, whole.len() - 1), None);
        assert_eq!(lz4_hadoop(&framed[..framed.len() - 1], whole.len()), None);
        let mut lying = framed.clone();
        lying[4..8].copy_from_slice(&u32::MAX.to_be_bytes());
        assert_eq!(lz4_hadoop(&lying, whole.len()), None);
        let e = decompress(5, &lying, whole.len(), &mut budget).unwrap_err();
        assert_eq!(e.code(), "Corrupt", "{e}");
    }
}
