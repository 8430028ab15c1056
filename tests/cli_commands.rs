//! The `atlas` binary: `get` in every format, `rm`, `rewrite`, one-line
//! errors with exit code 1, and every reading command over HTTP answering
//! exactly as on the local path.

#![cfg(feature = "cli")]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use atlas_wasm::write::{AtlasWriter, Codec, WriterConfig};
use atlas_wasm::{Attr, FillValue};

fn atlas(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_atlas"))
        .args(args)
        .output()
        .unwrap()
}

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("atlas-wasm-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Three datasets: a 2-D float grid with a NaN fill, strings, and attributes.
fn collection(dir: &Path) {
    let w = AtlasWriter::create(
        dir,
        WriterConfig {
            codec: Codec::Zstd,
            block_target_size: 4096,
        },
    )
    .unwrap();
    for d in 0..3u32 {
        let mut ds = w.add_dataset(&format!("day{d}.nc")).unwrap();
        let grid: Vec<f32> = (0..12).map(|i| (i + d * 100) as f32 * 0.5).collect();
        ds.define_array::<f32>(
            "t",
            vec!["y".into(), "x".into()],
            &[3, 4],
            Some(&[2, 2]),
            Some(FillValue::Float(f64::NAN)),
        )
        .unwrap();
        ds.write_array("t", &[0, 0], &[3, 4], &grid).unwrap();
        ds.define_array::<String>("names", vec!["k".into()], &[2], None, None)
            .unwrap();
        ds.write_array("names", &[0], &[2], &["alpha".to_string(), format!("β{d}")])
            .unwrap();
        ds.set_array_attribute("t", "units", Attr::String("K".into()))
            .unwrap();
        ds.set_attribute("day", Attr::UInt32(d));
        ds.finish().unwrap();
    }
    w.finish().unwrap();
}

#[test]
fn get_exports_a_window_as_npy_json_and_raw() {
    let dir = scratch("get");
    collection(&dir);
    let coll = dir.to_str().unwrap();
    let npy = atlas(&[
        "get", coll, "day1.nc", "t", "--start", "1,1", "--shape", "2,3",
    ]);
    assert!(npy.status.success());
    let bytes = npy.stdout;
    assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00");
    let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let header = std::str::from_utf8(&bytes[10..10 + header_len]).unwrap();
    assert!(
        header.contains("'descr': '<f4'") && header.contains("'shape': (2, 3)"),
        "{header}"
    );
    let values: Vec<f32> = bytes[10 + header_len..]
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let want: Vec<f32> = [5, 6, 7, 9, 10, 11]
        .iter()
        .map(|&i| (i + 100) as f32 * 0.5)
        .collect();
    assert_eq!(values, want);

    let json = stdout(&atlas(&[
        "get", coll, "day1.nc", "names", "--format", "json",
    ]));
    assert!(
        json.contains("\"dtype\": \"string\"") && json.contains("\"\\u03b21\""),
        "{json}"
    );
    let raw = atlas(&["get", coll, "day2.nc", "names", "--format", "raw"]).stdout;
    assert_eq!(raw, "alpha\0β2\0".as_bytes());
    let out = dir.join("t.npy");
    stdout(&atlas(&[
        "get",
        coll,
        "day0.nc",
        "t",
        "-o",
        out.to_str().unwrap(),
    ]));
    assert!(std::fs::metadata(&out).unwrap().len() > 48);

    let numpy = Command::new("python3")
        .args(["-c", "import numpy"])
        .output()
        .is_ok_and(|probe| probe.status.success());
    if numpy {
        let script = format!(
            "import numpy as np; a = np.load(r'{}'); assert a.shape == (3, 4) and a.dtype == np.float32, a; print(a[2, 3])",
            out.display()
        );
        let check = Command::new("python3")
            .args(["-c", &script])
            .output()
            .unwrap();
        assert_eq!(stdout(&check).trim(), "5.5");
    } else {
        // CI installs atlas-python (and numpy with it) and sets
        // ATLAS_REQUIRE_PYTHON: there a skipped check is a failure.
        assert!(
            std::env::var_os("ATLAS_REQUIRE_PYTHON").is_none(),
            "python3 with numpy is required to check the .npy file"
        );
        eprintln!("python3 with numpy is not installed; the .npy check is skipped");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn rm_hides_datasets_and_rewrite_drops_them() {
    let dir = scratch("rm");
    collection(&dir);
    let coll = dir.to_str().unwrap();
    let text = stdout(&atlas(&["rm", coll, "/data/archive/day1.nc"]));
    assert_eq!(text, "removed 1: day1.nc\n2 dataset(s) remain\n");
    let failed = atlas(&["rm", coll, "nope", "day0.nc", "day1.nc"]);
    assert_eq!(failed.status.code(), Some(1));
    assert_eq!(
        stdout(&atlas(&["ls", coll])),
        "day0.nc\nday2.nc\n",
        "a failed rm hides nothing"
    );
    let err = String::from_utf8(failed.stderr).unwrap();
    assert_eq!(
        err,
        "atlas: not in the collection (or already removed): day1.nc, nope\n"
    );
    let json = stdout(&atlas(&[
        "rm",
        coll,
        "day1.nc",
        "day2.nc",
        "--missing-ok",
        "--json",
    ]));
    assert_eq!(json, "{\n  \"removed\": [\n    \"day2.nc\"\n  ],\n  \"missing\": [\n    \"day1.nc\"\n  ],\n  \"remaining\": 1\n}\n");
    assert_eq!(stdout(&atlas(&["ls", coll])), "day0.nc\n");

    let dest = scratch("rewritten");
    let json = stdout(&atlas(&[
        "rewrite",
        coll,
        dest.to_str().unwrap(),
        "--codec",
        "lz4",
        "--block-size",
        "64KiB",
        "--json",
    ]));
    assert!(
        json.contains("\"datasets\": 1")
            && json.contains("\"dropped\": 2")
            && json.contains("\"codec\": \"lz4\""),
        "{json}"
    );
    assert_eq!(stdout(&atlas(&["ls", dest.to_str().unwrap()])), "day0.nc\n");
    let info = stdout(&atlas(&["info", dest.to_str().unwrap()]));
    assert!(
        info.contains("codec             lz4") && !info.contains("removed"),
        "{info}"
    );
    // The same dataset reads the same from both.
    let show = |c: &str| stdout(&atlas(&["show", c, "day0.nc"])).replace("// ordinal 0", "");
    assert_eq!(show(coll), show(dest.to_str().unwrap()));
    // The named size for Workers' CPU limit.
    let worker = scratch("rewritten-for-workers");
    stdout(&atlas(&[
        "rewrite",
        coll,
        worker.to_str().unwrap(),
        "--block-size",
        "worker",
    ]));
    assert_eq!(show(coll), show(worker.to_str().unwrap()));
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&dest).unwrap();
    std::fs::remove_dir_all(&worker).unwrap();
}

#[test]
fn errors_are_one_line_and_exit_1() {
    let dir = scratch("errors");
    collection(&dir);
    let coll = dir.to_str().unwrap();
    let missing = scratch("absent");
    for args in [
        vec!["ls", missing.to_str().unwrap()],
        vec!["show", coll, "nope"],
        vec!["get", coll, "day0.nc", "nope"],
        vec![
            "get", coll, "day0.nc", "t", "--start", "9,9", "--shape", "1,1",
        ],
        vec!["info", "s3://bucket/prefix"],
        vec!["rm", "http://127.0.0.1:9/x", "a"],
        vec!["rewrite", coll, "http://127.0.0.1:9/x"],
    ] {
        let out = atlas(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.starts_with("atlas: ") && err.ends_with('\n') && err.lines().count() == 1,
            "{args:?}: {err:?}"
        );
    }
    let out = atlas(&["show", coll, "nope"]);
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "atlas: no dataset 'nope' in the collection (it may have been removed)\n"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Serves `root` over HTTP/1.1 with single and suffix byte ranges, one
/// request per connection; returns the base URL.
fn serve(root: PathBuf) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let root = root.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
                let mut range = None;
                loop {
                    let mut header = String::new();
                    if reader.read_line(&mut header).unwrap() <= 2 {
                        break;
                    }
                    if let Some(v) = header.to_ascii_lowercase().strip_prefix("range: bytes=") {
                        range = Some(v.trim().to_string());
                    }
                }
                let body = std::fs::read(root.join(path.trim_start_matches('/')));
                let reply = match (body, range) {
                    (Err(_), _) => {
                        b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                            .to_vec()
                    }
                    (Ok(body), None) => {
                        let mut r = format!(
                            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                            body.len()
                        )
                        .into_bytes();
                        r.extend_from_slice(&body);
                        r
                    }
                    (Ok(body), Some(spec)) => {
                        let size = body.len() as u64;
                        let (a, b) = spec.split_once('-').unwrap();
                        let (start, end) = if a.is_empty() {
                            (size.saturating_sub(b.parse().unwrap()), size - 1)
                        } else {
                            (a.parse().unwrap(), b.parse::<u64>().unwrap().min(size - 1))
                        };
                        let mut r = format!(
                            "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes {start}-{end}/{size}\r\nContent-Length: {}\r\nETag: \"v1\"\r\nConnection: close\r\n\r\n",
                            end + 1 - start
                        )
                        .into_bytes();
                        r.extend_from_slice(&body[start as usize..=end as usize]);
                        r
                    }
                };
                let _ = stream.write_all(&reply);
                let mut rest = Vec::new();
                let _ = reader.read_to_end(&mut rest);
            });
        }
    });
    format!("http://127.0.0.1:{port}")
}

#[test]
fn every_reading_command_answers_the_same_over_http() {
    let root = scratch("http");
    let dir = root.join("coll");
    collection(&dir);
    stdout(&atlas(&["rm", dir.to_str().unwrap(), "day2.nc"]));
    let base = serve(root.clone());
    let url = format!("{base}/coll");
    let local = dir.to_str().unwrap();
    for args in [
        vec!["ls"],
        vec!["ls", "--json"],
        vec!["show", "COLL", "day1.nc"],
        vec!["show", "--json", "COLL", "day0.nc"],
        vec![
            "get", "COLL", "day1.nc", "t", "--start", "1,0", "--shape", "2,4",
        ],
        vec!["get", "COLL", "day0.nc", "names", "--format", "json"],
    ] {
        let with = |c: &str| -> Vec<String> {
            let mut a: Vec<String> = args
                .iter()
                .map(|s| {
                    if *s == "COLL" {
                        c.to_string()
                    } else {
                        s.to_string()
                    }
                })
                .collect();
            if !args.contains(&"COLL") {
                a.push(c.to_string());
            }
            a
        };
        let run = |c: &str| {
            let a = with(c);
            let out = atlas(&a.iter().map(String::as_str).collect::<Vec<_>>());
            assert!(
                out.status.success(),
                "{a:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            out.stdout
        };
        assert_eq!(run(&url), run(local), "{args:?}");
    }
    // info names its source, so compare everything but that line.
    let info = |c: &str| {
        stdout(&atlas(&["info", c]))
            .lines()
            .skip(1)
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(info(&url), info(local));
    assert!(stdout(&atlas(&["info", &url])).contains("removed           1 (of 3 written"));
    let out = atlas(&["ls", &format!("{base}/missing")]);
    assert_eq!(out.status.code(), Some(1));
    std::fs::remove_dir_all(&root).unwrap();
}
