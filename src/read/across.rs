//! One array across many datasets as one stacked answer `[n, ...]`: the read
//! the format exists for. Every part is planned first, so the blocks of the
//! whole answer are fetched as one request set (shared blocks once, adjacent
//! blocks together, several requests at a time) before any part is built.
//!
//! Parts go to a [`StackSink`] one dataset at a time, so a host can write
//! them straight into the buffer it hands its caller (the wasm binding fills
//! one JavaScript typed array) and no second copy of the whole answer exists.

use std::collections::HashMap;

use futures_util::StreamExt;

use crate::error::{Error, Result};
use crate::format::dtype::DType;
use crate::format::segment::ArrayMeta;
use crate::read::array::{ArrayData, NdArray};
use crate::read::atlas::Atlas;
use crate::read::cache::Block;
use crate::read::window::{check_declared_dtype, Plan};

/// What [`Atlas::read_stacked`] reads.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AcrossRequest {
    /// Only these datasets, in this order. `None`: every live dataset that
    /// declares the array, in ordinal order.
    pub datasets: Option<Vec<String>>,
    /// First element of the window on each axis; empty with `shape` for whole arrays.
    pub start: Vec<u64>,
    /// Extent of the window on each axis; empty with `start` for whole arrays.
    pub shape: Vec<u64>,
    /// Leave out datasets whose part would not stack (another dtype, another
    /// shape, or a window that does not fit) instead of failing.
    pub skip_mismatched: bool,
}

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
}

/// One dataset's part, planned.
struct Part<'s> {
    name: String,
    meta: &'s ArrayMeta,
    plan: Plan,
}

impl Atlas {
    /// Reads one array (or one window of it) from many datasets and stacks
    /// the parts along a new first axis. See [`AcrossRequest`] for the choice
    /// of datasets; the first dataset chosen sets the dtype (and, for whole
    /// arrays, the shape) the others must match.
    ///
    /// Errors: [`Error::DatasetNotFound`] for a listed name that is not a
    /// live dataset, [`Error::ArrayNotFound`] for a listed dataset without
    /// the array or when no live dataset declares it,
    /// [`Error::InvalidArgument`] naming the datasets that do not stack
    /// (unless `skip_mismatched`), [`Error::TooLarge`] for an answer over
    /// `ReadOptions::memory_budget`.
    pub async fn read_stacked(&self, array: &str, request: &AcrossRequest) -> Result<Stacked> {
        let mut sink = InMemory::default();
        let layout = self.read_stacked_into(array, request, &mut sink).await?;
        let (datasets, skipped) = (layout.datasets.clone(), layout.skipped.clone());
        Ok(Stacked {
            datasets,
            skipped,
            array: sink.into_array(layout, array)?,
        })
    }

    /// [`read_stacked`](Self::read_stacked), handing the parts to `sink` as
    /// they are built; answers the frame it gave `sink.begin`. The future is
    /// `Send` when the sink is.
    pub async fn read_stacked_into<S: StackSink>(
        &self,
        array: &str,
        request: &AcrossRequest,
        sink: &mut S,
    ) -> Result<StackedLayout> {
        let chosen = self.chosen_datasets(array, request.datasets.as_deref())?;
        let Some(segment) = self.segment_named(array).await? else {
            return Err(no_dataset_declares(array, &chosen));
        };
        let (start, shape) = (&request.start[..], &request.shape[..]);
        let whole = start.is_empty() && shape.is_empty();
        let limit = self.shared.options.memory_budget;

        let mut parts: Vec<Part<'_>> = Vec::with_capacity(chosen.len());
        let mut skipped = Vec::new();
        let mut refused: Vec<(Skipped, Option<String>)> = Vec::new();
        for (name, declared) in chosen {
            let meta = segment.array(&name).ok_or_else(|| {
                Error::corrupt(format!(
                    "'{name}' declares '{array}' but its segment has no entry for it"
                ))
            })?;
            check_declared_dtype(meta, &declared, array)?;
            let reference = parts.first().map(|p| p.meta);
            let differs = reference
                .is_some_and(|r| r.dtype != meta.dtype || (whole && r.shape != meta.shape));
            // Why a dataset does not stack: `None` for another dtype or shape.
            let why = match differs {
                true => None,
                false => match Plan::new(meta, start, shape, limit) {
                    Ok(plan) => {
                        parts.push(Part { name, meta, plan });
                        continue;
                    }
                    // A window that does not fit this dataset: the only error a
                    // later dataset may be left out for; the first sets the frame.
                    Err(Error::OutOfBounds(m)) if reference.is_some() => Some(m),
                    Err(e) => return Err(in_dataset(e, &name)),
                },
            };
            let left_out = Skipped {
                dataset: name,
                dtype: meta.dtype.clone(),
                shape: meta.shape.iter().map(|&s| s as u64).collect(),
            };
            match request.skip_mismatched {
                true => skipped.push(left_out),
                false => refused.push((left_out, why)),
            }
        }
        let Some(first) = parts.first() else {
            return Err(no_dataset_declares(array, &[]));
        };
        if !refused.is_empty() {
            return Err(not_stackable(array, first, whole, &refused));
        }

        let part_shape: Vec<u64> = match whole {
            true => first.meta.shape.iter().map(|&s| s as u64).collect(),
            false => shape.to_vec(),
        };
        let layout = StackedLayout {
            dtype: first.meta.dtype.clone(),
            shape: std::iter::once(parts.len() as u64)
                .chain(part_shape)
                .collect(),
            datasets: parts.iter().map(|p| p.name.clone()).collect(),
            skipped,
        };
        check_answer_size(&layout, limit)?;

        sink.begin(&layout)?;
        // Blocks arrive in the order parts first need them; each part is built
        // as soon as its blocks are in, and a block is let go after the last
        // part that needs it, so the whole answer's blocks are never held at
        // once (the cache keeps what its budget allows).
        let wants: Vec<Vec<(u32, u64)>> = parts.iter().map(|p| p.plan.blocks_wanted()).collect();
        let needs: Vec<Vec<u32>> = wants
            .iter()
            .map(|w| w.iter().map(|&(id, _)| id).collect())
            .collect();
        let mut last_use: HashMap<u32, usize> = HashMap::new();
        let mut wanted: HashMap<u32, u64> = HashMap::new();
        let mut order: Vec<u32> = Vec::new();
        for (i, part) in wants.iter().enumerate() {
            for &(id, bytes) in part {
                if last_use.insert(id, i).is_none() {
                    order.push(id);
                }
                let most = wanted.entry(id).or_default();
                *most = (*most).max(bytes);
            }
        }
        let order: Vec<(u32, u64)> = order.into_iter().map(|id| (id, wanted[&id])).collect();
        let mut held: HashMap<u32, Block> = HashMap::new();
        let mut built = 0;
        let mut failed: Option<Error> = None;
        let mut build_ready = |held: &mut HashMap<u32, Block>| -> Result<()> {
            while built < parts.len() && needs[built].iter().all(|id| held.contains_key(id)) {
                let Part { meta, plan, .. } = &parts[built];
                plan.assemble_into(meta, held, &mut *sink)?;
                for id in &needs[built] {
                    if last_use[id] == built {
                        held.remove(id);
                    }
                }
                built += 1;
            }
            Ok(())
        };
        let mut arriving = std::pin::pin!(segment.blocks_in_order(&self.shared, &order));
        // Drained to the end even after a failure (see `Segment::load_blocks`).
        while let Some(result) = arriving.next().await {
            if failed.is_some() {
                continue;
            }
            let step = result.and_then(|(id, block)| {
                held.insert(id, block);
                build_ready(&mut held)
            });
            failed = step.err();
        }
        match failed {
            Some(e) => return Err(e),
            // Parts that need no block (unwritten chunks, empty windows) at the end.
            None => build_ready(&mut held)?,
        }
        if built != parts.len() {
            return Err(Error::Internal(format!(
                "a stacked read of '{array}' built {built} of {} parts",
                parts.len()
            )));
        }
        Ok(layout)
    }

    /// `(name, declared dtype)` of each dataset the read covers, in answer order.
    pub(crate) fn chosen_datasets(
        &self,
        array: &str,
        listed: Option<&[String]>,
    ) -> Result<Vec<(String, DType)>> {
        let footer = &self.shared.footer;
        let declared = |schema: u32| {
            footer.schema_pool[schema as usize]
                .arrays
                .iter()
                .find(|&&(n, _)| footer.string(n) == array)
                .map(|&(_, d)| footer.dtype(d).clone())
        };
        let Some(listed) = listed else {
            return Ok(self
                .live()
                .filter_map(|(_, name, schema)| Some((name.to_string(), declared(schema)?)))
                .collect());
        };
        if listed.is_empty() {
            return Err(Error::InvalidArgument(
                "the list of datasets is empty; leave it out to read every dataset".into(),
            ));
        }
        listed
            .iter()
            .map(|name| {
                let schema = match footer.datasets.get(name.as_str()) {
                    Some(&schema) if self.dataset_exists(name) => schema,
                    _ => return Err(Error::DatasetNotFound(name.clone())),
                };
                let dtype = declared(schema).ok_or_else(|| Error::ArrayNotFound {
                    dataset: name.clone(),
                    array: array.to_string(),
                })?;
                Ok((name.clone(), dtype))
            })
            .collect()
    }
}

/// Names the dataset in a window error (shared with `read_across`).
pub(crate) fn in_dataset(error: Error, name: &str) -> Error {
    match error {
        Error::OutOfBounds(m) => Error::OutOfBounds(format!("dataset '{name}': {m}")),
        other => other,
    }
}

fn no_dataset_declares(array: &str, chosen: &[(String, DType)]) -> Error {
    Error::ArrayNotFound {
        // `*`: no live dataset at all; a listed dataset is caught earlier.
        dataset: chosen.first().map_or("*".to_string(), |(n, _)| n.clone()),
        array: array.to_string(),
    }
}

/// How many refused datasets an error names before it counts the rest.
const NAMED_IN_ERROR: usize = 5;

fn not_stackable(
    array: &str,
    first: &Part<'_>,
    whole: bool,
    refused: &[(Skipped, Option<String>)],
) -> Error {
    let frame = match whole {
        true => format!("{} {:?}", first.meta.dtype, first.meta.shape),
        false => format!("{}", first.meta.dtype),
    };
    let mut named: Vec<String> = refused
        .iter()
        .take(NAMED_IN_ERROR)
        .map(|(s, why)| match why {
            None => format!("'{}' holds {} {:?}", s.dataset, s.dtype, s.shape),
            Some(why) => format!("'{}' does not fit the window ({why})", s.dataset),
        })
        .collect();
    if refused.len() > NAMED_IN_ERROR {
        named.push(format!("and {} more", refused.len() - NAMED_IN_ERROR));
    }
    Error::InvalidArgument(format!(
        "'{array}' does not stack across the datasets: the first, '{}', holds {frame}, but {}; \
         pass skip to leave them out, or list the datasets to read",
        first.name,
        named.join(", ")
    ))
}

fn check_answer_size(layout: &StackedLayout, limit: u64) -> Result<()> {
    // Variable-length items cost at least a slice header each, as in `Plan::new`.
    let per_element = layout.dtype.element_size().unwrap_or(24) as u64;
    let bytes = layout
        .shape
        .iter()
        .try_fold(per_element, |n, &s| n.checked_mul(s));
    match bytes {
        Some(b) if b <= limit => Ok(()),
        _ => Err(Error::TooLarge(format!(
            "a stacked answer of shape {:?} ({}) exceeds the {limit}-byte answer limit; read fewer datasets or a smaller window, or raise ReadOptions::memory_budget (maxMemory in JavaScript)",
            layout.shape, layout.dtype
        ))),
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
        let data = self
            .data
            .ok_or_else(|| Error::corrupt(format!("a read of '{array}' built no part")))?;
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
