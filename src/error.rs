//! The one error type of the crate.
//!
//! Every variant names what was found and, where there is one, the fix.
//! [`Error::code`] gives each variant a stable string that the JavaScript
//! bindings expose as `AtlasError.code`, so callers never parse messages.

use std::fmt;

/// Everything that can go wrong while opening or reading a collection.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// The object does not end with the ATLAS trailer (or begins with foreign magic).
    NotAnAtlasCollection(String),
    /// The trailer names a container version this reader does not speak.
    UnsupportedVersion { found: u32, expected: u32 },
    /// The container is damaged: a length, index, checksum or structure is wrong.
    CorruptCollection(String),
    /// `deleted.mask` exists but is not a mask.
    CorruptMask(String),
    /// No live dataset has this name.
    DatasetNotFound(String),
    /// The dataset does not declare this array.
    ArrayNotFound { dataset: String, array: String },
    /// A typed read asked for a different element type than the array stores.
    DTypeMismatch {
        array: String,
        stored: String,
        requested: String,
    },
    /// A window reaches past the array, or has the wrong rank.
    OutOfBounds(String),
    /// The byte source failed: network, file system, HTTP status.
    Io(String),
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
}

impl Error {
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
            Error::NotFound(_) => "NotFound",
            Error::ObjectChanged(_) => "ObjectChanged",
            Error::Aborted => "Aborted",
            Error::TooLarge(_) => "TooLarge",
            Error::InvalidArgument(_) => "InvalidArgument",
        }
    }

    pub(crate) fn corrupt(message: impl Into<String>) -> Self {
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
            Error::NotFound(m) => write!(f, "not found: {m}"),
            Error::ObjectChanged(m) => write!(
                f,
                "the object changed while it was open ({m}); open the collection again"
            ),
            Error::Aborted => write!(f, "the read was aborted"),
            Error::TooLarge(m) => write!(f, "too large: {m}"),
            Error::InvalidArgument(m) => write!(f, "invalid argument: {m}"),
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
