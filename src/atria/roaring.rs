//! Roaring bitmaps as Delta stores deletion vectors: its 64-bit
//! `RoaringBitmapArray` in the portable serialization, decoded into the
//! sorted ranges of row indexes it holds.
//!
//! The 64-bit layout (little-endian): the magic number 1681511377, a 64-bit
//! count of 32-bit bitmaps, then each bitmap after its 32-bit key (the high
//! half of its values), keys ascending. Each is a standard portable 32-bit
//! RoaringBitmap: a cookie (12346 and a container count, or 12347 with the
//! count and a bitset of run containers), one (key, cardinality - 1) pair per
//! container, container offsets (unless a run bitmap has fewer than 4
//! containers), then the containers: arrays of sorted 16-bit values, 8 KiB
//! bitsets, or runs of (start, length - 1).
//!
//! Every count is checked against the bytes left before it is used, so what
//! is kept grows with the input (at most 64 bytes of ranges per input byte,
//! for a bitset of alternating bits), never with a number the input claims.

use crate::atria::error::{Error, Result};

/// Delta's portable serialization of a `RoaringBitmapArray`.
const PORTABLE_MAGIC: u32 = 1_681_511_377;
/// Delta's native serialization, which it does not write to tables.
const NATIVE_MAGIC: u32 = 1_681_511_376;
/// A 32-bit bitmap without run containers: the container count follows.
const COOKIE_NO_RUNS: u32 = 12346;
/// A 32-bit bitmap with run containers: the count is in the cookie's high half.
const COOKIE_RUNS: u32 = 12347;
/// Containers with more values than this are bitsets (when not runs).
const ARRAY_MAX: u32 = 4096;
/// A run bitmap with this many containers or more has offsets.
const OFFSETS_FROM: usize = 4;
const BITSET_BYTES: usize = 8192;

/// A set of row indexes, as sorted, disjoint, non-adjacent ranges.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowSet {
    /// `[start, end)`, ascending.
    ranges: Vec<(u64, u64)>,
    /// Values in the ranges before each range.
    before: Vec<u64>,
    len: u64,
}

impl RowSet {
    /// Decodes Delta's portable 64-bit serialization (`bytes` holds exactly
    /// one bitmap). Malformed input is [`Error::Corrupt`] naming `what`; the
    /// native serialization is [`Error::UnsupportedProtocol`].
    pub fn decode_portable(bytes: &[u8], what: &str) -> Result<RowSet> {
        let mut r = Reader { bytes, at: 0, what };
        let magic = r.u32()?;
        if magic == NATIVE_MAGIC {
            return Err(Error::UnsupportedProtocol(format!(
                "{what}: a deletion vector in the native roaring serialization is not read"
            )));
        }
        if magic != PORTABLE_MAGIC {
            return Err(r.corrupt(format!(
                "magic number {magic} is not a roaring bitmap array's"
            )));
        }
        let count = r.u64()?;
        let mut set = RowSet::default();
        let mut last_key: Option<u32> = None;
        for _ in 0..count {
            // Each bitmap takes at least 12 bytes: more than remain ends the
            // loop with an error before a count this large is looped over.
            if r.remaining() < 12 {
                return Err(r.corrupt(format!("{count} bitmaps do not fit in its bytes")));
            }
            let key = r.u32()?;
            if last_key.is_some_and(|k| key <= k) {
                return Err(r.corrupt(format!("bitmap key {key} is not ascending")));
            }
            last_key = Some(key);
            read_bitmap32(&mut r, u64::from(key) << 32, &mut set)?;
        }
        if r.remaining() != 0 {
            return Err(r.corrupt(format!("{} bytes follow the bitmap", r.remaining())));
        }
        Ok(set)
    }

    /// How many rows are in the set.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The largest row in the set.
    pub fn max(&self) -> Option<u64> {
        self.ranges.last().map(|&(_, end)| end - 1)
    }

    /// Whether `row` is in the set.
    pub fn contains(&self, row: u64) -> bool {
        let i = self.ranges.partition_point(|&(start, _)| start <= row);
        i > 0 && row < self.ranges[i - 1].1
    }

    /// The rows in the set, ascending.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.ranges.iter().flat_map(|&(start, end)| start..end)
    }

    /// The index of the `n`th (0-based) row *not* in the set.
    pub fn nth_absent(&self, n: u64) -> u64 {
        // Rows absent before range i start at ranges[i].0 - before[i], a
        // non-decreasing sequence: every range starting at or before the
        // answer has its rows added to n.
        let (mut lo, mut hi) = (0, self.ranges.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.ranges[mid].0 - self.before[mid] <= n {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let i = lo;
        match i {
            0 => n,
            i => {
                let (start, end) = self.ranges[i - 1];
                n + self.before[i - 1] + (end - start)
            }
        }
    }

    /// Adds `[start, end)`, which must lie after every range so far.
    fn push(&mut self, start: u64, end: u64, what: &str) -> Result<()> {
        match self.ranges.last_mut() {
            Some(last) if start < last.1 => {
                return Err(Error::Corrupt(format!(
                    "{what}: the bitmap's values are not ascending at {start}"
                )))
            }
            Some(last) if start == last.1 => last.1 = end,
            _ => {
                self.before.push(self.len);
                self.ranges.push((start, end));
            }
        }
        self.len += end - start;
        Ok(())
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    what: &'a str,
}

impl<'a> Reader<'a> {
    fn corrupt(&self, why: String) -> Error {
        Error::Corrupt(format!("{}: deletion vector bitmap: {why}", self.what))
    }

    fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }

    /// The next `n` bytes, or an error when fewer remain.
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(self.corrupt(format!(
                "{n} bytes wanted at byte {}, {} remain",
                self.at,
                self.remaining()
            )));
        }
        let out = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(out)
    }

    fn u16(&mut self) -> Result<u16> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn u32(&mut self) -> Result<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self) -> Result<u64> {
        let b = self.take(8)?;
        let mut word = [0u8; 8];
        word.copy_from_slice(b);
        Ok(u64::from_le_bytes(word))
    }
}

fn le16(b: &[u8], i: usize) -> u16 {
    u16::from_le_bytes([b[2 * i], b[2 * i + 1]])
}

/// One portable 32-bit RoaringBitmap whose values are offset by `high`.
fn read_bitmap32(r: &mut Reader<'_>, high: u64, set: &mut RowSet) -> Result<()> {
    let start = r.at;
    let cookie = r.u32()?;
    let (count, runs) = if cookie & 0xffff == COOKIE_RUNS {
        let count = (cookie >> 16) as usize + 1;
        (count, Some(r.take(count.div_ceil(8))?))
    } else if cookie == COOKIE_NO_RUNS {
        let count = r.u32()?;
        if count > 65536 {
            return Err(r.corrupt(format!("{count} containers (at most 65536)")));
        }
        (count as usize, None)
    } else {
        return Err(r.corrupt(format!(
            "cookie {cookie} is not a portable roaring bitmap's"
        )));
    };
    // Both headers are read (and so checked against the bytes) before any
    // container.
    let header = r.take(4 * count)?;
    let offsets = if runs.is_none() || count >= OFFSETS_FROM {
        Some(r.take(4 * count)?)
    } else {
        None
    };
    let mut last_key: Option<u16> = None;
    for i in 0..count {
        let key = le16(header, 2 * i);
        let cardinality = u32::from(le16(header, 2 * i + 1)) + 1;
        if last_key.is_some_and(|k| key <= k) {
            return Err(r.corrupt(format!("container key {key} is not ascending")));
        }
        last_key = Some(key);
        if let Some(offsets) = offsets {
            let o = &offsets[4 * i..4 * i + 4];
            let offset = u32::from_le_bytes([o[0], o[1], o[2], o[3]]) as usize;
            if offset != r.at - start {
                return Err(r.corrupt(format!(
                    "container {i} is said to start at {offset}, it starts at {}",
                    r.at - start
                )));
            }
        }
        let base = high | (u64::from(key) << 16);
        let is_run = runs.is_some_and(|bits| bits[i / 8] & (1 << (i % 8)) != 0);
        if is_run {
            read_runs(r, base, cardinality, set)?;
        } else if cardinality <= ARRAY_MAX {
            let values = r.take(2 * cardinality as usize)?;
            let mut last: Option<u16> = None;
            for j in 0..cardinality as usize {
                let v = le16(values, j);
                if last.is_some_and(|l| v <= l) {
                    return Err(r.corrupt(format!("array value {v} is not ascending")));
                }
                last = Some(v);
                set.push(base + u64::from(v), base + u64::from(v) + 1, r.what)?;
            }
        } else {
            let words = r.take(BITSET_BYTES)?;
            let ones: u32 = words.chunks_exact(8).map(|w| word(w).count_ones()).sum();
            if ones != cardinality {
                return Err(r.corrupt(format!(
                    "a bitset of {ones} values is said to hold {cardinality}"
                )));
            }
            for (w, bytes) in words.chunks_exact(8).enumerate() {
                push_bits(word(bytes), base + 64 * w as u64, set, r.what)?;
            }
        }
    }
    Ok(())
}

fn word(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(b);
    u64::from_le_bytes(w)
}

/// The set bits of `w` (bit k is `base + k`) as ranges.
fn push_bits(mut w: u64, base: u64, set: &mut RowSet, what: &str) -> Result<()> {
    while w != 0 {
        let from = w.trailing_zeros();
        let len = (!(w >> from)).trailing_zeros().min(64 - from);
        set.push(base + u64::from(from), base + u64::from(from + len), what)?;
        let mask = if len == 64 {
            u64::MAX
        } else {
            ((1u64 << len) - 1) << from
        };
        w &= !mask;
    }
    Ok(())
}

fn read_runs(r: &mut Reader<'_>, base: u64, cardinality: u32, set: &mut RowSet) -> Result<()> {
    let n = r.u16()? as usize;
    let runs = r.take(4 * n)?;
    let mut total: u32 = 0;
    let mut next_free: u32 = 0;
    for j in 0..n {
        let start = u32::from(le16(runs, 2 * j));
        let len = u32::from(le16(runs, 2 * j + 1)) + 1;
        let end = start + len;
        if end > 65536 {
            return Err(r.corrupt(format!("a run of {len} from {start} leaves its container")));
        }
        if j > 0 && start < next_free {
            return Err(r.corrupt(format!("run {j} overlaps the run before it")));
        }
        next_free = end;
        total += len;
        set.push(base + u64::from(start), base + u64::from(end), r.what)?;
    }
    if total != cardinality {
        return Err(r.corrupt(format!(
            "runs of {total} values are said to hold {cardinality}"
        )));
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A container to serialize: its key and kind.
    pub(crate) enum Container {
        Array(u16, Vec<u16>),
        Bitset(u16, Vec<u16>),
        Runs(u16, Vec<(u16, u16)>),
    }

    impl Container {
        fn key(&self) -> u16 {
            match self {
                Container::Array(k, _) | Container::Bitset(k, _) | Container::Runs(k, _) => *k,
            }
        }

        fn cardinality(&self) -> u32 {
            match self {
                Container::Array(_, v) | Container::Bitset(_, v) => v.len() as u32,
                Container::Runs(_, runs) => runs.iter().map(|&(_, l)| u32::from(l) + 1).sum(),
            }
        }

        fn body(&self) -> Vec<u8> {
            let mut out = Vec::new();
            match self {
                Container::Array(_, values) => {
                    values.iter().for_each(|v| out.extend(v.to_le_bytes()))
                }
                Container::Bitset(_, values) => {
                    out.resize(BITSET_BYTES, 0);
                    for &v in values {
                        out[v as usize / 8] |= 1 << (v % 8);
                    }
                }
                Container::Runs(_, runs) => {
                    out.extend((runs.len() as u16).to_le_bytes());
                    for &(s, l) in runs {
                        out.extend(s.to_le_bytes());
                        out.extend(l.to_le_bytes());
                    }
                }
            }
            out
        }
    }

    /// The portable serialization of one 32-bit bitmap.
    pub(crate) fn bitmap32(containers: &[Container]) -> Vec<u8> {
        let runs = containers.iter().any(|c| matches!(c, Container::Runs(..)));
        let n = containers.len();
        let mut out = Vec::new();
        if runs {
            out.extend((COOKIE_RUNS | ((n as u32 - 1) << 16)).to_le_bytes());
            let mut bits = vec![0u8; n.div_ceil(8)];
            for (i, c) in containers.iter().enumerate() {
                if matches!(c, Container::Runs(..)) {
                    bits[i / 8] |= 1 << (i % 8);
                }
            }
            out.extend(bits);
        } else {
            out.extend(COOKIE_NO_RUNS.to_le_bytes());
            out.extend((n as u32).to_le_bytes());
        }
        for c in containers {
            out.extend(c.key().to_le_bytes());
            out.extend(((c.cardinality() - 1) as u16).to_le_bytes());
        }
        let with_offsets = !runs || n >= OFFSETS_FROM;
        let mut at = out.len() + if with_offsets { 4 * n } else { 0 };
        let bodies: Vec<Vec<u8>> = containers.iter().map(Container::body).collect();
        if with_offsets {
            for body in &bodies {
                out.extend((at as u32).to_le_bytes());
                at += body.len();
            }
        }
        bodies.iter().for_each(|b| out.extend(b));
        out
    }

    /// The portable 64-bit serialization of `(high key, 32-bit bitmap)`s.
    pub(crate) fn portable(bitmaps: &[(u32, Vec<u8>)]) -> Vec<u8> {
        let mut out = PORTABLE_MAGIC.to_le_bytes().to_vec();
        out.extend((bitmaps.len() as u64).to_le_bytes());
        for (key, bytes) in bitmaps {
            out.extend(key.to_le_bytes());
            out.extend(bytes);
        }
        out
    }

    fn decode(bytes: &[u8]) -> Result<RowSet> {
        RowSet::decode_portable(bytes, "t")
    }

    #[test]
    fn every_container_kind_decodes() {
        let bitset: Vec<u16> = (0..5000u16).map(|v| v * 13).collect();
        let want_bitset: Vec<u64> = bitset.iter().map(|&v| (1 << 16) + u64::from(v)).collect();
        let bytes = portable(&[
            (
                0,
                bitmap32(&[
                    Container::Array(0, vec![0, 9, 10, 65535]),
                    Container::Bitset(1, bitset.clone()),
                ]),
            ),
            (
                2,
                bitmap32(&[
                    Container::Runs(0, vec![(0, 0), (5, 9), (65000, 535)]),
                    Container::Array(3, vec![7]),
                ]),
            ),
        ]);
        let set = decode(&bytes).unwrap();
        let mut want: Vec<u64> = vec![0, 9, 10, 65535];
        want.extend(&want_bitset);
        let high = 2u64 << 32;
        want.push(high);
        want.extend((5..15).map(|v| high + v));
        want.extend((65000..65536).map(|v| high + v));
        want.push(high + (3 << 16) + 7);
        assert_eq!(set.iter().collect::<Vec<_>>(), want);
        assert_eq!(set.len(), want.len() as u64);
        assert_eq!(set.max(), want.last().copied());
        for &v in &want {
            assert!(set.contains(v), "{v}");
        }
        for v in [1, 8, 11, 65537, high + 1, high + 15, high + 64999] {
            assert!(!set.contains(v), "{v}");
        }
        // A run bitmap of four containers or more carries offsets too.
        let many = portable(&[(
            0,
            bitmap32(&[
                Container::Runs(0, vec![(1, 1)]),
                Container::Array(1, vec![2]),
                Container::Runs(2, vec![(0, 65535)]),
                Container::Bitset(3, (0..4097).collect()),
            ]),
        )]);
        let set = decode(&many).unwrap();
        assert_eq!(set.len(), 2 + 1 + 65536 + 4097);
        // Adjacent values merge into one range: [65536, 2 * 65536 + 4097).
        assert_eq!(
            set.ranges,
            [(1, 3), (65538, 65539), (131072, 196608 + 4097)]
        );
    }

    #[test]
    fn nth_absent_skips_the_set() {
        let empty = decode(&portable(&[])).unwrap();
        assert!(empty.is_empty());
        assert_eq!(empty.nth_absent(7), 7);
        let set = decode(&portable(&[(
            0,
            bitmap32(&[Container::Array(0, vec![0, 1, 5, 7, 8])]),
        )]))
        .unwrap();
        let live: Vec<u64> = (0..6).map(|n| set.nth_absent(n)).collect();
        assert_eq!(live, [2, 3, 4, 6, 9, 10]);
    }

    #[test]
    fn malformed_bitmaps_are_corrupt() {
        let good = bitmap32(&[Container::Array(0, vec![1, 2])]);
        let mut bad_cookie = good.clone();
        bad_cookie[0] = 0;
        let mut descending = good.clone();
        let n = descending.len();
        descending[n - 4..].copy_from_slice(&[2, 0, 1, 0]);
        let mut bad_offset = good.clone();
        bad_offset[12] = 99;
        let overlapping = bitmap32(&[Container::Runs(0, vec![(0, 4), (3, 0)])]);
        let mut wrong_card = bitmap32(&[Container::Runs(0, vec![(0, 4)])]);
        wrong_card[8] = 9; // the header's cardinality - 1 (a run cookie: 4 + 1 + 2 bytes in)
        let leaving = bitmap32(&[Container::Runs(0, vec![(65535, 1)])]);
        let mut bitset = bitmap32(&[Container::Bitset(0, (0..5000).collect())]);
        let last = bitset.len() - 1;
        bitset[last] = 0x80; // one more value than the header says
        let keys = bitmap32(&[Container::Array(1, vec![1]), Container::Array(1, vec![2])]);
        let mut cases = vec![
            portable(&[(0, bad_cookie)]),
            portable(&[(0, descending)]),
            portable(&[(0, bad_offset)]),
            portable(&[(0, overlapping)]),
            portable(&[(0, wrong_card)]),
            portable(&[(0, leaving)]),
            portable(&[(0, bitset)]),
            portable(&[(0, keys)]),
            portable(&[(1, good.clone()), (1, good.clone())]),
        ];
        let mut trailing = portable(&[(0, good.clone())]);
        trailing.push(0);
        cases.push(trailing);
        let mut magic = portable(&[(0, good.clone())]);
        magic[0] ^= 2;
        cases.push(magic);
        let mut huge = portable(&[(0, good.clone())]);
        huge[4..12].copy_from_slice(&u64::MAX.to_le_bytes());
        cases.push(huge);
        let mut containers = portable(&[(0, good.clone())]);
        containers[20..24].copy_from_slice(&u32::MAX.to_le_bytes());
        cases.push(containers);
        for (i, bytes) in cases.iter().enumerate() {
            let e = decode(bytes).unwrap_err();
            assert_eq!(e.code(), "Corrupt", "case {i}: {e}");
        }
        let mut native = portable(&[(0, good)]);
        native[..4].copy_from_slice(&NATIVE_MAGIC.to_le_bytes());
        assert_eq!(decode(&native).unwrap_err().code(), "UnsupportedProtocol");
    }

    #[test]
    fn every_truncation_is_an_error() {
        let bytes = portable(&[
            (
                0,
                bitmap32(&[
                    Container::Runs(0, vec![(3, 2)]),
                    Container::Array(1, vec![4, 5]),
                    Container::Bitset(2, (0..4100).collect()),
                    Container::Runs(3, vec![(0, 0)]),
                ]),
            ),
            (1, bitmap32(&[Container::Array(0, vec![1])])),
        ]);
        decode(&bytes).unwrap();
        for len in 0..bytes.len() {
            assert!(decode(&bytes[..len]).is_err(), "{len}");
        }
    }
}
