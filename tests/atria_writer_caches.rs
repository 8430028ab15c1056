//! Caches written by Atria's own writer code (tests/atria/atria-caches/,
//! made by tests/atria/make_atria_caches.sh from atriaml/atria at a pinned
//! commit): sample ids that are file paths, under each WebDataset key
//! convention Atria has used. Every row equals what deltalake (or datadings)
//! reads back, every pointer's verdict equals what `tarfile` says of it, the
//! bytes of every right pointer are the member's (and what Atria's reader
//! returns), and the wrong ones (Atria's own rotation bug, and edited
//! copies) are caught and recovered by name.

#![cfg(feature = "atria")]

#[path = "atria/corpus.rs"]
mod corpus;

use std::path::{Path, PathBuf};

use atlas_wasm::atria::{AtriaCache, DirStore, KeyConvention, Naming, Value};
use corpus::{block_on, canonical};
use serde_json::Value as Json;

const CONVENTIONS: [(&str, KeyConvention); 3] = [
    ("dots", KeyConvention::Dots),
    ("dots-slashes", KeyConvention::DotsSlashes),
    ("dots-slashes-hash", KeyConvention::DotsSlashesHash),
];

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/atria/atria-caches")
}

fn expected() -> Json {
    let text = std::fs::read_to_string(dir().join("expected.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The convention a reader must report: the first whose key is the writer's.
fn reported_convention(sample_id: &str, key: &str) -> KeyConvention {
    *KeyConvention::ALL
        .iter()
        .find(|c| c.key(sample_id) == key)
        .unwrap()
}

/// Checks every row of every split of one Delta cache against `want`
/// (`expected.json`'s `delta` or `delta_edited`); returns (right, recovered).
fn check_delta_cache(config: &str, want: &Json) -> (usize, usize) {
    let root = dir().join(config);
    let cache = block_on(AtriaCache::open(DirStore::new(root.clone()))).unwrap();
    assert_eq!(cache.backend(), "deltalake");
    let (mut right, mut recovered) = (0, 0);
    for split_name in ["train", "test"] {
        let split = block_on(cache.split(split_name)).unwrap();
        let rows = want[split_name]["rows"].as_array().unwrap();
        let pointers = want[split_name]["pointers"].as_array().unwrap();
        assert_eq!(split.num_rows(), rows.len() as u64, "{config} {split_name}");
        for i in 0..split.num_rows() {
            let row = block_on(split.row(i)).unwrap();
            let Some(Value::Str(id)) = row.get("sample_id") else {
                panic!("{config} row {i} has no sample_id")
            };
            let at = |list: &[Json]| {
                list.iter()
                    .position(|r| r["sample_id"] == id.as_str())
                    .unwrap_or_else(|| panic!("{config}: {id} is not expected"))
            };
            assert_eq!(
                canonical(&row),
                rows[at(rows)],
                "{config} {split_name} {id}"
            );
            let truth = &pointers[at(pointers)];
            let member = &truth["expected"];
            let check = block_on(split.check(i, "image")).unwrap();
            let what = format!("{config} {split_name} {id}: {check:?}");
            assert_eq!(check.pointer, truth["pointer"].as_str().unwrap(), "{what}");
            assert_eq!(check.ok, truth["ok"].as_bool().unwrap(), "{what}");
            if check.ok {
                right += 1;
                assert_eq!(
                    truth["atria_reads"]["sha256"], member["sha256"],
                    "{what}: Atria's reader returns the member"
                );
            } else {
                recovered += 1;
                let defect = format!("{:?}", check.defect.as_ref().unwrap());
                let kind = truth["reported"].as_str().unwrap();
                assert!(defect.starts_with(kind), "{what}: wanted {kind}");
                assert!(check.recovered, "{what}");
            }
            let found = check.member.as_ref().unwrap();
            assert_eq!(found.shard, member["shard"].as_str().unwrap(), "{what}");
            assert_eq!(found.name, member["name"].as_str().unwrap(), "{what}");
            assert_eq!(found.offset, member["offset"].as_u64().unwrap(), "{what}");
            assert_eq!(check.naming, Some(Naming::Content), "{what}");
            let key = truth["key"].as_str().unwrap();
            assert_eq!(
                check.key_convention,
                Some(reported_convention(id, key)),
                "{what}"
            );
            let bytes = block_on(split.content(i, "image")).unwrap();
            let shard = std::fs::read(root.join(&found.shard)).unwrap();
            let (o, n) = (found.offset as usize, found.size as usize);
            assert_eq!(bytes, shard[o..o + n], "{what}");
        }
    }
    (right, recovered)
}

#[test]
fn every_pointer_atria_wrote_for_path_sample_ids_is_verified_or_recovered_under_its_key_convention()
{
    let all = expected();
    for (name, convention) in CONVENTIONS {
        let want = &all["caches"][name]["delta"];
        let (right, recovered) = check_delta_cache(&format!("{name}_delta"), want);
        // Atria's writer names the next sample after a rotation with the old
        // shard, then counts offsets from 0 in the new one: 4 of train's 8.
        assert_eq!((right, recovered), (7, 4), "{name}");
        // The cache really is under this convention: some member's key is
        // this convention's and no earlier one's.
        let pointers = want["train"]["pointers"].as_array().unwrap();
        assert!(pointers.iter().any(|p| {
            reported_convention(p["sample_id"].as_str().unwrap(), p["key"].as_str().unwrap())
                == convention
        }));
    }
}

#[test]
fn edited_pointers_in_a_copy_of_each_atria_cache_are_caught_and_recovered_by_name() {
    let all = expected();
    for (name, _) in CONVENTIONS {
        let want = &all["caches"][name]["delta_edited"];
        let edits = want["train"]["edits"].as_object().unwrap().len()
            + want["test"]["edits"].as_object().unwrap().len();
        assert!(edits >= 4, "{name}: {edits} edits");
        let (right, recovered) = check_delta_cache(&format!("{name}_delta_edited"), want);
        assert_eq!(right + recovered, 11, "{name}");
        assert_eq!(recovered, 4 + edits, "{name}");
    }
}

#[test]
fn a_pointer_to_a_member_of_another_sample_is_still_a_defect_under_every_convention() {
    // Row by row, a pointer taken from another row reaches another sample's
    // member: the check must say so, and recover the row's own member.
    use atlas_wasm::atria::TarShards;
    let all = expected();
    for (name, _) in CONVENTIONS {
        let root = dir().join(format!("{name}_delta"));
        let shards = TarShards::new(DirStore::new(root.clone()));
        let pointers = all["caches"][name]["delta"]["test"]["pointers"]
            .as_array()
            .unwrap();
        for (a, b) in [(0, 1), (1, 2), (2, 0)] {
            let right = &pointers[a]["expected"];
            let other = &pointers[b]["expected"];
            // The other member's offset, this member's size (recovery looks
            // for the name and the pointer's size).
            let pointer = format!(
                "{}?offset={}&length={}",
                other["shard"].as_str().unwrap(),
                other["offset"],
                right["size"]
            );
            let name = right["name"].as_str().unwrap();
            let check = block_on(shards.check(&pointer, name)).unwrap();
            assert!(!check.ok && check.recovered, "{name}: {check:?}");
            assert!(
                matches!(&check.defect, Some(atlas_wasm::atria::Defect::OtherMember { name: n, .. })
                    if n == other["name"].as_str().unwrap()),
                "{check:?}"
            );
            assert_eq!(check.member.unwrap().name, name);
        }
    }
}

#[test]
fn atria_msgpack_caches_read_every_record_as_datadings_reads_it() {
    let all = expected();
    for (name, convention) in CONVENTIONS {
        let cache = block_on(AtriaCache::open(DirStore::new(
            dir().join(format!("{name}_msgpack")),
        )))
        .unwrap();
        assert_eq!(cache.backend(), "msgpack");
        for split_name in ["train", "test"] {
            let split = block_on(cache.split(split_name)).unwrap();
            let want = all["caches"][name]["msgpack"][split_name]["records"]
                .as_array()
                .unwrap();
            assert_eq!(split.num_rows(), want.len() as u64);
            for (i, record) in want.iter().enumerate() {
                let row = block_on(split.row(i as u64)).unwrap();
                assert_eq!(&canonical(&row), record, "{name} {split_name} {i}");
                let (Some(Value::Str(id)), Some(Value::Str(key))) =
                    (row.get("sample_id"), row.get("key"))
                else {
                    panic!("no sample_id or key")
                };
                assert_eq!(&convention.key(id), key, "{name}: Atria's key");
            }
        }
    }
}
