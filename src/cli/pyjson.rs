//! `json.loads` as Python does it, for the `json:` attribute values that
//! atlas-python writes with `json.dumps`: `NaN` and `Infinity` are numbers,
//! integers stay integers of any width, and every float is the one Python's
//! `float()` gives for the same digits (Rust's `f64` parsing rounds exactly
//! too; serde_json's default parser can be 1 ULP off, and refuses `NaN`).

use super::py::Py;

/// Deeper than any attribute holds; bounds the recursion on hostile text.
const MAX_DEPTH: usize = 128;

/// The value `text` encodes, or `None` where Python's `json.loads` raises.
pub(crate) fn loads(text: &str) -> Option<Py> {
    let mut parser = Parser {
        text: text.as_bytes(),
        at: 0,
    };
    let value = parser.value(0)?;
    parser.skip_space();
    (parser.at == parser.text.len()).then_some(value)
}

struct Parser<'a> {
    text: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn eat(&mut self, word: &str) -> bool {
        let found = self.text[self.at..].starts_with(word.as_bytes());
        if found {
            self.at += word.len();
        }
        found
    }

    fn value(&mut self, depth: usize) -> Option<Py> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.skip_space();
        match self.peek()? {
            b'{' => self.object(depth),
            b'[' => self.list(depth),
            b'"' => self.string().map(Py::Str),
            _ if self.eat("null") => Some(Py::None),
            _ if self.eat("true") => Some(Py::Bool(true)),
            _ if self.eat("false") => Some(Py::Bool(false)),
            _ if self.eat("NaN") => Some(Py::Float(f64::NAN)),
            _ if self.eat("Infinity") => Some(Py::Float(f64::INFINITY)),
            _ if self.eat("-Infinity") => Some(Py::Float(f64::NEG_INFINITY)),
            _ => self.number(),
        }
    }

    fn list(&mut self, depth: usize) -> Option<Py> {
        self.at += 1;
        let mut items = Vec::new();
        self.skip_space();
        if self.eat("]") {
            return Some(Py::List(items));
        }
        loop {
            items.push(self.value(depth + 1)?);
            self.skip_space();
            if self.eat("]") {
                return Some(Py::List(items));
            }
            if !self.eat(",") {
                return None;
            }
        }
    }

    /// A later duplicate key replaces the value and keeps the first place,
    /// as a Python dict does.
    fn object(&mut self, depth: usize) -> Option<Py> {
        self.at += 1;
        let mut entries: Vec<(String, Py)> = Vec::new();
        self.skip_space();
        if self.eat("}") {
            return Some(Py::Dict(entries));
        }
        loop {
            self.skip_space();
            if self.peek()? != b'"' {
                return None;
            }
            let key = self.string()?;
            self.skip_space();
            if !self.eat(":") {
                return None;
            }
            let value = self.value(depth + 1)?;
            match entries.iter_mut().find(|(k, _)| *k == key) {
                Some(entry) => entry.1 = value,
                None => entries.push((key, value)),
            }
            self.skip_space();
            if self.eat("}") {
                return Some(Py::Dict(entries));
            }
            if !self.eat(",") {
                return None;
            }
        }
    }

    /// JSON's number grammar; no fraction and no exponent is a Python int.
    fn number(&mut self) -> Option<Py> {
        let start = self.at;
        self.eat("-");
        let digits = |p: &mut Self| {
            let from = p.at;
            while p.peek().is_some_and(|c| c.is_ascii_digit()) {
                p.at += 1;
            }
            p.at - from
        };
        match self.peek()? {
            b'0' => self.at += 1,
            b'1'..=b'9' => {
                digits(self);
            }
            _ => return None,
        }
        let mut integer = true;
        if self.eat(".") {
            integer = false;
            if digits(self) == 0 {
                return None;
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            integer = false;
            self.at += 1;
            if !self.eat("+") {
                self.eat("-");
            }
            if digits(self) == 0 {
                return None;
            }
        }
        let text = std::str::from_utf8(&self.text[start..self.at]).ok()?;
        match integer {
            // Wider than i128 never comes from an attribute; Python would
            // still hold it, so such text is kept as the string it was.
            true => text.parse::<i128>().ok().map(Py::Int),
            false => text.parse::<f64>().ok().map(Py::Float),
        }
    }

    /// A string; control characters refused as `strict=True` refuses them,
    /// a lone surrogate escape (which Python keeps) as U+FFFD.
    fn string(&mut self) -> Option<String> {
        self.at += 1;
        let mut out = Vec::new();
        loop {
            let c = self.peek()?;
            self.at += 1;
            match c {
                b'"' => return String::from_utf8(out).ok(),
                b'\\' => {
                    let escape = self.peek()?;
                    self.at += 1;
                    let decoded = match escape {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode_escape()?,
                        _ => return None,
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(decoded.encode_utf8(&mut buf).as_bytes());
                }
                c if c < 0x20 => return None,
                c => out.push(c),
            }
        }
    }

    fn hex4(&mut self) -> Option<u16> {
        let digits = self.text.get(self.at..self.at + 4)?;
        let text = std::str::from_utf8(digits).ok()?;
        if !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        self.at += 4;
        u16::from_str_radix(text, 16).ok()
    }

    /// `\uXXXX`, joined with a following low surrogate where it makes a pair.
    fn unicode_escape(&mut self) -> Option<char> {
        let high = self.hex4()?;
        if (0xd800..0xdc00).contains(&high) && self.text[self.at..].starts_with(b"\\u") {
            let back = self.at;
            self.at += 2;
            match self.hex4() {
                Some(low) if (0xdc00..0xe000).contains(&low) => {
                    let code =
                        0x10000 + ((u32::from(high) - 0xd800) << 10) + (u32::from(low) - 0xdc00);
                    return char::from_u32(code);
                }
                _ => self.at = back,
            }
        }
        Some(char::from_u32(u32::from(high)).unwrap_or('\u{fffd}'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_load_as_python_loads_them() {
        assert_eq!(
            loads("[-5.0, 40, null, true, \"a\\u00fcb\"]"),
            Some(Py::List(vec![
                Py::Float(-5.0),
                Py::Int(40),
                Py::None,
                Py::Bool(true),
                Py::str("aüb"),
            ]))
        );
        assert_eq!(
            loads("{\"a\": 1, \"b\": 2, \"a\": 3}"),
            Some(Py::dict([("a", Py::Int(3)), ("b", Py::Int(2))]))
        );
        assert_eq!(loads("\"\\ud83d\\ude00\""), Some(Py::str("😀")));
        assert_eq!(loads("1e5"), Some(Py::Float(100000.0)));
        assert_eq!(loads("-0"), Some(Py::Int(0)));
        let Some(Py::List(special)) = loads("[NaN, Infinity, -Infinity]") else {
            panic!("NaN and Infinity are numbers to Python");
        };
        assert!(matches!(special[0], Py::Float(v) if v.is_nan()));
        assert_eq!(
            special[1..],
            [Py::Float(f64::INFINITY), Py::Float(f64::NEG_INFINITY)]
        );
    }

    /// Digits near a tie or at the ends of the range, with the bits
    /// CPython 3.11's `float()` gives for them.
    #[test]
    fn floats_parse_to_the_double_python_gives() {
        let cases = [
            ("0.30000000000000004", 0x3fd3333333333334u64),
            ("2.2250738585072014e-308", 0x0010000000000000),
            ("1.7976931348623157e308", 0x7fefffffffffffff),
            ("9007199254740993.0", 0x4340000000000000),
            ("0.1000000000000000055511151231257827", 0x3fb999999999999a),
            ("2.4703282292062328e-324", 0x1),
            (
                "1.00000000000000011102230246251565404236316680908203125",
                0x3ff0000000000000,
            ),
            ("7.038531e-26", 0x3ab5c87fb0000000),
            ("8.589973e9", 0x42000004b0400000),
        ];
        for (text, bits) in cases {
            let Some(Py::Float(v)) = loads(text) else {
                panic!("{text} is a float");
            };
            assert_eq!(v.to_bits(), bits, "{text}");
        }
    }

    #[test]
    fn what_python_refuses_is_refused() {
        for bad in [
            "",
            "[1,]",
            "{oops",
            "01",
            "1.",
            ".5",
            "[1 2]",
            "\"a\nb\"",
            "{\"a\" 1}",
            "nan",
            "[",
            "\"\\x\"",
            "1e",
        ] {
            assert_eq!(loads(bad), None, "{bad:?}");
        }
        let deep = "[".repeat(10_000);
        assert_eq!(loads(&deep), None);
    }
}
