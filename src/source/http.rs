//! An HTTP(S) object read with ranged GETs (native targets, feature `http`),
//! under the same rules as the JavaScript source (`js/src/http.js`):
//!
//! - A range must come back as a 206 whose `Content-Range` is the range
//!   asked, with exactly that many bytes. A 200 is the whole object, never
//!   the range ([`Error::RangeNotSupported`]); the one exception is a tail
//!   whose object is no larger than the tail asked for, which some CDNs
//!   answer whole (the whole object *is* that tail). A multipart body is
//!   refused the same way.
//! - A compressed 206 (`Content-Encoding`) is [`Error::ContentEncoded`]: its
//!   bytes are not the object's. Requests say `Accept-Encoding: identity`.
//! - The first answer pins the object's ETag and size. Later requests send
//!   `If-Match` (strong tags only: a weak tag never matches `If-Match`), and
//!   an answer about another version, a 412, or a 404 after the open is
//!   [`Error::ObjectChanged`].
//! - A 416 is read for its `bytes */N`: an empty object for a tail, a range
//!   past the end ([`Error::OutOfBounds`]) otherwise; a 416 that names no
//!   size is [`Error::HttpStatus`].
//! - A 5xx or a broken connection is tried again, [`HttpOptions::retries`]
//!   times with a doubling pause, then reported as [`Error::HttpStatus`] or
//!   [`Error::Network`]. A request that outlasts [`HttpOptions::timeout`]
//!   is [`Error::Timeout`], not retried: a stalled server stays stalled.
//! - Redirects are followed (up to 10); `Range` and `If-Match` go along.
//!
//! Each read is one blocking request, made when its future is first polled:
//! fine under `futures::executor::block_on` (the `atlas` command); on a
//! tokio runtime, poll it from `spawn_blocking`.

use std::ops::Range;
use std::sync::Mutex;
use std::time::Duration;

use super::{ByteSource, SourceFuture, Tail};
use crate::error::{Error, Result};

/// How an [`HttpSource`] waits and retries.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    /// The longest one request may take, from connecting to the last body
    /// byte, redirects included. Default 120 s.
    pub timeout: Duration,
    /// Further attempts after a 5xx or a broken connection. Default 3.
    pub retries: u32,
    /// The pause before the first retry, doubled before each next one
    /// (at most 2 s). Default 100 ms.
    pub backoff: Duration,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(120),
            retries: 3,
            backoff: Duration::from_millis(100),
        }
    }
}

/// One object at an `http://` or `https://` URL.
pub struct HttpSource {
    url: String,
    agent: ureq::Agent,
    options: HttpOptions,
    pinned: Mutex<Pinned>,
}

/// What the first answer said about the object.
#[derive(Default)]
struct Pinned {
    size: Option<u64>,
    etag: Option<String>,
}

/// One request's failure: worth asking again, or final.
enum Failure {
    Retry(Error),
    Final(Error),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Final(e)
    }
}

/// What a request asks for.
#[derive(Clone, Copy)]
enum Ask {
    /// `bytes=start-end`, end exclusive.
    Range(u64, u64),
    /// `bytes=-len`.
    Tail(u64),
}

impl Ask {
    fn header(self) -> String {
        match self {
            Ask::Range(start, end) => format!("bytes={start}-{}", end - 1),
            Ask::Tail(len) => format!("bytes=-{len}"),
        }
    }
}

impl HttpSource {
    /// The object at `url`, with the default [`HttpOptions`].
    pub fn new(url: impl Into<String>) -> Self {
        Self::with_options(url, HttpOptions::default())
    }

    /// The object at `url`.
    pub fn with_options(url: impl Into<String>, options: HttpOptions) -> Self {
        let agent = ureq::Agent::config_builder()
            // Statuses are read here, with the URL in the message.
            .http_status_as_error(false)
            .timeout_global(Some(options.timeout))
            .build()
            .into();
        Self {
            url: url.into(),
            agent,
            options,
            pinned: Mutex::new(Pinned::default()),
        }
    }

    fn pinned(&self) -> std::sync::MutexGuard<'_, Pinned> {
        // A poisoned lock only means another read panicked; the pins are fine.
        self.pinned.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs one request, again after each retryable failure.
    fn fetch(&self, ask: Ask) -> Result<(Vec<u8>, u64)> {
        let mut pause = self.options.backoff;
        let mut attempts = 1;
        loop {
            match self.attempt(ask) {
                Ok(answer) => return Ok(answer),
                Err(Failure::Final(e)) => return Err(e),
                Err(Failure::Retry(e)) if attempts > self.options.retries => {
                    return Err(gave_up(e, attempts))
                }
                Err(Failure::Retry(_)) => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_secs(2));
                    attempts += 1;
                }
            }
        }
    }

    /// One GET: the body and the object's size, checked against `ask`.
    fn attempt(&self, ask: Ask) -> Result<(Vec<u8>, u64), Failure> {
        let range = ask.header();
        let what = format!("GET {} (Range: {range})", self.url);
        let mut request = self
            .agent
            .get(&self.url)
            .header("Range", &range)
            // An encoded body would make the byte range meaningless.
            .header("Accept-Encoding", "identity");
        let pinned_etag = self.pinned().etag.clone();
        if let Some(tag) = pinned_etag.as_deref().filter(|t| !t.starts_with("W/")) {
            request = request.header("If-Match", tag);
        }
        let mut response = request.call().map_err(|e| transport(e, &what))?;
        let status = response.status().as_u16();
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let content_range = header("content-range");
        let etag = header("etag");
        let encoding = header("content-encoding");
        let content_type = header("content-type").unwrap_or_default();
        let length: Option<u64> = header("content-length").and_then(|v| v.trim().parse().ok());
        let pinned_size = self.pinned().size;

        let (want, size) = match status {
            500..=599 => {
                return Err(Failure::Retry(Error::HttpStatus {
                    status,
                    message: format!("{what} answered {status}"),
                }))
            }
            404 | 410 if pinned_size.is_some() => {
                return Err(changed(format!(
                    "{what} answered {status}: gone since it was opened"
                )))
            }
            404 | 410 => return Err(Error::NotFound(format!("{what} answered {status}")).into()),
            412 => {
                return Err(changed(format!(
                    "{what} answered 412: it changed since it was opened"
                )))
            }
            416 => return self.unsatisfiable(ask, &what, content_range.as_deref()),
            200 => match (ask, length) {
                // A whole object no larger than the tail asked for is that tail.
                (Ask::Tail(len), Some(whole)) if whole <= len => (whole, whole),
                _ => {
                    return Err(Error::RangeNotSupported(format!(
                        "{what} answered 200 with the whole object"
                    ))
                    .into())
                }
            },
            206 => {
                if content_type.starts_with("multipart/") {
                    return Err(Error::RangeNotSupported(format!(
                        "{what} answered {content_type}, not the one range asked"
                    ))
                    .into());
                }
                check_span(ask, &what, content_range.as_deref())?
            }
            other => {
                return Err(Error::HttpStatus {
                    status: other,
                    message: format!("{what} answered {other}"),
                }
                .into())
            }
        };
        if let Some(encoding) = encoding.filter(|e| !e.eq_ignore_ascii_case("identity")) {
            return Err(Error::ContentEncoded(format!(
                "{what} came with Content-Encoding: {encoding}"
            ))
            .into());
        }
        if let (Some(old), Some(new)) = (pinned_etag.as_deref(), etag.as_deref()) {
            if old != new {
                return Err(changed(format!(
                    "{what}: ETag {new} is not the {old} it had when opened"
                )));
            }
        }
        if let Some(old) = pinned_size.filter(|&old| old != size) {
            return Err(changed(format!(
                "{what}: the object is {size} bytes now, {old} when opened"
            )));
        }
        if let Some(length) = length.filter(|&l| l != want) {
            return Err(Error::RangeNotSupported(format!(
                "{what} sent Content-Length {length} for {want} bytes"
            ))
            .into());
        }
        let body = response
            .body_mut()
            .with_config()
            .limit(want)
            .read_to_vec()
            .map_err(|e| match e {
                ureq::Error::BodyExceedsLimit(_) => Failure::Final(Error::RangeNotSupported(
                    format!("{what} sent more than the {want} bytes asked"),
                )),
                e => transport(e, &what),
            })?;
        if body.len() as u64 != want {
            return Err(Error::RangeNotSupported(format!(
                "{what} sent {} bytes, expected {want}",
                body.len()
            ))
            .into());
        }
        let mut pinned = self.pinned();
        pinned.size.get_or_insert(size);
        if pinned.etag.is_none() {
            pinned.etag = etag;
        }
        Ok((body, size))
    }

    /// What a 416 means: an empty object (tail), a read past the end, or,
    /// without a size to read it by, a status the reader cannot use.
    fn unsatisfiable(
        &self,
        ask: Ask,
        what: &str,
        content_range: Option<&str>,
    ) -> Result<(Vec<u8>, u64), Failure> {
        let total = content_range
            .and_then(|v| v.trim().strip_prefix("bytes */"))
            .and_then(|n| n.parse::<u64>().ok());
        let mut pinned = self.pinned();
        match (ask, total) {
            (_, Some(size)) if pinned.size.is_some_and(|p| p != size) => Err(changed(format!(
                "{what}: the object is {size} bytes now, {} when opened",
                pinned.size.unwrap_or_default()
            ))),
            // An empty object has no suffix to give.
            (Ask::Tail(_), Some(0)) => {
                pinned.size = Some(0);
                Ok((Vec::new(), 0))
            }
            (Ask::Range(start, end), Some(size)) => {
                Err(Failure::Final(Error::OutOfBounds(format!(
                    "range {start}..{end} is outside {} of {size} bytes",
                    self.url
                ))))
            }
            _ => Err(Failure::Final(Error::HttpStatus {
                status: 416,
                message: format!(
                    "{what} answered 416 with Content-Range {}",
                    content_range.unwrap_or("missing")
                ),
            })),
        }
    }

    fn read(&self, range: Range<u64>) -> Result<Vec<u8>> {
        if range.start > range.end {
            return Err(Error::OutOfBounds(format!(
                "range {}..{} is reversed",
                range.start, range.end
            )));
        }
        let size = self.pinned().size;
        if let Some(size) = size.filter(|&s| range.end > s) {
            return Err(Error::OutOfBounds(format!(
                "range {}..{} is outside {} of {size} bytes",
                range.start, range.end, self.url
            )));
        }
        if range.start == range.end {
            return Ok(Vec::new());
        }
        self.fetch(Ask::Range(range.start, range.end))
            .map(|(bytes, _)| bytes)
    }

    fn tail(&self, len: u64) -> Result<Tail> {
        if len == 0 {
            return Err(Error::InvalidArgument("a tail read of 0 bytes".into()));
        }
        let (bytes, object_size) = self.fetch(Ask::Tail(len))?;
        Ok(Tail { bytes, object_size })
    }
}

fn changed(message: String) -> Failure {
    Failure::Final(Error::ObjectChanged(message))
}

/// The bytes a 206 must carry and the object's size, from its
/// `Content-Range`, checked against what was asked.
fn check_span(ask: Ask, what: &str, content_range: Option<&str>) -> Result<(u64, u64), Failure> {
    let parsed = content_range.and_then(parse_content_range);
    let wrong = || {
        Failure::Final(Error::RangeNotSupported(format!(
            "{what} answered 206 with Content-Range {}",
            content_range.unwrap_or("missing")
        )))
    };
    let (start, end, total) = parsed.ok_or_else(wrong)?;
    match (ask, total) {
        (Ask::Range(a, b), Some(size)) if b > size && start == a && end + 1 == size => {
            Err(Failure::Final(Error::OutOfBounds(format!(
                "{what}: the object is {size} bytes"
            ))))
        }
        (Ask::Range(a, b), _) if start == a && end + 1 == b => {
            // The size is unknown when the server says `*`; the end asked is
            // then all we know it has.
            Ok((b - a, total.unwrap_or(b)))
        }
        (Ask::Tail(len), Some(size)) if end + 1 == size && end + 1 - start == len.min(size) => {
            Ok((end + 1 - start, size))
        }
        _ => Err(wrong()),
    }
}

/// `bytes START-END/TOTAL`, the total `*` when unknown; `None` when it is
/// not that or the span is reversed.
fn parse_content_range(value: &str) -> Option<(u64, u64, Option<u64>)> {
    let rest = value.trim().strip_prefix("bytes ")?;
    let (span, total) = rest.split_once('/')?;
    let (start, end) = span.split_once('-')?;
    let total = match total {
        "*" => None,
        n => Some(n.parse().ok()?),
    };
    let (start, end): (u64, u64) = (start.parse().ok()?, end.parse().ok()?);
    (start <= end && total.is_none_or(|t| end < t)).then_some((start, end, total))
}

/// A request that failed before a status or during the body.
fn transport(e: ureq::Error, what: &str) -> Failure {
    let timed_out = match &e {
        ureq::Error::Timeout(_) => true,
        ureq::Error::Io(io) => io.kind() == std::io::ErrorKind::TimedOut,
        _ => false,
    };
    if timed_out {
        Failure::Final(Error::Timeout(format!("{what}: {e}")))
    } else {
        Failure::Retry(Error::Network(format!("{what}: {e}")))
    }
}

fn gave_up(e: Error, attempts: u32) -> Error {
    let note = format!(" (gave up after {attempts} attempts)");
    match e {
        Error::HttpStatus { status, message } => Error::HttpStatus {
            status,
            message: message + &note,
        },
        Error::Network(m) => Error::Network(m + &note),
        other => other,
    }
}

impl ByteSource for HttpSource {
    fn read_range(&self, range: Range<u64>) -> SourceFuture<'_, Vec<u8>> {
        Box::pin(async move { self.read(range) })
    }

    fn read_tail(&self, len: u64) -> SourceFuture<'_, Tail> {
        Box::pin(async move { self.tail(len) })
    }

    fn describe(&self) -> String {
        self.url.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_ranges_parse() {
        assert_eq!(
            parse_content_range("bytes 0-9/100"),
            Some((0, 9, Some(100)))
        );
        assert_eq!(parse_content_range("bytes 5-5/*"), Some((5, 5, None)));
        assert_eq!(parse_content_range("bytes 9-5/100"), None);
        assert_eq!(parse_content_range("bytes 0-100/100"), None);
        assert_eq!(parse_content_range("items 0-1/2"), None);
    }

    #[test]
    fn spans_are_held_to_the_ask() {
        let what = "GET x";
        assert!(matches!(
            check_span(Ask::Range(10, 20), what, Some("bytes 10-19/100")),
            Ok((10, 100))
        ));
        assert!(matches!(
            check_span(Ask::Tail(30), what, Some("bytes 70-99/100")),
            Ok((30, 100))
        ));
        assert!(matches!(
            check_span(Ask::Tail(300), what, Some("bytes 0-99/100")),
            Ok((100, 100))
        ));
        for (ask, header) in [
            (Ask::Range(10, 20), Some("bytes 0-9/100")),
            (Ask::Range(10, 20), Some("bytes 10-29/100")),
            (Ask::Range(10, 20), None),
            (Ask::Tail(30), Some("bytes 60-99/100")),
            (Ask::Tail(30), Some("bytes 70-99/*")),
        ] {
            assert!(
                matches!(
                    check_span(ask, what, header),
                    Err(Failure::Final(Error::RangeNotSupported(_)))
                ),
                "{header:?}"
            );
        }
        assert!(matches!(
            check_span(Ask::Range(90, 110), what, Some("bytes 90-99/100")),
            Err(Failure::Final(Error::OutOfBounds(_)))
        ));
    }
}
