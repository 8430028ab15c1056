//! The one loop that feeds a sans-IO open decoder from a byte source.

use crate::error::Result;
use crate::format::open::{Fetched, Need, OpenDecoder, Step};
use crate::source::{ByteSource, Tail};

/// Asks `decoder` what it needs, fetches it from `source`, hands it over, and
/// repeats until the decoder has its value.
pub(crate) async fn drive<D: OpenDecoder>(
    source: &dyn ByteSource,
    mut decoder: D,
) -> Result<D::Output> {
    loop {
        let fetched = match decoder.next()? {
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
