//! A byte-budgeted LRU of decompressed blocks, shared by every segment of a handle.
//!
//! A block may be held in part: a read that needed its first chunks decoded
//! only those. Its compressed bytes are then kept beside the part, so a later
//! read that needs more decodes again without a request.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::read::decode::CompressedBlock;

/// Bytes shared without copying: a fetched range or a decompressed block.
/// (`Arc<[u8]>` would copy each `Vec` once more on the way in.)
pub(crate) type Block = Arc<Vec<u8>>;

/// `(variable index, block id)`: a block id alone repeats in every segment.
pub(crate) type BlockKey = (u32, u32);

struct Entry {
    bytes: Block,
    /// The block compressed, while `bytes` is only its start.
    rest: Option<CompressedBlock>,
    last_used: u64,
}

impl Entry {
    fn size(&self) -> u64 {
        self.bytes.len() as u64 + self.rest.as_ref().map_or(0, |r| r.bytes.len() as u64)
    }
}

/// What the cache has of a block.
pub(crate) enum Lookup {
    /// At least the bytes asked for.
    Hit(Block),
    /// Fewer, but the compressed block, to decode again.
    Partial(CompressedBlock),
    Miss,
}

#[derive(Default)]
struct State {
    entries: HashMap<BlockKey, Entry>,
    held: u64,
    clock: u64,
}

/// Evicts least-recently-used blocks once `capacity` bytes are held. A block
/// larger than the whole budget is served but not kept.
pub(crate) struct BlockCache {
    capacity: u64,
    state: Mutex<State>,
}

impl BlockCache {
    pub(crate) fn new(capacity: u64) -> Self {
        Self {
            capacity,
            state: Mutex::new(State::default()),
        }
    }

    /// The block under `key` if the cache holds its first `wanted` bytes.
    pub(crate) fn get(&self, key: BlockKey, wanted: u64) -> Lookup {
        let mut state = self.lock();
        state.clock += 1;
        let now = state.clock;
        let Some(entry) = state.entries.get_mut(&key) else {
            return Lookup::Miss;
        };
        entry.last_used = now;
        match &entry.rest {
            _ if entry.bytes.len() as u64 >= wanted => Lookup::Hit(entry.bytes.clone()),
            Some(rest) => Lookup::Partial(rest.clone()),
            None => Lookup::Miss,
        }
    }

    /// Keeps `bytes` (the start of the block when `rest`, its compressed
    /// form, is given), unless the cache already holds more of it.
    pub(crate) fn insert(&self, key: BlockKey, bytes: Block, rest: Option<CompressedBlock>) {
        let mut state = self.lock();
        if state
            .entries
            .get(&key)
            .is_some_and(|old| old.bytes.len() >= bytes.len())
        {
            return;
        }
        state.clock += 1;
        let entry = Entry {
            bytes,
            rest,
            last_used: state.clock,
        };
        let size = entry.size();
        if size > self.capacity {
            return;
        }
        if let Some(old) = state.entries.insert(key, entry) {
            state.held -= old.size();
        }
        state.held += size;
        // Blocks are large and few, so a scan for the oldest is cheap.
        while state.held > self.capacity {
            let Some((&oldest, _)) = state.entries.iter().min_by_key(|(_, e)| e.last_used) else {
                break;
            };
            if let Some(e) = state.entries.remove(&oldest) {
                state.held -= e.size();
            }
        }
    }

    /// Bytes held now.
    pub(crate) fn held(&self) -> u64 {
        self.lock().held
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(lookup: Lookup) -> bool {
        matches!(lookup, Lookup::Hit(_))
    }

    #[test]
    fn the_least_recently_used_block_goes_first() {
        let cache = BlockCache::new(10);
        cache.insert((0, 0), Arc::new(vec![0; 4]), None);
        cache.insert((0, 1), Arc::new(vec![1; 4]), None);
        assert!(hit(cache.get((0, 0), 4)));
        cache.insert((1, 0), Arc::new(vec![2; 4]), None);
        assert!(!hit(cache.get((0, 1), 4)), "the oldest block is evicted");
        assert!(hit(cache.get((0, 0), 4)) && hit(cache.get((1, 0), 4)));
        assert_eq!(cache.held(), 8);
        cache.insert((9, 9), Arc::new(vec![0; 11]), None);
        assert!(
            !hit(cache.get((9, 9), 11)),
            "a block over the budget is not kept"
        );
    }

    #[test]
    fn a_block_held_in_part_serves_its_start_and_keeps_its_compressed_bytes() {
        let cache = BlockCache::new(100);
        let compressed = CompressedBlock {
            codec: crate::format::segment::CodecId::None,
            bytes: Arc::new(vec![7; 8]),
            range: 0..8,
            uncompressed_size: 8,
            wanted: 3,
            alone: true,
        };
        cache.insert((0, 0), Arc::new(vec![7; 3]), Some(compressed));
        assert_eq!(cache.held(), 11, "the part and the compressed block");
        assert!(hit(cache.get((0, 0), 3)));
        assert!(matches!(cache.get((0, 0), 5), Lookup::Partial(c) if c.bytes.len() == 8));
        cache.insert((0, 0), Arc::new(vec![7; 8]), None);
        assert_eq!(cache.held(), 8, "the whole block replaces the part");
        cache.insert((0, 0), Arc::new(vec![7; 2]), None);
        assert!(
            hit(cache.get((0, 0), 8)),
            "a shorter part never replaces more"
        );
    }
}
