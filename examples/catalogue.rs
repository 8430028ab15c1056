//! Prints what a collection holds: its datasets, their arrays, attributes and
//! statistics. `cargo run --release --example catalogue -- DIR [LIMIT]`
//!
//! It reads only metadata: the tail of the container, then one segment per
//! variable for layouts, statistics and attributes.

use atlas_wasm::{Atlas, Attr, StatValue};

fn attr(a: &Attr) -> String {
    match a {
        Attr::String(s) => format!("{s:?}"),
        Attr::Float64(v) => format!("{v}"),
        Attr::Float32(v) => format!("{v}"),
        Attr::Int64(v) => format!("{v}"),
        Attr::Int32(v) => format!("{v}"),
        other => format!("{other:?}"),
    }
}

fn bound(s: &Option<StatValue>) -> String {
    match s {
        Some(StatValue::Float(v)) => format!("{v:.4}"),
        Some(StatValue::Int(v)) | Some(StatValue::TimestampNs(v)) => v.to_string(),
        Some(StatValue::UInt(v)) => v.to_string(),
        Some(StatValue::Bytes(b)) => format!("{:?}", String::from_utf8_lossy(b)),
        None => "-".into(),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = args.next().ok_or("usage: catalogue DIR [LIMIT]")?;
    let limit: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(20);
    futures_executor::block_on(async {
        let atlas = Atlas::open_path(&dir).await?;
        println!(
            "{dir}: {} datasets ({} deleted), {} arrays, codec {}, {} bytes, {} schema(s)",
            atlas.dataset_count(),
            atlas.deleted_count(),
            atlas.list_arrays().len(),
            atlas.codec().name(),
            atlas.container_bytes(),
            atlas.interned_schemas()
        );
        for array in atlas.list_arrays() {
            if let Some(s) = atlas.array_stats(&array).await? {
                println!(
                    "  {array:<24} min {:>14} max {:>14} nulls {:>10} of {}",
                    bound(&s.min),
                    bound(&s.max),
                    s.null_count,
                    s.row_count
                );
            }
        }
        for name in atlas.list_datasets().into_iter().take(limit) {
            let ds = atlas.dataset(&name)?;
            let attrs: Vec<String> = ds
                .attributes()
                .await?
                .iter()
                .map(|(k, v)| format!("{k}={}", attr(v)))
                .collect();
            println!("{name}  {}", attrs.join(" "));
            for array in ds.list_arrays() {
                let layout = ds.array_layout(&array).await?;
                let dtype = ds
                    .array_meta(&array)
                    .map(|m| m.dtype().name())
                    .unwrap_or_default();
                println!(
                    "    {array:<20} {dtype:<12} {:?} dims {:?} chunks {:?}",
                    layout.shape, layout.dimension_names, layout.chunk_shape
                );
            }
        }
        if atlas.dataset_count() > limit {
            println!("… and {} more", atlas.dataset_count() - limit);
        }
        Ok(())
    })
}
