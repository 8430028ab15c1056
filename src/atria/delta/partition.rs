//! Partition values: the log keeps each as a string (or null); a row gives it
//! as its column's type, the same value a data file would give for it
//! (docs/atria.md, "Partition values").

use crate::atria::Value;

/// The value of partition text `text` for a column of Delta type
/// `data_type`, or why the text is not one. An empty string is null for every
/// type, as the protocol's serialization says.
pub(crate) fn typed(text: Option<&str>, data_type: &str) -> Result<Value, String> {
    let text = match text {
        None | Some("") => return Ok(Value::Nil),
        Some(text) => text,
    };
    let bad = || format!("{text:?} is not a {data_type}");
    let value = match data_type {
        "string" => Value::Str(text.to_string()),
        "binary" => Value::Bin(latin1(text).ok_or_else(bad)?),
        "boolean" => match text.to_ascii_lowercase().as_str() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => return Err(bad()),
        },
        "byte" => Value::Int(integer(text, i8::MIN.into(), i8::MAX.into()).ok_or_else(bad)?),
        "short" => Value::Int(integer(text, i16::MIN.into(), i16::MAX.into()).ok_or_else(bad)?),
        "integer" => Value::Int(integer(text, i32::MIN.into(), i32::MAX.into()).ok_or_else(bad)?),
        "long" => Value::Int(integer(text, i64::MIN, i64::MAX).ok_or_else(bad)?),
        // A float column's values are f32 widened, so the text is rounded to f32 first.
        "float" => Value::Float(f64::from(text.parse::<f32>().map_err(|_| bad())?)),
        "double" => Value::Float(text.parse::<f64>().map_err(|_| bad())?),
        "date" => Value::Int(date(text).ok_or_else(bad)?),
        "timestamp" => Value::Int(timestamp(text, true).ok_or_else(bad)?),
        "timestamp_ntz" => Value::Int(timestamp(text, false).ok_or_else(bad)?),
        _ => match decimal_type(data_type) {
            Some((precision, scale)) => decimal(text, precision, scale).ok_or_else(bad)?,
            // Nested types cannot partition a table; anything else stays text.
            None => Value::Str(text.to_string()),
        },
    };
    Ok(value)
}

/// The protocol writes binary as one character per byte (`"\u0001\u0002"` in
/// the JSON); a character past U+00FF is no byte. (delta-rs 1.6 escapes the
/// escapes, so its values arrive as the text `\u0001` and read as those
/// six bytes each, as delta-rs itself reads them back.)
fn latin1(text: &str) -> Option<Vec<u8>> {
    text.chars().map(|c| u8::try_from(c).ok()).collect()
}

fn integer(text: &str, min: i64, max: i64) -> Option<i64> {
    let n: i64 = text.parse().ok()?;
    (min..=max).contains(&n).then_some(n)
}

/// Unsigned decimal digits, all of them ASCII digits and at least one.
fn digits(text: &str) -> Option<u64> {
    if text.is_empty() || text.len() > 18 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// `[-]Y-M-D` as days since 1970-01-01 (proleptic Gregorian), the unit of
/// a data file's `date` column.
fn date(text: &str) -> Option<i64> {
    let (negative, rest) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let mut parts = rest.splitn(3, '-');
    let year = digits(parts.next()?)? as i64;
    let month = digits(parts.next()?)?;
    let day = digits(parts.next()?)?;
    let year = if negative { -year } else { year };
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    Some(days_from_civil(year, month as i64, day as i64))
}

fn days_in_month(year: i64, month: u64) -> u64 {
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to a civil date: counted in 400-year eras of
/// 146,097 days, each year starting in March so the leap day comes last.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_from_march = (month + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// `Y-M-D h:m:s[.fraction]`, or the ISO 8601 form with `T`, as microseconds
/// since 1970 (the unit of Delta timestamps). With `zoned`, a trailing `Z`
/// or `±hh:mm` offset is allowed and applied; without, none is.
fn timestamp(text: &str, zoned: bool) -> Option<i64> {
    let split = text.find([' ', 'T'])?;
    let (day, rest) = (&text[..split], &text[split + 1..]);
    let (clock, offset_seconds) = if !zoned {
        (rest, 0)
    } else if let Some(clock) = rest.strip_suffix('Z') {
        (clock, 0)
    } else if let Some(at) = rest.rfind(['+', '-']) {
        let (clock, offset) = rest.split_at(at);
        let sign = if offset.starts_with('-') { -1 } else { 1 };
        let (hours, minutes) = offset[1..].split_once(':')?;
        let (hours, minutes) = (digits(hours)?, digits(minutes)?);
        if hours > 18 || minutes > 59 {
            return None;
        }
        (clock, sign * (hours * 3600 + minutes * 60) as i64)
    } else {
        (rest, 0)
    };
    let (whole, fraction) = match clock.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (clock, None),
    };
    let mut hms = whole.splitn(3, ':');
    let (h, m, s) = (
        digits(hms.next()?)?,
        digits(hms.next()?)?,
        digits(hms.next()?)?,
    );
    if h > 23 || m > 59 || s > 59 {
        return None;
    }
    let micros = match fraction {
        None => 0,
        // Up to nanoseconds are written; past microseconds only zeros fit.
        Some(f) if (1..=9).contains(&f.len()) && f.bytes().all(|b| b.is_ascii_digit()) => {
            let (kept, dropped) = f.split_at(f.len().min(6));
            if dropped.bytes().any(|b| b != b'0') {
                return None;
            }
            digits(kept)? * 10u64.pow(6 - kept.len() as u32)
        }
        Some(_) => return None,
    };
    let seconds = date(day)? * 86_400 + (h * 3600 + m * 60 + s) as i64 - offset_seconds;
    seconds.checked_mul(1_000_000)?.checked_add(micros as i64)
}

/// `decimal(p,s)` as `(p, s)`.
fn decimal_type(data_type: &str) -> Option<(u32, u32)> {
    let inner = data_type.strip_prefix("decimal(")?.strip_suffix(')')?;
    let (p, s) = inner.split_once(',')?;
    let (p, s) = (p.trim().parse().ok()?, s.trim().parse().ok()?);
    (1..=38).contains(&p).then_some(())?;
    (s <= p).then_some((p, s))
}

/// Decimal text (`-1.250`, `12`, `1.25E+3`) as the unscaled value at
/// `scale`, given as a data file written by delta-rs gives it: an `Int` up to
/// precision 18 (stored as INT32/INT64), above that the big-endian two's
/// complement bytes of the precision's fixed width as `Bin`.
fn decimal(text: &str, precision: u32, scale: u32) -> Option<Value> {
    let (negative, rest) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(at) => (&rest[..at], rest[at + 1..].parse::<i32>().ok()?),
        None => (rest, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all = format!("{whole}{fraction}");
    if all.is_empty() || !all.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // The text's digits times 10^(exponent - fraction digits), rescaled to `scale`.
    let shift = i64::from(exponent) - fraction.len() as i64 + i64::from(scale);
    let all = all.trim_start_matches('0');
    let unscaled: String = if shift >= 0 {
        format!("{all}{}", "0".repeat(usize::try_from(shift).ok()?.min(40)))
    } else {
        let cut = all.len().checked_sub(usize::try_from(-shift).ok()?);
        let (kept, dropped) = match cut {
            Some(cut) => all.split_at(cut),
            None => ("", all),
        };
        // Digits below the scale would be lost: not a value of this type.
        if dropped.bytes().any(|b| b != b'0') {
            return None;
        }
        kept.to_string()
    };
    if unscaled.len() > precision as usize {
        return None;
    }
    let magnitude: i128 = if unscaled.is_empty() {
        0
    } else {
        unscaled.parse().ok()?
    };
    let value = if negative { -magnitude } else { magnitude };
    if precision <= 18 {
        return Some(Value::Int(i64::try_from(value).ok()?));
    }
    let width = (1..=16)
        .find(|&n| 10f64.powi(precision as i32) <= 2f64.powi(8 * n - 1))
        .unwrap_or(16) as usize;
    Some(Value::Bin(value.to_be_bytes()[16 - width..].to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str, data_type: &str) -> Value {
        typed(Some(text), data_type).unwrap()
    }

    #[test]
    fn empty_and_missing_are_null_for_every_type() {
        for t in [
            "string",
            "long",
            "date",
            "timestamp",
            "decimal(8,3)",
            "binary",
        ] {
            assert_eq!(typed(Some(""), t), Ok(Value::Nil));
            assert_eq!(typed(None, t), Ok(Value::Nil));
        }
    }

    #[test]
    fn numbers_booleans_strings_and_bytes() {
        assert_eq!(ok("-7", "byte"), Value::Int(-7));
        assert_eq!(ok("32767", "short"), Value::Int(32767));
        assert_eq!(ok("-2147483648", "integer"), Value::Int(-2147483648));
        assert_eq!(ok("9223372036854775807", "long"), Value::Int(i64::MAX));
        assert_eq!(ok("0.1", "float"), Value::Float(f64::from(0.1f32)));
        assert_eq!(ok("0.1", "double"), Value::Float(0.1));
        assert_eq!(ok("true", "boolean"), Value::Bool(true));
        assert_eq!(ok("False", "boolean"), Value::Bool(false));
        assert_eq!(ok("a b", "string"), Value::Str("a b".into()));
        assert_eq!(ok("\u{1}\u{ff}", "binary"), Value::Bin(vec![1, 0xff]));
        assert_eq!(ok("\\u0001", "binary"), Value::Bin(b"\\u0001".to_vec()));
        for (text, t) in [
            ("128", "byte"),
            ("1.5", "long"),
            ("yes", "boolean"),
            ("x", "double"),
        ] {
            assert!(typed(Some(text), t).is_err(), "{text} as {t}");
        }
    }

    #[test]
    fn dates_are_days_since_1970() {
        assert_eq!(ok("1970-01-01", "date"), Value::Int(0));
        assert_eq!(ok("2022-01-08", "date"), Value::Int(19_000));
        assert_eq!(ok("1969-12-31", "date"), Value::Int(-1));
        assert_eq!(ok("2000-02-29", "date"), Value::Int(11_016));
        assert_eq!(ok("1600-03-01", "date"), Value::Int(-135_080));
        for bad in [
            "2001-02-29",
            "2022-13-01",
            "2022-1",
            "20x2-01-01",
            "2022-01-00",
        ] {
            assert!(typed(Some(bad), "date").is_err(), "{bad}");
        }
    }

    #[test]
    fn timestamps_are_microseconds_since_1970_utc() {
        assert_eq!(ok("1970-01-01 00:00:00.000000", "timestamp"), Value::Int(0));
        assert_eq!(
            ok("1970-01-01 00:00:01", "timestamp"),
            Value::Int(1_000_000)
        );
        assert_eq!(
            ok("2021-06-01 12:30:05.25", "timestamp_ntz"),
            Value::Int(1_622_550_605_250_000)
        );
        assert_eq!(
            ok("2021-06-01T12:30:05.250000Z", "timestamp"),
            Value::Int(1_622_550_605_250_000)
        );
        assert_eq!(
            ok("2021-06-01T14:30:05.25+02:00", "timestamp"),
            Value::Int(1_622_550_605_250_000)
        );
        assert_eq!(
            ok("1969-12-31 23:59:59.999999", "timestamp"),
            Value::Int(-1)
        );
        assert_eq!(
            ok("1970-01-01 00:00:00.123456000", "timestamp"),
            Value::Int(123_456)
        );
        for bad in [
            "1970-01-01",
            "1970-01-01 24:00:00",
            "1970-01-01 00:00:00.1234567",
            "1970-01-01 00:00:00.",
        ] {
            assert!(typed(Some(bad), "timestamp").is_err(), "{bad}");
        }
        assert!(typed(Some("2021-06-01T12:30:05Z"), "timestamp_ntz").is_err());
    }

    #[test]
    fn decimals_are_unscaled_at_the_column_scale() {
        assert_eq!(ok("1.250", "decimal(8,3)"), Value::Int(1250));
        assert_eq!(ok("-1.25", "decimal(8,3)"), Value::Int(-1250));
        assert_eq!(ok("12", "decimal(8, 3)"), Value::Int(12_000));
        assert_eq!(ok("1.25E+3", "decimal(8,3)"), Value::Int(1_250_000));
        assert_eq!(ok("0.000", "decimal(8,3)"), Value::Int(0));
        // Precision 38 is 16 bytes; precision 20 is 9.
        assert_eq!(ok("-1", "decimal(20,0)"), Value::Bin(vec![0xff; 9]));
        assert_eq!(
            ok("1", "decimal(38,0)"),
            Value::Bin([vec![0; 15], vec![1]].concat())
        );
        for bad in ["1.2345", "123456", "1..2", "", "-", "1e", "x"] {
            if !bad.is_empty() {
                assert!(typed(Some(bad), "decimal(8,3)").is_err(), "{bad}");
            }
        }
    }
}
