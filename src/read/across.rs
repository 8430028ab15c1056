//! Reads that take one array from many datasets: stacked into one answer
//! `[n, ...]` (the read the format exists for), or one answer per dataset;
//! a single window is the case of one. Every part is planned first by one
//! loop ([`plan_parts`]), so the blocks of the whole read are one request
//! set (shared blocks once, adjacent blocks together, several requests at a
//! time); then each part is built as soon as its blocks are in, and a block
//! is let go after the last part that needs it, so the blocks held at once
//! are those in flight plus the cache, not the whole answer's.

use std::collections::HashMap;
use std::ops::Range;

use futures_util::StreamExt;

use crate::error::{Error, Result};
use crate::format::dtype::DType;
use crate::format::segment::ArrayMeta;
use crate::read::array::NdArray;
use crate::read::blocks::Started;
use crate::read::cache::Block;
use crate::read::handle::Handle;
use crate::read::plan::{check_declared_dtype, Plan};
use crate::read::segment::{Entries, Segment};
use crate::read::sink::{Skipped, StackSink, StackedLayout};

/// What [`Atlas::read_stacked`](crate::Atlas::read_stacked) reads.
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

/// One dataset's part, planned.
struct Part<'s> {
    name: String,
    meta: &'s ArrayMeta,
    plan: Plan,
}

/// How a read holds its datasets' parts together.
#[derive(Clone, Copy, PartialEq)]
enum Joining {
    /// One answer: every part takes the first's dtype (and shape, for whole
    /// arrays); the others are left out (`skip`) or refused.
    Stacked { skip: bool },
    /// One answer per dataset, each planned on its own.
    Apart,
}

/// The parts of a read, and the datasets a stacked read left out.
struct Planned<'s> {
    parts: Vec<Part<'s>>,
    skipped: Vec<Skipped>,
}

/// Plans the part of each chosen dataset: the one loop behind every read of
/// this module.
fn plan_parts<'s>(
    segment: &'s Entries,
    array: &str,
    chosen: Vec<(String, DType)>,
    (start, shape): (&[u64], &[u64]),
    limit: u64,
    joining: Joining,
) -> Result<Planned<'s>> {
    let whole = start.is_empty() && shape.is_empty();
    let mut parts: Vec<Part<'s>> = Vec::with_capacity(chosen.len());
    let mut skipped = Vec::new();
    let mut refused: Vec<(Skipped, Option<String>)> = Vec::new();
    for (name, declared) in chosen {
        let meta = segment.array(&name).ok_or_else(|| {
            Error::corrupt_collection(format!(
                "'{name}' declares '{array}' but its segment has no entry for it"
            ))
        })?;
        check_declared_dtype(meta, &declared, array)?;
        let reference = match joining {
            Joining::Stacked { .. } => parts.first().map(|p| p.meta),
            Joining::Apart => None,
        };
        let differs =
            reference.is_some_and(|r| r.dtype != meta.dtype || (whole && r.shape != meta.shape));
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
        match joining {
            Joining::Stacked { skip: true } => skipped.push(left_out),
            _ => refused.push((left_out, why)),
        }
    }
    if let (Some(first), false) = (parts.first(), refused.is_empty()) {
        return Err(not_stackable(array, first, whole, &refused));
    }
    Ok(Planned { parts, skipped })
}

/// The blocks of `parts`, loading: in the order the parts first need them.
struct PartsLoad<'p, 's> {
    parts: &'p [Part<'s>],
    started: Started,
}

impl<'p, 's> PartsLoad<'p, 's> {
    fn start(
        handle: &Handle,
        segment: &Segment,
        entries: &Entries,
        parts: &'p [Part<'s>],
    ) -> Result<Self> {
        let mut wanted: HashMap<u32, u64> = HashMap::new();
        let mut order: Vec<u32> = Vec::new();
        for (id, bytes) in parts.iter().flat_map(|p| p.plan.blocks_wanted()) {
            let most = wanted.entry(id).or_insert_with(|| {
                order.push(id);
                0
            });
            *most = (*most).max(bytes);
        }
        let ids: Vec<(u32, u64)> = order.into_iter().map(|id| (id, wanted[&id])).collect();
        let started = handle
            .loader()
            .start(segment.region(), &entries.wants(&ids)?);
        Ok(PartsLoad { parts, started })
    }

    /// The container ranges the load requests, before the first is sent.
    fn requests(&self) -> &[Range<u64>] {
        &self.started.requests
    }

    /// Calls `build` with each part, in order, as soon as its blocks are in.
    async fn build(
        self,
        mut build: impl FnMut(&Part<'s>, &HashMap<u32, Block>) -> Result<()>,
    ) -> Result<()> {
        let PartsLoad { parts, started } = self;
        let needs: Vec<Vec<u32>> = parts
            .iter()
            .map(|p| {
                p.plan
                    .blocks_wanted()
                    .into_iter()
                    .map(|(id, _)| id)
                    .collect()
            })
            .collect();
        let mut last_use: HashMap<u32, usize> = HashMap::new();
        for (i, ids) in needs.iter().enumerate() {
            for &id in ids {
                last_use.insert(id, i);
            }
        }
        let mut held: HashMap<u32, Block> = HashMap::new();
        let mut built = 0;
        let mut build_ready = |held: &mut HashMap<u32, Block>| -> Result<()> {
            while built < parts.len() && needs[built].iter().all(|id| held.contains_key(id)) {
                build(&parts[built], held)?;
                for id in &needs[built] {
                    if last_use[id] == built {
                        held.remove(id);
                    }
                }
                built += 1;
            }
            Ok(())
        };
        let mut arriving = started.blocks;
        while let Some(next) = arriving.next().await {
            let (id, block) = next?;
            held.insert(id, block);
            build_ready(&mut held)?;
        }
        // Parts that need no block (unwritten chunks, empty windows) at the end.
        build_ready(&mut held)?;
        if built != parts.len() {
            return Err(Error::Internal(format!(
                "a read built {built} of {} parts",
                parts.len()
            )));
        }
        Ok(())
    }
}

/// [`Atlas::read_stacked_into`](crate::Atlas::read_stacked_into).
pub(crate) async fn read_stacked_into<S: StackSink>(
    handle: &Handle,
    array: &str,
    request: &AcrossRequest,
    sink: &mut S,
) -> Result<StackedLayout> {
    let chosen = handle.chosen_datasets(array, request.datasets.as_deref())?;
    let names: Vec<&str> = chosen.iter().map(|(n, _)| n.as_str()).collect();
    let Some((segment, entries)) = handle.entries(array, &names).await? else {
        return Err(no_dataset_declares(array, &chosen));
    };
    let window = (&request.start[..], &request.shape[..]);
    let limit = handle.options().memory_budget;
    let joining = Joining::Stacked {
        skip: request.skip_mismatched,
    };
    let Planned { parts, skipped } = plan_parts(&entries, array, chosen, window, limit, joining)?;
    let Some(first) = parts.first() else {
        return Err(no_dataset_declares(array, &[]));
    };
    let part_shape: Vec<u64> = match request.start.is_empty() && request.shape.is_empty() {
        true => first.meta.shape.iter().map(|&s| s as u64).collect(),
        false => request.shape.clone(),
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
    let load = PartsLoad::start(handle, &segment, &entries, &parts)?;
    sink.planned(load.requests());
    load.build(|part, blocks| part.plan.assemble_into(part.meta, blocks, &mut *sink))
        .await?;
    Ok(layout)
}

/// [`Atlas::read_across`](crate::Atlas::read_across): one answer per dataset.
pub(crate) async fn read_apart(
    handle: &Handle,
    array: &str,
    window: (&[u64], &[u64]),
) -> Result<Vec<(String, NdArray)>> {
    if handle.segment_named(array).await?.is_none() {
        return Ok(Vec::new());
    }
    // The same choice of datasets and the same checks as a stacked read.
    let chosen = handle.chosen_datasets(array, None)?;
    let names: Vec<&str> = chosen.iter().map(|(n, _)| n.as_str()).collect();
    let Some((segment, entries)) = handle.entries(array, &names).await? else {
        return Ok(Vec::new());
    };
    let limit = handle.options().memory_budget;
    let Planned { parts, .. } = plan_parts(&entries, array, chosen, window, limit, Joining::Apart)?;
    let mut answers = Vec::with_capacity(parts.len());
    PartsLoad::start(handle, &segment, &entries, &parts)?
        .build(|part, blocks| {
            answers.push((part.name.clone(), part.plan.assemble(part.meta, blocks)?));
            Ok(())
        })
        .await?;
    Ok(answers)
}

/// One window of one dataset's array (`meta`, stored in `segment`) into
/// `sink`, as a stack of one part, `[1, window...]`: a host that fills its
/// own buffer gets the answer with no copy of it in between.
pub(crate) async fn read_window_into<S: StackSink>(
    handle: &Handle,
    segment: &Segment,
    entries: &Entries,
    meta: &ArrayMeta,
    (start, shape): (&[u64], &[u64]),
    sink: &mut S,
) -> Result<StackedLayout> {
    let plan = Plan::new(meta, start, shape, handle.options().memory_budget)?;
    let layout = StackedLayout {
        dtype: meta.dtype.clone(),
        shape: [&[1][..], plan.shape()].concat(),
        datasets: vec![meta.name.clone()],
        skipped: Vec::new(),
    };
    let parts = [Part {
        name: meta.name.clone(),
        meta,
        plan,
    }];
    let load = PartsLoad::start(handle, segment, entries, &parts)?;
    sink.planned(load.requests());
    sink.begin(&layout)?;
    load.build(|part, blocks| part.plan.assemble_into(part.meta, blocks, &mut *sink))
        .await?;
    Ok(layout)
}

/// Names the dataset in a window error.
fn in_dataset(error: Error, name: &str) -> Error {
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
