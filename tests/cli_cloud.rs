//! Buckets (feature `cloud`): against a real S3-compatible server (moto,
//! started here on 127.0.0.1), `rewrite` uploads a collection, every reading
//! command answers as on the local copy, and `rm` writes the bucket's mask.
//! An `atlas rewrite` into a bucket killed at each of its steps leaves the
//! old collection or the new one, and a bucket mask is bound to its
//! container. Skipped with a message when moto's server is not installed.

#![cfg(feature = "cloud")]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use atlas_wasm::write::{AtlasWriter, WriterConfig};
use atlas_wasm::{Attr, FillValue};

struct Moto {
    child: Child,
    port: u16,
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `python -m moto.server` by the interpreter's real path, so the
/// child we hold is the server itself and not a launcher shim.
fn moto() -> Option<Moto> {
    let probe = Command::new("python3")
        .args([
            "-c",
            "import sys, moto.server, flask; print(sys.executable)",
        ])
        .output()
        .ok()?;
    if !probe.status.success() {
        return None;
    }
    let python = String::from_utf8(probe.stdout).ok()?.trim().to_string();
    let port = TcpListener::bind("127.0.0.1:0")
        .ok()?
        .local_addr()
        .ok()?
        .port();
    let child = Command::new(python)
        .args([
            "-m",
            "moto.server",
            "-H",
            "127.0.0.1",
            "-p",
            &port.to_string(),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let moto = Moto { child, port };
    let started = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if started.elapsed() > Duration::from_secs(30) {
            return None;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Some(moto)
}

/// Creates a bucket with one unsigned PUT, which moto accepts.
fn create_bucket(port: u16, bucket: &str) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(s, "PUT /{bucket} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    assert!(
        answer.starts_with("HTTP/1.1 200") || answer.starts_with("HTTP/1.0 200"),
        "{answer}"
    );
}

fn atlas(port: u16, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_atlas"))
        .args(args)
        .env("AWS_ENDPOINT", format!("http://127.0.0.1:{port}"))
        .env("AWS_ALLOW_HTTP", "true")
        .env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .env("AWS_REGION", "us-east-1")
        .output()
        .unwrap()
}

fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The moto server, or `None` after saying why the test is skipped.
fn moto_or_skip() -> Option<Moto> {
    let server = moto();
    if server.is_none() {
        // CI installs moto and sets ATLAS_REQUIRE_PYTHON: there a skip is a failure.
        assert!(
            std::env::var_os("ATLAS_REQUIRE_PYTHON").is_none(),
            "moto[server] is required"
        );
        eprintln!("moto's server is not installed; skipped (pip install 'moto[server]')");
    }
    server
}

/// Writes `n` datasets `{prefix}0..` with one small array each to `dir`.
fn write_collection(dir: &std::path::Path, prefix: &str, n: u8) {
    let _ = std::fs::remove_dir_all(dir);
    let w = AtlasWriter::create(dir, WriterConfig::default()).unwrap();
    for d in 0..n {
        let mut ds = w.add_dataset(&format!("{prefix}{d}")).unwrap();
        ds.define_array::<f64>(
            "v",
            vec!["i".into()],
            &[5],
            Some(&[2]),
            Some(FillValue::Float(f64::NAN)),
        )
        .unwrap();
        ds.write_array("v", &[1], &[3], &[d as f64, 1.5, -2.0])
            .unwrap();
        ds.set_attribute("d", Attr::UInt8(d));
        ds.finish().unwrap();
    }
    w.finish().unwrap();
}

fn scratch(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("atlas-wasm-cloud-{}-{name}", std::process::id()))
}

#[test]
fn a_collection_in_a_bucket_reads_writes_and_hides_like_a_local_one() {
    let Some(server) = moto_or_skip() else {
        return;
    };
    let port = server.port;
    create_bucket(port, "atlas");
    let local = scratch("one");
    write_collection(&local, "d", 3);
    let l = local.to_str().unwrap().to_string();
    let url = "s3://atlas/collections/one";
    ok(atlas(port, &["rewrite", &l, url]));
    for args in [vec!["ls"], vec!["show", "d1"], vec!["show", "--json", "d2"]] {
        let run = |c: &str| {
            let mut a = vec![args[0], c];
            a.extend(&args[1..]);
            if args[0] == "show" && args.len() == 3 {
                a = vec!["show", "--json", c, args[2]];
            }
            ok(atlas(port, &a))
        };
        assert_eq!(run(url), run(&l), "{args:?}");
    }
    let got = ok(atlas(port, &["get", url, "d1", "v", "--format", "json"]));
    assert!(got.contains("NaN") && got.contains("1.5"), "{got}");
    assert_eq!(
        ok(atlas(port, &["rm", url, "d0"])),
        "removed 1: d0\n2 dataset(s) remain\n"
    );
    assert_eq!(ok(atlas(port, &["ls", url])), "d1\nd2\n");
    let failed = atlas(port, &["rm", url, "d0"]);
    assert_eq!(failed.status.code(), Some(1));
    let info = ok(atlas(port, &["info", url]));
    assert!(info.contains("removed           1 (of 3 written"), "{info}");
    // A rewrite back from the bucket drops the hidden dataset.
    let back: PathBuf = local.join("back");
    ok(atlas(port, &["rewrite", url, back.to_str().unwrap()]));
    assert_eq!(ok(atlas(port, &["ls", back.to_str().unwrap()])), "d1\nd2\n");
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
    let mut child = Command::new(env!("CARGO_BIN_EXE_atlas"))
        .args(args)
        .env("AWS_ENDPOINT", format!("http://127.0.0.1:{port}"))
        .env("AWS_ALLOW_HTTP", "true")
        .env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .env("AWS_REGION", "us-east-1")
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
    write_collection(&old, "d", 3);
    write_collection(&new, "n", 4);
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
