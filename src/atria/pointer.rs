//! Atria's content pointers, and what checking one found.

use std::fmt;

use crate::atria::error::{Error, Result};

use super::store::check_relative;

/// `shards/{split}/{worker:06d}-{shard:06d}.tar?offset=O&length=L`: the
/// member's data starts at byte `O` of the shard and is `L` bytes long.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pointer {
    /// The shard's path relative to the cache.
    pub shard: String,
    /// Where the member's data starts.
    pub offset: u64,
    /// The member's size.
    pub length: u64,
}

impl Pointer {
    /// Parses a pointer; anything else is [`crate::Error::InvalidArgument`] (a plain
    /// relative path is not a pointer).
    pub fn parse(text: &str) -> Result<Pointer> {
        let bad = |why: &str| {
            Error::from(crate::Error::InvalidArgument(format!(
                "'{text}' is not a pointer: {why}"
            )))
        };
        let (shard, query) = text
            .split_once('?')
            .ok_or_else(|| bad("no '?offset=…&length=…'"))?;
        check_relative(shard)?;
        let (mut offset, mut length) = (None, None);
        for pair in query.split('&') {
            let (key, value) = pair
                .split_once('=')
                .ok_or_else(|| bad("a bare query key"))?;
            let number = value
                .parse::<u64>()
                .map_err(|_| bad(&format!("{key}={value} is not a byte count")))?;
            let slot = match key {
                "offset" => &mut offset,
                "length" => &mut length,
                _ => return Err(bad(&format!("unknown key '{key}'"))),
            };
            if slot.replace(number).is_some() {
                return Err(bad(&format!("'{key}' given twice")));
            }
        }
        let (Some(offset), Some(length)) = (offset, length) else {
            return Err(bad("offset and length are both needed"));
        };
        if offset.checked_add(length).is_none() {
            return Err(bad("offset + length overflows"));
        }
        Ok(Pointer {
            shard: shard.to_string(),
            offset,
            length,
        })
    }
}

impl fmt::Display for Pointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}?offset={}&length={}",
            self.shard, self.offset, self.length
        )
    }
}

/// Why a pointer does not reach the member its row expects. Exhaustive on
/// purpose: the Atria module lists every defect for JavaScript, and a new
/// one must fail its build until it does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Defect {
    /// `offset + length` lies past the end of the shard.
    PastEnd,
    /// The offset is not on a 512-byte block boundary, where every member's
    /// data starts.
    Misaligned,
    /// The block before the offset is not a member's header.
    NoHeader {
        /// What is there instead.
        found: String,
    },
    /// The pointer reaches another member, or this member with another size.
    OtherMember {
        /// The member's name there.
        name: String,
        /// Its size.
        size: u64,
    },
    /// The shard the pointer names does not exist.
    NoShard,
    /// A `data/` path without its split directory (Atria's writer drops it
    /// for some copies): the file is under `data/{split}/`.
    SplitMissing,
}

impl fmt::Display for Defect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Defect::PastEnd => write!(f, "the range ends past the end of the shard"),
            Defect::Misaligned => write!(f, "the offset is not on a 512-byte block boundary"),
            Defect::NoHeader { found } => {
                write!(
                    f,
                    "the block before the offset is {found}, not a member header"
                )
            }
            Defect::OtherMember { name, size } => {
                write!(f, "it reaches member '{name}' of {size} bytes")
            }
            Defect::NoShard => write!(f, "the shard does not exist"),
            Defect::SplitMissing => write!(f, "the path lacks the split directory"),
        }
    }
}

/// One member of a shard, located.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberRef {
    /// The shard's path relative to the cache.
    pub shard: String,
    /// The member's name.
    pub name: String,
    /// Where its data starts in the shard.
    pub offset: u64,
    /// Its size.
    pub size: u64,
}

/// Which name a field's TAR member was found under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Naming {
    /// `{key}.{field}__content`: Atria's writer names each member after its
    /// row's content column. Tried first.
    Content,
    /// `{key}.{field}`, as other WebDataset writers name members.
    Field,
}

impl Naming {
    /// Both, in the order they are tried.
    pub const ALL: [Naming; 2] = [Naming::Content, Naming::Field];

    /// `"content"` or `"field"`, as the JS API says it.
    pub fn as_str(self) -> &'static str {
        match self {
            Naming::Content => "content",
            Naming::Field => "field",
        }
    }

    /// The member name of `field` in sample `key` under this naming.
    pub fn member(self, key: &str, field: &str) -> String {
        match self {
            Naming::Content => format!("{key}.{field}__content"),
            Naming::Field => format!("{key}.{field}"),
        }
    }
}

/// How a sample's WebDataset key was made from its row, as Atria's writers
/// have made it (docs/atria.md, "Atria's WebDataset keys"). A row whose key
/// column is `__key__` or `key` holds the key itself ([`Verbatim`] only); a
/// row with only `sample_id` (what Atria's Delta rows hold) may be under any.
///
/// [`Verbatim`]: KeyConvention::Verbatim
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyConvention {
    /// The key column as written.
    Verbatim,
    /// Each `.` of the sample id becomes `_` (atriaml/atria's
    /// `BaseDataInstance.key`, every commit).
    Dots,
    /// Each `.` and `/` becomes `_` (atria_core, from 19146ac2).
    DotsSlashes,
    /// Each `.`, `/` and `#` becomes `_` (atria_core, from 1990a17a).
    DotsSlashesHash,
}

impl KeyConvention {
    /// Every convention, in the order they are tried.
    pub const ALL: [KeyConvention; 4] = [
        KeyConvention::Verbatim,
        KeyConvention::Dots,
        KeyConvention::DotsSlashes,
        KeyConvention::DotsSlashesHash,
    ];

    /// `"verbatim"`, `"dots"`, `"dots-slashes"` or `"dots-slashes-hash"`, as
    /// the JS API says it.
    pub fn as_str(self) -> &'static str {
        match self {
            KeyConvention::Verbatim => "verbatim",
            KeyConvention::Dots => "dots",
            KeyConvention::DotsSlashes => "dots-slashes",
            KeyConvention::DotsSlashesHash => "dots-slashes-hash",
        }
    }

    /// The WebDataset key of sample `id` under this convention.
    pub fn key(self, id: &str) -> String {
        let replaced: &[char] = match self {
            KeyConvention::Verbatim => &[],
            KeyConvention::Dots => &['.'],
            KeyConvention::DotsSlashes => &['.', '/'],
            KeyConvention::DotsSlashesHash => &['.', '/', '#'],
        };
        id.chars()
            .map(|c| if replaced.contains(&c) { '_' } else { c })
            .collect()
    }
}

/// What resolving a pointer found: `ok` when the pointer was right; else
/// `defect` says why not, and `recovered` whether the member was found by
/// name anyway (then `member` says where).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// The pointer as written in the table.
    pub pointer: String,
    /// True when the pointer reached the expected member.
    pub ok: bool,
    /// Why it did not.
    pub defect: Option<Defect>,
    /// True when the member was found by name after the pointer failed.
    pub recovered: bool,
    /// Where the bytes came from (absent when neither verified nor recovered).
    pub member: Option<MemberRef>,
    /// The name a split's field was found under; absent for inline bytes,
    /// `data/` files, and member names given by the caller.
    pub naming: Option<Naming>,
    /// How the member's key was made from the row ([`KeyConvention`]):
    /// the first convention, in [`KeyConvention::ALL`]'s order, whose key
    /// names the member found; absent where `naming` is.
    pub key_convention: Option<KeyConvention>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_parse_and_print_back() {
        let text = "shards/train/000000-000001.tar?offset=1536&length=37";
        let p = Pointer::parse(text).unwrap();
        assert_eq!(
            (p.shard.as_str(), p.offset, p.length),
            ("shards/train/000000-000001.tar", 1536, 37)
        );
        assert_eq!(p.to_string(), text);
        assert_eq!(Pointer::parse("a.tar?length=2&offset=1").unwrap().offset, 1);
    }

    #[test]
    fn each_key_convention_replaces_its_characters_and_no_others() {
        let id = "imagesa/a/a/a/aaa06d00/50486482-6482.tif#2";
        let keys = KeyConvention::ALL.map(|c| c.key(id));
        assert_eq!(
            keys,
            [
                "imagesa/a/a/a/aaa06d00/50486482-6482.tif#2",
                "imagesa/a/a/a/aaa06d00/50486482-6482_tif#2",
                "imagesa_a_a_a_aaa06d00_50486482-6482_tif#2",
                "imagesa_a_a_a_aaa06d00_50486482-6482_tif_2",
            ]
        );
        assert_eq!(KeyConvention::DotsSlashesHash.key("é.日本/x"), "é_日本_x");
    }

    #[test]
    fn malformed_pointers_are_invalid_arguments() {
        for bad in [
            "data/train/a.pdf",
            "a.tar?offset=1",
            "a.tar?offset=1&length=x",
            "a.tar?offset=1&length=2&offset=3",
            "a.tar?offset=-1&length=2",
            "a.tar?offset=1&length=2&z=1",
            "../a.tar?offset=1&length=2",
            "a.tar?offset=18446744073709551615&length=2",
        ] {
            assert_eq!(
                Pointer::parse(bad).unwrap_err().code(),
                "InvalidArgument",
                "{bad}"
            );
        }
    }
}
