//! Writes a collection of N small datasets for the `iterate` memory
//! benchmark (benches/iterate/run.sh):
//! `cargo run --release --features writer --example many_datasets -- DIR N`.
//! Dataset `ds_{i:07}` holds `temperature` = [i, i + 0.5, i + 1, i + 1.5]
//! (float32) and the attribute `index` = i, so a reader can check every value
//! from the name alone.

use atlas_wasm::write::{AtlasWriter, WriterConfig};
use atlas_wasm::Attr;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = args.next().ok_or("usage: many_datasets DIR N")?;
    let count: u32 = args.next().ok_or("usage: many_datasets DIR N")?.parse()?;
    let writer = AtlasWriter::create(&dir, WriterConfig::default())?;
    for i in 0..count {
        let mut ds = writer.add_dataset(&format!("ds_{i:07}"))?;
        let base = i as f32;
        ds.define_array::<f32>("temperature", vec!["k".into()], &[4], None, None)?;
        ds.write_array(
            "temperature",
            &[0],
            &[4],
            &[base, base + 0.5, base + 1.0, base + 1.5],
        )?;
        ds.set_attribute("index", Attr::Int64(i64::from(i)));
        ds.finish()?;
    }
    writer.finish()?;
    Ok(())
}
