//! Where a read puts its answer. Every read, a window of one dataset as
//! much as a stack across thousands, hands its parts to a [`StackSink`], so a
//! host can fill its own buffer (the wasm binding: one JavaScript typed
//! array) and no second copy of the answer exists.

use std::ops::Range;

use crate::error::{Error, Result};
use crate::format::dtype::DType;
use crate::read::array::{ArrayData, NdArray};

/// A dataset a stacked read left out, with what its array is.
#[derive(Debug, Clone, PartialEq)]
pub struct Skipped {
    /// The dataset left out.
    pub dataset: String,
    /// The element type of its array.
    pub dtype: DType,
    /// The dataset's whole array shape.
    pub shape: Vec<u64>,
}

/// The frame of a stacked answer, known before any block is fetched.
#[derive(Debug, Clone, PartialEq)]
pub struct StackedLayout {
    /// The element type of every part.
    pub dtype: DType,
    /// `[datasets.len(), part shape...]`.
    pub shape: Vec<u64>,
    /// The datasets stacked, in answer order.
    pub datasets: Vec<String>,
    /// Datasets left out by `skip_mismatched`.
    pub skipped: Vec<Skipped>,
}

impl StackedLayout {
    /// Elements in one dataset's part (`u64::MAX` if the product overflows).
    pub fn part_len(&self) -> u64 {
        saturating_product(self.shape.get(1..).unwrap_or(&[]))
    }

    /// Elements in the whole answer (`u64::MAX` if the product overflows).
    pub fn total_len(&self) -> u64 {
        saturating_product(&self.shape)
    }
}

fn saturating_product(dims: &[u64]) -> u64 {
    dims.iter()
        .try_fold(1u64, |n, &d| n.checked_mul(d))
        .unwrap_or(u64::MAX)
}

/// A stacked answer built in memory.
#[derive(Debug, Clone, PartialEq)]
pub struct Stacked {
    /// The datasets stacked, in answer order.
    pub datasets: Vec<String>,
    /// Datasets left out by `skip_mismatched`.
    pub skipped: Vec<Skipped>,
    /// Shape `[datasets.len(), part shape...]`, elements in C order.
    pub array: NdArray,
}

/// Where a stacked read puts its answer.
pub trait StackSink {
    /// Called once, before any part, with the answer's frame.
    fn begin(&mut self, layout: &StackedLayout) -> Result<()>;
    /// One dataset's part, in answer order: `layout.part_len()` elements of `layout.dtype`.
    fn append(&mut self, part: ArrayData) -> Result<()>;
    /// One part of a fixed-width dtype as its little-endian bytes, as the
    /// format stores them; a sink that can take bytes skips the conversion.
    fn append_le(&mut self, dtype: &DType, bytes: &[u8]) -> Result<()> {
        self.append(ArrayData::from_le_bytes(dtype, bytes)?)
    }
    /// Told, once per read and before its first request is sent, the byte
    /// ranges of `data.atlas` the read is about to request (blocks not
    /// cached, not loading already, not inside bytes held); maybe none. A
    /// host reports the read's progress against their total.
    fn planned(&mut self, requests: &[Range<u64>]) {
        let _ = requests;
    }
}

/// The sink behind [`Atlas::read_stacked`] and `DatasetView::read_array`:
/// one vector, reserved once.
#[derive(Default)]
pub(crate) struct InMemory {
    data: Option<ArrayData>,
    total: usize,
}

impl InMemory {
    /// The answer `layout` framed, as one array of that shape.
    pub(crate) fn into_array(self, layout: StackedLayout, array: &str) -> Result<NdArray> {
        // A layout always has a first part, so some part arrived.
        let data = self.data.ok_or_else(|| {
            Error::corrupt_collection(format!("a read of '{array}' built no part"))
        })?;
        Ok(NdArray {
            dtype: layout.dtype,
            shape: layout.shape,
            data,
        })
    }
}

impl StackSink for InMemory {
    fn begin(&mut self, layout: &StackedLayout) -> Result<()> {
        self.total = usize::try_from(layout.total_len())
            .map_err(|_| Error::TooLarge(format!("{} elements", layout.total_len())))?;
        Ok(())
    }

    fn append(&mut self, part: ArrayData) -> Result<()> {
        macro_rules! join {
            ($($variant:ident),*) => {
                match (&mut self.data, part) {
                    (None, mut part) => {
                        match &mut part {
                            $(ArrayData::$variant(v) => v.reserve_exact(self.total.saturating_sub(v.len())),)*
                        }
                        self.data = Some(part);
                    }
                    $((Some(ArrayData::$variant(all)), ArrayData::$variant(v)) => all.extend(v),)*
                    (Some(_), _) => {
                        return Err(Error::InvalidArgument(
                            "a stacked part of another element type".into(),
                        ))
                    }
                }
            };
        }
        join!(
            Bool,
            Int8,
            Int16,
            Int32,
            Int64,
            UInt8,
            UInt16,
            UInt32,
            UInt64,
            Float32,
            Float64,
            String,
            Binary,
            TimestampNs
        );
        Ok(())
    }
}
