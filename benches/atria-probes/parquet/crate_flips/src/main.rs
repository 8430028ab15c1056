//! Natively: the `parquet` crate's record API over damaged copies of parquet
//! files, changed one byte at a time as tests/atria_parquet.rs's
//! `flipped_bytes_never_panic` changes them (every other footer byte and
//! every 29th page byte, XOR 0x01 and 0xff). Prints how many reads returned
//! rows, an error, or panicked. In wasm a panic traps the instance.
//! The workspace's release profile aborts on panic (as wasm does), so run it
//! with unwinding to count them:
//!   CARGO_PROFILE_RELEASE_PANIC=unwind cargo run --release -p crate_flips -- FILE.parquet…

use parquet::file::reader::{FileReader, SerializedFileReader};

fn read_all(bytes: Vec<u8>) -> Result<usize, String> {
    let reader = SerializedFileReader::new(bytes::Bytes::from(bytes)).map_err(|e| e.to_string())?;
    let mut n = 0;
    for row in reader.get_row_iter(None).map_err(|e| e.to_string())? {
        row.map_err(|e| e.to_string())?;
        n += 1;
    }
    Ok(n)
}

fn main() {
    // The first panic's message and place, then silence.
    let printed = std::sync::atomic::AtomicBool::new(false);
    std::panic::set_hook(Box::new(move |info| {
        if !printed.swap(true, std::sync::atomic::Ordering::Relaxed) {
            eprintln!("first panic: {info}");
        }
    }));
    for path in std::env::args().skip(1) {
        let good = std::fs::read(&path).unwrap();
        let n = good.len();
        let meta_len = u32::from_le_bytes(good[n - 8..n - 4].try_into().unwrap()) as usize;
        let footer = (n - 8 - meta_len..n).step_by(2);
        let pages = (4..n - 8 - meta_len).step_by(29);
        let (mut ok, mut err, mut panics) = (0, 0, 0);
        let mut first_panic = None;
        for at in footer.chain(pages) {
            for flip in [0x01u8, 0xff] {
                let mut bad = good.clone();
                bad[at] ^= flip;
                match std::panic::catch_unwind(|| read_all(bad)) {
                    Ok(Ok(_)) => ok += 1,
                    Ok(Err(_)) => err += 1,
                    Err(_) => {
                        panics += 1;
                        first_panic.get_or_insert((at, flip));
                    }
                }
            }
        }
        println!("{path}: read {ok}, error {err}, panic {panics} (first: {first_panic:?})");
    }
}
