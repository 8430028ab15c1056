//! placeholder until the wasm tests land
