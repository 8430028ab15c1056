//! The parquet reader over files pyarrow and delta-rs wrote
//! (tests/atria/make_parquet.py): every value equal to what pyarrow reads
//! back, the requests each call makes, and damaged files as typed errors.

#![cfg(feature = "atria")]

#[path = "atria/corpus.rs"]
mod corpus;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use atlas_wasm::atria::parquet::ParquetFile;
use atlas_wasm::atria::Value;
use atlas_wasm::source::{CountingSource, FileSource, MemorySource, RequestLog};
use atlas_wasm::ByteSource;
use corpus::{block_on, corpus};
use serde_json::Value as Json;

fn parquet_dir() -> Option<PathBuf> {
    corpus().map(|dir| dir.join("parquet"))
}

fn expected(dir: &Path) -> serde_json::Map<String, Json> {
    let text = std::fs::read_to_string(dir.join("expected.json")).unwrap();
    match serde_json::from_str(&text).unwrap() {
        Json::Object(files) => files,
        _ => panic!("expected.json is not an object"),
    }
}

fn open_counted(path: &Path) -> (ParquetFile, RequestLog) {
    let source = CountingSource::new(FileSource::open(path).unwrap());
    let log = source.log();
    let file = block_on(ParquetFile::open(Arc::new(source))).unwrap();
    (file, log)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Asserts `value` is what make_parquet.py wrote for it (see its docstring).
fn assert_same(value: &Value, want: &Json, at: &str) {
    match (value, want) {
        (Value::Nil, Json::Null) => {}
        (Value::Bool(b), Json::Bool(w)) => assert_eq!(b, w, "{at}"),
        (Value::Int(i), Json::Number(n)) => assert_eq!(Some(*i), n.as_i64(), "{at}"),
        (Value::UInt(u), Json::Number(n)) => assert_eq!(Some(*u), n.as_u64(), "{at}"),
        (Value::Str(s), Json::String(w)) => assert_eq!(s, w, "{at}"),
        (Value::Float(f), Json::Object(o)) if o.contains_key("$f") => {
            assert_eq!(format!("{:016x}", f.to_bits()), o["$f"], "{at}")
        }
        (Value::Bin(b), Json::Object(o)) if o.contains_key("$bin") => {
            assert_eq!(hex(b), o["$bin"], "{at}")
        }
        (Value::List(items), Json::Array(w)) => {
            assert_eq!(items.len(), w.len(), "{at}: list length");
            for (i, (v, w)) in items.iter().zip(w).enumerate() {
                assert_same(v, w, &format!("{at}[{i}]"));
            }
        }
        // A MAP column: key-value pairs.
        (Value::Map(pairs), Json::Array(w)) => {
            assert_eq!(pairs.len(), w.len(), "{at}: map length");
            for (i, ((k, v), w)) in pairs.iter().zip(w).enumerate() {
                assert_same(k, &w[0], &format!("{at}{{key {i}}}"));
                assert_same(v, &w[1], &format!("{at}{{value {i}}}"));
            }
        }
        // A struct or a row: fields by name, in order.
        (Value::Map(fields), Json::Object(w)) => {
            let names: Vec<&str> = fields
                .iter()
                .map(|(k, _)| match k {
                    Value::Str(s) => s.as_str(),
                    other => panic!("{at}: a field name {other:?}"),
                })
                .collect();
            let mut want_names: Vec<&str> = w.keys().map(String::as_str).collect();
            let mut sorted = names.clone();
            sorted.sort_unstable();
            want_names.sort_unstable();
            assert_eq!(sorted, want_names, "{at}: fields");
            for (name, (_, v)) in names.iter().zip(fields) {
                assert_same(v, &w[*name], &format!("{at}.{name}"));
            }
        }
        _ => panic!("{at}: {value:?} where {want} was written"),
    }
}

#[test]
fn every_value_equals_what_pyarrow_reads() {
    let Some(dir) = parquet_dir() else { return };
    let files = expected(&dir);
    // pyarrow's and delta-rs's files, and polars', duckdb's and fastparquet's.
    assert!(files.len() >= 52, "{} files", files.len());
    for writer in ["polars_", "duckdb_", "fastparquet_"] {
        let n = files.keys().filter(|n| n.starts_with(writer)).count();
        assert!(n >= 6, "{n} files of {writer}*");
    }
    for (name, want) in &files {
        if name.starts_with("unsupported") {
            continue;
        }
        let (file, _) = open_counted(&dir.join(format!("{name}.parquet")));
        assert_eq!(
            file.num_rows(),
            want["num_rows"].as_u64().unwrap(),
            "{name}"
        );
        let groups: Vec<u64> = want["row_groups"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g.as_u64().unwrap())
            .collect();
        assert_eq!(file.row_group_rows(), groups, "{name}");
        assert_eq!(file.row_groups(), groups.len(), "{name}");
        let names: Vec<String> = file.columns().into_iter().map(|c| c.name).collect();
        assert_eq!(Json::from(names), want["columns"], "{name}");
        let want_rows = want["rows"].as_array().unwrap();
        let mut row = 0;
        for (g, &count) in groups.iter().enumerate() {
            let rows = block_on(file.read_row_group(g, None))
                .unwrap_or_else(|e| panic!("{name} row group {g}: {e}"));
            assert_eq!(rows.len() as u64, count, "{name} row group {g}");
            for value in &rows {
                assert_same(value, &want_rows[row], &format!("{name} row {row}"));
                row += 1;
            }
        }
        assert_eq!(row, want_rows.len(), "{name}");
    }
}

#[test]
fn column_types_are_named() {
    let Some(dir) = parquet_dir() else { return };
    let types = |name: &str| -> Vec<(String, String)> {
        let (file, _) = open_counted(&dir.join(format!("{name}.parquet")));
        file.columns()
            .into_iter()
            .map(|c| (c.name, c.type_name))
            .collect()
    };
    let typed = types("types_none");
    let expect = [
        ("b", "bool"),
        ("i8", "int8"),
        ("u16", "uint16"),
        ("u64", "uint64"),
        ("f32", "float32"),
        ("f64", "float64"),
        ("s", "string"),
        ("bin", "binary"),
        ("fixed", "fixed_size_binary[3]"),
        ("date", "date32[day]"),
        ("ts_us", "timestamp[us]"),
        ("ts_ms_utc", "timestamp[ms, tz=UTC]"),
        ("ts_ns", "timestamp[ns]"),
        ("t_us", "time64[us]"),
        ("dec", "decimal(10, 2)"),
    ];
    for (name, type_name) in expect {
        let found = typed.iter().find(|(n, _)| n == name).unwrap();
        assert_eq!(found.1, type_name, "{name}");
    }
    assert_eq!(types("int96")[0].1, "timestamp[ns]");
    let nested = types("nested");
    let nested: Vec<(&str, &str)> = nested
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    assert_eq!(
        nested,
        [
            ("id", "int64"),
            ("ints", "list<int64>"),
            ("point", "struct<x: float64, label: string>"),
            ("points", "list<struct<x: float64, label: string>>"),
            ("tags", "map<string, int64>"),
            ("grid", "list<list<string>>"),
            (
                "record",
                "struct<name: string, scores: list<int32>, meta: struct<a: bool>>"
            ),
        ]
    );
    // What the other writers make of their types.
    let duckdb = types("duckdb_default");
    for (name, type_name) in [
        ("u64", "uint64"),
        ("huge", "float64"),
        ("dec4", "decimal(4, 1)"),
        ("dec18", "decimal(18, 3)"),
        ("dec38", "decimal(38, 10)"),
        ("tstz", "timestamp[us, tz=UTC]"),
        ("uuid", "uuid"),
        ("mood", "string"),
        ("triple", "list<int32>"),
        ("tags", "map<string, int64>"),
    ] {
        let found = duckdb.iter().find(|(n, _)| n == name).unwrap();
        assert_eq!(found.1, type_name, "duckdb {name}");
    }
    let polars = types("polars_default");
    for (name, type_name) in [
        ("cat", "string"),
        ("dec", "decimal(10, 2)"),
        ("dt_ns_paris", "timestamp[ns, tz=UTC]"),
        ("time", "time64[ns]"),
        ("triple", "list<int16>"),
    ] {
        let found = polars.iter().find(|(n, _)| n == name).unwrap();
        assert_eq!(found.1, type_name, "polars {name}");
    }
    let fastparquet = types("fastparquet_int96");
    let found = fastparquet.iter().find(|(n, _)| n == "ts").unwrap();
    assert_eq!(found.1, "timestamp[ns]");
    let hf = types("hf");
    assert_eq!(hf[2].1, "struct<bytes: binary, path: string>");
    let checkpoint = types("delta_checkpoint");
    let add = &checkpoint.iter().find(|(n, _)| n == "add").unwrap().1;
    assert!(
        add.contains("partitionValues: map<string, string>"),
        "{add}"
    );
    assert!(add.contains("stats: string"), "{add}");
    let protocol = &checkpoint.iter().find(|(n, _)| n == "protocol").unwrap().1;
    assert!(
        protocol.contains("readerFeatures: list<string>"),
        "{protocol}"
    );
}

#[test]
fn requests_are_one_for_the_footer_and_one_per_row_group() {
    let Some(dir) = parquet_dir() else { return };
    let files = expected(&dir);
    let path = dir.join("many_groups.parquet");
    let (file, log) = open_counted(&path);
    // The footer: one tail read.
    assert_eq!(log.requests(), 1);
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(
        size > 32 * 1024,
        "the file must be larger than what is read"
    );

    // Two of four columns of row group 3: their chunks in one read, inside
    // the group's chunks.
    let ranges = &files["many_groups"]["chunk_ranges"][3];
    let chunk = |c: usize| {
        (
            ranges[c][0].as_u64().unwrap(),
            ranges[c][1].as_u64().unwrap(),
        )
    };
    log.reset();
    let rows = block_on(file.read_row_group(3, Some(&["score", "id"]))).unwrap();
    assert_eq!(rows.len(), 100);
    assert_eq!(rows[0].get("id"), Some(&Value::Int(300)));
    assert_eq!(rows[0].get("score"), Some(&Value::Float(150.0)));
    assert_eq!(rows[0].get("name"), None);
    assert_eq!(log.entries(), [(chunk(0).0, chunk(2).1 - chunk(0).0)]);

    // Row by row in order: each group read once, in one request.
    log.reset();
    for i in 0..file.num_rows() {
        let row = block_on(file.row(i)).unwrap();
        assert_eq!(row.get("id"), Some(&Value::Int(i as i64)));
    }
    assert_eq!(log.requests(), 10);
    assert_eq!(
        log.bytes(),
        files["many_groups"]["chunk_ranges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| {
                let g = g.as_array().unwrap();
                g.last().unwrap()[1].as_u64().unwrap() - g[0][0].as_u64().unwrap()
            })
            .sum::<u64>()
    );

    // The stream: the same rows, one request per group.
    log.reset();
    let mut rows = file.rows();
    let mut n = 0;
    while let Some(row) = block_on(rows.next()) {
        assert_eq!(
            row.unwrap().get("name"),
            Some(&Value::Str(format!("name-{n:05}")))
        );
        n += 1;
    }
    assert_eq!(n, 1000);
    assert_eq!(log.requests(), 10);

    assert!(block_on(file.read_row_group(10, None)).unwrap_err().code() == "OutOfBounds");
    assert_eq!(
        block_on(file.read_row_group(0, Some(&["nope"])))
            .unwrap_err()
            .code(),
        "InvalidArgument"
    );
}

#[test]
fn a_footer_longer_than_the_probe_takes_a_second_read() {
    let Some(dir) = parquet_dir() else { return };
    let path = dir.join("wide.parquet");
    let bytes = std::fs::read(&path).unwrap();
    let n = bytes.len() as u64;
    let meta_len = u32::from_le_bytes(bytes[bytes.len() - 8..bytes.len() - 4].try_into().unwrap());
    assert!(meta_len > 64 * 1024, "the footer is {meta_len} bytes");
    let (file, log) = open_counted(&path);
    assert_eq!(file.columns().len(), 200);
    // The 64 KiB probe, then exactly the metadata.
    let meta_start = n - 8 - meta_len as u64;
    assert_eq!(
        log.entries(),
        [(n - 64 * 1024, 64 * 1024), (meta_start, meta_len as u64)]
    );
}

#[test]
fn unsupported_codecs_and_encryption_are_named() {
    let Some(dir) = parquet_dir() else { return };
    let (file, _) = open_counted(&dir.join("unsupported_brotli.parquet"));
    let error = block_on(file.read_row_group(0, None)).unwrap_err();
    assert_eq!(error.code(), "UnsupportedProtocol");
    assert!(error.to_string().contains("BROTLI"), "{error}");

    // Levels in BIT_PACKED: read where a column has none (bit_packed_required,
    // checked against pyarrow above), refused where it has some.
    let (file, _) = open_counted(&dir.join("unsupported_bit_packed.parquet"));
    let error = block_on(file.read_row_group(0, None)).unwrap_err();
    assert_eq!(error.code(), "UnsupportedProtocol");
    assert!(error.to_string().contains("BIT_PACKED"), "{error}");

    // fastparquet's _metadata of a hive-scheme directory: every column chunk
    // in a part file (file_path).
    let error =
        open_bytes(std::fs::read(dir.join("unsupported_fastparquet_metadata.parquet")).unwrap())
            .unwrap_err();
    assert_eq!(error.code(), "UnsupportedProtocol", "{error}");
    assert!(error.to_string().contains("file_path"), "{error}");

    let mut encrypted = std::fs::read(dir.join("int96.parquet")).unwrap();
    let n = encrypted.len();
    encrypted[n - 4..].copy_from_slice(b"PARE");
    let error = open_bytes(encrypted).unwrap_err();
    assert_eq!(error.code(), "UnsupportedProtocol", "{error}");
}

fn open_bytes(bytes: Vec<u8>) -> atlas_wasm::atria::Result<ParquetFile> {
    block_on(ParquetFile::open(Arc::new(MemorySource::new(bytes))))
}

fn open_bytes_with(bytes: Vec<u8>, budget: u64) -> atlas_wasm::atria::Result<ParquetFile> {
    let source: Arc<dyn ByteSource> = Arc::new(MemorySource::new(bytes));
    block_on(ParquetFile::open_with_budget(source, budget))
}

/// Opens `bytes` and reads every row group: Ok, or a typed error.
fn read_all(bytes: Vec<u8>, budget: u64) -> atlas_wasm::atria::Result<usize> {
    let file = open_bytes_with(bytes, budget)?;
    let mut rows = 0;
    for g in 0..file.row_groups() {
        rows += block_on(file.read_row_group(g, None))?.len();
    }
    Ok(rows)
}

const TYPED: [&str; 6] = [
    "Corrupt",
    "UnsupportedProtocol",
    "TooLarge",
    "OutOfBounds",
    "InvalidArgument",
    "Io",
];

#[test]
fn damaged_files_are_typed_errors() {
    let Some(dir) = parquet_dir() else { return };
    let good = std::fs::read(dir.join("nested.parquet")).unwrap();
    let n = good.len();
    let meta_len = u32::from_le_bytes(good[n - 8..n - 4].try_into().unwrap()) as usize;

    // Truncated anywhere: the footer is gone or does not match.
    for cut in [0, 3, 8, 11, 12, n / 2, n - 9, n - 1] {
        let error = read_all(good[..cut].to_vec(), 1 << 30).unwrap_err();
        assert_eq!(error.code(), "Corrupt", "cut at {cut}: {error}");
    }
    // Wrong magic, at either end.
    let mut bad = good.clone();
    bad[n - 1] = b'X';
    assert_eq!(read_all(bad, 1 << 30).unwrap_err().code(), "Corrupt");
    let mut bad = good.clone();
    bad[0] = b'X';
    assert_eq!(read_all(bad, 1 << 30).unwrap_err().code(), "Corrupt");
    // A metadata length past the file, and one just short of it.
    for forged in [u32::MAX, (n - 8) as u32, (meta_len - 1) as u32] {
        let mut bad = good.clone();
        bad[n - 8..n - 4].copy_from_slice(&forged.to_le_bytes());
        let error = read_all(bad, 1 << 30).unwrap_err();
        assert_eq!(error.code(), "Corrupt", "length {forged}: {error}");
    }
    // The footer under a budget too small for it.
    assert_eq!(read_all(good.clone(), 100).unwrap_err().code(), "TooLarge");
    assert_eq!(read_all(good, 1 << 30).unwrap(), 100);
    // Rows under a budget that opens the file but is too small for them.
    let hf = std::fs::read(dir.join("hf.parquet")).unwrap();
    let opens = |budget| open_bytes_with(hf.clone(), budget).is_ok();
    let budget = (10..30).map(|p| 1u64 << p).find(|&b| opens(b)).unwrap();
    let error = read_all(hf.clone(), budget).unwrap_err();
    assert_eq!(error.code(), "TooLarge", "{error}");
    assert_eq!(read_all(hf, budget * 4).unwrap(), 60);
}

/// Every other byte of the footer and a spread of bytes in the pages,
/// changed one at a time: each read is right, or a typed error; never a panic.
#[test]
fn flipped_bytes_never_panic() {
    let Some(dir) = parquet_dir() else { return };
    let mut outcomes = std::collections::BTreeMap::<String, usize>::new();
    for name in [
        "nested",
        "types_delta_v2",
        "types_snappy",
        "types_gzip",
        "delta_checkpoint",
    ] {
        let good = std::fs::read(dir.join(format!("{name}.parquet"))).unwrap();
        let n = good.len();
        let meta_len = u32::from_le_bytes(good[n - 8..n - 4].try_into().unwrap()) as usize;
        let footer = (n - 8 - meta_len..n).step_by(2);
        let pages = (4..n - 8 - meta_len).step_by(29);
        for at in footer.chain(pages) {
            for flip in [0x01u8, 0xff] {
                let mut bad = good.clone();
                bad[at] ^= flip;
                let outcome = std::panic::catch_unwind(|| read_all(bad, 64 << 20))
                    .unwrap_or_else(|_| panic!("{name}: flipping byte {at} by {flip:#x} panics"));
                let key = match outcome {
                    Ok(_) => "read".to_string(),
                    Err(e) => {
                        assert!(TYPED.contains(&e.code()), "{name} byte {at}: {e}");
                        e.code().to_string()
                    }
                };
                *outcomes.entry(key).or_default() += 1;
            }
        }
    }
    eprintln!("flipped bytes: {outcomes:?}");
    assert!(outcomes["Corrupt"] > 5000, "{outcomes:?}");
}

/// Natively, a file and its futures move across threads (tokio workers).
#[allow(dead_code)]
fn handles_and_futures_are_send(file: &ParquetFile) {
    fn send<T: Send>(_: T) {}
    fn shared<T: Send + Sync>() {}
    shared::<ParquetFile>();
    send(ParquetFile::open(Arc::new(MemorySource::new(vec![]))));
    send(file.read_row_group(0, None));
    send(file.row(0));
    let mut rows = file.rows();
    send(rows.next());
}

/// Every input the `parquet_read` fuzz target crashed on
/// (fuzz/regressions/parquet_read/) is now a typed error.
#[test]
fn crashes_found_by_fuzzing_are_typed_errors() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions/parquet_read");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        let outcome = std::panic::catch_unwind(|| read_all(bytes, 64 << 20))
            .unwrap_or_else(|_| panic!("{} panics", path.display()));
        let error = outcome.expect_err(&format!("{} reads", path.display()));
        assert!(TYPED.contains(&error.code()), "{}: {error}", path.display());
        seen += 1;
    }
    assert!(seen >= 1);
}
