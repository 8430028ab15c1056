//! [`ReadOptions`]: how a handle reads.

use std::sync::Arc;

use crate::format::container::TAIL_PROBE_SIZE;
use crate::read::decode::BlockDecoder;

/// How a handle reads. The defaults suit a browser or a Worker.
#[derive(Clone)]
pub struct ReadOptions {
    /// Budget of the decompressed-block cache, in bytes.
    pub cache_bytes: u64,
    /// Range reads in flight at once for one call (Workers allow 6 connections).
    pub max_concurrency: usize,
    /// Adjacent blocks are fetched in one range read up to this many bytes.
    pub coalesce_bytes: u64,
    /// The most memory one structure whose size comes from the file or the
    /// server may take: the collection footer (compressed, inflated and
    /// decoded), the mask, a segment footer, one decompressed block, one
    /// answer. Past it a call fails with `TooLarge` instead of allocating.
    /// The block cache is held to it too. 64 MiB on wasm (a Worker isolate has
    /// 128 MB for everything), 4 GiB natively.
    pub memory_budget: u64,
    /// Where blocks are decompressed; `None` decodes inline on the polling task.
    pub decoder: Option<Arc<dyn BlockDecoder>>,
    /// How many bytes of the end of `data.atlas` the open reads first. The
    /// footer and the segments written last (dataset attributes, then the
    /// last variables) that fit open without another request; a larger probe
    /// trades bytes for round trips (docs/read-path.md, "The first read").
    pub tail_probe_bytes: u64,
}

impl std::fmt::Debug for ReadOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadOptions")
            .field("cache_bytes", &self.cache_bytes)
            .field("max_concurrency", &self.max_concurrency)
            .field("coalesce_bytes", &self.coalesce_bytes)
            .field("memory_budget", &self.memory_budget)
            .field("decoder", &self.decoder.as_ref().map(|_| "custom"))
            .field("tail_probe_bytes", &self.tail_probe_bytes)
            .finish()
    }
}

impl ReadOptions {
    /// Every numeric option by the name JavaScript gives it, with how it
    /// sets its field: the one list the collection module parses
    /// (`bindings/collection`) and the npm package's `OpenOptions` type
    /// (`js/src/index.d.ts`) is held to by a test below. The facade passes
    /// its options object through, so it lists none of them.
    #[allow(clippy::type_complexity)]
    pub const BY_JS_NAME: [(&'static str, fn(&mut ReadOptions, u64)); 5] = [
        ("cacheBytes", |o, v| o.cache_bytes = v),
        ("maxConcurrency", |o, v| {
            o.max_concurrency = usize::try_from(v).unwrap_or(usize::MAX).max(1)
        }),
        ("coalesceBytes", |o, v| o.coalesce_bytes = v),
        ("maxMemory", |o, v| o.memory_budget = v),
        ("tailProbeBytes", |o, v| o.tail_probe_bytes = v),
    ];
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self {
            // Workers give an isolate 128 MB; leave most of it to the caller.
            cache_bytes: if cfg!(target_arch = "wasm32") {
                32 << 20
            } else {
                256 << 20
            },
            max_concurrency: 6,
            coalesce_bytes: 4 << 20,
            decoder: None,
            tail_probe_bytes: TAIL_PROBE_SIZE,
            memory_budget: if cfg!(target_arch = "wasm32") {
                64 << 20
            } else {
                4 << 30
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ReadOptions;

    /// The optional fields of `interface NAME` in `dts`.
    fn fields<'a>(dts: &'a str, name: &str) -> Vec<&'a str> {
        let start = dts.find(&format!("export interface {name} ")).expect(name);
        let body = &dts[start..];
        let body = &body[body.find('{').unwrap() + 1..];
        let mut depth = 0;
        let mut out = Vec::new();
        for line in body.lines() {
            let line = line.trim();
            if depth == 0 {
                if line == "}" {
                    break;
                }
                if let Some((field, _)) = line.split_once("?:") {
                    out.push(field);
                }
            }
            depth += line.matches('{').count();
            depth -= line.matches('}').count().min(depth);
        }
        out
    }

    #[test]
    fn the_typescript_options_are_the_rust_ones_and_the_facades_own() {
        let dts = include_str!("../../js/src/index.d.ts");
        let mut typed = fields(dts, "OpenOptions");
        typed.extend(fields(dts, "UrlOptions"));
        let javascript_only = [
            "signal",
            "decodeWorkers",
            "persist",
            "headers",
            "fetch",
            "retries",
            "timeout",
        ];
        let mut want: Vec<&str> = ReadOptions::BY_JS_NAME
            .iter()
            .map(|(name, _)| *name)
            .collect();
        want.extend(javascript_only);
        typed.sort_unstable();
        want.sort_unstable();
        assert_eq!(typed, want);
    }

    #[test]
    fn each_name_sets_its_own_field() {
        for (name, set) in ReadOptions::BY_JS_NAME {
            let mut options = ReadOptions::default();
            set(&mut options, 12_345);
            let changed = [
                options.cache_bytes,
                options.max_concurrency as u64,
                options.coalesce_bytes,
                options.memory_budget,
                options.tail_probe_bytes,
            ];
            assert_eq!(
                changed.iter().filter(|&&v| v == 12_345).count(),
                1,
                "{name}"
            );
        }
    }
}
