//! Python's text for values, where our output must match atlas-python's
//! character for character: `repr(float)` and `json.dumps` strings. Shared
//! by the `atlas` command's printer and `atlas create`'s `json:` attributes.

use std::fmt::Write;

/// A JSON string as Python escapes it by default (`ensure_ascii`): every
/// non-ASCII character as `\uXXXX`, astral ones as surrogate pairs.
pub fn json_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Python's `repr(str)`: single quotes unless the text holds one and no
/// double quote; backslash, quote and control characters escaped.
pub fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || (0x7f..0xa0).contains(&(c as u32)) => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Python's `repr(float)`: the shortest digits that round-trip, in fixed
/// notation for exponents -4..16, otherwise as `1e+300`.
pub fn float_repr(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf" } else { "-inf" }.into();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    let sci = shortest_half_even(v);
    let (mantissa, exp) = sci.split_once('e').expect("{:e} has an exponent");
    let exp: i32 = exp.parse().expect("an integer exponent");
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if negative { "-" } else { "" };
    if (-4..16).contains(&exp) {
        let point = exp + 1;
        let body = if point <= 0 {
            format!("0.{}{digits}", "0".repeat((-point) as usize))
        } else if point as usize >= digits.len() {
            format!("{digits}{}.0", "0".repeat(point as usize - digits.len()))
        } else {
            format!(
                "{}.{}",
                &digits[..point as usize],
                &digits[point as usize..]
            )
        };
        format!("{sign}{body}")
    } else {
        let rest = if digits.len() > 1 {
            format!(".{}", &digits[1..])
        } else {
            String::new()
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{}{rest}e{esign}{:02}", &digits[..1], exp.abs())
    }
}

/// The shortest round-trip digits of `v` in `{:e}` form ("-1.2345e-7"),
/// where a tie between two shortest candidates goes to the even digit, as
/// in Python's `repr` (David Gay's dtoa). Rust's `{:e}` finds the length but
/// rounds such ties up: 2^50 + 0.25 is `1125899906842624.2` in Python and
/// `...624.3` in Rust. Among the candidates of the shortest length the
/// closest to `v` is the correctly rounded one, which Rust's fixed
/// precision formatting gives with half-even ties.
fn shortest_half_even(v: f64) -> String {
    let sci = format!("{v:e}");
    let (mantissa, _) = sci.split_once('e').expect("{:e} has an exponent");
    let digits = mantissa.chars().filter(char::is_ascii_digit).count();
    let rounded = format!("{:.*e}", digits - 1, v);
    let (mantissa, exp) = rounded.split_once('e').expect("{:e} has an exponent");
    // A carry can leave a trailing zero (9.5 -> "1.0e1"): Python prints none.
    let mantissa = match mantissa.contains('.') {
        true => mantissa.trim_end_matches('0').trim_end_matches('.'),
        false => mantissa,
    };
    format!("{mantissa}e{exp}")
}

/// A float as `json.dumps` writes it: `repr`, but `NaN` and `Infinity`.
pub fn json_float(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    float_repr(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_python_repr() {
        let cases = [
            (1.0, "1.0"),
            (-1000.0, "-1000.0"),
            (0.1, "0.1"),
            (0.10000000149011612, "0.10000000149011612"),
            (1e300, "1e+300"),
            (5e-324, "5e-324"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-0.0, "-0.0"),
            (9.99994610111476e-41, "9.99994610111476e-41"),
            (1652052.1511488617, "1652052.1511488617"),
            (f64::MAX, "1.7976931348623157e+308"),
            (f64::MIN_POSITIVE, "2.2250738585072014e-308"),
        ];
        for (v, want) in cases {
            assert_eq!(float_repr(v), want);
        }
    }

    /// Values whose exact binary value lies halfway between the two
    /// shortest decimals: Python's repr takes the even one. The expected
    /// texts are what CPython 3.11 printed for these bits.
    #[test]
    fn ties_between_shortest_digits_go_to_even_as_in_python() {
        let cases = [
            (0x4310000000000001, "1125899906842624.2"),
            (0x4310000000000003, "1125899906842624.8"),
            (0x4310000000000005, "1125899906842625.2"),
            (0x4300000000000001, "562949953421312.1"),
            (0x4300000000000003, "562949953421312.4"),
            (0x42f0000000000005, "281474976710656.3"),
        ];
        for (bits, want) in cases {
            assert_eq!(float_repr(f64::from_bits(bits)), want, "{bits:#x}");
        }
    }

    #[test]
    fn strings_repr_as_python() {
        assert_eq!(str_repr("temp"), "'temp'");
        assert_eq!(str_repr("it's"), "\"it's\"");
        assert_eq!(str_repr("a'b\"c"), "'a\\'b\"c'");
        assert_eq!(str_repr("tab\there\\"), "'tab\\there\\\\'");
        assert_eq!(str_repr("\u{1}Zürich"), "'\\x01Zürich'");
    }

    #[test]
    fn json_escapes_like_ensure_ascii() {
        let mut out = String::new();
        json_str(&mut out, "Zürich \"q\" 😀");
        assert_eq!(out, "\"Z\\u00fcrich \\\"q\\\" \\ud83d\\ude00\"");
        assert_eq!(json_float(f64::NAN), "NaN");
        assert_eq!(json_float(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(json_float(1e-5), "1e-05");
    }
}
