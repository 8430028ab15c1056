//! Buckets (feature `cloud`): against a real S3-compatible server (moto,
//! started here on 127.0.0.1), `rewrite` uploads a collection, every reading
//! command answers as on the local copy, and `rm` writes the bucket's mask.
//! An `atlas rewrite` into a bucket killed at each of its steps leaves the
//! old collection or the new one, and a bucket mask is bound to its
//! container. `atlas merge` joins parts in the bucket into the bucket with
//! the store copying the blocks (UploadPartCopy): only footers pass through
//! the merger. Skipped with a message when moto's server is not installed.

#![cfg(feature = "cloud")]

#[path = "common/buckets.rs"]
mod buckets;
#[path = "common/interrupt.rs"]
mod interrupt;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use buckets::{
    free_port, moto_python, number, ok, reads_writes_and_hides_like_a_local_one, small_collection,
    start, BigParts, Emulator,
};
use interrupt::interrupt_at;

/// Starts `python -m moto.server` by the interpreter's real path, so the
/// child we hold is the server itself and not a launcher shim; or `None`
/// after saying why the test is skipped.
fn moto_or_skip() -> Option<Emulator> {
    let python = moto_python()?;
    let port = free_port();
    let mut command = Command::new(python);
    command.args([
        "-m",
        "moto.server",
        "-H",
        "127.0.0.1",
        "-p",
        &port.to_string(),
    ]);
    Some(start("moto", command, port))
}

/// Creates a bucket with one unsigned PUT, which moto accepts.
fn create_bucket(port: u16, bucket: &str) {
    unsigned(port, "PUT", &format!("/{bucket}"));
}

/// The answer to one unsigned request, asserted to be a 200.
fn unsigned(port: u16, method: &str, target: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(s, "{method} {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    assert!(
        answer.starts_with("HTTP/1.1 200") || answer.starts_with("HTTP/1.0 200"),
        "{answer}"
    );
    answer
}

/// `atlas args`, talking to moto on `port`.
fn atlas_command(port: u16, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_atlas"));
    command
        .args(args)
        .env("AWS_ENDPOINT", format!("http://127.0.0.1:{port}"))
        .env("AWS_ALLOW_HTTP", "true")
        .env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .env("AWS_REGION", "us-east-1");
    command
}

fn atlas(port: u16, args: &[&str]) -> Output {
    atlas_command(port, args).output().unwrap()
}

fn scratch(name: &str) -> PathBuf {
    buckets::scratch("cloud", name)
}

#[test]
fn a_collection_in_a_bucket_reads_writes_and_hides_like_a_local_one() {
    let Some(server) = moto_or_skip() else {
        return;
    };
    let port = server.port;
    create_bucket(port, "atlas");
    let local = scratch("one");
    reads_writes_and_hides_like_a_local_one("s3://atlas/collections/one", &local, |args| {
        atlas(port, args)
    });
    std::fs::remove_dir_all(&local).unwrap();
}

/// Puts `bytes` at `key` of bucket `atlas` in one PUT, as a writer that
/// knows nothing of masks (atlas-rust, a plain copy) replaces a container.
fn put_object(port: u16, key: &str, bytes: &[u8]) {
    use object_store::{ObjectStoreExt, PutPayload};
    let store = object_store::aws::AmazonS3Builder::new()
        .with_endpoint(format!("http://127.0.0.1:{port}"))
        .with_allow_http(true)
        .with_bucket_name("atlas")
        .with_region("us-east-1")
        .with_access_key_id("testing")
        .with_secret_access_key("testing")
        .build()
        .unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let path = object_store::path::Path::from(key);
    runtime
        .block_on(store.put(&path, PutPayload::from(bytes.to_vec())))
        .unwrap();
}

/// Runs `atlas args` until it announces `step`, then SIGKILLs it.
fn kill_atlas_at(port: u16, args: &[&str], step: &str) {
    let mut child = atlas_command(port, args)
        .env("ATLAS_WRITER_PAUSE_AT", step)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let wanted = format!("ATLAS_WRITER_PAUSED_AT {step}");
    let mut seen = Vec::new();
    for line in BufReader::new(child.stderr.take().unwrap()).lines() {
        let line = line.unwrap();
        if line == wanted {
            child.kill().unwrap();
            child.wait().unwrap();
            return;
        }
        seen.push(line);
    }
    let status = child.wait().unwrap();
    panic!("atlas never reached '{step}' ({status}): {seen:?}");
}

/// The bucket side of docs/write-path.md's "Crash safety": `atlas rewrite`
/// over a collection with a mask, killed after each step, leaves the old
/// collection (deletions kept) or the new one (nothing hidden). Before the
/// fix the mask went first: a kill before the upload finished showed the old
/// collection with its deletions undone (`d0` back).
#[test]
fn a_killed_upload_leaves_the_old_collection_or_the_new_one() {
    let Some(server) = moto_or_skip() else {
        return;
    };
    let port = server.port;
    create_bucket(port, "atlas");
    let (old, new) = (scratch("old"), scratch("new"));
    small_collection(&old, "d", 0..3);
    small_collection(&new, "n", 0..4);
    let (old_dir, new_dir) = (old.to_str().unwrap(), new.to_str().unwrap());
    let (old_seen, new_seen) = ("d1\nd2\n", "n0\nn1\nn2\nn3\n");
    let steps = [
        ("bucket-mask-bound", old_seen),
        ("bucket-container-uploaded", new_seen),
        ("bucket-mask-removed", new_seen),
    ];
    for (step, seen) in steps {
        let url = format!("s3://atlas/kill/{step}");
        ok(atlas(port, &["rewrite", old_dir, &url]));
        ok(atlas(port, &["rm", &url, "d0"]));
        assert_eq!(ok(atlas(port, &["ls", &url])), old_seen);
        kill_atlas_at(port, &["rewrite", new_dir, &url], step);
        assert_eq!(ok(atlas(port, &["ls", &url])), seen, "killed at {step}");
        // Whatever is left, a rewrite after the kill finishes the job.
        ok(atlas(port, &["rewrite", new_dir, &url]));
        assert_eq!(ok(atlas(port, &["ls", &url])), new_seen, "after {step}");
    }

    // `rm` binds its mask: a container put by a writer that knows nothing of
    // masks is read whole, not with the old ordinal 0 (`n0`) hidden.
    let url = "s3://atlas/race";
    ok(atlas(port, &["rewrite", old_dir, url]));
    ok(atlas(port, &["rm", url, "d0"]));
    put_object(
        port,
        "race/data.atlas",
        &std::fs::read(new.join("data.atlas")).unwrap(),
    );
    assert_eq!(ok(atlas(port, &["ls", url])), new_seen);
    std::fs::remove_dir_all(&old).unwrap();
    std::fs::remove_dir_all(&new).unwrap();
}

/// Parts in the bucket merged into the bucket: the store copies each part's
/// 6.4 MB runs of blocks (UploadPartCopy), joining a run and the segment
/// footer after it into a temporary object, so the merger reads the parts'
/// footers and sends the new ones, and the collection reads value for value
/// as a local merge of the same parts. Also local parts into the bucket and
/// bucket parts into a local directory; and a failed merge leaves nothing.
#[test]
fn merging_in_a_bucket_moves_only_footers_through_the_merger() {
    let Some(server) = moto_or_skip() else {
        return;
    };
    let port = server.port;
    create_bucket(port, "atlas");
    let parts = BigParts::new("cloud", |args| atlas(port, args));
    let (p0, p1, here) = (&*parts.p0, &*parts.p1, &*parts.merged);
    ok(atlas(port, &["rewrite", p0, "s3://atlas/parts/p0"]));
    ok(atlas(port, &["rewrite", p1, "s3://atlas/parts/p1"]));

    let url = "s3://atlas/merged";
    let json = ok(atlas(
        port,
        &[
            "merge",
            "--json",
            "s3://atlas/parts/p0",
            "s3://atlas/parts/p1",
            url,
        ],
    ));
    let container = number(&json, "container_bytes");
    let (read, written) = (
        number(&json, "bucket_bytes_read"),
        number(&json, "bucket_bytes_written"),
    );
    eprintln!("merge in the bucket: container {container} B, read {read} B, sent {written} B");
    assert!(container > 4 * 6_400_000, "{json}");
    // The parts' collection footers (a tail probe each) and segment footers.
    assert!(read < 300_000 && written < 100_000, "{json}");
    for (name, array) in [("a", "x"), ("a", "y"), ("b", "x"), ("b", "y")] {
        let get = |c: &str| ok(atlas(port, &["get", c, name, array, "--format", "json"]));
        assert_eq!(get(url), get(here), "{name}/{array}");
    }
    assert_eq!(ok(atlas(port, &["ls", url])), "a\nb\n");

    // Local parts into the bucket go through the merger; bucket parts into
    // a local directory are read by range.
    let json = ok(atlas(
        port,
        &["merge", "--json", p0, p1, "s3://atlas/from-local"],
    ));
    assert_eq!(number(&json, "bucket_bytes_read"), 0, "{json}");
    assert!(
        number(&json, "bucket_bytes_written") >= container - 100_000,
        "{json}"
    );
    let back = scratch("back");
    let back = back.to_str().unwrap();
    ok(atlas(
        port,
        &["merge", "s3://atlas/parts/p0", "s3://atlas/parts/p1", back],
    ));
    for c in ["s3://atlas/from-local", back] {
        assert_eq!(ok(atlas(port, &["ls", c])), "a\nb\n");
        let get = |c: &str| ok(atlas(port, &["get", c, "b", "y", "--format", "json"]));
        assert_eq!(get(c), get(here), "{c}");
    }

    // A dataset in two parts: an error naming both, and nothing at DST.
    let failed = atlas(
        port,
        &["merge", "s3://atlas/parts/p0", p0, "s3://atlas/failed"],
    );
    assert_eq!(failed.status.code(), Some(1));
    let message = String::from_utf8_lossy(&failed.stderr);
    assert!(
        message.contains("dataset 'a' is in part s3://atlas/parts/p0"),
        "{message}"
    );
    assert_eq!(
        atlas(port, &["ls", "s3://atlas/failed"]).status.code(),
        Some(1)
    );
    std::fs::remove_dir_all(back).unwrap();
}

/// Ctrl-C while the store copies a merge's runs of blocks: the upload is
/// aborted at the next part and its joined pieces removed, so the bucket
/// holds no unfinished upload and nothing at the destination; exit 130.
#[test]
fn an_interrupted_merge_into_a_bucket_gives_its_upload_up() {
    let Some(server) = moto_or_skip() else {
        return;
    };
    let port = server.port;
    create_bucket(port, "atlas");
    let parts = BigParts::new("cloud-stop", |args| atlas(port, args));
    ok(atlas(port, &["rewrite", &parts.p0, "s3://atlas/parts/p0"]));
    ok(atlas(port, &["rewrite", &parts.p1, "s3://atlas/parts/p1"]));
    let merge = [
        "merge",
        "s3://atlas/parts/p0",
        "s3://atlas/parts/p1",
        "s3://atlas/stopped",
    ];
    let ended = interrupt_at(atlas_command(port, &merge), "bucket-part-placed");
    assert_eq!(ended.status.code(), Some(130), "{}", ended.stderr);
    assert!(
        ended.stderr.contains("giving the upload up"),
        "{}",
        ended.stderr
    );
    assert!(!unsigned(port, "GET", "/atlas?uploads").contains("<Upload>"));
    let keys = unsigned(port, "GET", "/atlas?list-type=2");
    assert!(!keys.contains("stopped"), "{keys}");
    assert_eq!(
        atlas(port, &["ls", "s3://atlas/stopped"]).status.code(),
        Some(1)
    );
    // The same merge, not interrupted, still works.
    ok(atlas(port, &merge));
    assert_eq!(ok(atlas(port, &["ls", "s3://atlas/stopped"])), "a\nb\n");
}
