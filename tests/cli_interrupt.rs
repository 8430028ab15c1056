//! Ctrl-C during a local write (feature `cli`, debug builds, which honour
//! `ATLAS_WRITER_PAUSE_AT`): `atlas` removes what it staged and exits with
//! 130. A new destination is not left behind; an old collection is left as
//! it was, without the hidden work directory the write had filled.

#![cfg(all(feature = "cli", debug_assertions))]

// Only the local parts of these are used here.
#[allow(dead_code)]
#[path = "common/buckets.rs"]
mod buckets;
#[allow(dead_code)]
#[path = "common/interrupt.rs"]
mod interrupt;

use std::path::Path;
use std::process::Command;

use buckets::{ok, scratch, small_collection};
use interrupt::interrupt_at;

fn atlas(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_atlas"));
    command.args(args);
    command
}

/// Names in `dir` that a finished write would not leave.
fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with('.'))
        .collect()
}

#[test]
fn an_interrupted_merge_leaves_no_destination() {
    let (p0, p1, dest) = (
        scratch("interrupt", "p0"),
        scratch("interrupt", "p1"),
        scratch("interrupt", "merged"),
    );
    small_collection(&p0, "a", 0..3);
    small_collection(&p1, "b", 0..2);
    let _ = std::fs::remove_dir_all(&dest);
    let args = [
        p0.to_str().unwrap(),
        p1.to_str().unwrap(),
        dest.to_str().unwrap(),
    ];
    let ended = interrupt_at(atlas(&[&["merge"][..], &args].concat()), "container-synced");
    assert_eq!(ended.status.code(), Some(130), "{}", ended.stderr);
    assert!(
        ended.stderr.contains("atlas: interrupted"),
        "{}",
        ended.stderr
    );
    assert!(
        !dest.exists(),
        "{:?}",
        std::fs::read_dir(&dest).map(|d| d.count())
    );

    // The same merge, not interrupted, still works.
    ok(atlas(&[&["merge"][..], &args].concat()).output().unwrap());
    assert_eq!(
        ok(atlas(&["ls", args[2]]).output().unwrap()),
        "a0\na1\na2\nb0\nb1\n"
    );
    for dir in [p0, p1, dest] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn an_interrupted_rewrite_leaves_the_old_collection_and_no_work() {
    let (old, new) = (scratch("interrupt", "old"), scratch("interrupt", "new"));
    small_collection(&old, "d", 0..3);
    small_collection(&new, "n", 0..2);
    let (o, n) = (old.to_str().unwrap(), new.to_str().unwrap());
    let ended = interrupt_at(atlas(&["rewrite", n, o]), "container-synced");
    assert_eq!(ended.status.code(), Some(130), "{}", ended.stderr);
    assert_eq!(ok(atlas(&["ls", o]).output().unwrap()), "d0\nd1\nd2\n");
    assert_eq!(leftovers(&old), Vec::<String>::new());
    for dir in [old, new] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}
