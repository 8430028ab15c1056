//! `merge` of a collection built in parts against one writer building it
//! whole, in one run, each in a fresh process so its peak RSS is its own.
//!
//! ```text
//! cargo bench --features writer --bench merge                   # 1M datasets in 10 parts
//! ATLAS_MERGE_SIZES=100000x4 cargo bench --features writer --bench merge
//! ```
//!
//! Datasets are those of benches/common (one float32 `value`[24] and two
//! attributes, 8 MiB blocks). Parts are kept under `target/tmp/merge-v1/`
//! and reused. "Read by the process" is `rchar` of /proc/self/io: bytes
//! that came through `read` calls, so blocks the kernel copies file to file
//! (copy_file_range) are not in it; "written" is `wchar`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use atlas_wasm::write::{merge, AtlasWriter, WriterConfig};

mod common;
use common::{add_dataset, own, run_child};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--write") => return child_write(&args[1..]),
        Some("--merge") => return child_merge(&args[1..]),
        _ => {}
    }
    let sizes = std::env::var("ATLAS_MERGE_SIZES").unwrap_or_else(|_| "1000000x10".into());
    println!("| datasets | parts | job | time | peak RSS | read by the process | written |");
    println!("|---:|---:|---|---:|---:|---:|---:|");
    for size in sizes.split(',') {
        let (n, parts) = size
            .trim()
            .split_once('x')
            .and_then(|(n, p)| Some((n.parse::<usize>().ok()?, p.parse::<usize>().ok()?)))
            .expect("ATLAS_MERGE_SIZES: NxP, e.g. 1000000x10");
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join(format!("target/tmp/merge-v1/{n}x{parts}"));
        let part_dirs = ensure_parts(&root, n, parts);
        let whole = root.join("whole");
        let _ = std::fs::remove_dir_all(&whole);
        let one = run(&["--write", &whole.display().to_string(), "0", &n.to_string()]);
        let merged = root.join("merged");
        let _ = std::fs::remove_dir_all(&merged);
        let mut merge_args = vec!["--merge".to_string(), merged.display().to_string()];
        merge_args.extend(part_dirs.iter().map(|p| p.display().to_string()));
        let joined = run(&merge_args.iter().map(String::as_str).collect::<Vec<_>>());
        for (job, m) in [("one writer, whole", &one), ("merge of the parts", &joined)] {
            println!(
                "| {n} | {parts} | {job} | {:.2} s | {:.0} MiB | {} | {} |",
                m.seconds,
                m.rss_mib,
                mib(m.read),
                mib(m.written)
            );
        }
        println!(
            "| {n} | {parts} | ratio (one writer / merge) | {:.1}× | {:.1}× | | |",
            one.seconds / joined.seconds,
            one.rss_mib / joined.rss_mib
        );
        let size = |d: &Path| std::fs::metadata(d.join("data.atlas")).unwrap().len();
        println!(
            "\ncontainers: whole {}, merged {}",
            mib(size(&whole)),
            mib(size(&merged))
        );
    }
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1 << 20) as f64)
}

struct Measured {
    seconds: f64,
    rss_mib: f64,
    read: u64,
    written: u64,
}

fn run(args: &[&str]) -> Measured {
    let v = run_child(args);
    Measured {
        seconds: v[0],
        rss_mib: v[1],
        read: v[2] as u64,
        written: v[3] as u64,
    }
}

/// The parts of `n` datasets in `parts` contiguous shares, written once.
fn ensure_parts(root: &Path, n: usize, parts: usize) -> Vec<PathBuf> {
    (0..parts)
        .map(|k| {
            let dir = root.join(format!("part-{k:03}"));
            if !dir.join("data.atlas").exists() {
                let (start, end) = (k * n / parts, (k + 1) * n / parts);
                run(&[
                    "--write",
                    &dir.display().to_string(),
                    &start.to_string(),
                    &end.to_string(),
                ]);
            }
            dir
        })
        .collect()
}

fn child_write(args: &[String]) {
    let [dir, start, end] = args else {
        panic!("--write DIR START END")
    };
    let (start, end): (usize, usize) = (start.parse().unwrap(), end.parse().unwrap());
    let begun = Instant::now();
    let writer = AtlasWriter::create(dir, WriterConfig::default()).unwrap();
    for d in start..end {
        add_dataset(&writer, d);
    }
    writer.finish().unwrap();
    report(begun);
}

fn child_merge(args: &[String]) {
    let (dest, parts) = args.split_first().expect("--merge DST PART...");
    let parts: Vec<PathBuf> = parts.iter().map(PathBuf::from).collect();
    let begun = Instant::now();
    merge(&parts, dest, |_, _| {}).unwrap();
    report(begun);
}

/// Seconds, peak RSS (MiB), bytes read and written through syscalls.
fn report(begun: Instant) {
    let seconds = begun.elapsed().as_secs_f64();
    let rss = own("status", "VmHWM:") / 1024.0;
    println!(
        "{seconds} {rss} {} {}",
        own("io", "rchar:"),
        own("io", "wchar:")
    );
}
