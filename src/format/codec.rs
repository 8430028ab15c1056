//! Block decompression by each block's own codec.
//!
//! Every size here comes from a file, so none is trusted to size an
//! allocation on its own: zstd output grows only as real output arrives and
//! stops at the declared size, and an lz4 size prefix must agree with the
//! block table and with lz4's best possible ratio first.

use std::io::Read;

use crate::error::{Error, Result};
use crate::format::segment::CodecId;

/// lz4 cannot expand input by more than this factor (one literal-run byte can
/// encode at most 255 repeats), so a larger claim is a forgery.
const LZ4_MAX_RATIO: u64 = 255;

/// Decompresses the first `wanted` bytes of a block of `uncompressed_size`
/// bytes: a read that needs the first chunks of a block stops decoding when
/// they are out (zstd; lz4 blocks decode whole, then are cut). `wanted` equal
/// to the block's size is [`decompress_block`], with its checks.
pub fn decompress_prefix(
    codec: &CodecId,
    compressed: &[u8],
    uncompressed_size: u64,
    wanted: u64,
) -> Result<Vec<u8>> {
    if wanted >= uncompressed_size {
        return decompress_block(codec, compressed, uncompressed_size);
    }
    let mut out = match codec {
        #[cfg(any(feature = "libzstd", not(target_arch = "wasm32")))]
        CodecId::Named(name) if name == "zstd" => zstd_prefix(compressed, wanted as usize)?,
        CodecId::None if compressed.len() as u64 == uncompressed_size => {
            compressed[..wanted as usize].to_vec()
        }
        _ => decompress_block(codec, compressed, uncompressed_size)?,
    };
    out.truncate(wanted as usize);
    Ok(out)
}

/// The first `wanted` bytes a zstd stream inflates to, decoding no further.
#[cfg(any(feature = "libzstd", not(target_arch = "wasm32")))]
fn zstd_prefix(compressed: &[u8], wanted: usize) -> Result<Vec<u8>> {
    use zstd_safe::{DCtx, InBuffer, OutBuffer};

    if wanted > compressed.len().saturating_mul(ZSTD_MAX_RATIO) {
        return Err(Error::corrupt_collection(format!(
            "{} bytes of zstd data cannot hold the {wanted} bytes a read needs",
            compressed.len()
        )));
    }
    let mut out: Vec<u8> = Vec::new();
    out.try_reserve_exact(wanted)
        .map_err(|_| Error::TooLarge(format!("a block of {wanted} bytes")))?;
    let mut dctx =
        DCtx::try_create().ok_or_else(|| Error::TooLarge("no memory for a zstd decoder".into()))?;
    let mut input = InBuffer::around(compressed);
    while out.len() < wanted {
        let before = (input.pos(), out.len());
        let len = out.len();
        dctx.decompress_stream(&mut OutBuffer::around_pos(&mut out, len), &mut input)
            .map_err(libzstd_error)?;
        if (input.pos(), out.len()) == before {
            return Err(Error::corrupt_collection(format!(
                "zstd data ends after {} of the {wanted} bytes a read needs",
                out.len()
            )));
        }
    }
    Ok(out)
}

/// Decompresses one block and checks it is exactly `uncompressed_size` bytes.
pub fn decompress_block(
    codec: &CodecId,
    compressed: &[u8],
    uncompressed_size: u64,
) -> Result<Vec<u8>> {
    let out = match codec {
        CodecId::None => compressed.to_vec(),
        CodecId::Named(name) if name == "zstd" => {
            let limit = usize::try_from(uncompressed_size)
                .map_err(|_| Error::TooLarge(format!("a block of {uncompressed_size} bytes")))?;
            // Here the limit is the size the block table declares: more is a lie.
            zstd_inflate(compressed, limit, Error::corrupt_collection)?
        }
        CodecId::Named(name) if name == "lz4" => lz4_decompress(compressed, uncompressed_size)?,
        CodecId::Named(name) => {
            return Err(Error::corrupt_collection(format!(
                "a block uses codec '{name}', which this reader does not know (zstd, lz4, none)"
            )))
        }
    };
    if out.len() as u64 != uncompressed_size {
        return Err(Error::corrupt_collection(format!(
            "a block decompressed to {} bytes, the block table says {uncompressed_size}",
            out.len()
        )));
    }
    Ok(out)
}

/// Decodes a zstd stream (one or more frames), refusing more than `limit`
/// bytes of output ([`Error::TooLarge`]). The one place that picks the zstd decoder: libzstd's
/// (C) where it is built in — natively always, in wasm with the `libzstd`
/// feature — and ruzstd (pure Rust) otherwise. docs/benchmarks.md has the
/// measurements behind the choice.
pub fn zstd_decompress(compressed: &[u8], limit: usize) -> Result<Vec<u8>> {
    zstd_inflate(compressed, limit, Error::TooLarge)
}

/// Output past the limit is what `past` says it is: a block's limit is the
/// size its table declares (past it, a lie); a footer's is the budget.
type PastLimit = fn(String) -> Error;

fn zstd_inflate(compressed: &[u8], limit: usize, past: PastLimit) -> Result<Vec<u8>> {
    #[cfg(any(feature = "libzstd", not(target_arch = "wasm32")))]
    return zstd_libzstd(compressed, limit, past);
    #[cfg(not(any(feature = "libzstd", not(target_arch = "wasm32"))))]
    return zstd_ruzstd(compressed, limit, past);
}

/// zstd cannot expand input by more than this factor: its densest block is
/// an RLE block, 4 bytes (header and the byte) for 128 KiB of output.
#[cfg(any(feature = "libzstd", not(target_arch = "wasm32")))]
const ZSTD_MAX_RATIO: usize = 32 * 1024;

/// libzstd's streaming decoder. The answer is first sized by the frame
/// header's content size (bounded by `limit` and by zstd's best ratio), so
/// an honest block decodes in one pass into one allocation; past that it
/// grows only as real output arrives.
#[cfg(any(feature = "libzstd", not(target_arch = "wasm32")))]
pub(crate) fn zstd_libzstd(compressed: &[u8], limit: usize, past: PastLimit) -> Result<Vec<u8>> {
    use zstd_safe::{DCtx, InBuffer, OutBuffer};

    let ceiling = limit.min(compressed.len().saturating_mul(ZSTD_MAX_RATIO));
    let first_guess = match zstd_safe::get_frame_content_size(compressed) {
        Ok(Some(size)) if size > limit as u64 => {
            return Err(past(format!(
                "zstd data expands past the {limit} bytes declared (its frame says {size})"
            )))
        }
        Ok(Some(size)) => (size as usize).min(ceiling),
        _ if compressed.is_empty() => 0,
        // No size declared: count the output first (into a small scratch
        // buffer, stopping at the limit), then allocate it once. Growing a
        // buffer instead held up to 1.5 × the limit at once, and wasm memory
        // never gives the high point back.
        _ => inflated_size(compressed, limit, past)?,
    };
    if compressed.is_empty() {
        return Ok(Vec::new());
    }
    let mut out: Vec<u8> = Vec::new();
    out.try_reserve_exact(first_guess.max(1))
        .map_err(|_| Error::TooLarge(format!("a block of {first_guess} bytes")))?;
    let mut dctx =
        DCtx::try_create().ok_or_else(|| Error::TooLarge("no memory for a zstd decoder".into()))?;
    let mut input = InBuffer::around(compressed);
    loop {
        if out.len() == out.capacity() {
            if out.len() >= limit {
                // Full at the limit: a one-byte scratch buffer tells whether
                // more would come, without growing `out` past the limit (a
                // reallocation then would hold twice the limit at once).
                return finish_at_limit(&mut dctx, &mut input, compressed.len(), limit, past)
                    .map(|()| out);
            }
            let more = grown_capacity(out.capacity(), limit) - out.len();
            out.try_reserve_exact(more)
                .map_err(|_| Error::TooLarge(format!("a block of {} bytes", out.len() + more)))?;
        }
        let before = (input.pos(), out.len());
        let len = out.len();
        let hint = dctx
            .decompress_stream(&mut OutBuffer::around_pos(&mut out, len), &mut input)
            .map_err(libzstd_error)?;
        let done = hint == 0 && input.pos() == compressed.len();
        if done {
            break;
        }
        if (input.pos(), out.len()) == before && out.len() < out.capacity() {
            // No progress with room to spare: the input ends inside a frame.
            return Err(Error::corrupt_collection("zstd data ends inside a frame"));
        }
    }
    Ok(out)
}

/// A libzstd error code as a `Corrupt` error. The wasm build leaves out
/// libzstd's own error strings (`ZSTD_STRIP_ERROR_STRINGS`: bytes the core's
/// size budget needs), so the words are ours, from the code's number
/// (`zstd_errors.h`), the same on every target.
#[cfg(any(feature = "libzstd", not(target_arch = "wasm32")))]
fn libzstd_error(code: usize) -> Error {
    let number = 0usize.wrapping_sub(code);
    let what = match number {
        10 => "not a zstd frame",
        12 | 14 | 16 => "a frame this decoder does not support",
        20 | 24 => "corrupted data",
        22 => "wrong checksum",
        44 | 46 | 48 => "corrupted entropy tables",
        64 => "out of memory",
        70 | 80 => "more output than declared",
        72 | 82 => "data cut short",
        _ => "undecodable data",
    };
    Error::corrupt_collection(format!("zstd data: {what} (libzstd error {number})"))
}

/// How many bytes `compressed` inflates to, refused past `limit`: a decoding
/// pass that keeps nothing but the count.
#[cfg(any(feature = "libzstd", not(target_arch = "wasm32")))]
fn inflated_size(compressed: &[u8], limit: usize, past: PastLimit) -> Result<usize> {
    use zstd_safe::{DCtx, InBuffer, OutBuffer};

    let mut dctx =
        DCtx::try_create().ok_or_else(|| Error::TooLarge("no memory for a zstd decoder".into()))?;
    let mut scratch = vec![0u8; 128 * 1024];
    let mut input = InBuffer::around(compressed);
    let mut total = 0usize;
    loop {
        let before = input.pos();
        let mut out = OutBuffer::around(&mut scratch[..]);
        let hint = dctx
            .decompress_stream(&mut out, &mut input)
            .map_err(libzstd_error)?;
        let produced = out.pos();
        total = total.saturating_add(produced);
        if total > limit {
            return Err(past(format!(
                "zstd data expands past the {limit} bytes declared"
            )));
        }
        if hint == 0 && input.pos() == compressed.len() {
            return Ok(total);
        }
        if input.pos() == before && produced == 0 {
            return Err(Error::corrupt_collection("zstd data ends inside a frame"));
        }
    }
}

/// The next capacity of an output buffer that may reach `limit`: doubling,
/// but straight to `limit` once a doubling would pass half of it, so the
/// move to the last size holds at most 1.5 × `limit` at once (doubling a
/// buffer just short of the limit would hold nearly twice it).
fn grown_capacity(capacity: usize, limit: usize) -> usize {
    let doubled = capacity.saturating_mul(2).max(64 * 1024);
    if doubled.saturating_mul(2) > limit {
        limit.max(capacity)
    } else {
        doubled
    }
}

/// The end of a stream whose output already fills `limit`: fine if nothing
/// more comes out, an error if anything does.
#[cfg(any(feature = "libzstd", not(target_arch = "wasm32")))]
fn finish_at_limit(
    dctx: &mut zstd_safe::DCtx<'_>,
    input: &mut zstd_safe::InBuffer<'_>,
    total: usize,
    limit: usize,
    past: PastLimit,
) -> Result<()> {
    let mut scratch = [0u8; 1];
    loop {
        let mut probe = zstd_safe::OutBuffer::around(&mut scratch[..]);
        let before = input.pos();
        let hint = dctx
            .decompress_stream(&mut probe, input)
            .map_err(libzstd_error)?;
        if probe.pos() > 0 {
            return Err(past(format!(
                "zstd data expands past the {limit} bytes declared"
            )));
        }
        if hint == 0 && input.pos() == total {
            return Ok(());
        }
        if input.pos() == before {
            return Err(Error::corrupt_collection("zstd data ends inside a frame"));
        }
    }
}

/// ruzstd's streaming decoder (pure Rust): output grows as it arrives.
#[cfg_attr(
    any(feature = "libzstd", not(target_arch = "wasm32")),
    allow(dead_code)
)]
pub(crate) fn zstd_ruzstd(compressed: &[u8], limit: usize, past: PastLimit) -> Result<Vec<u8>> {
    let mut input = compressed;
    let mut out = Vec::new();
    // A frame's window is allocated up front from its header: hold it to the
    // output allowed (1 MiB at least, the smallest windows encoders pick).
    let max_window = (limit as u64).max(1 << 20);
    while !input.is_empty() {
        let mut decoder =
            ruzstd::decoding::StreamingDecoder::new_with_max_window_size(&mut input, max_window)
                .map_err(|e| match e {
                    ruzstd::decoding::errors::FrameDecoderError::WindowSizeTooBig { .. } => {
                        past(format!(
                            "zstd data expands past the {limit} bytes declared (its window: {e})"
                        ))
                    }
                    e => Error::corrupt_collection(format!("zstd frame header: {e}")),
                })?;
        // A declared content size settles both questions up front: too much,
        // or exactly how much to reserve (0 means not declared).
        let declared = decoder.decoder.content_size();
        if declared > (limit - out.len()) as u64 {
            return Err(past(format!(
                "zstd data expands past the {limit} bytes declared (its frame says {declared})"
            )));
        }
        out.reserve_exact(declared as usize);
        if read_capped(&mut decoder, &mut out, limit)? {
            return Err(past(format!(
                "zstd data expands past the {limit} bytes declared"
            )));
        }
    }
    Ok(out)
}

/// Appends what `reader` yields to `out`, growing it by doubling but never
/// past `limit` bytes; `true` when the reader had more to give than that.
/// (`read_to_end` would double a 64 MiB buffer to 128 MiB to learn it.)
fn read_capped(reader: &mut impl Read, out: &mut Vec<u8>, limit: usize) -> Result<bool> {
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let room = limit - out.len().min(limit);
        let want = chunk.len().min(room.max(1));
        let n = match reader.read(&mut chunk[..want]) {
            Ok(0) => return Ok(false),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::corrupt_collection(format!("zstd data: {e}"))),
        };
        if room == 0 {
            return Ok(true);
        }
        if out.capacity() - out.len() < n {
            let grown = grown_capacity(out.capacity(), limit);
            out.reserve_exact(grown.max(out.len() + n) - out.len());
        }
        out.extend_from_slice(&chunk[..n]);
    }
}

fn lz4_decompress(compressed: &[u8], uncompressed_size: u64) -> Result<Vec<u8>> {
    if compressed.len() < 4 {
        return Err(Error::corrupt_collection(
            "an lz4 block is shorter than its size prefix",
        ));
    }
    let declared = u32::from_le_bytes(compressed[..4].try_into().expect("4 bytes")) as u64;
    let body = &compressed[4..];
    if declared != uncompressed_size
        || declared > (body.len() as u64).saturating_mul(LZ4_MAX_RATIO) + 16
    {
        return Err(Error::corrupt_collection(format!(
            "an lz4 block of {} bytes claims {declared} bytes of output (block table: {uncompressed_size})",
            body.len()
        )));
    }
    let mut out = Vec::new();
    out.try_reserve_exact(declared as usize)
        .map_err(|_| Error::TooLarge(format!("a block of {declared} bytes")))?;
    out.resize(declared as usize, 0);
    let written = lz4_flex::block::decompress_into(body, &mut out)
        .map_err(|e| Error::corrupt_collection(format!("lz4 data: {e}")))?;
    out.truncate(written);
    Ok(out)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A valid zstd frame holding `data` in raw blocks: enough to test the
    /// decoder without a zstd encoder in the reader's dependencies.
    pub(crate) fn zstd_frame_of(data: &[u8]) -> Vec<u8> {
        let mut out = vec![0x28, 0xB5, 0x2F, 0xFD];
        // Frame header: single segment, 8-byte content size.
        out.push(0b1110_0000);
        out.extend_from_slice(&(data.len() as u64).to_le_bytes());
        let mut chunks = data.chunks(100_000).peekable();
        if chunks.peek().is_none() {
            out.extend_from_slice(&[1, 0, 0]); // last, raw, size 0
        }
        while let Some(chunk) = chunks.next() {
            let last = chunks.peek().is_none() as u32;
            let header = last | ((chunk.len() as u32) << 3);
            out.extend_from_slice(&header.to_le_bytes()[..3]);
            out.extend_from_slice(chunk);
        }
        out
    }

    /// libzstd's failures read the same natively and in wasm, where its own
    /// error strings are left out of the build.
    #[test]
    fn libzstd_failures_are_named_by_their_code() {
        let zstd = CodecId::Named("zstd".into());
        let message = |bytes: &[u8]| match decompress_block(&zstd, bytes, 1000) {
            Err(Error::CorruptCollection(message)) => message,
            other => panic!("expected a corrupt-data error, got {other:?}"),
        };
        let data: Vec<u8> = (0..1000u32).map(|i| (i % 7) as u8).collect();
        let mut frame = zstd_frame_of(&data);
        frame[0] ^= 0xFF;
        assert_eq!(
            message(&frame),
            "zstd data: not a zstd frame (libzstd error 10)"
        );
        // A block header (after magic and the 9-byte frame header) whose type
        // is the reserved one.
        let mut frame = zstd_frame_of(&data);
        frame[13] |= 0b110;
        assert_eq!(
            message(&frame),
            "zstd data: corrupted data (libzstd error 20)"
        );
    }

    #[test]
    fn each_codec_checks_the_declared_size() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i % 7) as u8).collect();
        let zstd = CodecId::Named("zstd".into());
        assert_eq!(
            decompress_block(&zstd, &zstd_frame_of(&data), 1000).unwrap(),
            data
        );
        assert!(decompress_block(&zstd, &zstd_frame_of(&data), 999).is_err());
        assert!(decompress_block(&zstd, &zstd_frame_of(&data), 1001).is_err());

        let lz4 = CodecId::Named("lz4".into());
        let packed = lz4_flex::block::compress_prepend_size(&data);
        assert_eq!(decompress_block(&lz4, &packed, 1000).unwrap(), data);
        assert!(decompress_block(&lz4, &packed, 5000).is_err());

        assert_eq!(decompress_block(&CodecId::None, &data, 1000).unwrap(), data);
        assert!(decompress_block(&CodecId::None, &data, 10).is_err());
        assert!(decompress_block(&CodecId::Named("brotli".into()), &data, 1000).is_err());
    }

    /// Both decoders, on what libzstd's encoder writes: one frame, two
    /// frames back to back, a frame without a content size, truncation and
    /// output past the limit.
    #[test]
    fn libzstd_and_ruzstd_agree() {
        // 2.4 MB: the streamed frame's 2 MiB window must fit the output
        // limit, which ruzstd holds windows to.
        let data: Vec<u8> = (0..600_000u32)
            .flat_map(|i| (288.0f32 + (i as f32 * 0.01).sin()).to_le_bytes())
            .collect();
        let one = zstd::bulk::compress(&data, 3).unwrap();
        let mut two = one.clone();
        two.extend_from_slice(&zstd::bulk::compress(&data[..1000], 3).unwrap());
        let mut streamed = Vec::new();
        let mut encoder = zstd::stream::Encoder::new(&mut streamed, 3).unwrap();
        std::io::Write::write_all(&mut encoder, &data).unwrap();
        encoder.finish().unwrap();
        assert!(matches!(
            zstd_safe::get_frame_content_size(&streamed),
            Ok(None)
        ));
        type Decode = fn(&[u8], usize, PastLimit) -> Result<Vec<u8>>;
        for inflate in [zstd_libzstd as Decode, zstd_ruzstd] {
            // As blocks decode: output past the declared size is corruption.
            let decode = |bytes: &[u8], limit| inflate(bytes, limit, Error::corrupt_collection);
            assert_eq!(decode(&one, data.len()).unwrap(), data);
            assert_eq!(decode(&streamed, data.len()).unwrap(), data);
            let joined = decode(&two, data.len() + 1000).unwrap();
            assert_eq!(&joined[..data.len()], &data[..]);
            assert_eq!(&joined[data.len()..], &data[..1000]);
            for broken in [&one[..one.len() / 2], &two[..], &streamed[..100]] {
                let error = decode(broken, data.len()).unwrap_err();
                assert_eq!(error.code(), "CorruptCollection", "{error}");
            }
            assert!(decode(&one, data.len() - 1).is_err());
            assert_eq!(decode(&[], 10).unwrap(), Vec::<u8>::new());
            // As footers decode: past the limit is the budget's business.
            let past_budget = inflate(&one, data.len() - 1, Error::TooLarge);
            assert_eq!(past_budget.unwrap_err().code(), "TooLarge");
        }
    }

    #[test]
    fn forged_sizes_do_not_allocate() {
        let lz4 = CodecId::Named("lz4".into());
        let mut forged = u32::MAX.to_le_bytes().to_vec();
        forged.extend_from_slice(&[0x10, 0x41]);
        assert_eq!(
            decompress_block(&lz4, &forged, u32::MAX as u64)
                .unwrap_err()
                .code(),
            "CorruptCollection"
        );
        let zstd = CodecId::Named("zstd".into());
        assert!(decompress_block(&zstd, b"\x28\xb5\x2f\xfd garbage", 1 << 40).is_err());
    }
}
