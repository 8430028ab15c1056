//! The collection's datasets: names in ordinal order, each with its schema,
//! and an index from name to ordinal.
//!
//! A million names are most of a large collection footer, so the catalogue
//! keeps them lean: every name in one byte buffer, ended by a `u32` offset,
//! and an index built by sorting rather than by inserting. Each name's hash
//! gives a 32-bit key; the `key << 32 | ordinal` words are radix sorted (a
//! few passes straight through memory, where a hash table built one insert
//! at a time jumps around megabytes per name), and a directory over the
//! keys' leading bits says where each prefix's run begins. A lookup reads
//! the directory, scans a handful of words and compares the names whose key
//! matches. Equal names have equal keys, so a repeat is found in one pass
//! over the sorted words.
//!
//! Names come from files anyone may write, so the hash (SipHash) is keyed
//! afresh for each catalogue from the platform's randomness (the OS
//! natively, `Math.random` in wasm, where std's hash keys are fixed
//! addresses): names crafted offline to share a key cannot know the seed.
//! Were they to share one anyway, lookups would slow down but stay right,
//! and a repeat would still be found (tested below with one key for all).

use std::hash::Hasher;
#[allow(deprecated)] // SipHash-2-4 with keys we choose; its successor is unstable.
use std::hash::SipHasher;

use crate::error::{Error, Result};

/// Bytes a dataset costs besides its name, at the most while the index is
/// built: its end offset and schema (4 + 4), its index word and the sort's
/// scratch copy of it (8 + 8), and its share of the directory (at most one
/// `u32` per 4 datasets, but 4 bytes keeps small catalogues covered).
pub(crate) const BYTES_PER_DATASET: usize = 4 + 4 + 8 + 8 + 4;

/// Dataset names with their schemas, in ordinal order, indexed by name.
#[derive(Clone)]
pub struct DatasetCatalogue {
    /// Every name, one after the other.
    names: String,
    /// Where each name ends in `names` (it starts where the previous ends).
    ends: Vec<u32>,
    /// Each dataset's schema, an index into the footer's schema pool.
    schemas: Vec<u32>,
    /// `key << 32 | ordinal` of every dataset, ascending; `key` is the top
    /// half of the name's hash.
    words: Vec<u64>,
    /// Where the words whose key begins with each `prefix_bits`-bit prefix
    /// start in `words`, and `words.len()` after the last.
    starts: Vec<u32>,
    prefix_bits: u32,
    seed: Seed,
}

/// Collects datasets in ordinal order, then builds their index once.
#[derive(Debug, Default)]
pub struct CatalogueBuilder {
    names: String,
    ends: Vec<u32>,
    schemas: Vec<u32>,
}

impl CatalogueBuilder {
    /// Room for `datasets` names of `name_bytes` bytes in all. Callers
    /// bound both by bytes they hold.
    pub fn with_capacity(datasets: usize, name_bytes: usize) -> Self {
        CatalogueBuilder {
            names: String::with_capacity(name_bytes),
            ends: Vec::with_capacity(datasets),
            schemas: Vec::with_capacity(datasets),
        }
    }

    /// Appends a dataset. Past 4 GiB of names or 2^32 datasets (more than
    /// a footer may hold) it is [`Error::TooLarge`].
    pub fn push(&mut self, name: &str, schema: u32) -> Result<()> {
        let end = u32::try_from(self.names.len() + name.len());
        let (Ok(end), true) = (end, self.ends.len() < u32::MAX as usize) else {
            return Err(Error::TooLarge(format!(
                "a catalogue holds at most 4 GiB of names and 2^32 datasets; \
                 dataset '{name}' is past that"
            )));
        };
        self.names.push_str(name);
        self.ends.push(end);
        self.schemas.push(schema);
        Ok(())
    }

    /// The catalogue, indexed. A name pushed twice is
    /// [`Error::CorruptCollection`] naming the first repeat's two ordinals:
    /// a lookup could never reach the second one.
    pub fn finish(self) -> Result<DatasetCatalogue> {
        self.finish_with(Seed::fresh(), Seed::hash)
    }

    fn finish_with(
        self,
        seed: Seed,
        hash: impl Fn(&Seed, &str) -> u64,
    ) -> Result<DatasetCatalogue> {
        let CatalogueBuilder {
            names,
            ends,
            schemas,
        } = self;
        let mut words: Vec<u64> = (0..ends.len() as u32)
            .map(|o| (hash(&seed, name_at(&names, &ends, o)) & KEY_MASK) | o as u64)
            .collect();
        radix_sort(&mut words);
        check_repeats(&words, &names, &ends)?;
        let prefix_bits = prefix_bits(words.len());
        let starts = directory(&words, prefix_bits);
        Ok(DatasetCatalogue {
            names,
            ends,
            schemas,
            words,
            starts,
            prefix_bits,
            seed,
        })
    }
}

/// The key half of an index word.
const KEY_MASK: u64 = 0xffff_ffff_0000_0000;

/// The keys of one catalogue's hash.
#[derive(Clone, Debug)]
struct Seed(u64, u64);

impl Seed {
    fn fresh() -> Seed {
        Seed(random_u64(), random_u64())
    }

    #[allow(deprecated)]
    fn hash(&self, name: &str) -> u64 {
        let mut hasher = SipHasher::new_with_keys(self.0, self.1);
        hasher.write(name.as_bytes());
        hasher.finish()
    }
}

/// 64 unpredictable bits: std's per-process SipHash keys come from the OS.
#[cfg(not(target_arch = "wasm32"))]
fn random_u64() -> u64 {
    use std::hash::BuildHasher;
    std::collections::hash_map::RandomState::new().hash_one(0u8)
}

/// 64 unpredictable bits. On wasm32-unknown-unknown std has no entropy (its
/// hash keys are addresses, the same in every run), so ask the JavaScript
/// host; two draws of `Math.random` give 32 bits each.
#[cfg(target_arch = "wasm32")]
fn random_u64() -> u64 {
    let draw = || (js_sys::Math::random() * 4_294_967_296.0) as u64;
    (draw() << 32) | draw()
}

/// Sorts index words by key, keeping ordinals ascending within a key (the
/// words go in by ordinal and each pass is stable): three counting passes of
/// 11, 11 and 10 bits over the key, each one read and one write of the
/// words. Short lists go the same way (the library sort would cost the wasm
/// module its code for a few microseconds saved).
fn radix_sort(words: &mut Vec<u64>) {
    let mut scratch = vec![0u64; words.len()];
    for (shift, width) in [(32, 11), (43, 11), (54, 10)] {
        let digit = |w: u64| ((w >> shift) & ((1 << width) - 1)) as usize;
        let mut next = vec![0usize; 1 << width];
        for &w in words.iter() {
            next[digit(w)] += 1;
        }
        let mut at = 0;
        for slot in next.iter_mut() {
            (*slot, at) = (at, at + *slot);
        }
        for &w in words.iter() {
            let d = digit(w);
            scratch[next[d]] = w;
            next[d] += 1;
        }
        std::mem::swap(words, &mut scratch);
    }
}

/// Refuses a repeated name. Only words with equal keys can hold one, and
/// they are neighbours; among all repeats it reports the pair whose second
/// ordinal comes first, as a reader inserting in order would meet it. A run
/// of equal keys is compared pair by pair: with a seed no file can know it
/// holds one or two words (names forced to share a key would make this
/// quadratic in the run, and only slow).
fn check_repeats(words: &[u64], names: &str, ends: &[u32]) -> Result<()> {
    let mut first_repeat: Option<(u32, u32)> = None;
    for run in words.chunk_by(|a, b| a & KEY_MASK == b & KEY_MASK) {
        for (i, &a) in run.iter().enumerate() {
            let first = a as u32;
            // Ordinals ascend in a run: the first match is this name's
            // earliest repeat.
            let repeat = run[i + 1..]
                .iter()
                .map(|&b| b as u32)
                .find(|&second| name_at(names, ends, first) == name_at(names, ends, second));
            if let Some(second) = repeat {
                if first_repeat.is_none_or(|(_, s)| second < s) {
                    first_repeat = Some((first, second));
                }
            }
        }
    }
    match first_repeat {
        Some((first, second)) => Err(Error::corrupt_collection(format!(
            "dataset '{}' appears twice, at ordinals {first} and {second}",
            name_at(names, ends, first)
        ))),
        None => Ok(()),
    }
}

/// Directory width: four to eight words per prefix.
fn prefix_bits(datasets: usize) -> u32 {
    if datasets >= 8 {
        (datasets / 4).ilog2()
    } else {
        0
    }
}

/// The prefix of a word's key that picks its directory slot.
fn prefix(word: u64, bits: u32) -> usize {
    word.checked_shr(64 - bits).unwrap_or(0) as usize
}

/// For each prefix, the first word whose key has it or a later one; then
/// the word count. One pass over the sorted words.
fn directory(words: &[u64], bits: u32) -> Vec<u32> {
    let mut starts = Vec::with_capacity((1 << bits) + 1);
    let mut at = 0;
    for slot in 0..1usize << bits {
        while at < words.len() && prefix(words[at], bits) < slot {
            at += 1;
        }
        starts.push(at as u32);
    }
    starts.push(words.len() as u32);
    starts
}

impl Default for DatasetCatalogue {
    fn default() -> Self {
        Self::new()
    }
}

impl DatasetCatalogue {
    /// An empty catalogue.
    pub fn new() -> Self {
        DatasetCatalogue {
            names: String::new(),
            ends: Vec::new(),
            schemas: Vec::new(),
            words: Vec::new(),
            starts: vec![0, 0],
            prefix_bits: 0,
            seed: Seed::fresh(),
        }
    }

    /// A catalogue of `(name, schema)` pairs in ordinal order; a repeated
    /// name is an error, as it is in a file.
    pub fn from_pairs<S: AsRef<str>>(pairs: impl IntoIterator<Item = (S, u32)>) -> Result<Self> {
        let mut builder = CatalogueBuilder::default();
        for (name, schema) in pairs {
            builder.push(name.as_ref(), schema)?;
        }
        builder.finish()
    }

    /// How many datasets.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The ordinal of the dataset named `name`.
    pub fn ordinal_of(&self, name: &str) -> Option<u32> {
        self.find_hashed(name, self.seed.hash(name))
    }

    fn find_hashed(&self, name: &str, hash: u64) -> Option<u32> {
        let key = hash & KEY_MASK;
        let slot = prefix(hash, self.prefix_bits);
        let (from, to) = (self.starts[slot] as usize, self.starts[slot + 1] as usize);
        self.words[from..to]
            .iter()
            .filter(|&&w| w & KEY_MASK == key)
            .map(|&w| w as u32)
            .find(|&o| name_at(&self.names, &self.ends, o) == name)
    }

    /// The schema of the dataset named `name`.
    pub fn schema_of(&self, name: &str) -> Option<u32> {
        self.schema(self.ordinal_of(name)?)
    }

    /// The name of the dataset at `ordinal`.
    pub fn name(&self, ordinal: u32) -> Option<&str> {
        ((ordinal as usize) < self.ends.len()).then(|| name_at(&self.names, &self.ends, ordinal))
    }

    /// The schema of the dataset at `ordinal`.
    pub fn schema(&self, ordinal: u32) -> Option<u32> {
        self.schemas.get(ordinal as usize).copied()
    }

    /// Names in ordinal order.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.ends.len() as u32).map(|o| name_at(&self.names, &self.ends, o))
    }

    /// Schemas in ordinal order.
    pub fn schemas(&self) -> &[u32] {
        &self.schemas
    }

    /// `(name, schema)` in ordinal order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, u32)> + '_ {
        self.names().zip(self.schemas.iter().copied())
    }

    /// Heap bytes held: names, offsets, schemas and the index.
    pub fn heap_bytes(&self) -> usize {
        self.names.capacity()
            + 4 * (self.ends.capacity() + self.schemas.capacity() + self.starts.capacity())
            + 8 * self.words.capacity()
    }
}

/// Name `ordinal` (which the caller knows is in range).
fn name_at<'a>(names: &'a str, ends: &[u32], ordinal: u32) -> &'a str {
    let o = ordinal as usize;
    let start = if o == 0 { 0 } else { ends[o - 1] as usize };
    // Names are pushed whole, so every end is a char boundary.
    &names[start..ends[o] as usize]
}

/// Two catalogues are equal when they list the same datasets in the same
/// order (the index and its seed are how they find them, not what they hold).
impl PartialEq for DatasetCatalogue {
    fn eq(&self, other: &Self) -> bool {
        self.ends == other.ends && self.names == other.names && self.schemas == other.schemas
    }
}

impl Eq for DatasetCatalogue {}

impl std::fmt::Debug for DatasetCatalogue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn built(names: &[&str], hash: impl Fn(&Seed, &str) -> u64) -> Result<DatasetCatalogue> {
        let mut builder = CatalogueBuilder::default();
        for (i, name) in names.iter().enumerate() {
            builder.push(name, i as u32 % 3).unwrap();
        }
        builder.finish_with(Seed::fresh(), hash)
    }

    #[test]
    fn names_keep_their_order_and_are_found_by_name() {
        let c =
            DatasetCatalogue::from_pairs([("jan", 0), ("feb", 1), ("", 0), ("mär", 2)]).unwrap();
        assert_eq!(c.len(), 4);
        assert_eq!(c.names().collect::<Vec<_>>(), ["jan", "feb", "", "mär"]);
        assert_eq!(c.schemas(), [0, 1, 0, 2]);
        assert_eq!(c.ordinal_of("feb"), Some(1));
        assert_eq!(c.ordinal_of(""), Some(2), "an empty name is a name");
        assert_eq!(c.ordinal_of("mär"), Some(3));
        assert_eq!(c.schema_of("mär"), Some(2));
        assert_eq!(c.ordinal_of("ja"), None, "a prefix is not a name");
        assert_eq!(
            c.ordinal_of("janfeb"),
            None,
            "nor are neighbours run together"
        );
        assert_eq!((c.name(3), c.schema(3)), (Some("mär"), Some(2)));
        assert_eq!((c.name(4), c.schema(4)), (None, None));
        assert_eq!(c.iter().nth(1), Some(("feb", 1)));
        let empty = DatasetCatalogue::new();
        assert_eq!((empty.len(), empty.ordinal_of("")), (0, None));
    }

    #[test]
    fn a_repeated_name_is_refused_with_the_first_repeat() {
        let err = DatasetCatalogue::from_pairs([("a", 0), ("", 0), ("a", 3)]).unwrap_err();
        assert_eq!(err.code(), "CorruptCollection");
        assert!(
            err.to_string()
                .contains("'a' appears twice, at ordinals 0 and 2"),
            "{err}"
        );
        // 'b' repeats at 1, but 'c' has repeated by then (at 3): a reader
        // going in order meets 'c' first. Empty names repeat too.
        let names = ["b", "c", "", "c", "b", "c", ""];
        let err = built(&names, Seed::hash).unwrap_err();
        assert!(
            err.to_string()
                .contains("'c' appears twice, at ordinals 1 and 3"),
            "{err}"
        );
        let err = built(&["x", "", "y", ""], Seed::hash).unwrap_err();
        assert!(
            err.to_string()
                .contains("'' appears twice, at ordinals 1 and 3"),
            "{err}"
        );
    }

    #[test]
    fn names_that_share_a_key_are_told_apart() {
        // Every name hashed to one value, as crafted collisions would be:
        // lookups then compare names, which must still find each one, and a
        // repeat is still found among them.
        let same = |_: &Seed, _: &str| 7u64 << 40;
        let names: Vec<String> = (0..300).map(|i| format!("d{i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let c = built(&refs, same).unwrap();
        for (i, name) in names.iter().enumerate() {
            assert_eq!(c.find_hashed(name, 7 << 40), Some(i as u32), "{name}");
        }
        assert_eq!(c.find_hashed("d300", 7 << 40), None);
        let mut repeated = refs.clone();
        repeated.push("d42");
        let err = built(&repeated, same).unwrap_err();
        assert!(
            err.to_string()
                .contains("'d42' appears twice, at ordinals 42 and 300"),
            "{err}"
        );
    }

    #[test]
    fn a_large_catalogue_is_radix_sorted_and_finds_every_name() {
        // The radix sort's order must be the library sort's, and every
        // name and no other found.
        let names: Vec<String> = (0..20_000).map(|i| format!("n{i}")).collect();
        let c = DatasetCatalogue::from_pairs(names.iter().map(|n| (n, 1))).unwrap();
        let mut sorted = c.words.clone();
        sorted.sort_unstable();
        assert_eq!(c.words, sorted);
        assert_eq!(
            c.starts.len(),
            (1 << 12) + 1,
            "20,000 / 4 rounds down to 2^12 slots"
        );
        assert!((0..20_000u32).all(|i| c.ordinal_of(&names[i as usize]) == Some(i)));
        assert_eq!(c.ordinal_of("n20000"), None);
        let err = DatasetCatalogue::from_pairs(names.iter().chain(&names[7..8]).map(|n| (n, 1)))
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("'n7' appears twice, at ordinals 7 and 20000"),
            "{err}"
        );
    }

    #[test]
    fn each_catalogue_hashes_with_its_own_seed() {
        // Collisions crafted against one seed say nothing about the next.
        let (a, b) = (DatasetCatalogue::new(), DatasetCatalogue::new());
        let hashes = |c: &DatasetCatalogue| {
            (0..4)
                .map(|i| c.seed.hash(&i.to_string()))
                .collect::<Vec<_>>()
        };
        assert_ne!(hashes(&a), hashes(&b));
    }

    #[test]
    fn equality_is_the_list_not_the_seed() {
        let pairs = [("x", 1), ("y", 0)];
        let (a, b) = (
            DatasetCatalogue::from_pairs(pairs).unwrap(),
            DatasetCatalogue::from_pairs(pairs).unwrap(),
        );
        assert_eq!(a, b);
        assert_ne!(
            a,
            DatasetCatalogue::from_pairs([("x", 1), ("y", 1)]).unwrap()
        );
        assert_ne!(
            a,
            DatasetCatalogue::from_pairs([("xy", 1), ("", 0)]).unwrap()
        );
        assert_eq!(format!("{a:?}"), r#"{"x": 1, "y": 0}"#);
    }
}
