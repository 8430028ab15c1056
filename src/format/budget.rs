//! The memory a file may make a reader spend.
//!
//! Every size that sizes an allocation comes from bytes someone else wrote:
//! a footer's declared pool counts, a block's declared size, a window's
//! shape. A [`Budget`] is the one limit they are all held against, so a
//! forged 150 KB file ends in [`Error::TooLarge`] instead of claiming a
//! gigabyte (or, in wasm, trapping on a failed allocation).

use crate::error::{Error, Result};

/// A running count of bytes charged against a limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    limit: u64,
    used: u64,
}

impl Budget {
    /// A budget of `limit` bytes, none used.
    pub fn new(limit: u64) -> Budget {
        Budget { limit, used: 0 }
    }

    /// The limit in bytes.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Charges `bytes` for `what`; past the limit it is [`Error::TooLarge`].
    pub fn charge(&mut self, bytes: u64, what: &str) -> Result<()> {
        let used = self.used.saturating_add(bytes);
        if used > self.limit {
            return Err(over_budget(what, used, self.limit));
        }
        self.used = used;
        Ok(())
    }

    /// Charges `count` items of `item_bytes` each.
    pub fn charge_items(&mut self, count: u64, item_bytes: usize, what: &str) -> Result<()> {
        self.charge(count.saturating_mul(item_bytes as u64), what)
    }
}

/// The error for `what` needing `bytes` under a budget of `limit`.
pub fn over_budget(what: &str, bytes: u64, limit: u64) -> Error {
    Error::TooLarge(format!(
        "{what} needs {bytes} bytes, past the memory budget of {limit} bytes; \
         if the collection is genuine, raise ReadOptions::memory_budget (maxMemory in JavaScript)"
    ))
}

/// Checks one allocation of `bytes` for `what` against `limit`.
pub fn check(bytes: u64, limit: u64, what: &str) -> Result<()> {
    Budget::new(limit).charge(bytes, what)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charges_add_up_and_stop_at_the_limit() {
        let mut budget = Budget::new(100);
        budget.charge(60, "a pool").unwrap();
        let err = budget.charge(41, "a second pool").unwrap_err();
        assert_eq!(err.code(), "TooLarge");
        assert!(err.to_string().contains("memory_budget"));
        budget.charge(40, "the rest").unwrap();
        assert!(budget.charge_items(u64::MAX, 24, "forged").is_err());
    }
}
