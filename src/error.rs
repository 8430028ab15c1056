//! The error type of the core: collections, sources, budgets, the writer.
//!
//! Every variant names what was found and, where there is one, the fix.
//! [`Error::code`] gives each variant a stable string that the JavaScript
//! bindings expose as `AtlasError.code`, so callers never parse messages.
//! The Atria readers have their own error (`atria::Error`, feature
//! `atria`), which carries a core error as one of its variants.

use std::fmt;

/// Everything that can go wrong while opening or reading a collection.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// The object does not end with the ATLAS trailer (or begins with foreign magic).
    NotAnAtlasCollection(String),
    /// The trailer names a container version this reader does not speak.
    UnsupportedVersion {
        /// The version the file declares.
        found: u32,
        /// The version this reader speaks.
        expected: u32,
    },
    /// The container is damaged: a length, index, checksum or structure is wrong.
    CorruptCollection(String),
    /// `deleted.mask` exists but is not a mask.
    CorruptMask(String),
    /// No live dataset has this name.
    DatasetNotFound(String),
    /// The dataset does not declare this array.
    ArrayNotFound {
        /// The dataset asked.
        dataset: String,
        /// The array it does not declare.
        array: String,
    },
    /// A typed read asked for a different element type than the array stores.
    DTypeMismatch {
        /// The array read.
        array: String,
        /// The type it stores.
        stored: String,
        /// The type the caller asked for.
        requested: String,
    },
    /// A window reaches past the array, or has the wrong rank.
    OutOfBounds(String),
    /// The byte source failed in a way no other code names (a file system
    /// error, a source that answered the wrong number of bytes).
    Io(String),
    /// The server does not serve byte ranges as asked: it answered a range
    /// with the whole object (200), another range, a multipart body, or
    /// another number of bytes than its `Content-Range` says.
    RangeNotSupported(String),
    /// The answer to a range came compressed (`Content-Encoding`), so its
    /// bytes are not the object's bytes.
    ContentEncoded(String),
    /// The server answered a status the reader cannot use (a 5xx after the
    /// retries ran out, a 403, a 416 that names no size).
    HttpStatus {
        /// The HTTP status code.
        status: u16,
        /// What was asked and what came back.
        message: String,
    },
    /// The connection failed: refused, reset, broken off mid-body, DNS, TLS
    /// (after the retries ran out).
    Network(String),
    /// No answer, or no progress in the body, within the timeout.
    Timeout(String),
    /// The object is not there (an absent `deleted.mask` is not an error; this is).
    NotFound(String),
    /// The object changed while a reader had it open (ETag or size mismatch).
    ObjectChanged(String),
    /// The caller aborted the read.
    Aborted,
    /// The answer would not fit in memory or in the address space.
    TooLarge(String),
    /// An argument the caller passed makes no sense (e.g. an invalid name).
    InvalidArgument(String),
    /// A bug in this library: a panic, caught at the JavaScript boundary
    /// before it could take the page or the isolate down. Please report it.
    Internal(String),
}

/// Every [`Error::code`], in declaration order: the list that
/// `js/src/errors.js` and `js/src/index.d.ts` begin with, before the codes
/// of Atria's own errors (unit tests here and in `atria/error.rs` hold
/// them equal).
const CODES: &[&str] = &[
    "NotAnAtlasCollection",
    "UnsupportedVersion",
    "CorruptCollection",
    "CorruptMask",
    "DatasetNotFound",
    "ArrayNotFound",
    "DTypeMismatch",
    "OutOfBounds",
    "Io",
    "RangeNotSupported",
    "ContentEncoded",
    "HttpStatus",
    "Network",
    "Timeout",
    "NotFound",
    "ObjectChanged",
    "Aborted",
    "TooLarge",
    "InvalidArgument",
    "Internal",
];

impl Error {
    /// Every [`code`](Self::code), in declaration order: the list that
    /// `js/src/errors.js` and `js/src/index.d.ts` begin with.
    pub const CODES: &'static [&'static str] = CODES;

    /// A stable identifier for the variant, shared with the JavaScript `AtlasError.code`.
    pub fn code(&self) -> &'static str {
        match self {
            Error::NotAnAtlasCollection(_) => "NotAnAtlasCollection",
            Error::UnsupportedVersion { .. } => "UnsupportedVersion",
            Error::CorruptCollection(_) => "CorruptCollection",
            Error::CorruptMask(_) => "CorruptMask",
            Error::DatasetNotFound(_) => "DatasetNotFound",
            Error::ArrayNotFound { .. } => "ArrayNotFound",
            Error::DTypeMismatch { .. } => "DTypeMismatch",
            Error::OutOfBounds(_) => "OutOfBounds",
            Error::Io(_) => "Io",
            Error::RangeNotSupported(_) => "RangeNotSupported",
            Error::ContentEncoded(_) => "ContentEncoded",
            Error::HttpStatus { .. } => "HttpStatus",
            Error::Network(_) => "Network",
            Error::Timeout(_) => "Timeout",
            Error::NotFound(_) => "NotFound",
            Error::ObjectChanged(_) => "ObjectChanged",
            Error::Aborted => "Aborted",
            Error::TooLarge(_) => "TooLarge",
            Error::InvalidArgument(_) => "InvalidArgument",
            Error::Internal(_) => "Internal",
        }
    }

    /// The HTTP status of an [`Error::HttpStatus`], `None` for any other error.
    pub fn http_status(&self) -> Option<u16> {
        match self {
            Error::HttpStatus { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The error a code names, carrying `message`: how an error that crossed
    /// a boundary as `(code, message)` (a JavaScript `AtlasError`) becomes
    /// the same variant again. `None` for an unknown code, and for the codes
    /// whose variants carry more than a message.
    pub fn from_code(code: &str, message: String, status: Option<u16>) -> Option<Self> {
        Some(match code {
            "NotAnAtlasCollection" => Error::NotAnAtlasCollection(message),
            "CorruptCollection" => Error::CorruptCollection(message),
            "CorruptMask" => Error::CorruptMask(message),
            "DatasetNotFound" => Error::DatasetNotFound(message),
            "OutOfBounds" => Error::OutOfBounds(message),
            "Io" => Error::Io(message),
            "RangeNotSupported" => Error::RangeNotSupported(message),
            "ContentEncoded" => Error::ContentEncoded(message),
            "HttpStatus" => Error::HttpStatus {
                status: status?,
                message,
            },
            "Network" => Error::Network(message),
            "Timeout" => Error::Timeout(message),
            "NotFound" => Error::NotFound(message),
            "ObjectChanged" => Error::ObjectChanged(message),
            "Aborted" => Error::Aborted,
            "TooLarge" => Error::TooLarge(message),
            "InvalidArgument" => Error::InvalidArgument(message),
            "Internal" => Error::Internal(message),
            _ => return None,
        })
    }

    /// A [`CorruptCollection`](Error::CorruptCollection) error: a damaged
    /// ATLAS container (Atria's damaged caches are `atria::Error::Corrupt`).
    pub fn corrupt_collection(message: impl Into<String>) -> Self {
        Error::CorruptCollection(message.into())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NotAnAtlasCollection(m) => write!(f, "not an ATLAS collection: {m}"),
            Error::UnsupportedVersion { found, expected } => write!(
                f,
                "ATLAS container version {found} is not supported (this reader speaks {expected}); \
                 rewrite the collection with a matching atlas"
            ),
            Error::CorruptCollection(m) => write!(f, "corrupt collection: {m}"),
            Error::CorruptMask(m) => write!(f, "corrupt deleted.mask: {m}"),
            Error::DatasetNotFound(n) => write!(f, "no dataset named '{n}'"),
            Error::ArrayNotFound { dataset, array } => {
                write!(f, "dataset '{dataset}' has no array named '{array}'")
            }
            Error::DTypeMismatch {
                array,
                stored,
                requested,
            } => write!(
                f,
                "array '{array}' stores {stored}, but {requested} was requested"
            ),
            Error::OutOfBounds(m) => write!(f, "out of bounds: {m}"),
            Error::Io(m) => write!(f, "I/O error: {m}"),
            Error::RangeNotSupported(m) => write!(
                f,
                "{m}; serve the collection from a server that supports HTTP range requests \
                 (206 with a matching Content-Range)"
            ),
            Error::ContentEncoded(m) => write!(
                f,
                "{m}: a compressed answer breaks byte ranges; serve the collection without \
                 on-the-fly compression"
            ),
            Error::HttpStatus { status, message } => write!(f, "HTTP {status}: {message}"),
            Error::Network(m) => write!(f, "network error: {m}"),
            Error::Timeout(m) => write!(f, "timed out: {m}"),
            Error::NotFound(m) => write!(f, "not found: {m}"),
            Error::ObjectChanged(m) => write!(
                f,
                "the object changed while it was open ({m}); open the collection again"
            ),
            Error::Aborted => write!(f, "the read was aborted"),
            Error::TooLarge(m) => write!(f, "too large: {m}"),
            Error::InvalidArgument(m) => write!(f, "invalid argument: {m}"),
            Error::Internal(m) => write!(f, "internal error in atlas-wasm (please report it): {m}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        match e.kind() {
            std::io::ErrorKind::NotFound => Error::NotFound(e.to_string()),
            _ => Error::Io(e.to_string()),
        }
    }
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// One error of every variant, in declaration order.
    fn one_of_each() -> Vec<Error> {
        let m = || "m".to_string();
        vec![
            Error::NotAnAtlasCollection(m()),
            Error::UnsupportedVersion {
                found: 1,
                expected: 2,
            },
            Error::CorruptCollection(m()),
            Error::CorruptMask(m()),
            Error::DatasetNotFound(m()),
            Error::ArrayNotFound {
                dataset: m(),
                array: m(),
            },
            Error::DTypeMismatch {
                array: m(),
                stored: m(),
                requested: m(),
            },
            Error::OutOfBounds(m()),
            Error::Io(m()),
            Error::RangeNotSupported(m()),
            Error::ContentEncoded(m()),
            Error::HttpStatus {
                status: 503,
                message: m(),
            },
            Error::Network(m()),
            Error::Timeout(m()),
            Error::NotFound(m()),
            Error::ObjectChanged(m()),
            Error::Aborted,
            Error::TooLarge(m()),
            Error::InvalidArgument(m()),
            Error::Internal(m()),
        ]
    }

    /// The quoted names in `text` between `start` and the next `end`: a
    /// code list of errors.js or index.d.ts.
    pub(crate) fn quoted(text: &str, start: &str, end: &str) -> Vec<String> {
        let from = text.find(start).expect("the code list") + start.len();
        let list = &text[from..from + text[from..].find(end).expect("its end")];
        list.split('"')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn codes_are_listed_once_in_order_and_round_trip() {
        let codes: Vec<&str> = one_of_each().iter().map(Error::code).collect();
        assert_eq!(codes, CODES);
        for error in one_of_each() {
            let status = error.http_status();
            let back = Error::from_code(error.code(), "m".into(), status);
            match error {
                Error::UnsupportedVersion { .. }
                | Error::ArrayNotFound { .. }
                | Error::DTypeMismatch { .. } => assert_eq!(back, None),
                Error::Aborted => assert_eq!(back, Some(Error::Aborted)),
                other => assert_eq!(back, Some(other)),
            }
        }
        assert_eq!(Error::from_code("Nope", "m".into(), None), None);
        assert_eq!(Error::from_code("HttpStatus", "m".into(), None), None);
    }

    /// A variant added without its code in [`CODES`] (and so in JavaScript)
    /// fails here: each code is its variant's name.
    #[test]
    fn every_variant_of_the_enum_has_its_code_listed() {
        assert_eq!(variants_of(include_str!("error.rs")), CODES);
    }

    /// The variant names of the `pub enum Error` in `source`, in order.
    pub(crate) fn variants_of(source: &str) -> Vec<&str> {
        let from = source.find("pub enum Error {").expect("the enum");
        let body = &source[from..from + source[from..].find("\n}\n").expect("its end")];
        body.lines()
            .filter_map(|line| line.strip_prefix("    "))
            .filter(|line| line.starts_with(|c: char| c.is_ascii_uppercase()))
            .map(|line| {
                line.split(|c: char| !c.is_ascii_alphanumeric())
                    .next()
                    .unwrap()
            })
            .collect()
    }

    /// JavaScript's one list holds the core's codes first, then Atria's
    /// (whose test, in `atria/error.rs`, checks the whole list).
    #[test]
    fn javascript_lists_the_cores_codes_first() {
        let js = include_str!("../js/src/errors.js");
        let listed = quoted(js, "export const CODES = Object.freeze([", "]");
        assert_eq!(listed[..CODES.len().min(listed.len())], *CODES);
        let dts = include_str!("../js/src/index.d.ts");
        let typed = quoted(dts, "export type AtlasErrorCode =", ";");
        assert_eq!(typed, listed);
    }
}
