//! A shard's member list, built from its headers with few large reads.

use std::collections::HashMap;

use crate::atria::error::{Error, Result};
use crate::source::ByteSource;

use super::tar_header::{
    padded, parse_block, parse_extended, Block, Extended, BLOCK, MAX_EXTENDED,
};

/// How much one index read asks for. A shard of small members is indexed in
/// one request; members larger than this are skipped over, not read.
pub(crate) const INDEX_READ: u64 = 1 << 20;

/// One regular file in a shard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The full name (PAX `path` where there is one), lossily UTF-8.
    pub name: String,
    /// Where its data starts.
    pub offset: u64,
    /// Its size.
    pub size: u64,
}

impl Member {
    /// The WebDataset sample key: the name up to the first dot of its last
    /// path component (`a/b.c.png` → `a/b`).
    pub fn key(&self) -> &str {
        let base = self.name.rfind('/').map_or(0, |i| i + 1);
        match self.name[base..].find('.') {
            Some(dot) => &self.name[..base + dot],
            None => &self.name,
        }
    }

    /// The extension after the key (`c.png` for `a/b.c.png`; empty if none).
    pub fn extension(&self) -> &str {
        let key = self.key().len();
        self.name.get(key + 1..).unwrap_or("")
    }
}

/// One WebDataset sample: consecutive members sharing a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    /// The key.
    pub key: String,
    /// Its members, in shard order.
    pub members: Vec<Member>,
}

/// Every member of one shard, in order, with a lookup by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardIndex {
    /// The shard's size in bytes.
    pub size: u64,
    /// The regular-file members, in shard order.
    pub members: Vec<Member>,
    by_name: HashMap<String, usize>,
}

impl ShardIndex {
    /// The member called `name` (the last one, if a name repeats, as `tar
    /// -x` would leave it).
    pub fn find(&self, name: &str) -> Option<&Member> {
        self.by_name.get(name).map(|&i| &self.members[i])
    }

    /// The members grouped into WebDataset samples: a new sample starts
    /// wherever the key changes.
    pub fn samples(&self) -> Vec<Sample> {
        let mut samples: Vec<Sample> = Vec::new();
        for member in &self.members {
            match samples.last_mut() {
                Some(last) if last.key == member.key() => last.members.push(member.clone()),
                _ => samples.push(Sample {
                    key: member.key().to_string(),
                    members: vec![member.clone()],
                }),
            }
        }
        samples
    }

    /// Reads the headers of the shard behind `source`. Reads are
    /// [`INDEX_READ`] bytes, each starting at the first header not yet seen.
    pub(crate) async fn build(source: &dyn ByteSource, shard: &str) -> Result<ShardIndex> {
        // A tail read learns the size and, for a small shard, has it all.
        let tail = source.read_tail(INDEX_READ).await?;
        let size = tail.object_size;
        let mut window = Window {
            start: size - tail.bytes.len() as u64,
            bytes: tail.bytes,
        };
        let corrupt = |at: u64, what: &str| {
            Error::Corrupt(format!(
                "{shard}: {what} at byte {at} ({} bytes in all)",
                size
            ))
        };
        let mut members = Vec::new();
        let mut extended = Extended::default();
        let mut at = 0u64;
        loop {
            if at + BLOCK > size {
                return Err(corrupt(
                    at,
                    "the archive ends without its end-of-archive blocks",
                ));
            }
            if !window.covers(at, BLOCK) {
                window = Window::read(source, at, size).await?;
            }
            let header = match parse_block(window.get(at, BLOCK)) {
                Block::Zeros => break,
                Block::NotAHeader => return Err(corrupt(at, "a block that is not a TAR header")),
                Block::Header(h) => h,
            };
            let data = at + BLOCK;
            let past_end = |len: u64| corrupt(at, &format!("a member of {len} bytes past the end"));
            if header.is_extended() {
                if header.size > MAX_EXTENDED {
                    return Err(corrupt(
                        at,
                        &format!("an extended header of {} bytes", header.size),
                    ));
                }
                if data + padded(header.size) > size {
                    return Err(past_end(header.size));
                }
                if !window.covers(data, header.size) {
                    window = Window::read(source, at, size).await?;
                }
                parse_extended(&header, window.get(data, header.size), &mut extended)
                    .map_err(|e| corrupt(at, &e.to_string()))?;
                at = data + padded(header.size);
                continue;
            }
            let pending = std::mem::take(&mut extended);
            let len = pending.size.unwrap_or(header.size);
            at = data
                .checked_add(padded(len))
                .filter(|&n| n <= size)
                .ok_or_else(|| past_end(len))?;
            if header.is_file() {
                let name = pending.path.unwrap_or(header.name);
                members.push(Member {
                    name: String::from_utf8_lossy(&name).into_owned(),
                    offset: data,
                    size: len,
                });
            }
        }
        let by_name = members
            .iter()
            .enumerate()
            .map(|(i, m)| (m.name.clone(), i))
            .collect();
        Ok(ShardIndex {
            size,
            members,
            by_name,
        })
    }
}

/// Bytes `start..start + bytes.len()` of a shard.
struct Window {
    start: u64,
    bytes: Vec<u8>,
}

impl Window {
    async fn read(source: &dyn ByteSource, at: u64, size: u64) -> Result<Window> {
        let end = size.min(at + INDEX_READ);
        Ok(Window {
            start: at,
            bytes: source.read_range(at..end).await?,
        })
    }

    fn covers(&self, at: u64, len: u64) -> bool {
        at >= self.start && at + len <= self.start + self.bytes.len() as u64
    }

    fn get(&self, at: u64, len: u64) -> &[u8] {
        let from = (at - self.start) as usize;
        &self.bytes[from..from + len as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(name: &str) -> Member {
        Member {
            name: name.into(),
            offset: 0,
            size: 0,
        }
    }

    #[test]
    fn keys_stop_at_the_first_dot_of_the_basename() {
        assert_eq!(member("a/b.c.png").key(), "a/b");
        assert_eq!(member("a/b.c.png").extension(), "c.png");
        assert_eq!(member("x.y/b").key(), "x.y/b");
        assert_eq!(member("é-日本.json").key(), "é-日本");
    }
}
