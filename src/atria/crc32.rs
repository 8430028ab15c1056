//! CRC-32 (the IEEE 802.3 / zlib polynomial, reflected), which Delta writes
//! after each deletion vector in a file and gzip after each member of a
//! parquet GZIP page. Table-driven, eight bytes a step ("slicing by 8"):
//! in wasm several times faster than a byte a step, which held gzip pages
//! to the CRC's speed (benches/atria-codecs). The eight tables (8 KiB) are
//! built on first use rather than stored: random-looking bytes that gzip
//! cannot shrink would add about as much to the module.

use std::sync::OnceLock;

type Tables = [[u32; 256]; 8];

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Box<Tables>> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut t = Box::new([[0u32; 256]; 8]);
        for n in 0..256 {
            let mut c = n as u32;
            for _ in 0..8 {
                c = (c >> 1) ^ (0xEDB8_8320 & (c & 1).wrapping_neg());
            }
            t[0][n] = c;
        }
        // Table k advances a byte through k more zero bytes.
        for k in 1..8 {
            for n in 0..256 {
                let c = t[k - 1][n];
                t[k][n] = (c >> 8) ^ t[0][(c & 0xff) as usize];
            }
        }
        t
    })
}

/// The CRC-32 of `bytes`.
pub(crate) fn crc32(bytes: &[u8]) -> u32 {
    let t = tables();
    let at = |k: usize, v: u32| t[k][(v & 0xff) as usize];
    let mut c = !0u32;
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let lo = c ^ u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        let hi = u32::from_le_bytes([w[4], w[5], w[6], w[7]]);
        c = at(7, lo)
            ^ at(6, lo >> 8)
            ^ at(5, lo >> 16)
            ^ at(4, lo >> 24)
            ^ at(3, hi)
            ^ at(2, hi >> 8)
            ^ at(1, hi >> 16)
            ^ at(0, hi >> 24);
    }
    for &b in words.remainder() {
        c = at(0, c ^ u32::from(b)) ^ (c >> 8);
    }
    !c
}

#[cfg(test)]
mod tests {
    use super::crc32;

    #[test]
    fn matches_the_standard_check_values() {
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b"a"), 0xE8B7_BE43);
        assert_eq!(
            crc32(b"The quick brown fox jumps over the lazy dog"),
            0x414F_A339
        );
    }

    #[test]
    fn every_length_and_alignment_matches_a_bit_at_a_time() {
        let bitwise = |bytes: &[u8]| {
            let mut c = !0u32;
            for &b in bytes {
                c ^= u32::from(b);
                for _ in 0..8 {
                    c = (c >> 1) ^ (0xEDB8_8320 & (c & 1).wrapping_neg());
                }
            }
            !c
        };
        let bytes: Vec<u8> = (0..100u32).map(|i| (i * 151 + 7) as u8).collect();
        for start in 0..8 {
            for end in start..bytes.len() {
                assert_eq!(crc32(&bytes[start..end]), bitwise(&bytes[start..end]));
            }
        }
    }
}
