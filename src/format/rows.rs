//! Single rows of a segment footer's tables, decoded without the rest of it.
//!
//! rkyv archives a `Vec` of structs as a table of fixed-size rows, and
//! before the table each row's out-of-line values (strings, vectors,
//! boxes) in row order, a value's children before the value. So one row
//! needs only its own bytes and its run of out-of-line bytes, however large
//! the footer. Both are copied into a small buffer, run first and row last
//! as an archive's root is, the row's relative pointers are moved by the
//! distance the copy took out between them, and rkyv's validator checks the
//! result as it checks a whole footer: every pointer inside the run, in
//! order, aligned, nested no deeper than a whole footer may.
//!
//! What rkyv declares is the layout; the pointer sites below are read off
//! it (`offset_of!` on the archived structs, `repr(u8)` enum payloads at
//! their alignment) and held to the whole-footer decoder by the tests.

use std::mem::{align_of, offset_of, size_of};
use std::ops::Range;

use crate::error::{Error, Result};
use crate::format::dtype::{DType, MAX_DTYPE_NESTING};
use crate::format::segment::{
    ArchivedArrayMeta, ArchivedBlockMeta, ArchivedChunkEntry, ArchivedDiskValue,
    ArchivedSegmentFooter, ArrayMeta, BlockMeta, DiskValue, SEGMENT_VERSION,
};
use crate::format::value::{ArchivedArrayStats, ArchivedFillValue, ArchivedStatValue};
use rkyv::string::ArchivedString;
use rkyv::vec::ArchivedVec;

/// The footer's root: the last bytes before the segment trailer.
pub const ROOT_SIZE: u64 = size_of::<ArchivedSegmentFooter>() as u64;

/// One of the footer's four tables, in footer-relative bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Table {
    /// Where row 0 starts.
    pub at: u64,
    /// How many rows.
    pub rows: u64,
    /// Bytes per row.
    pub row_size: u64,
    /// Where the rows' out-of-line runs may start: the end of the table before.
    pub floor: u64,
}

impl Table {
    /// Where row `k` lies; `None` past the table.
    pub fn row(&self, k: u64) -> Option<Range<u64>> {
        (k < self.rows).then(|| {
            let at = self.at + k * self.row_size;
            at..at + self.row_size
        })
    }

    /// Where the table ends.
    pub fn end(&self) -> u64 {
        self.at + self.rows * self.row_size
    }
}

/// Where a footer's tables lie, as its root says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FooterRoot {
    /// The blocks, one row per block id.
    pub blocks: Table,
    /// The string pool.
    pub strings: Table,
    /// The attribute value pool.
    pub values: Table,
    /// One row per array (dataset).
    pub arrays: Table,
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

fn i64_at(bytes: &[u8], at: usize) -> i64 {
    i64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

impl FooterRoot {
    /// Reads the root, the last [`ROOT_SIZE`] bytes of a footer of
    /// `footer_len` bytes, and checks its tables lie in order inside it.
    pub fn decode(root: &[u8], footer_len: u64) -> Result<FooterRoot> {
        if root.len() as u64 != ROOT_SIZE || footer_len < ROOT_SIZE {
            return Err(Error::corrupt_collection(format!(
                "a segment footer of {footer_len} bytes has no room for its root"
            )));
        }
        let version_at = offset_of!(ArchivedSegmentFooter, version);
        let version = u32::from_le_bytes(root[version_at..version_at + 4].try_into().expect("4"));
        if version != SEGMENT_VERSION {
            return Err(Error::corrupt_collection(format!(
                "segment footer version {version} is not {SEGMENT_VERSION}"
            )));
        }
        let root_at = footer_len - ROOT_SIZE;
        let mut floor = 0;
        let mut table = |field: usize, row_size: usize, what: &str| -> Result<Table> {
            let target = (root_at + field as u64).checked_add_signed(i64_at(root, field));
            let rows = u64_at(root, field + 8);
            let end = rows
                .checked_mul(row_size as u64)
                .zip(target)
                .and_then(|(bytes, at)| at.checked_add(bytes));
            let fits = target.is_some_and(|t| t >= floor && t % 8 == 0)
                && end.is_some_and(|e| e <= root_at);
            // An empty table's pointer is checked as rkyv checks it, in order.
            let target = target.unwrap_or(u64::MAX);
            if !fits {
                return Err(Error::corrupt_collection(format!(
                    "a segment footer's {what} table ({rows} rows at {target}) is not inside its {root_at} bytes in order"
                )));
            }
            let table = Table {
                at: target,
                rows,
                row_size: row_size as u64,
                floor,
            };
            floor = table.end();
            Ok(table)
        };
        Ok(FooterRoot {
            blocks: table(
                offset_of!(ArchivedSegmentFooter, blocks),
                size_of::<ArchivedBlockMeta>(),
                "block",
            )?,
            strings: table(
                offset_of!(ArchivedSegmentFooter, strings),
                size_of::<ArchivedString>(),
                "string",
            )?,
            values: table(
                offset_of!(ArchivedSegmentFooter, values),
                size_of::<ArchivedDiskValue>(),
                "value",
            )?,
            arrays: table(
                offset_of!(ArchivedSegmentFooter, arrays),
                size_of::<ArchivedArrayMeta>(),
                "array",
            )?,
        })
    }
}

/// One relative pointer stored in a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Site {
    /// Where the 8-byte offset sits in the row.
    at: usize,
    /// Where the offset is measured from (a string's from its start).
    base: usize,
    /// The bytes it points at directly (its children lie before them).
    bytes: u64,
}

/// A table row rkyv archived, with its pointer sites.
pub trait Row: rkyv::Archive + Sized {
    /// Whether the row's out-of-line values point further, so its run
    /// reaches back to where the previous row's ends.
    const NESTS: bool;
    /// The relative pointers of one archived row (`row` is its bytes).
    fn sites(row: &[u8]) -> Vec<Site>;
}

fn string_site(row: &[u8], at: usize, sites: &mut Vec<Site>) {
    // rkyv marks an out-of-line string by 0b10 in the top bits of byte 0,
    // and keeps its length in the other bits of the first eight.
    if row[at] & 0xc0 == 0x80 {
        let raw = u64_at(row, at);
        let len = (raw & 0x3f) | ((raw & !0xff) >> 2);
        sites.push(Site {
            at: at + 8,
            base: at,
            bytes: len,
        });
    }
}

/// A `Vec` or a boxed slice: offset, then length in elements.
fn slice_site(row: &[u8], at: usize, element: usize, sites: &mut Vec<Site>) {
    sites.push(Site {
        at,
        base: at,
        bytes: u64_at(row, at + 8).saturating_mul(element as u64),
    });
}

/// The payload of a one-field variant of a `repr(u8)` enum sits at its alignment.
const fn payload<T>() -> usize {
    align_of::<T>()
}

const OPTION_SOME: u8 = 1;
const DTYPE_FIXED_SIZE_LIST: u8 = 13;
const DTYPE_LIST: u8 = 14;
const FILL_STRING: u8 = 4;
const STAT_BYTES: u8 = 3;
const CODEC_NAMED: u8 = 1;

impl Row for ArrayMeta {
    const NESTS: bool = true;

    fn sites(row: &[u8]) -> Vec<Site> {
        let mut sites = Vec::new();
        string_site(row, offset_of!(ArchivedArrayMeta, name), &mut sites);
        let dtype = offset_of!(ArchivedArrayMeta, dtype);
        if matches!(row[dtype], DTYPE_FIXED_SIZE_LIST | DTYPE_LIST) {
            // Both variants lead with `child: Box<DType>`.
            sites.push(Site {
                at: dtype + 8,
                base: dtype + 8,
                bytes: size_of::<<DType as rkyv::Archive>::Archived>() as u64,
            });
        }
        let vec = |field: usize, element: usize, sites: &mut Vec<Site>| {
            slice_site(row, field, element, sites)
        };
        vec(offset_of!(ArchivedArrayMeta, shape), 4, &mut sites);
        vec(
            offset_of!(ArchivedArrayMeta, dimension_names),
            size_of::<ArchivedString>(),
            &mut sites,
        );
        vec(offset_of!(ArchivedArrayMeta, chunk_shape), 4, &mut sites);
        vec(
            offset_of!(ArchivedArrayMeta, chunks),
            size_of::<ArchivedChunkEntry>(),
            &mut sites,
        );
        let fill = offset_of!(ArchivedArrayMeta, fill_value);
        let fill_value = fill + payload::<ArchivedFillValue>();
        if row[fill] == OPTION_SOME && row[fill_value] == FILL_STRING {
            string_site(row, fill_value + payload::<ArchivedString>(), &mut sites);
        }
        vec(offset_of!(ArchivedArrayMeta, attributes), 8, &mut sites);
        let stats = offset_of!(ArchivedArrayMeta, stats);
        if row[stats] == OPTION_SOME {
            let stats = stats + payload::<ArchivedArrayStats>();
            string_site(
                row,
                stats + offset_of!(ArchivedArrayStats, name),
                &mut sites,
            );
            for bound in [
                offset_of!(ArchivedArrayStats, min),
                offset_of!(ArchivedArrayStats, max),
            ] {
                let bound = stats + bound;
                let value = bound + payload::<ArchivedStatValue>();
                if row[bound] == OPTION_SOME && row[value] == STAT_BYTES {
                    vec(value + payload::<ArchivedVec<u8>>(), 1, &mut sites);
                }
            }
        }
        sites
    }
}

impl Row for BlockMeta {
    const NESTS: bool = false;

    fn sites(row: &[u8]) -> Vec<Site> {
        let mut sites = Vec::new();
        let codec = offset_of!(ArchivedBlockMeta, codec);
        if row[codec] == CODEC_NAMED {
            string_site(row, codec + payload::<ArchivedString>(), &mut sites);
        }
        sites
    }
}

impl Row for String {
    const NESTS: bool = false;

    fn sites(row: &[u8]) -> Vec<Site> {
        let mut sites = Vec::new();
        string_site(row, 0, &mut sites);
        sites
    }
}

impl Row for DiskValue {
    const NESTS: bool = true;

    fn sites(row: &[u8]) -> Vec<Site> {
        // Variant tags in declaration order: Binary is 12, the lists follow.
        let element = match row[0] {
            12 | 13 | 14 | 18 => 1,
            15 | 19 => 2,
            16 | 20 | 22 | 24 => 4,
            17 | 21 | 23 => 8,
            25 => size_of::<ArchivedVec<u8>>(),
            _ => return Vec::new(),
        };
        let mut sites = Vec::new();
        slice_site(row, payload::<ArchivedVec<u8>>(), element, &mut sites);
        sites
    }
}

/// An array row's name: its bytes when the row holds them, else where in
/// the footer they lie.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowName {
    /// A name of at most 16 bytes, kept in the row.
    Inline(Vec<u8>),
    /// A longer name's footer-relative bytes.
    At(Range<u64>),
}

/// The name of the array row at `row_at`, without decoding the row.
pub fn array_name(row_at: u64, row: &[u8]) -> Result<RowName> {
    let at = offset_of!(ArchivedArrayMeta, name);
    let mut sites = Vec::new();
    string_site(row, at, &mut sites);
    match sites.first() {
        None => {
            let inline = &row[at..at + size_of::<ArchivedString>()];
            let len = inline
                .iter()
                .position(|&b| b == 0xff)
                .unwrap_or(inline.len());
            Ok(RowName::Inline(inline[..len].to_vec()))
        }
        Some(&site) => {
            let start = target_of(row_at, row, site)?;
            let end = start.checked_add(site.bytes).ok_or_else(|| {
                Error::corrupt_collection(format!(
                    "the name of the segment footer row at {row_at} has no end"
                ))
            })?;
            Ok(RowName::At(start..end))
        }
    }
}

/// The run of out-of-line bytes of a row at `row_at`: where it starts
/// (aligned down, so the copy keeps every alignment) and ends, checked to
/// lie between `floor` and the row's table. `None` when it has none.
/// For rows that nest, `floor` must be where the previous row's run ends.
pub fn run_of<T: Row>(row_at: u64, row: &[u8], floor: u64, table_at: u64) -> Result<Range<u64>> {
    run_among(&T::sites(row), T::NESTS, row_at, row, floor, table_at)
}

/// [`run_of`] for a row whose pointer sites are `sites`.
pub fn run_among(
    sites: &[Site],
    nests: bool,
    row_at: u64,
    row: &[u8],
    floor: u64,
    table_at: u64,
) -> Result<Range<u64>> {
    let mut lo = u64::MAX;
    let mut hi = floor;
    for &site in sites {
        let target = target_of(row_at, row, site)?;
        let end = target.checked_add(site.bytes).filter(|&e| e <= table_at);
        let Some(end) = end.filter(|_| target >= floor) else {
            return Err(Error::corrupt_collection(format!(
                "a segment footer row at {row_at} points at {} bytes at {target}, outside {floor}..{table_at}",
                site.bytes
            )));
        };
        lo = lo.min(target);
        hi = hi.max(end);
    }
    let lo = if nests { floor } else { lo.min(hi) };
    Ok(lo - lo % 8..hi)
}

fn target_of(row_at: u64, row: &[u8], site: Site) -> Result<u64> {
    let target = (row_at + site.base as u64).checked_add_signed(i64_at(row, site.at));
    target.ok_or_else(|| {
        Error::corrupt_collection(format!(
            "a segment footer row at {row_at} points before the footer"
        ))
    })
}

/// Where the run of the row whose predecessor is `previous` (at `previous_at`)
/// may start: where that row's run ends.
pub fn floor_after<T: Row>(
    previous_at: u64,
    previous: &[u8],
    floor: u64,
    table_at: u64,
) -> Result<u64> {
    run_of::<T>(previous_at, previous, floor, table_at).map(|run| run.end)
}

/// Levels a row may nest: its dtype's, as in a whole footer, less the one
/// the footer's own table takes there (rkyv fails the push that would reach
/// the limit, hence the one more).
const ROW_LEVELS: usize = MAX_DTYPE_NESTING + 1 + 1;

/// A row type rkyv can check and decode.
pub trait Decoded: Row {
    /// Decodes the row at `row_at` from its bytes and its run (`run` holds
    /// the footer's bytes from `run_at`, which [`run_of`] aligned), checking
    /// it with rkyv's validator as a whole footer is checked.
    fn decode(row_at: u64, row: &[u8], run_at: u64, run: &[u8]) -> Result<Self>;
}

impl<T> Decoded for T
where
    T: Row,
    T::Archived: rkyv::Portable
        + for<'a> rkyv::bytecheck::CheckBytes<
            rkyv::rancor::Strategy<
                rkyv::validation::Validator<
                    rkyv::validation::archive::ArchiveValidator<'a>,
                    rkyv::validation::shared::SharedValidator,
                >,
                rkyv::rancor::Error,
            >,
        > + rkyv::Deserialize<T, rkyv::rancor::Strategy<rkyv::de::Pool, rkyv::rancor::Error>>,
{
    fn decode(row_at: u64, row: &[u8], run_at: u64, run: &[u8]) -> Result<Self> {
        use rkyv::validation::{archive::ArchiveValidator, shared::SharedValidator, Validator};
        let (buffer, at) = relocate(&T::sites(row), row_at, row, run_at, run)?;
        let does_not_decode = |e: rkyv::rancor::Error| {
            Error::corrupt_collection(format!(
                "the segment footer row at {row_at} does not decode: {e}"
            ))
        };
        let mut validator = Validator::new(
            ArchiveValidator::with_max_depth(&buffer, std::num::NonZeroUsize::new(ROW_LEVELS)),
            SharedValidator::new(),
        );
        let archived = rkyv::api::access_pos_with_context::<T::Archived, _, rkyv::rancor::Error>(
            &buffer,
            at,
            &mut validator,
        )
        .map_err(does_not_decode)?;
        rkyv::deserialize::<T, rkyv::rancor::Error>(archived).map_err(does_not_decode)
    }
}

/// The run, then the row (at the answered position), in one aligned buffer,
/// the row's pointers moved to where the copy put their targets.
fn relocate(
    sites: &[Site],
    row_at: u64,
    row: &[u8],
    run_at: u64,
    run: &[u8],
) -> Result<(rkyv::util::AlignedVec<16>, usize)> {
    debug_assert_eq!(run_at % 8, 0);
    let at = run.len().next_multiple_of(16);
    let mut buffer = rkyv::util::AlignedVec::<16>::with_capacity(at + row.len());
    buffer.extend_from_slice(run);
    buffer.resize(at, 0);
    buffer.extend_from_slice(row);
    let run_end = run_at + run.len() as u64;
    for &site in sites {
        let target = target_of(row_at, row, site)?;
        if target < run_at || target.saturating_add(site.bytes) > run_end {
            return Err(Error::corrupt_collection(format!(
                "a segment footer row at {row_at} points outside its run {run_at}..{run_end}"
            )));
        }
        let moved = (target - run_at) as i64 - (at + site.base) as i64;
        buffer[at + site.at..at + site.at + 8].copy_from_slice(&moved.to_le_bytes());
    }
    Ok((buffer, at))
}

/// Row `k` of `table` of a footer held whole in memory (`footer`, whose
/// root gave `table`), decoded from its row and its run alone, as a ranged
/// reader decodes it.
pub fn row_in<T: Decoded>(footer: &[u8], table: &Table, k: u64) -> Result<T> {
    let slice = |r: Range<u64>| {
        footer.get(r.start as usize..r.end as usize).ok_or_else(|| {
            Error::corrupt_collection(format!(
                "bytes {}..{} are outside a footer of {}",
                r.start,
                r.end,
                footer.len()
            ))
        })
    };
    let at = table.row(k).ok_or_else(|| {
        Error::corrupt_collection(format!("row {k} is past a table of {}", table.rows))
    })?;
    let floor = match k.checked_sub(1) {
        Some(p) if T::NESTS => {
            let previous = table.row(p).expect("p < k");
            floor_after::<T>(
                previous.start,
                slice(previous.clone())?,
                table.floor,
                table.at,
            )?
        }
        _ => table.floor,
    };
    let row = slice(at.clone())?;
    let run = run_of::<T>(at.start, row, floor, table.at)?;
    T::decode(at.start, row, run.start, slice(run.clone())?)
}

#[cfg(test)]
mod tests;
