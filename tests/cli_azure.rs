//! Azure Blob Storage (feature `cloud`) against Azurite, Microsoft's
//! emulator, started here on 127.0.0.1 (scripts/setup.sh installs it into
//! target/emulators from tests/emulators): a collection rewritten to `az://`
//! reads as its local copy does, `rm` hides through the container's mask, a
//! rewrite back drops what is hidden, `merge` puts a merged collection in
//! the container, and a missing collection is an error.
//! Azure has no suffix range, so the open asks the size first.

#![cfg(feature = "cloud")]

#[path = "common/buckets.rs"]
mod buckets;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use buckets::{free_port, ok, skip, small_collection, start, Emulator};

/// Azurite's well-known development account (public, documented by Microsoft).
const ACCOUNT: &str = "devstoreaccount1";
const KEY: &str =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

fn emulators() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/emulators/node_modules")
}

/// Starts Azurite's blob service with an empty in-memory store, or `None`
/// after saying why the test is skipped.
fn azurite() -> Option<Emulator> {
    let main = emulators().join("azurite/dist/src/blob/main.js");
    if !main.exists() {
        return skip("Azurite", "bash scripts/setup.sh python");
    }
    let port = free_port();
    // In memory, and its debug log off: nothing is written anywhere.
    let mut command = Command::new("node");
    command
        .arg(main)
        .args(["--blobHost", "127.0.0.1", "--blobPort", &port.to_string()])
        .args(["--inMemoryPersistence", "--silent", "--skipApiVersionCheck"]);
    Some(start("Azurite", command, port))
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

fn scratch(name: &str) -> PathBuf {
    buckets::scratch("azure", name)
}

#[test]
fn a_collection_in_azure_blob_storage_reads_writes_and_hides_like_a_local_one() {
    let Some(server) = azurite() else {
        return;
    };
    let port = server.port;
    create_container(port, "atlas");
    let local = scratch("one");
    small_collection(&local, "d", 0..3);
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
    small_collection(&part, "d", 3..5);
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
