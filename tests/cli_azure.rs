//! Azure Blob Storage (feature `cloud`) against Azurite, Microsoft's
//! emulator, started here on 127.0.0.1 (scripts/setup.sh installs it into
//! target/emulators from tests/emulators): a collection rewritten to `az://`
//! reads as its local copy does, `rm` hides through the container's mask, a
//! rewrite back drops what is hidden, `merge` puts a merged collection in
//! the container (also one of 25.6 MB, uploaded in blocks), and a missing
//! collection is an error.
//! Azure has no suffix range, so the open asks the size first.

#![cfg(feature = "cloud")]

#[path = "common/buckets.rs"]
mod buckets;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use buckets::{
    free_port, number, ok, reads_writes_and_hides_like_a_local_one, skip, small_collection, start,
    BigParts, Emulator,
};

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
    let url = "az://atlas/collections/one";
    reads_writes_and_hides_like_a_local_one(url, &local, |args| atlas(port, args));
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

    // Parts of 12.8 MB each: the merged container goes up as blocks of
    // 8 MiB and a block list (Azure's multipart), value for value.
    let parts = BigParts::new("azure", |args| atlas(port, args));
    let (p0, p1, here) = (&*parts.p0, &*parts.p1, &*parts.merged);
    let big = "az://atlas/collections/big";
    let json = ok(atlas(port, &["merge", "--json", p0, p1, big]));
    assert!(
        number(&json, "bucket_bytes_written") > 4 * 6_400_000,
        "{json}"
    );
    for (name, array) in [("a", "y"), ("b", "x")] {
        let get = |c: &str| ok(atlas(port, &["get", c, name, array, "--format", "json"]));
        assert_eq!(get(big), get(here), "{name}/{array}");
    }

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
