//! The one loop that feeds a sans-IO open decoder from a byte source.

use crate::error::Result;
use crate::format::open::{Fetched, Need, OpenDecoder, Step};
use crate::source::{ByteSource, Tail};

/// Asks `decoder` what it needs, fetches it from `source`, hands it over, and
/// repeats until the decoder has its value.
pub(crate) async fn drive<D: OpenDecoder>(
    source: &dyn ByteSource,
    decoder: D,
) -> Result<D::Output> {
    drive_holding(source, None, decoder).await
}

/// [`drive`], answering from `held` (bytes of the object from some offset to
/// its end, already read) whatever lies inside it.
pub(crate) async fn drive_holding<D: OpenDecoder>(
    source: &dyn ByteSource,
    held: Option<&Held>,
    mut decoder: D,
) -> Result<D::Output> {
    loop {
        let need = decoder.next()?;
        if let (Step::Need(need), Some(held)) = (&need, held) {
            if let Some(fetched) = held.answer(need) {
                decoder.push(fetched)?;
                continue;
            }
        }
        let fetched = match need {
            Step::Done(value) => return Ok(value),
            Step::Need(Need::Tail(len)) => {
                let Tail { bytes, object_size } = source.read_tail(len).await?;
                Fetched::tail(bytes, object_size)
            }
            Step::Need(Need::Range(range)) => {
                let start = range.start;
                Fetched::range(start, source.read_range(range).await?)
            }
        };
        decoder.push(fetched)?;
    }
}

/// The end of an object, read once (by the open), kept to answer later needs.
pub(crate) struct Held {
    /// Where `bytes` starts in the object.
    pub(crate) from: u64,
    /// The object's last bytes, to its end.
    pub(crate) bytes: Vec<u8>,
}

impl Held {
    fn answer(&self, need: &Need) -> Option<Fetched> {
        let object_size = self.from + self.bytes.len() as u64;
        match need {
            Need::Tail(len) if *len <= self.bytes.len() as u64 => {
                let at = self.bytes.len() - *len as usize;
                Some(Fetched::tail(self.bytes[at..].to_vec(), object_size))
            }
            Need::Range(r) if r.start >= self.from && r.start <= r.end && r.end <= object_size => {
                let (a, b) = ((r.start - self.from) as usize, (r.end - self.from) as usize);
                Some(Fetched::range(r.start, self.bytes[a..b].to_vec()))
            }
            _ => None,
        }
    }
}
