//! The one error the decoders under test return, standing in for
//! atlas-wasm's `Error`.

pub enum Error {
    Corrupt(String),
}

pub type Result<T> = std::result::Result<T, Error>;
