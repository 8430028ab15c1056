//! One array's statistics over a whole collection, merged as atlas-rust
//! 0.17.2 merges them.
//!
//! Every segment entry that recorded statistics for the name takes part
//! unless the mask hides its dataset, whatever its dtype, in the order the
//! segment lists them (write order).
//! [`ArrayStats::merge`] holds the rule for each pair, the one for bounds of
//! two dtypes included; docs/read-path.md shows what that gives.

use crate::error::Result;
use crate::format::dtype::DType;
use crate::format::segment::ArrayMeta;
use crate::format::value::ArrayStats;
use crate::read::handle::Handle;

/// The merged statistics, with the dtype of the dataset each bound came
/// from: a bound carries no dtype of its own, and a caller that shows it
/// (JS picks a number or a BigInt, a string or bytes) needs one.
#[derive(Debug, Clone, PartialEq)]
pub struct CollectionStats {
    /// The merged statistics.
    pub stats: ArrayStats,
    /// The dtype of the dataset whose minimum `stats.min` is.
    pub min_dtype: Option<DType>,
    /// The dtype of the dataset whose maximum `stats.max` is.
    pub max_dtype: Option<DType>,
}

/// Folds the statistics of every live dataset that holds `array`; `None`
/// when none recorded any. The answer's `name` is `array`.
pub(crate) async fn merge(handle: &Handle, array: &str) -> Result<Option<CollectionStats>> {
    let Some(segment) = handle.segment_named(array).await? else {
        return Ok(None);
    };
    let mut merged: Option<CollectionStats> = None;
    segment
        .each(|entries| {
            for meta in entries.arrays() {
                fold(&mut merged, handle, array, meta);
            }
            Ok(())
        })
        .await?;
    Ok(merged)
}

/// Folds one entry's statistics into `merged`, unless the mask hides its
/// dataset. An entry no footer dataset owns (atlas-rust keeps the arrays of
/// a dataset dropped unfinished) takes part, as in atlas-rust.
fn fold(merged: &mut Option<CollectionStats>, handle: &Handle, array: &str, meta: &ArrayMeta) {
    let Some(stats) = &meta.stats else { return };
    if handle.hides(&meta.name) {
        return;
    }
    match merged {
        None => {
            *merged = Some(CollectionStats {
                stats: ArrayStats {
                    name: array.to_string(),
                    ..stats.clone()
                },
                min_dtype: stats.min.as_ref().map(|_| meta.dtype.clone()),
                max_dtype: stats.max.as_ref().map(|_| meta.dtype.clone()),
            });
        }
        Some(acc) => {
            let taken = acc.stats.merge(stats);
            if taken.min {
                acc.min_dtype = Some(meta.dtype.clone());
            }
            if taken.max {
                acc.max_dtype = Some(meta.dtype.clone());
            }
        }
    }
}
