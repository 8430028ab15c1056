//! The writer keeps its promise under SIGKILL: a child process runs one
//! writer action (finish over an existing collection, an in-place rewrite,
//! `delete_datasets`, `atlas rm`) and pauses at a named step
//! (`ATLAS_WRITER_PAUSE_AT`, honoured by debug builds only); the test kills
//! it there and opens what is left. It must be exactly the collection
//! before the action, or exactly the one after, whichever the step implies:
//! the same datasets, the same hidden ones, the same value bits.

#![cfg(all(feature = "writer", debug_assertions))]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use atlas_wasm::write::{delete_datasets, rewrite, AtlasWriter, WriterConfig};
use atlas_wasm::Atlas;
use futures_executor::block_on;

/// What a reader sees in a directory: every dataset of the footer, the live
/// ones, and the bits of each live dataset's values; or the error code.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    live: Vec<String>,
    hidden: usize,
    bits: Vec<Vec<u64>>,
}

fn observe(dir: &Path) -> Result<Seen, String> {
    let atlas = block_on(Atlas::open_path(dir)).map_err(|e| e.code().to_string())?;
    let live = atlas.list_datasets();
    let bits = live
        .iter()
        .map(|name| {
            let view = atlas.dataset(name).unwrap();
            let values = block_on(view.read_array_as::<f64>("v", &[0], &[8])).unwrap();
            values.data.iter().map(|v| v.to_bits()).collect()
        })
        .collect();
    Ok(Seen {
        live,
        hidden: atlas.deleted_count(),
        bits,
    })
}

/// Writes datasets `{prefix}0..{prefix}{n}` into `dir`; `salt` sets the values.
fn write_collection(dir: &Path, prefix: &str, n: usize, salt: f64) {
    let w = AtlasWriter::create(dir, WriterConfig::default()).unwrap();
    for i in 0..n {
        let mut ds = w.add_dataset(&format!("{prefix}{i}")).unwrap();
        ds.define_array::<f64>("v", vec!["k".into()], &[8], None, None)
            .unwrap();
        let values: Vec<f64> = (0..8).map(|k| salt + (i * 8 + k) as f64).collect();
        ds.write_array("v", &[0], &[8], &values).unwrap();
        ds.finish().unwrap();
    }
    w.finish().unwrap();
}

/// An old mask as atlas-rust writes it: ordinals only, bound to nothing.
fn unbound_mask(ordinals: &[u32]) -> Vec<u8> {
    let mut out = b"ATLM".to_vec();
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&(ordinals.len() as u32).to_le_bytes());
    for o in ordinals {
        out.extend_from_slice(&o.to_le_bytes());
    }
    out
}

/// One writer action over a prepared directory.
#[derive(Debug, Clone, Copy)]
enum Scenario {
    /// A new collection of 5 datasets over one of 4 with 2 hidden by a mask
    /// `delete_datasets` wrote (bound to its container).
    ReplaceBoundMask,
    /// The same over a mask atlas-rust wrote (bound to nothing).
    ReplaceUnboundMask,
    /// `rewrite` of the collection into its own directory.
    RewriteInPlace,
    /// A first collection in an empty directory.
    FirstWrite,
    /// `delete_datasets` of a third dataset where a mask hides one.
    DeleteMore,
    /// `delete_datasets` where no mask exists yet.
    DeleteFirst,
    /// `atlas rm` (the CLI binary) where a mask hides one.
    #[cfg(feature = "cli")]
    CliRm,
}

impl Scenario {
    const ALL: &'static [Scenario] = &[
        Scenario::ReplaceBoundMask,
        Scenario::ReplaceUnboundMask,
        Scenario::RewriteInPlace,
        Scenario::FirstWrite,
        Scenario::DeleteMore,
        Scenario::DeleteFirst,
        #[cfg(feature = "cli")]
        Scenario::CliRm,
    ];

    /// The steps the action passes, each with whether the new collection
    /// is the one a reader must see once the process dies there.
    fn steps(self) -> &'static [(&'static str, bool)] {
        const FINISH_OVER_MASK: &[(&str, bool)] = &[
            ("container-synced", false),
            ("mask-staged", false),
            ("mask-renamed", false),
            ("container-renamed", true),
            ("mask-removed", true),
        ];
        const DELETE: &[(&str, bool)] = &[("mask-staged", false), ("mask-renamed", true)];
        match self {
            Scenario::ReplaceBoundMask
            | Scenario::ReplaceUnboundMask
            | Scenario::RewriteInPlace => FINISH_OVER_MASK,
            Scenario::FirstWrite => &[("container-synced", false), ("container-renamed", true)],
            Scenario::DeleteMore | Scenario::DeleteFirst => DELETE,
            #[cfg(feature = "cli")]
            Scenario::CliRm => DELETE,
        }
    }

    fn name(self) -> String {
        format!("{self:?}")
    }

    /// The directory as it is before the action.
    fn prepare(self, dir: &Path) {
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(dir).unwrap();
        match self {
            Scenario::FirstWrite => {}
            Scenario::ReplaceUnboundMask => {
                write_collection(dir, "d", 4, 0.5);
                std::fs::write(dir.join("deleted.mask"), unbound_mask(&[1, 2])).unwrap();
            }
            Scenario::ReplaceBoundMask | Scenario::RewriteInPlace => {
                write_collection(dir, "d", 4, 0.5);
                delete_datasets(dir, &["d1", "d2"], false).unwrap();
            }
            Scenario::DeleteFirst => write_collection(dir, "d", 4, 0.5),
            #[cfg(feature = "cli")]
            Scenario::CliRm => {
                write_collection(dir, "d", 4, 0.5);
                delete_datasets(dir, &["d1"], false).unwrap();
            }
            Scenario::DeleteMore => {
                write_collection(dir, "d", 4, 0.5);
                delete_datasets(dir, &["d1"], false).unwrap();
            }
        }
    }

    /// Runs the action to its end (in the child, or here for the expectation).
    fn act(self, dir: &Path) {
        match self {
            Scenario::ReplaceBoundMask | Scenario::ReplaceUnboundMask | Scenario::FirstWrite => {
                write_collection(dir, "n", 5, -7.25)
            }
            Scenario::RewriteInPlace => {
                let source = block_on(Atlas::open_path(dir)).unwrap();
                block_on(rewrite(&source, dir, WriterConfig::default(), |_, _| {})).unwrap();
            }
            Scenario::DeleteMore => {
                delete_datasets(dir, &["d2"], false).unwrap();
            }
            Scenario::DeleteFirst => {
                delete_datasets(dir, &["d0"], false).unwrap();
            }
            #[cfg(feature = "cli")]
            Scenario::CliRm => {
                let status = Command::new(env!("CARGO_BIN_EXE_atlas"))
                    .arg("rm")
                    .arg(dir)
                    .arg("d3")
                    .stdout(Stdio::null())
                    .status()
                    .unwrap();
                assert!(status.success());
            }
        }
    }

    /// Starts the action in a child process that pauses at `step`.
    fn spawn(self, dir: &Path, step: &str) -> std::process::Child {
        let mut command = match self {
            #[cfg(feature = "cli")]
            Scenario::CliRm => {
                let mut c = Command::new(env!("CARGO_BIN_EXE_atlas"));
                c.arg("rm").arg(dir).arg("d3");
                c
            }
            _ => {
                let mut c = Command::new(std::env::current_exe().unwrap());
                c.args(["--exact", "child_action", "--ignored", "--nocapture"]);
                c.env("ATLAS_KILL_SCENARIO", self.name())
                    .env("ATLAS_KILL_DIR", dir);
                c
            }
        };
        command
            .env("ATLAS_WRITER_PAUSE_AT", step)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }
}

fn scratch(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("atlas-wasm-kill-{}-{name}", std::process::id()))
}

/// The child half: runs the scenario `ATLAS_KILL_SCENARIO` names.
#[test]
#[ignore = "run by a_killed_writer_leaves_the_old_collection_or_the_new_one"]
fn child_action() {
    let (Ok(name), Ok(dir)) = (
        std::env::var("ATLAS_KILL_SCENARIO"),
        std::env::var("ATLAS_KILL_DIR"),
    ) else {
        return;
    };
    let scenario = Scenario::ALL
        .iter()
        .find(|s| s.name() == name)
        .expect("a known scenario");
    scenario.act(Path::new(&dir));
}

/// Waits for the child to announce `step`, then SIGKILLs it.
fn kill_at(mut child: std::process::Child, step: &str) {
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let wanted = format!("ATLAS_WRITER_PAUSED_AT {step}");
    let mut seen = Vec::new();
    for line in stderr.lines() {
        let line = line.unwrap();
        if line == wanted {
            child.kill().unwrap();
            child.wait().unwrap();
            return;
        }
        seen.push(line);
    }
    let status = child.wait().unwrap();
    panic!("the child never reached '{step}' ({status}): {seen:?}");
}

#[test]
fn a_killed_writer_leaves_the_old_collection_or_the_new_one() {
    let mut survived = 0;
    for &scenario in Scenario::ALL {
        let dir = scratch(&scenario.name());
        scenario.prepare(&dir);
        let old = observe(&dir);
        scenario.act(&dir);
        let new = observe(&dir);
        assert_ne!(old, new, "{scenario:?}: the action changes nothing");
        assert!(new.is_ok(), "{scenario:?}: {new:?}");
        for &(step, done) in scenario.steps() {
            scenario.prepare(&dir);
            kill_at(scenario.spawn(&dir, step), step);
            let left = observe(&dir);
            let expected = if done { &new } else { &old };
            assert_eq!(&left, expected, "{scenario:?} killed at {step}");
            survived += 1;
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
    let expected = if cfg!(feature = "cli") { 23 } else { 21 };
    assert_eq!(survived, expected, "kill points survived");
    eprintln!("kill points survived: {survived}");
}
