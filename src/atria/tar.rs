//! WebDataset TAR shards: verified pointers, recovery by name, member lists.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::atria::error::{Error, Result};
use crate::source::ByteSource;

use super::pointer::{Check, Defect, MemberRef, Pointer};
use super::store::{check_relative, Store};
use super::tar_header::{
    padded, parse_block, parse_extended, Block, Extended, Header, BLOCK, MAX_EXTENDED,
};
use super::tar_index::{Sample, ShardIndex};

/// How far before a pointer's offset its one read starts: the member's
/// header block, and before it a PAX header with up to 1 KiB of records
/// (Python's records for a name of under ~1,000 bytes, with its `mtime`).
/// Where the name found there is not the expected one and no PAX header was
/// in reach, one more read of up to 64 KiB makes sure.
pub(crate) const LOOKBEHIND: u64 = 2 << 10;

/// A member's bytes and how they were found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Content {
    /// The member's data.
    pub bytes: Vec<u8>,
    /// Whether the pointer was right, and where the bytes came from.
    pub check: Check,
}

/// The TAR shards of one cache, with a header index per shard built on
/// first need and kept.
pub struct TarShards {
    store: Arc<dyn Store>,
    indexes: Mutex<HashMap<String, Arc<ShardIndex>>>,
}

impl TarShards {
    /// Shards opened through `store`.
    pub fn new(store: impl Store + 'static) -> Self {
        Self {
            store: Arc::new(store),
            indexes: Mutex::new(HashMap::new()),
        }
    }

    /// The member `pointer` reaches, if it is the one named `expected` and
    /// of the pointer's length: one range read. Anything else is
    /// [`Error::BadPointer`] saying what the pointer reaches; nothing is
    /// recovered.
    pub async fn read(&self, pointer: &str, expected: &str) -> Result<Vec<u8>> {
        let p = Pointer::parse(pointer)?;
        match self.verify(&p, &[expected]).await? {
            Ok((bytes, _)) => Ok(bytes),
            Err(defect) => Err(Error::BadPointer(format!(
                "{pointer} should reach member '{expected}' of {} bytes, but {defect}",
                p.length
            ))),
        }
    }

    /// The member `expected` behind `pointer`: verified as [`read`](Self::read)
    /// does, else found by name in the pointer's shard or the one written
    /// after it (where Atria's writer put the member when it rotated shards).
    /// Neither is [`Error::BadPointer`].
    pub async fn content(&self, pointer: &str, expected: &str) -> Result<Content> {
        let (bytes, check) = self.resolve(pointer, &[expected]).await?;
        match bytes {
            Some(bytes) => Ok(Content { bytes, check }),
            None => Err(Error::BadPointer(format!(
                "{pointer} should reach member '{expected}', but {}; no member of that name \
                 and size is in the shard or the next one",
                check.defect.map_or_else(String::new, |d| d.to_string())
            ))),
        }
    }

    /// What [`content`](Self::content) would find, without failing on a
    /// pointer that is neither verified nor recovered.
    pub async fn check(&self, pointer: &str, expected: &str) -> Result<Check> {
        Ok(self.resolve(pointer, &[expected]).await?.1)
    }

    /// The shard's members, from its headers: read on first use (in
    /// requests of up to 1 MiB), then kept.
    pub async fn index(&self, shard: &str) -> Result<Arc<ShardIndex>> {
        check_relative(shard)?;
        if let Some(index) = self.lock().get(shard) {
            return Ok(index.clone());
        }
        let source = self.store.open(shard)?;
        let index = Arc::new(ShardIndex::build(source.as_ref(), shard).await?);
        self.lock().insert(shard.to_string(), index.clone());
        Ok(index)
    }

    /// The shard's members grouped into WebDataset samples.
    pub async fn samples(&self, shard: &str) -> Result<Vec<Sample>> {
        Ok(self.index(shard).await?.samples())
    }

    /// The data of one member of `shard` (one range read).
    pub async fn read_member(&self, shard: &str, offset: u64, size: u64) -> Result<Vec<u8>> {
        check_relative(shard)?;
        let end = offset
            .checked_add(size)
            .ok_or_else(|| crate::Error::InvalidArgument(format!("{offset} + {size} overflows")))?;
        Ok(self.store.open(shard)?.read_range(offset..end).await?)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<ShardIndex>>> {
        // Only whole entries are ever inserted: a poisoned map is still sound.
        self.indexes.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The member's bytes when verified or recovered, and what was found.
    /// The pointer may reach any of `names`; recovery tries them in order in
    /// each shard (`check.member.name` says which was found).
    pub(crate) async fn resolve(
        &self,
        pointer: &str,
        names: &[&str],
    ) -> Result<(Option<Vec<u8>>, Check)> {
        let p = Pointer::parse(pointer)?;
        let mut check = Check {
            pointer: pointer.to_string(),
            ok: false,
            defect: None,
            recovered: false,
            member: None,
            naming: None,
            key_convention: None,
        };
        match self.verify(&p, names).await? {
            Ok((bytes, member)) => {
                check.ok = true;
                check.member = Some(member);
                return Ok((Some(bytes), check));
            }
            Err(defect) => check.defect = Some(defect),
        }
        for shard in [Some(p.shard.clone()), next_shard(&p.shard)]
            .into_iter()
            .flatten()
        {
            let index = match self.index(&shard).await {
                Ok(index) => index,
                Err(Error::Core(crate::Error::NotFound(_))) => continue,
                Err(e) => return Err(e),
            };
            let found = names
                .iter()
                .find_map(|n| index.find(n).filter(|m| m.size == p.length));
            if let Some(m) = found {
                let bytes = self.read_member(&shard, m.offset, m.size).await?;
                check.recovered = true;
                check.member = Some(MemberRef {
                    shard,
                    name: m.name.clone(),
                    offset: m.offset,
                    size: m.size,
                });
                return Ok((Some(bytes), check));
            }
        }
        Ok((None, check))
    }

    /// One read of `LOOKBEHIND` bytes before the data and the data itself;
    /// the inner error is what the pointer reaches instead of any of `names`.
    async fn verify(
        &self,
        p: &Pointer,
        names: &[&str],
    ) -> Result<std::result::Result<(Vec<u8>, MemberRef), Defect>> {
        if p.offset % BLOCK != 0 {
            return Ok(Err(Defect::Misaligned));
        }
        if p.offset < BLOCK {
            return Ok(Err(Defect::NoHeader {
                found: "the start of the shard".into(),
            }));
        }
        let source = match self.store.open(&p.shard) {
            Ok(source) => source,
            Err(crate::Error::NotFound(_)) => return Ok(Err(Defect::NoShard)),
            Err(e) => return Err(e.into()),
        };
        let start = p.offset.saturating_sub(LOOKBEHIND);
        let window = match read_window(source.as_ref(), start, p.offset + p.length).await {
            Ok(bytes) => bytes,
            Err(crate::Error::OutOfBounds(_) | crate::Error::HttpStatus { status: 416, .. }) => {
                return Ok(Err(Defect::PastEnd))
            }
            Err(crate::Error::NotFound(_)) => return Ok(Err(Defect::NoShard)),
            Err(e) => return Err(e.into()),
        };
        let block = |at: u64| {
            let from = (at - start) as usize;
            &window[from..from + BLOCK as usize]
        };
        let header = match parse_block(block(p.offset - BLOCK)) {
            Block::Zeros => {
                return Ok(Err(Defect::NoHeader {
                    found: "zeros (the end of the archive)".into(),
                }))
            }
            Block::NotAHeader => {
                return Ok(Err(Defect::NoHeader {
                    found: "member data".into(),
                }))
            }
            Block::Header(h) if h.is_extended() => {
                return Ok(Err(Defect::NoHeader {
                    found: "an extended (PAX) header".into(),
                }))
            }
            Block::Header(h) => h,
        };
        let header_at = p.offset - BLOCK;
        let mut extended = extended_before(&window, start, header_at);
        let ustar_name = String::from_utf8_lossy(&header.name);
        if extended.is_none() && start > 0 && !names.contains(&ustar_name.as_ref()) {
            // A long name's PAX header may begin before the window.
            let far = header_at.saturating_sub(MAX_EXTENDED + BLOCK);
            let before = read_window(source.as_ref(), far, header_at).await?;
            extended = extended_before(&before, far, header_at);
        }
        let extended = extended.unwrap_or_default();
        let name = extended.path.unwrap_or(header.name);
        let name = String::from_utf8_lossy(&name).into_owned();
        let size = extended.size.unwrap_or(header.size);
        if !names.contains(&name.as_str()) || size != p.length {
            return Ok(Err(Defect::OtherMember { name, size }));
        }
        let data = window[(p.offset - start) as usize..].to_vec();
        Ok(Ok((
            data,
            MemberRef {
                shard: p.shard.clone(),
                name,
                offset: p.offset,
                size,
            },
        )))
    }
}

/// A core result: its errors (`OutOfBounds`, a 416) are told apart above.
async fn read_window(source: &dyn ByteSource, start: u64, end: u64) -> crate::Result<Vec<u8>> {
    let bytes = source.read_range(start..end).await?;
    if bytes.len() as u64 != end - start {
        return Err(crate::Error::Io(format!(
            "{} answered {} bytes for {start}..{end}",
            source.describe(),
            bytes.len()
        )));
    }
    Ok(bytes)
}

/// The extended header that ends right before the header at `header_at`, if
/// the window holds one: the nearest block back that is an extended header
/// whose records fill exactly the blocks up to `header_at`.
fn extended_before(window: &[u8], start: u64, header_at: u64) -> Option<Extended> {
    let mut ext = Extended::default();
    let mut records = BLOCK;
    while let Some(at) = header_at
        .checked_sub(records + BLOCK)
        .filter(|&a| a >= start)
    {
        let from = (at - start) as usize;
        if let Block::Header(h) = parse_block(&window[from..from + BLOCK as usize]) {
            if is_extended_of(&h, records) {
                let data = &window[from + BLOCK as usize..from + (BLOCK + h.size) as usize];
                // Damaged records leave the name unknown: the ustar name is
                // then compared, and a mismatch reported.
                let _ = parse_extended(&h, data, &mut ext);
                return Some(ext);
            }
        }
        records += BLOCK;
    }
    None
}

fn is_extended_of(h: &Header, records: u64) -> bool {
    h.is_extended() && h.size > 0 && padded(h.size) == records
}

/// The shard Atria's writer opened after `shard`: the same worker, the next
/// shard number (`…/000001-000004.tar` → `…/000001-000005.tar`).
pub(crate) fn next_shard(shard: &str) -> Option<String> {
    let stem = shard.strip_suffix(".tar")?;
    let digits = stem.len() - stem.bytes().rev().take_while(u8::is_ascii_digit).count();
    let (head, number) = stem.split_at(digits);
    let next = number.parse::<u64>().ok()?.checked_add(1)?;
    Some(format!("{head}{next:0width$}.tar", width = number.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atria::tar_header::tests::header_block;
    use crate::source::{CountingSource, MemorySource, RequestLog};

    /// A shard of one member whose PAX `path` record is `name_len` bytes.
    fn long_name_shard(name: &str) -> (Vec<u8>, u64) {
        let record = format!(" path={name}\n");
        let mut len = record.len() + 1;
        while format!("{len}{record}").len() != len {
            len += 1;
        }
        let records = format!("{len}{record}");
        let mut tar = header_block(b"././@PaxHeader", records.len() as u64, b'x');
        tar.extend_from_slice(records.as_bytes());
        tar.resize(padded(tar.len() as u64) as usize, 0);
        tar.extend(header_block(b"mangled", 5, b'0'));
        let offset = tar.len() as u64;
        tar.extend_from_slice(b"hello");
        tar.resize(padded(tar.len() as u64) as usize + 1024, 0);
        (tar, offset)
    }

    fn counted(tar: Vec<u8>) -> (TarShards, RequestLog) {
        let source = Arc::new(CountingSource::new(MemorySource::new(tar)));
        let log = source.log();
        let store = move |_: &str| -> crate::Result<Arc<dyn ByteSource>> { Ok(source.clone()) };
        (TarShards::new(store), log)
    }

    #[test]
    fn a_name_whose_pax_header_is_out_of_reach_costs_a_second_read() {
        for (name_len, requests) in [(200, 1), (5000, 2)] {
            let name = format!("{}.png", "n".repeat(name_len));
            let (tar, offset) = long_name_shard(&name);
            let (shards, log) = counted(tar);
            let pointer = format!("s/0-0.tar?offset={offset}&length=5");
            let bytes = futures_executor::block_on(shards.read(&pointer, &name)).unwrap();
            assert_eq!(
                (bytes.as_slice(), log.requests()),
                (&b"hello"[..], requests)
            );
        }
    }

    /// A shard of members of five bytes each, with their data offsets.
    fn shard_of(names: &[&str]) -> (Vec<u8>, Vec<u64>) {
        let (mut tar, mut offsets) = (Vec::new(), Vec::new());
        for name in names {
            tar.extend(header_block(name.as_bytes(), 5, b'0'));
            offsets.push(tar.len() as u64);
            tar.extend_from_slice(b"hello");
            tar.resize(padded(tar.len() as u64) as usize, 0);
        }
        tar.resize(tar.len() + 1024, 0);
        (tar, offsets)
    }

    #[test]
    fn a_pointer_may_reach_any_of_the_names_and_recovery_tries_them_in_order() {
        let names = ["k.image__content", "k.image"];
        let (tar, at) = shard_of(&["k.image", "k.image__content", "k.ocr"]);
        let (shards, _) = counted(tar);
        let resolve = |offset: u64| {
            let pointer = format!("s/0-0.tar?offset={offset}&length=5");
            futures_executor::block_on(shards.resolve(&pointer, &names)).unwrap()
        };
        for (offset, ok, name) in [
            (at[0], true, "k.image"),
            (at[1], true, "k.image__content"),
            // k.ocr is neither: recovered, the first name first.
            (at[2], false, "k.image__content"),
        ] {
            let (bytes, check) = resolve(offset);
            assert_eq!(bytes.as_deref(), Some(&b"hello"[..]));
            assert_eq!((check.ok, check.recovered), (ok, !ok), "{offset}");
            assert_eq!(check.member.unwrap().name, name);
        }
    }

    #[test]
    fn the_next_shard_keeps_worker_and_width() {
        assert_eq!(
            next_shard("shards/train/000001-000004.tar").as_deref(),
            Some("shards/train/000001-000005.tar")
        );
        assert_eq!(next_shard("s/0-9.tar").as_deref(), Some("s/0-10.tar"));
        assert_eq!(next_shard("s/a.tar"), None);
        assert_eq!(next_shard("s/a.zip"), None);
    }
}
