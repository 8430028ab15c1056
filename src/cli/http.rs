//! A blocking HTTP byte source for the CLI: one ranged GET per read.
//!
//! The core's futures are polled by `block_on` on this thread, so a
//! blocking request inside one costs nothing extra and needs no runtime.

use std::ops::Range;
use std::sync::Mutex;

use atlas_wasm::source::{ByteSource, SourceFuture, Tail};
use atlas_wasm::{Error, Result};

/// Status, `Content-Range`, `ETag` and body of one answer.
struct Answer {
    status: u16,
    content_range: Option<String>,
    etag: Option<String>,
    body: Vec<u8>,
}

pub struct HttpSource {
    url: String,
    agent: ureq::Agent,
    /// Size and ETag from the first answer; a later answer that disagrees
    /// means the object changed under us.
    seen: Mutex<(Option<u64>, Option<String>)>,
}

impl HttpSource {
    pub fn new(url: String) -> Self {
        let agent = ureq::Agent::config_builder()
            // Statuses are checked here, with the URL in the message.
            .http_status_as_error(false)
            .timeout_global(Some(std::time::Duration::from_secs(120)))
            .build()
            .into();
        Self {
            url,
            agent,
            seen: Mutex::new((None, None)),
        }
    }

    fn get(&self, range: &str, limit: u64) -> Result<Answer> {
        let mut response = self
            .agent
            .get(&self.url)
            .header("Range", range)
            // An encoded body would make the byte range meaningless.
            .header("Accept-Encoding", "identity")
            .call()
            .map_err(|e| Error::Io(format!("GET {}: {e}", self.url)))?;
        let status = response.status().as_u16();
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let (content_range, etag) = (header("content-range"), header("etag"));
        if status == 404 {
            return Err(Error::NotFound(self.url.clone()));
        }
        let body = if status == 200 || status == 206 {
            response
                .body_mut()
                .with_config()
                .limit(limit)
                .read_to_vec()
                .map_err(|e| Error::Io(format!("GET {}: {e}", self.url)))?
        } else {
            Vec::new()
        };
        Ok(Answer {
            status,
            content_range,
            etag,
            body,
        })
    }

    /// Records size and ETag, or reports a change.
    fn check(&self, size: u64, etag: Option<String>) -> Result<()> {
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        match (&*seen, &etag) {
            ((Some(s), _), _) if *s != size => Err(Error::ObjectChanged(format!(
                "{} was {s} bytes and is now {size}",
                self.url
            ))),
            ((_, Some(old)), Some(new)) if old != new => Err(Error::ObjectChanged(format!(
                "{} changed its ETag from {old} to {new}",
                self.url
            ))),
            _ => {
                *seen = (Some(size), etag.or(seen.1.take()));
                Ok(())
            }
        }
    }

    fn read(&self, range: Range<u64>) -> Result<Vec<u8>> {
        if range.start == range.end {
            return Ok(Vec::new());
        }
        let want = range.end - range.start;
        let Answer {
            status,
            content_range,
            etag,
            body,
        } = self.get(&format!("bytes={}-{}", range.start, range.end - 1), want)?;
        // A 200 is the whole object, not the range: treating it as the range
        // would hand back the wrong bytes.
        if status != 206 {
            return Err(Error::Io(format!(
                "{} answered {status} to a range request; the server must support HTTP range requests (206)",
                self.url
            )));
        }
        let (start, end, total) = parse_content_range(content_range.as_deref())
            .ok_or_else(|| Error::Io(format!("{} sent no usable Content-Range", self.url)))?;
        if start != range.start || end + 1 != range.end || body.len() as u64 != want {
            return Err(Error::Io(format!(
                "{} answered bytes {start}-{end} ({} bytes) to a request for {}-{}",
                self.url,
                body.len(),
                range.start,
                range.end - 1
            )));
        }
        if let Some(total) = total {
            self.check(total, etag)?;
        }
        Ok(body)
    }

    fn tail(&self, len: u64) -> Result<Tail> {
        if len == 0 {
            return Err(Error::InvalidArgument("a tail read of 0 bytes".into()));
        }
        let Answer {
            status,
            content_range,
            etag,
            body,
        } = self.get(&format!("bytes=-{len}"), len.max(1 << 30))?;
        let object_size = match status {
            206 => parse_content_range(content_range.as_deref())
                .and_then(|(_, _, t)| t)
                .ok_or_else(|| {
                    Error::Io(format!(
                        "{} sent no total size in Content-Range (needed for a suffix range)",
                        self.url
                    ))
                })?,
            // The whole object: what a server that ignores ranges sends.
            200 => body.len() as u64,
            // An empty object cannot satisfy a suffix range.
            416 => 0,
            other => return Err(Error::Io(format!("GET {} answered {other}", self.url))),
        };
        self.check(object_size, etag)?;
        let keep = (len as usize).min(body.len());
        Ok(Tail {
            bytes: body[body.len() - keep..].to_vec(),
            object_size,
        })
    }
}

/// `bytes START-END/TOTAL`, the total `*` when unknown.
fn parse_content_range(value: Option<&str>) -> Option<(u64, u64, Option<u64>)> {
    let rest = value?.trim().strip_prefix("bytes ")?;
    let (span, total) = rest.split_once('/')?;
    let (start, end) = span.split_once('-')?;
    let total = if total == "*" {
        None
    } else {
        Some(total.parse().ok()?)
    };
    Some((start.parse().ok()?, end.parse().ok()?, total))
}

impl ByteSource for HttpSource {
    fn read_range(&self, range: Range<u64>) -> SourceFuture<'_, Vec<u8>> {
        let result = self.read(range);
        Box::pin(async move { result })
    }

    fn read_tail(&self, len: u64) -> SourceFuture<'_, Tail> {
        let result = self.tail(len);
        Box::pin(async move { result })
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
            parse_content_range(Some("bytes 0-9/100")),
            Some((0, 9, Some(100)))
        );
        assert_eq!(parse_content_range(Some("bytes 5-5/*")), Some((5, 5, None)));
        assert_eq!(parse_content_range(Some("items 0-1/2")), None);
        assert_eq!(parse_content_range(None), None);
    }
}
