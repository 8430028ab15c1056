//! One [`Case`] written twice: by atlas-rust's public writer and by ours
//! (`atlas_wasm::write`), each followed by its own deletions.

use std::path::Path;

use anyhow::Context;

use super::case::{Array, AttrValue, Case, CodecName, Fill, Kind, Values};

/// A Rust element type both writers take, built from a write's [`Values`].
trait FromValues: Sized {
    fn from_values(values: &Values) -> Option<Vec<Self>>;
}

macro_rules! from_values {
    ($ty:ty, $variant:ident, $map:expr) => {
        impl FromValues for $ty {
            fn from_values(values: &Values) -> Option<Vec<Self>> {
                match values {
                    Values::$variant(v) => Some(v.iter().map($map).collect()),
                    _ => None,
                }
            }
        }
    };
}

from_values!(i8, Int8, |&x| x);
from_values!(i16, Int16, |&x| x);
from_values!(i32, Int32, |&x| x);
from_values!(i64, Int64, |&x| x);
from_values!(u8, Uint8, |&x| x);
from_values!(u16, Uint16, |&x| x);
from_values!(u32, Uint32, |&x| x);
from_values!(u64, Uint64, |&x| x);
from_values!(f32, Float32, |&x| f32::from_bits(x));
from_values!(f64, Float64, |&x| f64::from_bits(x));
from_values!(String, String, Clone::clone);
from_values!(Vec<u8>, Binary, Clone::clone);
from_values!(atlas::TimestampNs, TimestampNs, |&x| atlas::TimestampNs(x));
from_values!(atlas_wasm::TimestampNs, TimestampNs, |&x| {
    atlas_wasm::TimestampNs(x)
});

/// Runs `$call::<T>` with `T` the Rust type of `$kind` (`$ts` for timestamps).
macro_rules! by_kind {
    ($kind:expr, $ts:ty, $call:ident ( $($arg:expr),* ) $($await:tt)*) => {
        match $kind {
            Kind::Int8 => $call::<i8>($($arg),*) $($await)*,
            Kind::Int16 => $call::<i16>($($arg),*) $($await)*,
            Kind::Int32 => $call::<i32>($($arg),*) $($await)*,
            Kind::Int64 => $call::<i64>($($arg),*) $($await)*,
            Kind::Uint8 => $call::<u8>($($arg),*) $($await)*,
            Kind::Uint16 => $call::<u16>($($arg),*) $($await)*,
            Kind::Uint32 => $call::<u32>($($arg),*) $($await)*,
            Kind::Uint64 => $call::<u64>($($arg),*) $($await)*,
            Kind::Float32 => $call::<f32>($($arg),*) $($await)*,
            Kind::Float64 => $call::<f64>($($arg),*) $($await)*,
            Kind::String => $call::<String>($($arg),*) $($await)*,
            Kind::Binary => $call::<Vec<u8>>($($arg),*) $($await)*,
            Kind::TimestampNs => $call::<$ts>($($arg),*) $($await)*,
        }
    };
}

macro_rules! attr_into {
    ($value:expr, $attr:ident) => {{
        use AttrValue as A;
        let f32s = |v: &[u32]| v.iter().map(|&b| f32::from_bits(b)).collect();
        let f64s = |v: &[u64]| v.iter().map(|&b| f64::from_bits(b)).collect();
        match $value.clone() {
            A::Bool(v) => $attr::Bool(v),
            A::Int8(v) => $attr::Int8(v),
            A::Int16(v) => $attr::Int16(v),
            A::Int32(v) => $attr::Int32(v),
            A::Int64(v) => $attr::Int64(v),
            A::UInt8(v) => $attr::UInt8(v),
            A::UInt16(v) => $attr::UInt16(v),
            A::UInt32(v) => $attr::UInt32(v),
            A::UInt64(v) => $attr::UInt64(v),
            A::Float32(v) => $attr::Float32(f32::from_bits(v)),
            A::Float64(v) => $attr::Float64(f64::from_bits(v)),
            A::String(v) => $attr::String(v),
            A::Binary(v) => $attr::Binary(v),
            A::BoolList(v) => $attr::BoolList(v),
            A::Int8List(v) => $attr::Int8List(v),
            A::Int16List(v) => $attr::Int16List(v),
            A::Int32List(v) => $attr::Int32List(v),
            A::Int64List(v) => $attr::Int64List(v),
            A::UInt8List(v) => $attr::UInt8List(v),
            A::UInt16List(v) => $attr::UInt16List(v),
            A::UInt32List(v) => $attr::UInt32List(v),
            A::UInt64List(v) => $attr::UInt64List(v),
            A::Float32List(v) => $attr::Float32List(f32s(&v)),
            A::Float64List(v) => $attr::Float64List(f64s(&v)),
            A::StringList(v) => $attr::StringList(v),
            A::BinaryList(v) => $attr::BinaryList(v),
        }
    }};
}

macro_rules! fill_into {
    ($fill:expr, $ty:ident) => {
        match $fill.clone() {
            Fill::Bool(v) => $ty::Bool(v),
            Fill::Int(v) => $ty::Int(v),
            Fill::UInt(v) => $ty::UInt(v),
            Fill::Float(v) => $ty::Float(f64::from_bits(v)),
            Fill::String(v) => $ty::String(v),
            Fill::TimestampNs(v) => $ty::TimestampNs(v),
        }
    };
}

/// The order datasets are filled and finished in: reversed when the case
/// interleaves (all were added first, in order).
fn order(case: &Case) -> Vec<usize> {
    let mut order: Vec<usize> = (0..case.datasets.len()).collect();
    if case.interleave {
        order.reverse();
    }
    order
}

fn usizes(v: &[u64]) -> Vec<usize> {
    v.iter().map(|&x| x as usize).collect()
}

/// Writes `case` into `dir` with atlas-rust 0.17.2, then its deletions
/// (atlas-rust's, or ours when the case swaps deleters).
pub async fn write_theirs(case: &Case, dir: &Path) -> anyhow::Result<()> {
    use atlas::{Attr, FillValue};
    let config = atlas::WriterConfig {
        codec: match case.codec {
            CodecName::Zstd => atlas::Codec::Zstd,
            CodecName::Lz4 => atlas::Codec::Lz4,
            CodecName::Uncompressed => atlas::Codec::Uncompressed,
        },
        block_target_size: case.block_target_size,
    };
    let writer = atlas::AtlasWriter::create_path(dir, config).await?;
    let mut open = Vec::new();
    if case.interleave {
        for ds in &case.datasets {
            open.push(Some(writer.add_dataset(&ds.name).await?));
        }
    }
    for i in order(case) {
        let ds = &case.datasets[i];
        let mut w = match open.get_mut(i) {
            Some(slot) => slot.take().expect("each dataset is filled once"),
            None => writer.add_dataset(&ds.name).await?,
        };
        for a in &ds.arrays {
            let fill = a.fill.as_ref().map(|f| fill_into!(f, FillValue));
            by_kind!(
                a.dtype,
                atlas::TimestampNs,
                theirs_array(&mut w, a, fill).await
            )
            .with_context(|| format!("{}/{}", ds.name, a.name))?;
            for (key, value) in &a.attrs {
                w.set_array_attribute(&a.name, key, attr_into!(value, Attr))?;
            }
        }
        for (key, value) in &ds.attrs {
            w.set_attribute(key, attr_into!(value, Attr));
        }
        if !ds.abandoned {
            w.finish().await?;
        }
    }
    writer.finish().await?;
    delete(case, dir, !case.swap_deleters).await
}

async fn theirs_array<T: atlas::ArrayElement + FromValues>(
    w: &mut atlas::DatasetWriter,
    a: &Array,
    fill: Option<atlas::FillValue>,
) -> anyhow::Result<()> {
    w.define_array::<T>(
        &a.name,
        a.dims.clone(),
        usizes(&a.shape),
        a.chunk.as_deref().map(usizes),
        fill,
    )
    .await?;
    for write in &a.writes {
        let values = T::from_values(&write.values).context("values of another dtype")?;
        let data = ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&usizes(&write.shape)), values)?;
        w.write_array(&a.name, usizes(&write.start), data.view())
            .await?;
    }
    Ok(())
}

/// Writes `case` into `dir` with our writer, then its deletions (ours, or
/// atlas-rust's when the case swaps deleters).
pub async fn write_ours(case: &Case, dir: &Path) -> anyhow::Result<()> {
    use atlas_wasm::write::{AtlasWriter, Codec, WriterConfig};
    use atlas_wasm::{Attr, FillValue};
    let config = WriterConfig {
        codec: match case.codec {
            CodecName::Zstd => Codec::Zstd,
            CodecName::Lz4 => Codec::Lz4,
            CodecName::Uncompressed => Codec::Uncompressed,
        },
        block_target_size: case.block_target_size,
    };
    let writer = AtlasWriter::create(dir, config)?;
    let mut open = Vec::new();
    if case.interleave {
        for ds in &case.datasets {
            open.push(Some(writer.add_dataset(&ds.name)?));
        }
    }
    for i in order(case) {
        let ds = &case.datasets[i];
        let mut w = match open.get_mut(i) {
            Some(slot) => slot.take().expect("each dataset is filled once"),
            None => writer.add_dataset(&ds.name)?,
        };
        for a in &ds.arrays {
            let fill = a.fill.as_ref().map(|f| fill_into!(f, FillValue));
            by_kind!(
                a.dtype,
                atlas_wasm::TimestampNs,
                ours_array(&mut w, a, fill)
            )
            .with_context(|| format!("{}/{}", ds.name, a.name))?;
            for (key, value) in &a.attrs {
                w.set_array_attribute(&a.name, key, attr_into!(value, Attr))?;
            }
        }
        for (key, value) in &ds.attrs {
            w.set_attribute(key, attr_into!(value, Attr));
        }
        if !ds.abandoned {
            w.finish()?;
        }
    }
    writer.finish()?;
    delete(case, dir, case.swap_deleters).await
}

fn ours_array<T: atlas_wasm::write::WriteElement + FromValues>(
    w: &mut atlas_wasm::write::DatasetWriter,
    a: &Array,
    fill: Option<atlas_wasm::FillValue>,
) -> anyhow::Result<()> {
    w.define_array::<T>(&a.name, a.dims.clone(), &a.shape, a.chunk.as_deref(), fill)?;
    for write in &a.writes {
        let values = T::from_values(&write.values).context("values of another dtype")?;
        w.write_array(&a.name, &write.start, &write.shape, &values)?;
    }
    Ok(())
}

/// Applies the case's deletion rounds to `dir`, through atlas-rust when
/// `theirs`, else through ours.
async fn delete(case: &Case, dir: &Path, theirs: bool) -> anyhow::Result<()> {
    for round in &case.deletions {
        if theirs {
            let atlas = atlas::Atlas::open_path(dir).await?;
            atlas
                .delete_datasets(round)
                .await
                .context("atlas-rust deletes")?;
        } else {
            atlas_wasm::write::delete_datasets(dir, round, false).context("ours deletes")?;
        }
    }
    Ok(())
}
