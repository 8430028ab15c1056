//! `--log-file PATH`: errors, warnings and progress appended to a file, one
//! line per record in atlas-python's layout
//! (`2026-11-30 12:00:00,123 WARNING atlas.create: message`), times in UTC.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::sync::{Mutex, OnceLock};

static LOG: OnceLock<Mutex<File>> = OnceLock::new();

/// Opens `path` for appending; every later record goes there too.
pub(crate) fn open(path: &Path) -> std::io::Result<()> {
    let file = OpenOptions::new().create(true).append(true).open(path)?;
    let _ = LOG.set(Mutex::new(file));
    Ok(())
}

#[derive(Clone, Copy)]
pub(crate) enum Level {
    Info,
    Warning,
    Error,
}

/// Appends one record when a log file is open; a failing write is ignored
/// (the log must never fail the command it describes).
pub(crate) fn record(level: Level, module: &str, message: &str) {
    let Some(log) = LOG.get() else { return };
    let level = match level {
        Level::Info => "INFO",
        Level::Warning => "WARNING",
        Level::Error => "ERROR",
    };
    let line = format!(
        "{} {level:<7} atlas.{module}: {}\n",
        timestamp(),
        message.replace('\n', " ")
    );
    let mut file = log.lock().unwrap_or_else(|p| p.into_inner());
    let _ = file.write_all(line.as_bytes());
}

/// `YYYY-MM-DD HH:MM:SS,mmm` in UTC.
fn timestamp() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let (secs, millis) = (now.as_secs() as i64, now.subsec_millis());
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (year, month, day) = super::output::civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02},{millis:03}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}
