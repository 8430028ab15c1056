//! JSON into [`Value`]s, for Delta Lake's log (one action per line) and its
//! `schemaString`s.
//!
//! Small and strict (RFC 8259): the log is written by someone else, so every
//! item is charged to a [`Budget`] before it is kept and nesting is bounded,
//! as in the msgpack decoder. Numbers become `Int` when they are integers
//! that fit `i64`, `UInt` above that, else `Float`.

use crate::atria::error::{Error, Result};
use crate::format::budget::Budget;
use crate::format::cursor::Cursor;

use super::value::Value;

/// Nesting deeper than this is refused: Delta's actions nest a few levels,
/// a schema a few more per nested struct.
const MAX_DEPTH: usize = 128;

/// Parses exactly one JSON value filling `text` (whitespace around it allowed).
pub(crate) fn parse(text: &str, budget: &mut Budget, what: &str) -> Result<Value> {
    let mut p = Parser {
        c: Cursor::new(text.as_bytes(), what, failure),
        budget,
    };
    p.space();
    let value = p.value(0)?;
    p.space();
    if !p.c.is_done() {
        return Err(p.fail("text after the value"));
    }
    Ok(value)
}

fn failure(what: &str, why: &str, at: usize) -> Error {
    Error::Corrupt(format!("{what} is not JSON: {why} at byte {at}"))
}

struct Parser<'a, 'b> {
    c: Cursor<'a, 'b, Error>,
    budget: &'b mut Budget,
}

impl Parser<'_, '_> {
    fn fail(&self, why: &str) -> Error {
        self.c.fail(why)
    }

    fn space(&mut self) {
        while matches!(self.c.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.c.skip(1);
        }
    }

    fn eat(&mut self, literal: &[u8]) -> bool {
        self.c.eat(literal)
    }

    fn value(&mut self, depth: usize) -> Result<Value> {
        if depth > MAX_DEPTH {
            return Err(self.fail(&format!("nesting deeper than {MAX_DEPTH}")));
        }
        self.budget
            .charge_items(1, std::mem::size_of::<Value>(), self.c.what())?;
        match self.c.peek() {
            None => Err(self.fail("the end of the text where a value should be")),
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => Ok(Value::Str(self.string()?)),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ if self.eat(b"null") => Ok(Value::Nil),
            _ if self.eat(b"true") => Ok(Value::Bool(true)),
            _ if self.eat(b"false") => Ok(Value::Bool(false)),
            _ => Err(self.fail("an unexpected character")),
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value> {
        self.c.skip(1);
        let mut entries = Vec::new();
        self.space();
        if self.eat(b"}") {
            return Ok(Value::Map(entries));
        }
        loop {
            self.space();
            if self.c.peek() != Some(b'"') {
                return Err(self.fail("a key that is not a string"));
            }
            let key = self.string()?;
            self.space();
            if !self.eat(b":") {
                return Err(self.fail("no ':' after a key"));
            }
            self.space();
            let value = self.value(depth + 1)?;
            entries.push((Value::Str(key), value));
            self.space();
            if self.eat(b"}") {
                return Ok(Value::Map(entries));
            }
            if !self.eat(b",") {
                return Err(self.fail("no ',' or '}' after a member"));
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value> {
        self.c.skip(1);
        let mut items = Vec::new();
        self.space();
        if self.eat(b"]") {
            return Ok(Value::List(items));
        }
        loop {
            self.space();
            items.push(self.value(depth + 1)?);
            self.space();
            if self.eat(b"]") {
                return Ok(Value::List(items));
            }
            if !self.eat(b",") {
                return Err(self.fail("no ',' or ']' after an item"));
            }
        }
    }

    fn number(&mut self) -> Result<Value> {
        let start = self.c.at();
        let digits = |p: &mut Self| {
            let from = p.c.at();
            while p.c.peek().is_some_and(|b| b.is_ascii_digit()) {
                p.c.skip(1);
            }
            p.c.at() - from
        };
        self.eat(b"-");
        let int_digits = digits(self);
        let leading_zero =
            int_digits > 1 && self.c.since(self.c.at() - int_digits).first() == Some(&b'0');
        if int_digits == 0 || leading_zero {
            return Err(self.fail("a malformed number"));
        }
        let mut integral = true;
        if self.eat(b".") {
            integral = false;
            if digits(self) == 0 {
                return Err(self.fail("a malformed fraction"));
            }
        }
        if matches!(self.c.peek(), Some(b'e' | b'E')) {
            integral = false;
            self.c.skip(1);
            if matches!(self.c.peek(), Some(b'+' | b'-')) {
                self.c.skip(1);
            }
            if digits(self) == 0 {
                return Err(self.fail("a malformed exponent"));
            }
        }
        let text = std::str::from_utf8(self.c.since(start)).expect("ASCII");
        if integral {
            if let Ok(i) = text.parse::<i64>() {
                return Ok(Value::Int(i));
            }
            if let Ok(u) = text.parse::<u64>() {
                return Ok(Value::UInt(u));
            }
        }
        // Rust parses an out-of-range exponent (1e400) as infinity, which
        // JSON has no way to say: refused, as serde_json refuses it.
        match text.parse::<f64>() {
            Ok(f) if f.is_finite() => Ok(Value::Float(f)),
            _ => Err(self.fail("a number out of range")),
        }
    }

    fn string(&mut self) -> Result<String> {
        self.c.skip(1);
        let mut out = Vec::new();
        loop {
            let Some(b) = self.c.next_byte() else {
                return Err(self.fail("an unterminated string"));
            };
            match b {
                b'"' => break,
                b'\\' => {
                    let Some(e) = self.c.next_byte() else {
                        return Err(self.fail("an unterminated escape"));
                    };
                    let c = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode_escape()?,
                        _ => return Err(self.fail("an unknown escape")),
                    };
                    let mut buf = [0; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                0..=0x1f => return Err(self.fail("a control character in a string")),
                _ => out.push(b),
            }
        }
        self.budget.charge(out.len() as u64, self.c.what())?;
        // The input is a &str, and escapes add whole characters: valid UTF-8.
        Ok(String::from_utf8(out).expect("UTF-8 in, UTF-8 out"))
    }

    fn hex4(&mut self) -> Result<u32> {
        let digits = self
            .c
            .ahead(4)
            .and_then(hex_digits)
            .ok_or_else(|| self.fail("a malformed \\u escape"))?;
        self.c.skip(4);
        Ok(digits)
    }

    fn unicode_escape(&mut self) -> Result<char> {
        let high = self.hex4()?;
        let code = if (0xd800..0xdc00).contains(&high) {
            if !self.eat(b"\\u") {
                return Err(self.fail("a lone high surrogate"));
            }
            let low = self.hex4()?;
            if !(0xdc00..0xe000).contains(&low) {
                return Err(self.fail("a high surrogate without its low half"));
            }
            0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00)
        } else {
            high
        };
        char::from_u32(code).ok_or_else(|| self.fail("a lone low surrogate"))
    }
}

/// The value of `digits`, hexadecimal digits and nothing else: not the
/// leading `+` that `from_str_radix` accepts (`\u+041`, `%+1`).
pub(crate) fn hex_digits(digits: &[u8]) -> Option<u32> {
    if digits.is_empty() || digits.len() > 8 {
        return None;
    }
    digits.iter().try_fold(0u32, |n, &d| {
        let v = (d as char).to_digit(16)?;
        Some(n << 4 | v)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> Result<Value> {
        parse(text, &mut Budget::new(1 << 20), "a test")
    }

    #[test]
    fn values_parse() {
        let v = json(
            r#" {"a": [1, -2, 1.5e2, 18446744073709551615, null, true, false],
                         "s": "é\u00e9\ud83d\ude00\n\"", "o": {}} "#,
        )
        .unwrap();
        assert_eq!(
            v.get("a"),
            Some(&Value::List(vec![
                Value::Int(1),
                Value::Int(-2),
                Value::Float(150.0),
                Value::UInt(u64::MAX),
                Value::Nil,
                Value::Bool(true),
                Value::Bool(false),
            ]))
        );
        assert_eq!(v.get("s"), Some(&Value::Str("éé😀\n\"".into())));
        assert_eq!(v.get("o"), Some(&Value::Map(vec![])));
    }

    #[test]
    fn malformed_json_is_corrupt() {
        for bad in [
            "",
            "{",
            "{\"a\" 1}",
            "[1,]",
            "01",
            "1.",
            "1e",
            "\"\\x\"",
            "\"\\ud800\"",
            "\"a",
            "\"\u{1}\"",
            "nul",
            "{} {}",
            "{1: 2}",
            "\"\\u+041\"",
            "\"\\u-041\"",
            "1e400",
            "-1e400",
            "[1E+999]",
            &"[".repeat(200),
        ] {
            assert_eq!(json(bad).unwrap_err().code(), "Corrupt", "{bad:?}");
        }
        let many = format!("[{}0]", "0,".repeat(100_000));
        assert_eq!(
            parse(&many, &mut Budget::new(1 << 20), "t")
                .unwrap_err()
                .code(),
            "TooLarge"
        );
    }

    /// Ours as serde_json's value: a map's later duplicate key wins, as
    /// there.
    fn as_serde(v: &Value) -> serde_json::Value {
        match v {
            Value::Nil => serde_json::Value::Null,
            Value::Bool(b) => (*b).into(),
            Value::Int(i) => (*i).into(),
            Value::UInt(u) => (*u).into(),
            Value::Float(f) => (*f).into(),
            Value::Str(s) => s.clone().into(),
            Value::List(items) => items.iter().map(as_serde).collect(),
            Value::Map(entries) => {
                let mut map = serde_json::Map::new();
                for (k, v) in entries {
                    let Value::Str(k) = k else {
                        panic!("a key {k:?}")
                    };
                    map.insert(k.clone(), as_serde(v));
                }
                map.into()
            }
            other => panic!("JSON gave {other:?}"),
        }
    }

    /// Numbers equal as the integer or float they are (serde_json reads
    /// `-0` as a float, we as an integer).
    fn same(a: &serde_json::Value, b: &serde_json::Value) -> bool {
        use serde_json::Value as J;
        match (a, b) {
            (J::Number(x), J::Number(y)) => {
                match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                    (Some(x), Some(y), _, _) => x == y,
                    (_, _, Some(x), Some(y)) => x == y,
                    _ => x.as_f64() == y.as_f64(),
                }
            }
            (J::Array(x), J::Array(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
            }
            (J::Object(x), J::Object(y)) => {
                x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
            }
            _ => a == b,
        }
    }

    /// Every line of a delta-rs log (commitInfo, protocol, metaData with and
    /// without column mapping, add, remove), with each of these inserted at
    /// every position and every byte removed in turn: we accept exactly what
    /// serde_json accepts, and read the same value.
    #[test]
    fn mutated_delta_rs_lines_parse_as_serde_json_parses_them() {
        const INSERTS: &[&str] = &[
            "+", "-", "e400", "\\u+041", "\\u00e9", "\\ud800", "\\", "\"", "0", ".", " ", "}", ",",
            "1e-400",
        ];
        let log = include_str!("../../tests/atria/delta-rs-log.jsonl");
        let (mut accepted, mut refused) = (0, 0);
        for line in log.lines() {
            let mut mutants = Vec::new();
            for at in (0..=line.len()).filter(|&i| line.is_char_boundary(i)) {
                for insert in INSERTS {
                    mutants.push(format!("{}{insert}{}", &line[..at], &line[at..]));
                }
                if let Some(c) = line[at..].chars().next() {
                    mutants.push(format!("{}{}", &line[..at], &line[at + c.len_utf8()..]));
                }
            }
            for text in &mutants {
                let ours = json(text);
                let theirs = serde_json::from_str::<serde_json::Value>(text);
                match (&ours, &theirs) {
                    (Ok(v), Ok(w)) => {
                        assert!(same(&as_serde(v), w), "{text}");
                        accepted += 1;
                    }
                    (Err(e), Err(_)) => {
                        assert_eq!(e.code(), "Corrupt", "{text}");
                        refused += 1;
                    }
                    _ => panic!(
                        "we say {:?}, serde_json {:?}: {text}",
                        ours.map(|_| ()),
                        theirs.map(|_| ())
                    ),
                }
            }
        }
        // Both kinds of mutant occur in numbers.
        assert!(
            accepted > 10_000 && refused > 10_000,
            "{accepted} {refused}"
        );
    }
}
