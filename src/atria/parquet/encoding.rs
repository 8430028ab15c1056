//! Value and level encodings: PLAIN, dictionary indices, the RLE /
//! bit-packed hybrid, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY,
//! DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT. Every count is the caller's
//! (already charged to the budget); every read is checked against the bytes
//! there are.

use crate::atria::error::{Error, Result};
use crate::atria::Value;
use crate::format::budget::Budget;

use super::meta::Physical;
use super::schema::Leaf;

pub(crate) fn corrupt(why: String) -> Error {
    Error::Corrupt(format!("parquet data: {why}"))
}

pub(crate) fn unsupported(why: String) -> Error {
    Error::UnsupportedProtocol(format!("parquet: {why}"))
}

/// An unsigned LEB128 varint at `*pos`.
fn uleb(data: &[u8], pos: &mut usize) -> Result<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *data
            .get(*pos)
            .ok_or_else(|| corrupt("a varint runs past the page".into()))?;
        *pos += 1;
        value |= ((b & 0x7f) as u64) << shift;
        if b & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err(corrupt("a varint longer than 64 bits".into()))
}

fn zigzag(data: &[u8], pos: &mut usize) -> Result<i64> {
    let v = uleb(data, pos)?;
    Ok((v >> 1) as i64 ^ -((v & 1) as i64))
}

/// `width` bits (≤ 64) starting at bit `bit` of `data`, least significant
/// first; the caller has checked the bytes are there.
fn bits(data: &[u8], bit: usize, width: u32) -> u64 {
    let mut value = 0u64;
    let mut got = 0u32;
    let mut pos = bit;
    while got < width {
        let offset = (pos % 8) as u32;
        let take = (8 - offset).min(width - got);
        let chunk = (data[pos / 8] >> offset) as u64 & ((1u64 << take) - 1);
        value |= chunk << got;
        got += take;
        pos += take as usize;
    }
    value
}

/// The bit width that holds `max`.
pub(crate) fn width_of(max: u16) -> u32 {
    16 - max.leading_zeros()
}

/// `count` values of the RLE / bit-packed hybrid (no length prefix).
pub(crate) fn rle_hybrid(data: &[u8], width: u32, count: usize) -> Result<Vec<u32>> {
    if width > 32 {
        return Err(corrupt(format!("an RLE bit width of {width}")));
    }
    let mut out = Vec::with_capacity(count);
    let mut pos = 0;
    let value_bytes = width.div_ceil(8) as usize;
    while out.len() < count {
        let header = uleb(data, &mut pos)?;
        let wanted = count - out.len();
        if header & 1 == 0 {
            let run = usize::try_from(header >> 1)
                .unwrap_or(usize::MAX)
                .min(wanted);
            let raw = data
                .get(pos..pos + value_bytes)
                .ok_or_else(|| corrupt("an RLE run's value runs past the page".into()))?;
            pos += value_bytes;
            let value = raw.iter().rev().fold(0u64, |acc, &b| (acc << 8) | b as u64);
            if width < 32 && value >> width != 0 {
                return Err(corrupt(format!(
                    "an RLE value {value} wider than {width} bits"
                )));
            }
            out.extend(std::iter::repeat_n(value as u32, run));
        } else {
            let groups = header >> 1;
            let claimed = groups.saturating_mul(width as u64);
            let available = (data.len() - pos) as u64;
            let bytes = claimed.min(available) as usize;
            let decodable = if width == 0 {
                usize::MAX
            } else {
                bytes * 8 / width as usize
            };
            let n = (groups.saturating_mul(8).min(usize::MAX as u64) as usize)
                .min(wanted)
                .min(decodable);
            if n == 0 {
                return Err(corrupt("a bit-packed run without values".into()));
            }
            for i in 0..n {
                out.push(bits(&data[pos..], i * width as usize, width) as u32);
            }
            pos += bytes;
        }
    }
    Ok(out)
}

/// The largest DELTA_BINARY_PACKED block accepted.
const MAX_DELTA_BLOCK: u64 = 1 << 16;

/// A DELTA_BINARY_PACKED run of exactly `count` values; returns them and
/// the bytes it took.
pub(crate) fn delta_binary_packed(data: &[u8], count: usize) -> Result<(Vec<i64>, usize)> {
    let mut pos = 0;
    let block = uleb(data, &mut pos)?;
    let minis = uleb(data, &mut pos)?;
    let total = uleb(data, &mut pos)?;
    let first = zigzag(data, &mut pos)?;
    // Writers use blocks of 128 (arrow-rs, parquet-cpp) or a few times that;
    // the bound keeps every size below from overflowing.
    if block == 0
        || block % 128 != 0
        || block > MAX_DELTA_BLOCK
        || minis == 0
        || block % minis != 0
        || (block / minis) % 32 != 0
    {
        return Err(corrupt(format!(
            "a delta block of {block} values in {minis} miniblocks"
        )));
    }
    if total != count as u64 {
        return Err(corrupt(format!(
            "a delta run of {total} values where the page has {count}"
        )));
    }
    let per_mini = (block / minis) as usize;
    let minis = minis as usize;
    let mut out = Vec::with_capacity(count);
    if count > 0 {
        out.push(first);
    }
    let mut last = first;
    while out.len() < count {
        let min_delta = zigzag(data, &mut pos)?;
        let widths = data
            .get(pos..pos + minis)
            .ok_or_else(|| corrupt("delta bit widths run past the page".into()))?
            .to_vec();
        pos += minis;
        for width in widths {
            if out.len() >= count {
                break;
            }
            if width > 64 {
                return Err(corrupt(format!("a delta bit width of {width}")));
            }
            let bytes = per_mini * width as usize / 8;
            let body = data
                .get(pos..pos + bytes)
                .ok_or_else(|| corrupt("a delta miniblock runs past the page".into()))?;
            for i in 0..per_mini.min(count - out.len()) {
                let delta = bits(body, i * width as usize, width as u32);
                last = last.wrapping_add(min_delta).wrapping_add(delta as i64);
                out.push(last);
            }
            pos += bytes;
        }
    }
    Ok((out, pos))
}

fn lengths(raw: Vec<i64>) -> Result<Vec<usize>> {
    raw.into_iter()
        .map(|n| usize::try_from(n).map_err(|_| corrupt(format!("a byte array of length {n}"))))
        .collect()
}

/// DELTA_LENGTH_BYTE_ARRAY: the arrays and the bytes taken.
fn delta_length(data: &[u8], count: usize, budget: &mut Budget) -> Result<(Vec<Vec<u8>>, usize)> {
    let (raw, mut pos) = delta_binary_packed(data, count)?;
    let mut out = Vec::with_capacity(count);
    for n in lengths(raw)? {
        let bytes = data
            .get(pos..pos.saturating_add(n))
            .ok_or_else(|| corrupt(format!("a byte array of {n} bytes runs past the page")))?;
        budget.charge(n as u64, "parquet byte arrays")?;
        out.push(bytes.to_vec());
        pos += n;
    }
    Ok((out, pos))
}

/// DELTA_BYTE_ARRAY: each value is a prefix of the previous one plus a suffix.
fn delta_byte_array(data: &[u8], count: usize, budget: &mut Budget) -> Result<Vec<Vec<u8>>> {
    let (prefixes, used) = delta_binary_packed(data, count)?;
    let (suffixes, _) = delta_length(&data[used..], count, budget)?;
    let mut out: Vec<Vec<u8>> = Vec::with_capacity(count);
    for (prefix, suffix) in lengths(prefixes)?.into_iter().zip(suffixes) {
        let previous = out.last().map(Vec::as_slice).unwrap_or(&[]);
        if prefix > previous.len() {
            return Err(corrupt(format!(
                "a prefix of {prefix} bytes of a {}-byte value",
                previous.len()
            )));
        }
        budget.charge(prefix as u64, "parquet byte arrays")?;
        let mut value = previous[..prefix].to_vec();
        value.extend_from_slice(&suffix);
        out.push(value);
    }
    Ok(out)
}

/// The width in bytes of a fixed-width physical type.
fn fixed_width(leaf: &Leaf) -> Option<usize> {
    match leaf.physical {
        Physical::Int32 | Physical::Float => Some(4),
        Physical::Int64 | Physical::Double => Some(8),
        Physical::Int96 => Some(12),
        Physical::FixedLenByteArray => Some(leaf.type_length),
        Physical::Boolean | Physical::ByteArray => None,
    }
}

/// Nanoseconds since the epoch from an INT96 (nanoseconds of the day, then
/// the Julian day).
fn int96_nanos(raw: &[u8]) -> Result<i64> {
    let nanos = i64::from_le_bytes(raw[..8].try_into().expect("8 bytes")) as i128;
    let day = i32::from_le_bytes(raw[8..12].try_into().expect("4 bytes")) as i128;
    const UNIX_EPOCH_JULIAN_DAY: i128 = 2_440_588;
    let total = (day - UNIX_EPOCH_JULIAN_DAY) * 86_400_000_000_000 + nanos;
    i64::try_from(total)
        .map_err(|_| corrupt(format!("an INT96 timestamp out of range (day {day})")))
}

/// A value of a fixed-width type from its little-endian bytes.
fn fixed_value(leaf: &Leaf, raw: &[u8]) -> Result<Value> {
    Ok(match leaf.physical {
        Physical::Int32 => {
            let v = i32::from_le_bytes(raw.try_into().expect("4 bytes"));
            Value::Int(if leaf.unsigned {
                v as u32 as i64
            } else {
                v as i64
            })
        }
        Physical::Int64 => int64_value(leaf, i64::from_le_bytes(raw.try_into().expect("8 bytes"))),
        Physical::Float => {
            Value::Float(f32::from_le_bytes(raw.try_into().expect("4 bytes")) as f64)
        }
        Physical::Double => Value::Float(f64::from_le_bytes(raw.try_into().expect("8 bytes"))),
        Physical::Int96 => Value::Int(int96_nanos(raw)?),
        Physical::FixedLenByteArray | Physical::ByteArray => bytes_value(leaf, raw.to_vec())?,
        Physical::Boolean => Value::Bool(raw[0] != 0),
    })
}

fn int64_value(leaf: &Leaf, v: i64) -> Value {
    if leaf.unsigned && v < 0 {
        Value::UInt(v as u64)
    } else {
        Value::Int(v)
    }
}

fn int_value(leaf: &Leaf, v: i64) -> Value {
    match leaf.physical {
        Physical::Int32 if leaf.unsigned => Value::Int(v as i32 as u32 as i64),
        Physical::Int32 => Value::Int(v as i32 as i64),
        _ => int64_value(leaf, v),
    }
}

pub(crate) fn bytes_value(leaf: &Leaf, bytes: Vec<u8>) -> Result<Value> {
    if leaf.text {
        String::from_utf8(bytes)
            .map(Value::Str)
            .map_err(|_| corrupt(format!("a string in '{}' that is not UTF-8", leaf.path)))
    } else {
        Ok(Value::Bin(bytes))
    }
}

/// `count` PLAIN values.
pub(crate) fn plain(
    data: &[u8],
    leaf: &Leaf,
    count: usize,
    budget: &mut Budget,
) -> Result<Vec<Value>> {
    let mut out = Vec::with_capacity(count);
    match leaf.physical {
        Physical::Boolean => {
            if data.len() < count.div_ceil(8) {
                return Err(corrupt(format!("{count} booleans in {} bytes", data.len())));
            }
            out.extend((0..count).map(|i| Value::Bool(data[i / 8] >> (i % 8) & 1 == 1)));
        }
        Physical::ByteArray => {
            let mut pos = 0usize;
            for _ in 0..count {
                let len = data
                    .get(pos..pos + 4)
                    .ok_or_else(|| corrupt("a byte array length runs past the page".into()))?;
                let n = u32::from_le_bytes(len.try_into().expect("4 bytes")) as usize;
                pos += 4;
                let bytes = data.get(pos..pos.saturating_add(n)).ok_or_else(|| {
                    corrupt(format!("a byte array of {n} bytes runs past the page"))
                })?;
                budget.charge(n as u64, "parquet byte arrays")?;
                out.push(bytes_value(leaf, bytes.to_vec())?);
                pos += n;
            }
        }
        _ => {
            let width = fixed_width(leaf).expect("fixed width");
            let needed = count.saturating_mul(width);
            if data.len() < needed {
                return Err(corrupt(format!(
                    "{count} values of {width} bytes in {} bytes",
                    data.len()
                )));
            }
            if leaf.physical == Physical::FixedLenByteArray {
                budget.charge(needed as u64, "parquet byte arrays")?;
            }
            for raw in data[..needed].chunks_exact(width) {
                out.push(fixed_value(leaf, raw)?);
            }
        }
    }
    Ok(out)
}

/// `count` values of a data page in `encoding`; `dictionary` for the
/// dictionary encodings.
pub(crate) fn values(
    encoding: i64,
    data: &[u8],
    leaf: &Leaf,
    count: usize,
    dictionary: Option<&[Value]>,
    budget: &mut Budget,
) -> Result<Vec<Value>> {
    match encoding {
        0 => plain(data, leaf, count, budget),
        2 | 8 => {
            let dictionary = dictionary.ok_or_else(|| {
                corrupt(format!(
                    "a dictionary-encoded page in '{}' without a dictionary",
                    leaf.path
                ))
            })?;
            let Some((&width, indices)) = data.split_first() else {
                if count == 0 {
                    return Ok(Vec::new());
                }
                return Err(corrupt("a dictionary page without its bit width".into()));
            };
            let indices = rle_hybrid(indices, width as u32, count)?;
            indices
                .into_iter()
                .map(|i| {
                    let value = dictionary.get(i as usize).ok_or_else(|| {
                        corrupt(format!(
                            "dictionary index {i} in '{}', the dictionary has {} values",
                            leaf.path,
                            dictionary.len()
                        ))
                    })?;
                    if let Value::Str(s) = value {
                        budget.charge(s.len() as u64, "parquet dictionary values")?;
                    } else if let Value::Bin(b) = value {
                        budget.charge(b.len() as u64, "parquet dictionary values")?;
                    }
                    Ok(value.clone())
                })
                .collect()
        }
        3 if leaf.physical == Physical::Boolean => {
            let len = data
                .get(..4)
                .ok_or_else(|| corrupt("an RLE boolean page without its length".into()))?;
            let n = u32::from_le_bytes(len.try_into().expect("4 bytes")) as usize;
            let body = data
                .get(4..4usize.saturating_add(n))
                .ok_or_else(|| corrupt(format!("RLE booleans of {n} bytes run past the page")))?;
            Ok(rle_hybrid(body, 1, count)?
                .into_iter()
                .map(|b| Value::Bool(b == 1))
                .collect())
        }
        5 if matches!(leaf.physical, Physical::Int32 | Physical::Int64) => {
            let (ints, _) = delta_binary_packed(data, count)?;
            Ok(ints.into_iter().map(|v| int_value(leaf, v)).collect())
        }
        6 if leaf.physical == Physical::ByteArray => delta_length(data, count, budget)?
            .0
            .into_iter()
            .map(|b| bytes_value(leaf, b))
            .collect(),
        7 if matches!(
            leaf.physical,
            Physical::ByteArray | Physical::FixedLenByteArray
        ) =>
        {
            delta_byte_array(data, count, budget)?
                .into_iter()
                .map(|b| {
                    if leaf.physical == Physical::FixedLenByteArray && b.len() != leaf.type_length {
                        return Err(corrupt(format!(
                            "a {}-byte value in the fixed_len_byte_array({}) '{}'",
                            b.len(),
                            leaf.type_length,
                            leaf.path
                        )));
                    }
                    bytes_value(leaf, b)
                })
                .collect()
        }
        9 if fixed_width(leaf).is_some() && leaf.physical != Physical::Int96 => {
            let width = fixed_width(leaf).expect("fixed width");
            let needed = count.saturating_mul(width);
            if data.len() < needed {
                return Err(corrupt(format!(
                    "{count} split values of {width} bytes in {} bytes",
                    data.len()
                )));
            }
            if leaf.physical == Physical::FixedLenByteArray {
                budget.charge(needed as u64, "parquet byte arrays")?;
            }
            let mut raw = vec![0u8; width];
            (0..count)
                .map(|i| {
                    for (k, byte) in raw.iter_mut().enumerate() {
                        *byte = data[k * count + i];
                    }
                    fixed_value(leaf, &raw)
                })
                .collect()
        }
        other => Err(unsupported(format!(
            "encoding {} for the {:?} column '{}'",
            encoding_name(other),
            leaf.physical,
            leaf.path
        ))),
    }
}

fn encoding_name(code: i64) -> String {
    match code {
        0 => "PLAIN".into(),
        2 => "PLAIN_DICTIONARY".into(),
        3 => "RLE".into(),
        4 => "BIT_PACKED".into(),
        5 => "DELTA_BINARY_PACKED".into(),
        6 => "DELTA_LENGTH_BYTE_ARRAY".into(),
        7 => "DELTA_BYTE_ARRAY".into(),
        8 => "RLE_DICTIONARY".into(),
        9 => "BYTE_STREAM_SPLIT".into(),
        other => format!("#{other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rle_and_bit_packed_runs_decode() {
        // An RLE run of 3 × 5, then one bit-packed group of 8 values (width 3).
        let data = [0x06, 0x05, 0x03, 0b1000_1000, 0b1100_0110, 0b1111_1010];
        assert_eq!(
            rle_hybrid(&data, 3, 11).unwrap(),
            vec![5, 5, 5, 0, 1, 2, 3, 4, 5, 6, 7]
        );
        assert_eq!(rle_hybrid(&data, 3, 12).unwrap_err().code(), "Corrupt");
        assert_eq!(
            rle_hybrid(&[0x06, 0x09], 3, 1).unwrap_err().code(),
            "Corrupt"
        );
    }

    #[test]
    fn delta_binary_packed_decodes_the_spec_example() {
        // 1, 2, 3, 4, 5: deltas all 1, min delta 1, bit width 0.
        let data = [0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0, 0, 0, 0];
        let (values, used) = delta_binary_packed(&data, 5).unwrap();
        assert_eq!(values, vec![1, 2, 3, 4, 5]);
        assert_eq!(used, 10);
        assert_eq!(delta_binary_packed(&data, 6).unwrap_err().code(), "Corrupt");
        assert_eq!(
            delta_binary_packed(&data[..7], 5).unwrap_err().code(),
            "Corrupt"
        );
    }
}
