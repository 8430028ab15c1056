//! WebDataset TAR shards and Atria's pointers into them, over the corpus
//! webdataset.ShardWriter wrote (tests/atria/make_corpus.py): every pointer
//! verified or named and recovered, every member listed as tarfile lists it,
//! and what each costs in requests.

#![cfg(feature = "atria")]

#[path = "atria/corpus.rs"]
mod corpus;

use std::collections::BTreeMap;
use std::path::Path;

use atlas_wasm::atria::{Defect, DirStore, MemberRef, TarShards};
use corpus::{block_on, config, corpus, expected, CountingStore};
use serde_json::Value as Json;

const SPLITS: [&str; 2] = ["train", "test"];

fn rows(dir: &Path, split: &str) -> Vec<Json> {
    let text = std::fs::read_to_string(config(dir).join(format!("pointers/{split}.json"))).unwrap();
    serde_json::from_str::<Vec<Json>>(&text).unwrap()
}

/// The member's bytes straight from the file, where Python's tarfile says they are.
fn member_bytes(dir: &Path, member: &Json) -> Vec<u8> {
    let shard = std::fs::read(config(dir).join(member["shard"].as_str().unwrap())).unwrap();
    let offset = member["offset"].as_u64().unwrap() as usize;
    let size = member["size"].as_u64().unwrap() as usize;
    shard[offset..offset + size].to_vec()
}

fn member_ref(member: &Json) -> MemberRef {
    MemberRef {
        shard: member["shard"].as_str().unwrap().into(),
        name: member["name"].as_str().unwrap().into(),
        offset: member["offset"].as_u64().unwrap(),
        size: member["size"].as_u64().unwrap(),
    }
}

#[test]
fn every_pointer_is_verified_or_named_and_recovered() {
    let Some(dir) = corpus() else { return };
    let shards = TarShards::new(DirStore::new(config(dir)));
    let (mut good, mut long, mut non_ascii) = (0, 0, 0);
    let mut bad: BTreeMap<String, usize> = BTreeMap::new();
    for split in SPLITS {
        for row in rows(dir, split) {
            let pointer = row["pointer"].as_str().unwrap();
            let expected = &row["expected"];
            let name = expected["name"].as_str().unwrap();
            let truth = member_bytes(dir, expected);
            let content = block_on(shards.content(pointer, name)).unwrap();
            assert_eq!(content.bytes, truth, "{pointer}");
            assert_eq!(
                content.check.member,
                Some(member_ref(expected)),
                "{pointer}"
            );
            assert_eq!(content.check.pointer, pointer);
            let read = block_on(shards.read(pointer, name));
            match row["defect"].as_str() {
                None => {
                    good += 1;
                    long += usize::from(name.len() > 100);
                    non_ascii += usize::from(!name.is_ascii());
                    assert!(content.check.ok && !content.check.recovered, "{pointer}");
                    assert_eq!(content.check.defect, None);
                    assert_eq!(read.unwrap(), truth);
                }
                Some(kind) => {
                    *bad.entry(row["reported"].as_str().unwrap().to_string())
                        .or_default() += 1;
                    assert!(!content.check.ok && content.check.recovered, "{pointer}");
                    let defect = content.check.defect.clone().unwrap();
                    match (kind, row["reported"].as_str().unwrap(), &defect) {
                        ("past-end", "PastEnd", Defect::PastEnd) => {}
                        ("neighbour", "OtherMember", Defect::OtherMember { name: found, size }) => {
                            // The sample's other member, in the right shard.
                            assert_ne!(found, name);
                            assert_eq!(found.split('.').next(), name.split('.').next());
                            assert_ne!(*size, 0);
                        }
                        (
                            "stale-previous",
                            "OtherMember",
                            Defect::OtherMember { name: found, .. },
                        ) => {
                            assert_ne!(found, name);
                        }
                        ("stale-previous", "NoHeader", Defect::NoHeader { .. }) => {}
                        _ => panic!("{pointer}: a {kind} row reported as {defect:?}"),
                    }
                    let err = read.unwrap_err();
                    assert_eq!(err.code(), "BadPointer", "{pointer}");
                    assert!(err.to_string().contains(&defect.to_string()), "{err}");
                }
            }
        }
    }
    // Every pointer of both splits, each wrong one by what it reaches.
    assert_eq!(good, 100);
    assert_eq!(
        bad.iter()
            .map(|(k, n)| (k.as_str(), *n))
            .collect::<Vec<_>>(),
        [("OtherMember", 30), ("PastEnd", 12)]
    );
    assert!(
        long > 0 && non_ascii > 0,
        "{long} long, {non_ascii} non-ASCII names"
    );
}

#[test]
fn a_verified_pointer_costs_one_request() {
    let Some(dir) = corpus() else { return };
    let store = CountingStore::new(config(dir));
    let shards = TarShards::new(store.clone());
    for row in rows(dir, "train").iter().filter(|r| r["defect"].is_null()) {
        let before = store.requests();
        let name = row["expected"]["name"].as_str().unwrap();
        block_on(shards.read(row["pointer"].as_str().unwrap(), name)).unwrap();
        assert_eq!(store.requests() - before, 1, "{}", row["pointer"]);
    }
}

#[test]
fn members_and_samples_are_those_tarfile_lists() {
    let Some(dir) = corpus() else { return };
    let all = expected(dir);
    let store = CountingStore::new(config(dir));
    let shards = TarShards::new(store.clone());
    for split in SPLITS {
        for (shard, members) in all["tar"][split]["shards"].as_object().unwrap() {
            let before = store.requests();
            let index = block_on(shards.index(shard)).unwrap();
            // Shards under 1 MiB: the tail read that learns the size has it all.
            assert_eq!(store.requests() - before, 1, "{shard}");
            let found: Vec<(String, u64, u64)> = index
                .members
                .iter()
                .map(|m| (m.name.clone(), m.offset, m.size))
                .collect();
            let want: Vec<(String, u64, u64)> = members
                .as_array()
                .unwrap()
                .iter()
                .map(|m| {
                    let name = m["name"].as_str().unwrap().to_string();
                    (
                        name,
                        m["offset"].as_u64().unwrap(),
                        m["size"].as_u64().unwrap(),
                    )
                })
                .collect();
            assert_eq!(found, want, "{shard}");
            // Kept: a second look costs nothing.
            block_on(shards.index(shard)).unwrap();
            assert_eq!(store.requests() - before, 1);
            let samples = block_on(shards.samples(shard)).unwrap();
            let keys: Vec<&str> = samples.iter().map(|s| s.key.as_str()).collect();
            let mut want_keys: Vec<&str> = Vec::new();
            for (name, _, _) in &want {
                let key = &name[..name.find('.').unwrap()];
                if want_keys.last() != Some(&key) {
                    want_keys.push(key);
                }
            }
            assert_eq!(keys, want_keys, "{shard}");
            for sample in &samples {
                assert!(sample.members.len() >= 2);
                for m in &sample.members {
                    assert_eq!(m.key(), sample.key);
                    assert!(
                        ["json", "png", "pdf"].contains(&m.extension()),
                        "{}",
                        m.name
                    );
                }
            }
        }
    }
}

#[test]
fn pointers_that_reach_nothing_by_any_route_are_bad_pointers() {
    let Some(dir) = corpus() else { return };
    let shards = TarShards::new(DirStore::new(config(dir)));
    let row = &rows(dir, "train")[0];
    let pointer = row["pointer"].as_str().unwrap();
    // The right place, but a name no shard holds.
    let err = block_on(shards.content(pointer, "nobody.png")).unwrap_err();
    assert_eq!(err.code(), "BadPointer");
    assert!(err.to_string().contains("reaches member"), "{err}");
    let check = block_on(shards.check(pointer, "nobody.png")).unwrap();
    assert!(!check.ok && !check.recovered && check.member.is_none());
    // A shard that does not exist, and its successor neither.
    let missing = "shards/train/000009-000000.tar?offset=1536&length=10";
    let check = block_on(shards.check(missing, "x.png")).unwrap();
    assert_eq!(check.defect, Some(Defect::NoShard));
    // Not on a block boundary; before the first header.
    let name = row["expected"]["name"].as_str().unwrap();
    let shard = row["expected"]["shard"].as_str().unwrap();
    let odd = format!("{shard}?offset=1537&length=37");
    assert_eq!(
        block_on(shards.check(&odd, name)).unwrap().defect,
        Some(Defect::Misaligned)
    );
    let start = format!("{shard}?offset=0&length=37");
    assert!(matches!(
        block_on(shards.check(&start, name)).unwrap().defect,
        Some(Defect::NoHeader { .. })
    ));
    // Not a pointer at all.
    let err = block_on(shards.read("data/train/a.pdf", name)).unwrap_err();
    assert_eq!(err.code(), "InvalidArgument");
}

#[test]
fn damaged_shards_are_corrupt_not_panics() {
    let Some(dir) = corpus() else { return };
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("atria-damaged");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let path = "shards/train/000000-000000.tar";
    let good = std::fs::read(config(dir).join(path)).unwrap();
    let last = expected(dir)["tar"]["train"]["shards"][path]
        .as_array()
        .unwrap()
        .last()
        .cloned()
        .unwrap();
    let end = last["offset"].as_u64().unwrap() + last["size"].as_u64().unwrap().div_ceil(512) * 512;
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "garbage.tar",
            (0..20_000u32).map(|i| (i * 7 + 3) as u8).collect(),
        ),
        ("truncated.tar", good[..2048 + 100].to_vec()),
        ("no-end.tar", good[..end as usize].to_vec()),
        ("flipped.tar", {
            let mut b = good.clone();
            b[1024 + 3] ^= 0x20; // a name byte of the first member's header
            b
        }),
        ("empty.tar", Vec::new()),
    ];
    let shards = TarShards::new(DirStore::new(&work));
    for (name, bytes) in cases {
        std::fs::write(work.join(name), bytes).unwrap();
        let err = block_on(shards.index(name)).unwrap_err();
        assert_eq!(err.code(), "Corrupt", "{name}: {err}");
    }
}

/// The numbers docs/atria.md quotes: requests and bytes to resolve every
/// pointer of the corpus, the right ones and the wrong ones.
#[test]
fn what_resolving_the_corpus_costs() {
    let Some(dir) = corpus() else { return };
    let store = CountingStore::new(config(dir));
    let shards = TarShards::new(store.clone());
    let all: Vec<Json> = SPLITS.iter().flat_map(|s| rows(dir, s)).collect();
    let (good, bad): (Vec<&Json>, Vec<&Json>) = all.iter().partition(|r| r["defect"].is_null());
    let resolve = |rows: &[&Json]| {
        let (r0, b0) = (store.requests(), store.bytes());
        let mut payload = 0;
        for row in rows {
            let name = row["expected"]["name"].as_str().unwrap();
            let content = block_on(shards.content(row["pointer"].as_str().unwrap(), name)).unwrap();
            payload += content.bytes.len() as u64;
        }
        (store.requests() - r0, store.bytes() - b0, payload)
    };
    let (requests, bytes, payload) = resolve(&good);
    eprintln!(
        "verified: {} pointers, {requests} requests, {bytes} bytes for {payload} bytes of members",
        good.len()
    );
    assert_eq!(requests, good.len());
    assert!(bytes <= payload + 2048 * good.len() as u64);
    let shard_count: usize = SPLITS
        .iter()
        .map(|s| {
            expected(dir)["tar"][*s]["shards"]
                .as_object()
                .unwrap()
                .len()
        })
        .sum();
    let (requests, bytes, payload) = resolve(&bad);
    eprintln!(
        "recovered: {} pointers, {requests} requests, {bytes} bytes for {payload} bytes of members \
         ({shard_count} shards in the corpus)",
        bad.len()
    );
    // Per bad pointer: the failed read and the member's read, plus one
    // index read per shard searched (kept for the next pointer).
    assert!(requests <= 2 * bad.len() + 2 * shard_count);
}
