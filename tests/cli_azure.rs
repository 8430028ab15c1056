//! Azure Blob Storage (feature `cloud`) against Azurite, Microsoft's
//! emulator, started here on 127.0.0.1 (scripts/setup.sh installs it into
//! target/emulators from tests/emulators): a collection rewritten to `az://`
//! reads as its local copy does, `rm` hides through the container's mask, a
//! rewrite back drops what is hidden, `merge` puts a merged collection in
//! the container, and a missing collection is an error.
//! Azure has no suffix range, so the open asks the size first.

#![cfg(feature = "cloud")]

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use atlas_wasm::write::{AtlasWriter, WriterConfig};
use atlas_wasm::{Attr, FillValue};

/// Azurite's well-known development account (public, documented by Microsoft).
const ACCOUNT: &str = "devstoreaccount1";
const KEY: &str =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

struct Azurite {
    child: Child,
    port: u16,
}

impl Drop for Azurite {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn emulators() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/emulators/node_modules")
}

/// Starts Azurite's blob service with an empty in-memory store, or `None`
/// after saying why the test is skipped.
fn azurite() -> Option<Azurite> {
    let main = emulators().join("azurite/dist/src/blob/main.js");
    if !main.exists() {
        // CI runs scripts/setup.sh and sets ATLAS_REQUIRE_PYTHON: there a skip is a failure.
        assert!(
            std::env::var_os("ATLAS_REQUIRE_PYTHON").is_none(),
            "Azurite is required: bash scripts/setup.sh python"
        );
        eprintln!("Azurite is not installed; skipped (bash scripts/setup.sh python)");
        return None;
    }
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    // In memory, and its debug log off: nothing is written anywhere.
    let child = Command::new("node")
        .arg(main)
        .args(["--blobHost", "127.0.0.1", "--blobPort", &port.to_string()])
        .args(["--inMemoryPersistence", "--silent", "--skipApiVersionCheck"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let server = Azurite { child, port };
    let deadline = Instant::now() + Duration::from_secs(60);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "Azurite did not start on {port}");
        std::thread::sleep(Duration::from_millis(100));
    }
    Some(server)
}

fn connection(port: u16) -> String {
    format!(
        "DefaultEndpointsProtocol=http;AccountName={ACCOUNT};AccountKey={KEY};\
         BlobEndpoint=http://127.0.0.1:{port}/{ACCOUNT};"
    )
}

/// Creates a container with the Azure SDK (object_store cannot).
fn create_container(port: u16, name: &str) {
    let script = "const { BlobServiceClient } = require(process.argv[1]);\
        BlobServiceClient.fromConnectionString(process.argv[2]).createContainer(process.argv[3])\
        .then(() => {}, (e) => { console.error(e.message); process.exit(1); });";
    let out = Command::new("node")
        .arg("-e")
        .arg(script)
        .arg(emulators().join("@azure/storage-blob"))
        .arg(connection(port))
        .arg(name)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn atlas(port: u16, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_atlas"))
        .args(args)
        .env("AZURE_STORAGE_USE_EMULATOR", "true")
        .env(
            "AZURITE_BLOB_STORAGE_URL",
            format!("http://127.0.0.1:{port}"),
        )
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

fn write_collection(dir: &Path, names: std::ops::Range<u8>) {
    let _ = std::fs::remove_dir_all(dir);
    let w = AtlasWriter::create(dir, WriterConfig::default()).unwrap();
    for d in names {
        let mut ds = w.add_dataset(&format!("d{d}")).unwrap();
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
    std::env::temp_dir().join(format!("atlas-wasm-azure-{}-{name}", std::process::id()))
}

#[test]
fn a_collection_in_azure_blob_storage_reads_writes_and_hides_like_a_local_one() {
    let Some(server) = azurite() else {
        return;
    };
    let port = server.port;
    create_container(port, "atlas");
    let local = scratch("one");
    write_collection(&local, 0..3);
    let l = local.to_str().unwrap().to_string();
    let url = "az://atlas/collections/one";
    ok(atlas(port, &["rewrite", &l, url]));
    for args in [vec!["ls"], vec!["info"]] {
        let run = |c: &str| ok(atlas(port, &[args[0], c])).replace(c, "COLL");
        let (remote, here) = (run(url), run(&l));
        let strip = |s: &str| {
            s.lines()
                .filter(|l| !l.contains("created") && !l.contains("container size"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(strip(&remote), strip(&here), "{args:?}");
    }
    assert_eq!(
        ok(atlas(port, &["show", "--json", url, "d1"])),
        ok(atlas(port, &["show", "--json", &l, "d1"]))
    );
    let got = ok(atlas(port, &["get", url, "d1", "v", "--format", "json"]));
    assert!(got.contains("NaN") && got.contains("1.5"), "{got}");
    assert_eq!(
        ok(atlas(port, &["rm", url, "d0"])),
        "removed 1: d0\n2 dataset(s) remain\n"
    );
    assert_eq!(ok(atlas(port, &["ls", url])), "d1\nd2\n");
    let info = ok(atlas(port, &["info", url]));
    assert!(info.contains("removed           1 (of 3 written"), "{info}");
    // A rewrite back from the container drops the hidden dataset.
    let back = local.join("back");
    ok(atlas(port, &["rewrite", url, back.to_str().unwrap()]));
    assert_eq!(ok(atlas(port, &["ls", back.to_str().unwrap()])), "d1\nd2\n");
    // Merged with a local part into the container: staged locally, put in
    // one upload; the hidden d0 is dropped.
    let part = scratch("part");
    write_collection(&part, 3..5);
    let merged = "az://atlas/collections/merged";
    let json = ok(atlas(
        port,
        &["merge", "--json", url, part.to_str().unwrap(), merged],
    ));
    let summary: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (summary["datasets"].as_u64(), summary["dropped"].as_u64()),
        (Some(4), Some(1)),
        "{json}"
    );
    assert_eq!(ok(atlas(port, &["ls", merged])), "d1\nd2\nd3\nd4\n");
    assert_eq!(
        ok(atlas(port, &["get", merged, "d4", "v", "--format", "json"])),
        ok(atlas(
            port,
            &["get", part.to_str().unwrap(), "d4", "v", "--format", "json"]
        ))
    );
    std::fs::remove_dir_all(&part).unwrap();

    // A missing collection is NotFound in words, not a crash.
    let missing = atlas(port, &["ls", "az://atlas/nothing-here"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&missing.stderr).starts_with("atlas: "),
        "{}",
        String::from_utf8_lossy(&missing.stderr)
    );
    std::fs::remove_dir_all(&local).unwrap();
}
