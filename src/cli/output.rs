//! Standard output, the progress bar, and the number and time formats
//! atlas-python prints.

use std::io::{IsTerminal, Write};

use super::py::Py;
use super::CliError;

/// Writes `text` to standard output and flushes it.
pub(crate) fn print(text: &str) -> Result<(), CliError> {
    print_bytes(text.as_bytes())
}

/// Writes `bytes` to standard output and flushes them.
pub(crate) fn print_bytes(bytes: &[u8]) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)?;
    out.flush()?;
    Ok(())
}

/// Prints `value` as JSON (`--json`) or as `render` lays it out.
pub(crate) fn emit(
    value: &Py,
    json: bool,
    render: impl FnOnce(&Py) -> String,
) -> Result<(), CliError> {
    if json {
        print(&(value.json() + "\n"))
    } else {
        print(&render(value))
    }
}

/// A bar on standard error while a terminal watches, silent otherwise;
/// `unit` names what it counts.
pub(crate) fn progress(total: u64, unit: &str) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(total);
    if let Ok(style) = indicatif::ProgressStyle::with_template(&format!(
        "{{bar:40}} {{pos}}/{{len}} {unit}  {{elapsed}} (eta {{eta}})"
    )) {
        bar.set_style(style);
    }
    bar
}

/// `_human_bytes`: `54 B`, `52.7 KiB`, … up to TiB.
pub(crate) fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut size = n as f64;
    let mut unit = 0;
    while size >= 1024.0 && unit + 1 < UNITS.len() {
        size /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{size:.0} {}", UNITS[unit])
    } else {
        format!("{size:.1} {}", UNITS[unit])
    }
}

/// `_timestamp`: ISO 8601 UTC to the second.
pub(crate) fn timestamp(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// (year, month, day) of a day count from 1970-01-01, proleptic Gregorian
/// (Howard Hinnant's days-to-civil).
pub(crate) fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_number_and_time_formats() {
        assert_eq!(human_bytes(54), "54 B");
        assert_eq!(human_bytes(1023), "1023 B");
        assert_eq!(human_bytes(53_920), "52.7 KiB");
        assert_eq!(human_bytes(5 << 40), "5.0 TiB");
        assert_eq!(human_bytes(5000 << 40), "5000.0 TiB");
        assert_eq!(timestamp(1_796_033_883_922), "2026-11-30T10:18:03Z");
        assert_eq!(timestamp(0), "1970-01-01T00:00:00Z");
    }
}
