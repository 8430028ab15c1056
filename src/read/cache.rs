//! A byte-budgeted LRU of decompressed blocks, shared by every segment of a handle.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Bytes shared without copying: a fetched range or a decompressed block.
/// (`Arc<[u8]>` would copy each `Vec` once more on the way in.)
pub(crate) type Block = Arc<Vec<u8>>;

/// `(variable index, block id)`: a block id alone repeats in every segment.
pub(crate) type BlockKey = (u32, u32);

struct Entry {
    bytes: Block,
    last_used: u64,
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

    pub(crate) fn get(&self, key: BlockKey) -> Option<Block> {
        let mut state = self.lock();
        state.clock += 1;
        let now = state.clock;
        state.entries.get_mut(&key).map(|e| {
            e.last_used = now;
            e.bytes.clone()
        })
    }

    pub(crate) fn insert(&self, key: BlockKey, bytes: Block) {
        let size = bytes.len() as u64;
        if size > self.capacity {
            return;
        }
        let mut state = self.lock();
        state.clock += 1;
        let now = state.clock;
        if let Some(old) = state.entries.insert(
            key,
            Entry {
                bytes,
                last_used: now,
            },
        ) {
            state.held -= old.bytes.len() as u64;
        }
        state.held += size;
        // Blocks are large and few, so a scan for the oldest is cheap.
        while state.held > self.capacity {
            let Some((&oldest, _)) = state.entries.iter().min_by_key(|(_, e)| e.last_used) else {
                break;
            };
            if let Some(e) = state.entries.remove(&oldest) {
                state.held -= e.bytes.len() as u64;
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

    #[test]
    fn the_least_recently_used_block_goes_first() {
        let cache = BlockCache::new(10);
        cache.insert((0, 0), Arc::new(vec![0; 4]));
        cache.insert((0, 1), Arc::new(vec![1; 4]));
        assert!(cache.get((0, 0)).is_some());
        cache.insert((1, 0), Arc::new(vec![2; 4]));
        assert!(cache.get((0, 1)).is_none(), "the oldest block is evicted");
        assert!(cache.get((0, 0)).is_some() && cache.get((1, 0)).is_some());
        assert_eq!(cache.held(), 8);
        cache.insert((9, 9), Arc::new(vec![0; 11]));
        assert!(
            cache.get((9, 9)).is_none(),
            "a block over the budget is not kept"
        );
    }
}
