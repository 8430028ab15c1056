//! The open decoder of `data.atlas`: its tail, then the rest of the
//! collection footer when the probe did not hold it, then the footer
//! decoded. Built on the sans-IO machinery of [`open`](crate::format::open).

use std::ops::Range;

use crate::error::Result;
use crate::format::budget::check;
use crate::format::container::{check_header, decode_trailer, HEADER_SIZE};
use crate::format::footer::CollectionFooter;
use crate::format::open::{
    expect_range, expect_tail, join_head, slice_of, spent, Fetched, Need, OpenDecoder, Step,
};

/// A compressed footer may not exceed this: the bound keeps a forged trailer
/// from asking for a multi-gigabyte read.
const MAX_COMPRESSED_FOOTER: u64 = 256 * 1024 * 1024;

/// Opens `data.atlas`: the tail, then (when the footer is longer than the
/// probe) the rest of the footer, then the decoded footer.
#[derive(Debug)]
pub struct ContainerOpen {
    probe: u64,
    budget: u64,
    state: ContainerState,
}

#[derive(Debug)]
enum ContainerState {
    Start,
    /// The footer is longer than the tail: its head is missing.
    Head {
        object_size: u64,
        footer: Range<u64>,
        held: Vec<u8>,
        held_from: u64,
    },
    Footer {
        object_size: u64,
        bytes: Vec<u8>,
        held: Vec<u8>,
        held_from: u64,
    },
    Spent,
}

/// What opening a container yields.
#[derive(Debug)]
pub struct OpenedContainer {
    /// The decoded, validated footer.
    pub footer: CollectionFooter,
    /// The size of `data.atlas`.
    pub object_size: u64,
    /// The last bytes of the object the open read (from `held_from` to the
    /// end): segments written last often lie inside them.
    pub held: Vec<u8>,
    /// Where `held` starts in the object.
    pub held_from: u64,
}

impl ContainerOpen {
    /// A decoder whose first request is the last `probe` bytes, and which
    /// holds the footer (compressed and decoded) to `budget` bytes.
    pub fn new(probe: u64, budget: u64) -> ContainerOpen {
        ContainerOpen {
            probe: probe.max(crate::format::container::TRAILER_SIZE),
            budget,
            state: ContainerState::Start,
        }
    }
}

impl OpenDecoder for ContainerOpen {
    type Output = OpenedContainer;

    fn next(&mut self) -> Result<Step<OpenedContainer>> {
        match &self.state {
            ContainerState::Start => Ok(Step::Need(Need::Tail(self.probe))),
            ContainerState::Head {
                footer, held_from, ..
            } => Ok(Step::Need(Need::Range(footer.start..*held_from))),
            ContainerState::Footer { .. } => {
                let ContainerState::Footer {
                    object_size,
                    bytes,
                    held,
                    held_from,
                } = std::mem::replace(&mut self.state, ContainerState::Spent)
                else {
                    return Err(spent());
                };
                let footer = CollectionFooter::decode(&bytes, object_size, self.budget)?;
                Ok(Step::Done(OpenedContainer {
                    footer,
                    object_size,
                    held,
                    held_from,
                }))
            }
            ContainerState::Spent => Err(spent()),
        }
    }

    fn push(&mut self, fetched: Fetched) -> Result<()> {
        match std::mem::replace(&mut self.state, ContainerState::Spent) {
            ContainerState::Start => {
                let (tail, object_size) = expect_tail(fetched, self.probe)?;
                let footer = decode_trailer(&tail, object_size)?;
                check(
                    footer.end - footer.start,
                    self.budget.min(MAX_COMPRESSED_FOOTER),
                    "the compressed collection footer",
                )?;
                let held_from = object_size - tail.len() as u64;
                if held_from == 0 {
                    check_header(tail.get(..HEADER_SIZE as usize).unwrap_or(&[]))?;
                }
                self.state = match slice_of(&tail, held_from, &footer) {
                    Some(bytes) => ContainerState::Footer {
                        object_size,
                        bytes,
                        held: tail,
                        held_from,
                    },
                    None => ContainerState::Head {
                        object_size,
                        footer,
                        held: tail,
                        held_from,
                    },
                };
                Ok(())
            }
            ContainerState::Head {
                object_size,
                footer,
                held,
                held_from,
            } => {
                let head = expect_range(fetched, &(footer.start..held_from))?;
                let bytes = join_head(head, &held, held_from, &footer)?;
                self.state = ContainerState::Footer {
                    object_size,
                    bytes,
                    held,
                    held_from,
                };
                Ok(())
            }
            ContainerState::Footer { .. } | ContainerState::Spent => Err(spent()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_foreign_tail_is_refused_at_the_first_push() {
        let mut open = ContainerOpen::new(1024, 1 << 20);
        assert!(matches!(open.next().unwrap(), Step::Need(Need::Tail(1024))));
        let err = open.push(Fetched::tail(vec![0; 100], 100)).unwrap_err();
        assert_eq!(err.code(), "NotAnAtlasCollection");
    }

    #[test]
    fn answers_of_the_wrong_shape_are_errors() {
        let mut open = ContainerOpen::new(1024, 1 << 20);
        // Longer than asked.
        assert_eq!(
            open.push(Fetched::tail(vec![0; 2000], 5000))
                .unwrap_err()
                .code(),
            "Io"
        );
        let mut open = ContainerOpen::new(1024, 1 << 20);
        assert_eq!(
            open.push(Fetched::range(0, vec![])).unwrap_err().code(),
            "Io"
        );
        // Driven past its end.
        let mut open = ContainerOpen::new(1024, 1 << 20);
        let _ = open.push(Fetched::tail(vec![0; 100], 100));
        assert!(open.next().is_err());
    }
}
