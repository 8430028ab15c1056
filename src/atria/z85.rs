//! Z85 (ZeroMQ's base-85 text encoding of bytes), which Delta uses for a
//! deletion vector's UUID and for inline deletion vectors: each 5 characters
//! are one big-endian 32-bit word.

use crate::atria::error::{Error, Result};

const ALPHABET: &[u8; 85] =
    b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

/// The digit a character stands for, or 0xff for a character outside Z85.
const DIGITS: [u8; 256] = {
    let mut table = [0xffu8; 256];
    let mut i = 0;
    while i < ALPHABET.len() {
        table[ALPHABET[i] as usize] = i as u8;
        i += 1;
    }
    table
};

/// The bytes `text` encodes: 4 for every 5 characters. A length that is not
/// a multiple of 5, a character outside the alphabet, or a group above
/// 2^32 - 1 is [`Error::Corrupt`], saying `what`.
pub(crate) fn decode(text: &str, what: &str) -> Result<Vec<u8>> {
    let text = text.as_bytes();
    if text.len() % 5 != 0 {
        return Err(Error::Corrupt(format!(
            "{what}: {} Z85 characters are not whole groups of 5",
            text.len()
        )));
    }
    let mut out = Vec::with_capacity(text.len() / 5 * 4);
    for group in text.chunks_exact(5) {
        let mut word: u64 = 0;
        for &c in group {
            let digit = DIGITS[c as usize];
            if digit == 0xff {
                return Err(Error::Corrupt(format!(
                    "{what}: '{}' is not a Z85 character",
                    c.escape_ascii()
                )));
            }
            word = word * 85 + u64::from(digit);
        }
        let word = u32::try_from(word)
            .map_err(|_| Error::Corrupt(format!("{what}: a Z85 group is larger than 32 bits")))?;
        out.extend_from_slice(&word.to_be_bytes());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_the_reference_vector_and_refuses_malformed_text() {
        // ZeroMQ's RFC 32 test vector.
        assert_eq!(
            decode("HelloWorld", "t").unwrap(),
            [0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B]
        );
        assert_eq!(decode("", "t").unwrap(), Vec::<u8>::new());
        assert_eq!(decode("00000", "t").unwrap(), [0, 0, 0, 0]);
        // 85^5 - 1 overflows 32 bits; "%nSc0" is exactly 2^32 - 1.
        assert_eq!(decode("%nSc0", "t").unwrap(), [0xff; 4]);
        for bad in ["%nSc1", "####", "Hello Worl", "Hell\"", "HelloWorld0"] {
            let e = decode(bad, "t").unwrap_err();
            assert_eq!(e.code(), "Corrupt", "{bad}: {e}");
        }
    }
}
