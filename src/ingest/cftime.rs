//! CF time decoding as xarray 2026.9 does it for atlas-python: `UNIT since
//! DATE` on a Gregorian calendar becomes nanoseconds since the epoch, and a
//! variable xarray marks as a timedelta becomes nanoseconds. Anything xarray
//! would hand to cftime (other calendars, dates outside the nanosecond range)
//! is reported as unsupported, because atlas-python cannot store it either.

use std::fmt;

/// Nanoseconds in one of CF's time units.
pub(crate) fn unit_ns(unit: &str) -> Option<i64> {
    // xarray lower-cases the unit and adds a plural `s` before looking it up.
    let mut unit = unit.trim().to_ascii_lowercase();
    if !unit.ends_with('s') {
        unit.push('s');
    }
    Some(match unit.as_str() {
        "nanoseconds" => 1,
        "microseconds" => 1_000,
        "milliseconds" => 1_000_000,
        "seconds" => 1_000_000_000,
        "minutes" => 60_000_000_000,
        "hours" => 3_600_000_000_000,
        "days" => 86_400_000_000_000,
        _ => return None,
    })
}

/// Why a time variable cannot become timestamps.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TimeError {
    /// xarray would decode it to cftime objects, which atlas cannot store.
    NeedsCftime(String),
    /// The units do not parse; xarray fails the file.
    BadUnits(String),
    /// `--convert-calendar` on a calendar with no real instants (`noleap`,
    /// `360_day`, ...): atlas-python fails the file.
    NoInstant(String),
}

impl fmt::Display for TimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeError::NeedsCftime(why) | TimeError::BadUnits(why) | TimeError::NoInstant(why) => {
                f.write_str(why)
            }
        }
    }
}

/// A parsed `UNIT since DATE` on a calendar numpy can hold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct DatetimeUnits {
    pub unit_ns: i64,
    pub epoch_offset_ns: i128,
    /// Converted from a cftime calendar (`--convert-calendar`): atlas-python
    /// goes through cftime's microseconds, so timestamps are whole ones.
    pub micros: bool,
}

/// Whether `units` is datetime-like in xarray's sense (`X since Y`).
pub(crate) fn is_datetime_units(units: &str) -> bool {
    split_since(units).is_some()
}

/// Whether `units` names a duration unit exactly, as xarray's mask coder checks.
pub(crate) fn is_timedelta_units(units: &str) -> bool {
    matches!(
        units,
        "days" | "hours" | "minutes" | "seconds" | "milliseconds" | "microseconds" | "nanoseconds"
    )
}

fn split_since(units: &str) -> Option<(&str, &str)> {
    // xarray's regex `(.+) since (.+)` is greedy: the last " since " splits.
    let at = units.rfind(" since ")?;
    let (unit, date) = (&units[..at], &units[at + " since ".len()..]);
    (!unit.is_empty() && !date.is_empty()).then(|| (unit.trim(), date.trim()))
}

/// Parses `units` and checks `calendar` the way xarray picks between numpy
/// and cftime. With `convert`, what xarray hands to cftime on a real-world
/// calendar (Julian, or the mixed Gregorian before its reform) becomes the
/// timestamps of the same instants, as atlas-python's `--convert-calendar`.
pub(crate) fn datetime_units(
    units: &str,
    calendar: Option<&str>,
    convert: bool,
) -> Result<DatetimeUnits, TimeError> {
    let calendar = calendar.unwrap_or("standard").to_ascii_lowercase();
    let julian = calendar == "julian";
    if !julian
        && !matches!(
            calendar.as_str(),
            "standard" | "gregorian" | "proleptic_gregorian"
        )
    {
        if convert {
            return Err(TimeError::NoInstant(format!(
                "the {calendar:?} calendar names no real instant, so no exact Gregorian date exists; only a real-world calendar converts; pass --no-decode-times to keep the raw numbers"
            )));
        }
        return Err(TimeError::NeedsCftime(format!(
            "the {calendar:?} calendar decodes to cftime objects, which atlas cannot store; pass --convert-calendar for exact Gregorian instants, or --no-decode-times to keep the raw numbers"
        )));
    }
    if julian && !convert {
        return Err(TimeError::NeedsCftime(format!(
            "the {calendar:?} calendar decodes to cftime objects, which atlas cannot store; pass --convert-calendar for exact Gregorian instants, or --no-decode-times to keep the raw numbers"
        )));
    }
    let bad = || {
        TimeError::BadUnits(format!(
            "cannot decode time units {units:?}; pass --no-decode-times to keep the raw numbers"
        ))
    };
    let (unit, date) = split_since(units).ok_or_else(bad)?;
    let unit_ns = unit_ns(unit).ok_or_else(bad)?;
    let date = parse_reference_date(date).ok_or_else(bad)?;
    // Before the Gregorian reform only the proleptic calendar agrees with
    // numpy, and numpy's nanoseconds end in 1677 and 2262.
    let cftime = |why: &str| {
        TimeError::NeedsCftime(format!(
            "time units {units:?}: {why}, which decodes to cftime objects atlas cannot store; pass --no-decode-times"
        ))
    };
    let on_julian = julian || (calendar != "proleptic_gregorian" && date.before_reform);
    if on_julian && !convert {
        return Err(cftime(&format!(
            "a reference date before 1582-10-15 on the {calendar:?} calendar"
        )));
    }
    // The same label names an earlier instant on the Julian calendar: the
    // difference in days of the two calendars' day counts.
    let shift = if on_julian {
        let (y, m, d) = date.label;
        (days_from_julian(y, m, d) - days_from_civil(y, m, d)) as i128 * 86_400_000_000_000
    } else {
        0
    };
    // The reference date may lie outside numpy's nanoseconds (pandas holds
    // it in coarser units); only the values must land inside.
    Ok(DatetimeUnits {
        unit_ns,
        epoch_offset_ns: date.ns + shift,
        micros: on_julian,
    })
}

struct RefDate {
    ns: i128,
    before_reform: bool,
    /// Year, month and day as written.
    label: (i64, u32, u32),
}

/// The subset of pandas' timestamp parsing CF files use: `Y-M-D`, then an
/// optional `[T ]H:M[:S[.f]]`, then an optional zone (`Z`, `UTC`, `GMT`,
/// `±HH[:MM]`). A year without four digits is padded, as xarray does.
fn parse_reference_date(text: &str) -> Option<RefDate> {
    let text = text.trim();
    let (date, rest) = match text.find([' ', 'T']) {
        Some(at) => (&text[..at], text[at + 1..].trim()),
        None => (text, ""),
    };
    let fields: Vec<&str> = date.split('-').collect();
    let (year, month, day): (i64, u32, u32) = match fields[..] {
        // dateutil reads `1-1-1970` month first, unless the first field
        // cannot be a month (`13-1-1970` is the 13th of January).
        [a, b, y] if y.len() == 4 && a.len() <= 2 && b.len() <= 2 => {
            let (a, b): (u32, u32) = (a.parse().ok()?, b.parse().ok()?);
            let (month, day) = if a > 12 { (b, a) } else { (a, b) };
            (y.parse().ok()?, month, day)
        }
        [y, m, d] => (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?),
        [y, m] => (y.parse().ok()?, m.parse().ok()?, 1),
        _ => return None,
    };
    if !(1..=12).contains(&month) || day == 0 || day > days_in(year, month) {
        return None;
    }
    let (clock, zone) = split_zone(rest)?;
    let mut seconds_of_day: i64 = 0;
    let mut nanos: i64 = 0;
    // dateutil reads a second, unsigned `H:MM[:SS]` after the clock as a new
    // time of day that keeps only the first one's fraction: CF/Radial files
    // write `2011-05-20 00:00:00 0:00`, which pandas reads as midnight.
    let (clock, again) = match clock.split_once(char::is_whitespace) {
        Some((first, second)) => (first, Some(second.trim())),
        None => (clock, None),
    };
    if !clock.is_empty() {
        let mut fields = clock.split(':');
        let hour: i64 = fields.next()?.parse().ok()?;
        let minute: i64 = fields.next().map_or(Some(0), |m| m.parse().ok())?;
        let second = fields.next().unwrap_or("0");
        if fields.next().is_some() || hour > 24 || minute > 59 {
            return None;
        }
        let (whole, frac) = second.split_once('.').unwrap_or((second, ""));
        let whole: i64 = whole.parse().ok()?;
        if whole > 60 || frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        nanos = format!("{frac:0<9}").parse().ok()?;
        seconds_of_day = hour * 3600 + minute * 60 + whole;
    }
    if let Some(again) = again {
        seconds_of_day = replacement_clock(again)?;
    }
    let days = days_from_civil(year, month, day);
    let seconds = days as i128 * 86_400 + (seconds_of_day - zone) as i128;
    let ns = seconds * 1_000_000_000 + nanos as i128;
    Some(RefDate {
        ns,
        before_reform: (year, month, day) < (1582, 10, 15),
        label: (year, month, day),
    })
}

/// dateutil's second time of day: `H:MM` or `H:MM:SS`, hour 0..23, minute
/// and second 0..59, seconds 0 when absent; its seconds of the day.
fn replacement_clock(text: &str) -> Option<i64> {
    let fields: Vec<&str> = text.split(':').collect();
    let digits = |s: &str, widths: std::ops::RangeInclusive<usize>| {
        (widths.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<i64>().ok())
            .flatten()
    };
    let (hour, minute, second) = match fields[..] {
        [h, m] => (digits(h, 1..=2)?, digits(m, 2..=2)?, 0),
        [h, m, s] => (digits(h, 1..=2)?, digits(m, 2..=2)?, digits(s, 2..=2)?),
        _ => return None,
    };
    (hour < 24 && minute < 60 && second < 60).then_some(hour * 3600 + minute * 60 + second)
}

/// Splits a trailing zone off the clock; returns the zone's offset in seconds.
fn split_zone(rest: &str) -> Option<(&str, i64)> {
    let rest = rest.trim();
    for name in ["UTC", "GMT", "Z"] {
        if let Some(clock) = rest.strip_suffix(name) {
            return Some((clock.trim(), 0));
        }
    }
    if let Some(at) = rest.rfind(['+', '-']) {
        let (clock, zone) = (rest[..at].trim(), &rest[at..]);
        let sign = if zone.starts_with('-') { -1 } else { 1 };
        let digits: String = zone[1..].chars().filter(|c| *c != ':').collect();
        if digits.len() != 2 && digits.len() != 4 {
            return None;
        }
        let hours: i64 = digits[..2].parse().ok()?;
        let minutes: i64 = if digits.len() == 4 {
            digits[2..].parse().ok()?
        } else {
            0
        };
        return Some((clock, sign * (hours * 3600 + minutes * 60)));
    }
    Some((rest, 0))
}

fn is_leap(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in(year: i64, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 on the proleptic Gregorian calendar.
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = month as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + day as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Days from 1970-01-01 (Gregorian) to a date on the Julian calendar.
fn days_from_julian(year: i64, month: u32, day: u32) -> i64 {
    let a = (14 - month as i64) / 12;
    let y = year + 4800 - a;
    let m = month as i64 + 12 * a - 3;
    let julian_day = day as i64 + (153 * m + 2) / 5 + 365 * y + y.div_euclid(4) - 32_083;
    julian_day - 2_440_588
}

/// The NaT sentinel numpy uses for a missing timestamp or duration.
pub(crate) const NAT: i64 = i64::MIN;

impl DatetimeUnits {
    /// An integer count: exact, or `None` when xarray would leave numpy's range.
    pub(crate) fn count_to_ns(&self, count: i64) -> Option<i64> {
        if count == NAT {
            return Some(NAT);
        }
        let ns = count as i128 * self.unit_ns as i128 + self.epoch_offset_ns;
        i64::try_from(self.whole_micros(ns))
            .ok()
            .filter(|&n| n != NAT)
    }

    /// Rounds to whole microseconds, half to even as numpy's `rint`, when
    /// the timestamps went through cftime.
    fn whole_micros(&self, ns: i128) -> i128 {
        if !self.micros {
            return ns;
        }
        let (q, r) = (ns.div_euclid(1000), ns.rem_euclid(1000));
        let up = r > 500 || (r == 500 && q % 2 != 0);
        (q + i128::from(up)) * 1000
    }

    /// A float count: xarray multiplies by the unit in float64 and truncates.
    pub(crate) fn float_count_to_ns(&self, count: f64) -> Option<i64> {
        if count.is_nan() {
            return Some(NAT);
        }
        let scaled = count * self.unit_ns as f64;
        if !(-9.3e18..9.3e18).contains(&scaled) {
            return None;
        }
        let ns = scaled as i64 as i128 + self.epoch_offset_ns;
        i64::try_from(self.whole_micros(ns))
            .ok()
            .filter(|&n| n != NAT)
    }
}

/// A float duration in `unit`: xarray brings units coarser than a second to
/// seconds with an integer factor, then multiplies by 1000 until no fraction
/// is left (or nanoseconds are reached), and truncates.
pub(crate) fn timedelta_from_float(count: f64, unit_ns: i64) -> Option<i64> {
    if count.is_nan() {
        return Some(NAT);
    }
    let (mut value, mut step_ns) = if unit_ns > 1_000_000_000 {
        (count * (unit_ns / 1_000_000_000) as f64, 1_000_000_000i64)
    } else {
        (count, unit_ns)
    };
    while value.fract() != 0.0 && step_ns > 1 {
        value *= 1000.0;
        step_ns /= 1000;
    }
    if !(-9.3e18..9.3e18).contains(&value) {
        return None;
    }
    (value as i64).checked_mul(step_ns).filter(|&n| n != NAT)
}

/// An integer duration in `unit`, exactly.
pub(crate) fn timedelta_from_int(count: i64, unit_ns: i64) -> Option<i64> {
    if count == NAT {
        return Some(NAT);
    }
    count.checked_mul(unit_ns).filter(|&n| n != NAT)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 86_400_000_000_000;

    #[test]
    fn reference_dates_parse_like_pandas() {
        let units = |u: &str| datetime_units(u, None, false).unwrap();
        assert_eq!(units("days since 1970-01-01").epoch_offset_ns as i64, 0);
        assert_eq!(
            units("days since 1970-01-02 00:00:00").epoch_offset_ns as i64,
            DAY
        );
        assert_eq!(
            units("days since 1950-01-01 00:00:00 UTC").epoch_offset_ns as i64,
            -7305 * DAY
        );
        assert_eq!(
            units("hours since 2000-1-1T06:00:00Z").unit_ns,
            3_600_000_000_000
        );
        assert_eq!(
            units("seconds since 1970-01-01 01:00:00+01:00").epoch_offset_ns as i64,
            0
        );
        assert_eq!(
            units("seconds since 1970-01-01 00:00:00.5").epoch_offset_ns as i64,
            500_000_000
        );
        assert_eq!(units("day since 1970-1-1").unit_ns, DAY);
        // pandas (dateutil) on a year written last: month first unless over 12.
        assert_eq!(units("seconds since 1-1-1970").epoch_offset_ns as i64, 0);
        assert_eq!(
            units("days since 12-31-1970").epoch_offset_ns as i64,
            364 * DAY
        );
        assert_eq!(
            units("days since 13-1-1970").epoch_offset_ns as i64,
            12 * DAY
        );
        assert_eq!(
            units("days since 1-13-1970").epoch_offset_ns as i64,
            12 * DAY
        );
        // What pandas 3 gives for a second, unsigned clock (dateutil's rule).
        assert_eq!(
            units("seconds since 2011-05-20 00:00:00 0:00").epoch_offset_ns as i64,
            1_305_849_600 * 1_000_000_000
        );
        assert_eq!(
            units("seconds since 1970-01-01 10:20:45 1:30").epoch_offset_ns as i64,
            5_400 * 1_000_000_000
        );
        assert_eq!(
            units("seconds since 1970-01-01 10:20:45.5 0:00").epoch_offset_ns as i64,
            500_000_000
        );
        assert_eq!(
            units("seconds since 1970-01-01 10:20:45 1:30:15").epoch_offset_ns as i64,
            5_415 * 1_000_000_000
        );
        for refused in [
            "seconds since 1970-01-01 10:20:45 0",
            "seconds since 1970-01-01 10:20:45 24:00",
            "seconds since 1970-01-01 10:20:45 12:61",
        ] {
            assert!(
                matches!(
                    datetime_units(refused, None, false),
                    Err(TimeError::BadUnits(_))
                ),
                "{refused}"
            );
        }
        assert!(matches!(
            datetime_units("days since yesterday", None, false),
            Err(TimeError::BadUnits(_))
        ));
        assert!(matches!(
            datetime_units("fortnights since 1970-01-01", None, false),
            Err(TimeError::BadUnits(_))
        ));
    }

    #[test]
    fn calendars_numpy_cannot_hold_need_cftime() {
        for calendar in ["noleap", "360_day", "julian", "all_leap"] {
            assert!(matches!(
                datetime_units("days since 2000-01-01", Some(calendar), false),
                Err(TimeError::NeedsCftime(_))
            ));
        }
        assert!(matches!(
            datetime_units("days since 1500-01-01", Some("standard"), false),
            Err(TimeError::NeedsCftime(_))
        ));
        datetime_units("days since 1700-01-01", Some("proleptic_gregorian"), false).unwrap();
        // A reference date outside numpy's range: its values may still be
        // inside (atlas-python stores 73000 days since 1500-01-01).
        let far =
            datetime_units("days since 1500-01-01", Some("proleptic_gregorian"), false).unwrap();
        assert_eq!(far.count_to_ns(73_000).map(|ns| ns / DAY), Some(-98_664));
        assert_eq!(far.count_to_ns(0), None);
        datetime_units("days since 2000-01-01", Some("Gregorian"), false).unwrap();
    }

    #[test]
    fn counts_become_nanoseconds_as_xarray_truncates_them() {
        let u = datetime_units("days since 1970-01-01", None, false).unwrap();
        assert_eq!(u.count_to_ns(2), Some(2 * DAY));
        assert_eq!(u.float_count_to_ns(0.5), Some(DAY / 2));
        assert_eq!(u.float_count_to_ns(f64::NAN), Some(NAT));
        assert_eq!(u.count_to_ns(NAT), Some(NAT));
        assert_eq!(u.count_to_ns(200_000), None, "past 2262");
        // Large counts lose digits in float64, exactly as xarray's do.
        assert_eq!(
            u.float_count_to_ns(12345.6789),
            Some(1_066_666_656_960_000_128)
        );
        assert_eq!(
            timedelta_from_float(1.5, 3_600_000_000_000),
            Some(5_400_000_000_000)
        );
        assert_eq!(timedelta_from_float(0.001, 1_000_000_000), Some(1_000_000));
        assert_eq!(timedelta_from_int(3, 1_000_000_000), Some(3_000_000_000));
        assert_eq!(timedelta_from_int(i64::MAX, 1_000), None);
    }

    #[test]
    fn unit_shapes() {
        assert!(is_datetime_units("days since 2000-01-01"));
        assert!(!is_datetime_units("days accumulated"));
        assert!(is_timedelta_units("seconds"));
        assert!(!is_timedelta_units("seconds since 2000-01-01"));
    }
}
