//! The error type of the Atria readers.
//!
//! Atria's own failures (a pointer that reaches the wrong member, a protocol
//! this reader cannot honour, a damaged cache file) are its variants; what
//! the core raises on the way (sources, budgets, arguments: `NotFound`,
//! `HttpStatus`, `TooLarge`, ...) is carried as [`Error::Core`], unchanged.
//! [`Error::code`] is the same stable string either way, and the JavaScript
//! entry `atlas-wasm/atria` exposes it as `AtriaError.code`.

use std::fmt;

/// Everything that can go wrong while reading an Atria cache.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// An Atria content pointer (`shard.tar?offset=O&length=L`) does not
    /// name the member its row expects, and the member could not be found
    /// by name either; the message says what the pointer does reach.
    BadPointer(String),
    /// A table or cache declares a protocol version or feature this reader
    /// cannot honour (e.g. a Delta Lake reader feature).
    UnsupportedProtocol(String),
    /// An Atria cache file (a TAR shard, a msgpack shard or its sidecars, a
    /// Delta log or parquet file) is damaged: a header, checksum, offset
    /// table or record does not decode.
    Corrupt(String),
    /// What the core raised: the source failed, a budget or bound was
    /// exceeded, an argument makes no sense. Its code is the core's.
    Core(crate::Error),
}

/// The codes of Atria's own variants, in declaration order; the codes of
/// [`Error::Core`] are [`crate::Error::CODES`]. `js/src/errors.js` and
/// `js/src/index.d.ts` list the core's codes and then these (a unit test
/// below holds them equal).
const CODES: &[&str] = &["BadPointer", "UnsupportedProtocol", "Corrupt"];

impl Error {
    /// The codes of Atria's own variants; any other code an Atria reader
    /// gives is one of [`crate::Error::CODES`], from [`Error::Core`].
    pub const CODES: &'static [&'static str] = CODES;

    /// A stable identifier for the error, shared with the JavaScript
    /// `AtriaError.code`: the variant's name, or the core error's code.
    pub fn code(&self) -> &'static str {
        match self {
            Error::BadPointer(_) => "BadPointer",
            Error::UnsupportedProtocol(_) => "UnsupportedProtocol",
            Error::Corrupt(_) => "Corrupt",
            Error::Core(e) => e.code(),
        }
    }

    /// The HTTP status of a core [`HttpStatus`](crate::Error::HttpStatus)
    /// error, `None` for any other error.
    pub fn http_status(&self) -> Option<u16> {
        match self {
            Error::Core(e) => e.http_status(),
            _ => None,
        }
    }

    /// The core error this carries, if it is one.
    pub fn core(&self) -> Option<&crate::Error> {
        match self {
            Error::Core(e) => Some(e),
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::BadPointer(m) => write!(f, "bad pointer: {m}"),
            Error::UnsupportedProtocol(m) => write!(f, "unsupported protocol: {m}"),
            Error::Corrupt(m) => write!(f, "corrupt: {m}"),
            // The core's words, so a message reads as it did before the split.
            Error::Core(e) => fmt::Display::fmt(e, f),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Core(e) => Some(e),
            _ => None,
        }
    }
}

impl From<crate::Error> for Error {
    fn from(e: crate::Error) -> Self {
        Error::Core(e)
    }
}

/// The Atria readers' result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::tests::{quoted, variants_of};

    /// One error of each of Atria's own variants, in declaration order.
    fn one_of_each() -> Vec<Error> {
        let m = || "m".to_string();
        vec![
            Error::BadPointer(m()),
            Error::UnsupportedProtocol(m()),
            Error::Corrupt(m()),
        ]
    }

    #[test]
    fn codes_are_listed_once_in_order_and_apart_from_the_cores() {
        let codes: Vec<&str> = one_of_each().iter().map(Error::code).collect();
        assert_eq!(codes, CODES);
        for code in CODES {
            assert!(
                !crate::Error::CODES.contains(code),
                "{code} is the core's too"
            );
        }
    }

    /// A variant added without its code in [`CODES`] (and so in JavaScript)
    /// fails here: each code is its variant's name.
    #[test]
    fn every_own_variant_has_its_code_listed() {
        let mut variants = variants_of(include_str!("error.rs"));
        variants.retain(|name| *name != "Core");
        assert_eq!(variants, CODES);
    }

    #[test]
    fn a_core_error_keeps_its_code_status_and_words() {
        let core = crate::Error::HttpStatus {
            status: 503,
            message: "m".into(),
        };
        let e = Error::from(core.clone());
        assert_eq!(e.code(), "HttpStatus");
        assert_eq!(e.http_status(), Some(503));
        assert_eq!(e.to_string(), core.to_string());
        assert_eq!(e.core(), Some(&core));
        let source = std::error::Error::source(&e).expect("the core error");
        assert_eq!(source.to_string(), core.to_string());
        assert_eq!(Error::Corrupt("m".into()).http_status(), None);
        assert_eq!(Error::Corrupt("m".into()).to_string(), "corrupt: m");
    }

    /// JavaScript has one list for both entries: every code the core or an
    /// Atria reader can give, the core's first. A code added on one side
    /// only fails here.
    #[test]
    fn javascript_lists_the_cores_codes_then_atrias() {
        let every: Vec<&str> = crate::Error::CODES.iter().chain(CODES).copied().collect();
        let js = include_str!("../../js/src/errors.js");
        assert_eq!(
            quoted(js, "export const CODES = Object.freeze([", "]"),
            every
        );
        let dts = include_str!("../../js/src/index.d.ts");
        assert_eq!(quoted(dts, "export type AtlasErrorCode =", ";"), every);
        // atria.d.ts narrows that list by codes only a collection raises.
        let atria = include_str!("../../js/src/atria.d.ts");
        for code in quoted(atria, "export type AtriaErrorCode = Exclude<", ">;") {
            assert!(crate::Error::CODES.contains(&code.as_str()), "{code}");
        }
    }
}
